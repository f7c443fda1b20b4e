"""The club night in Debian's Chromium: chat, safe names, the TV table screen, the replay viewer.

Screenshots go to test-artifacts/ (and the README's to docs/screenshots/).
"""

from __future__ import annotations

import asyncio
import json
import random
import threading
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from clients.session import ClientSession
from engine.game import Game
from engine.record import Record
from engine.replay import replay
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.base import MAX_NAME_CHARS
from protocol.text import clean_text
from tests.server.players import leaked_cards, play_until_finished
from tests.web.conftest import CLUB, ROOT, SHOTS, NewContext

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def web_url(club_server: tuple[str, str]) -> str:
    """The module's pages are served by the club server (the conftest's, with --clubs)."""
    return club_server[0]


VIEWPORTS = [(1280, 720), (1366, 768), (1920, 1080), (390, 844)]
DIRTY = "\u202eEva\x00<img src=x onerror=alert(1)>" + "z" * 500


def open_table(page: Page, base: str, public: bool = False) -> dict[str, str]:
    page.goto(f"{base}/?lang=en")
    page.fill("#player-name", "Lucía")
    page.select_option("#turn-timer", "0")
    page.uncheck("#fill-bots")
    page.click("button[type=submit]")
    page.wait_for_selector("#go-to-table")
    return {"join": page.input_value("#link-join"), "watch": page.input_value("#link-watch")}


def chat(page: Page, text: str) -> None:
    page.fill("#chat-input", text)
    page.click("#chat-send")


def lines(page: Page) -> list[str]:
    texts: list[str] = page.locator(".chat-line .chat-text").all_inner_texts()
    return texts


def test_players_chat_together_and_a_spectators_line_reaches_spectators_only(
    web_url: str, new_context: NewContext, artifacts: Path
) -> None:
    host = new_context().new_page()
    links = open_table(host, web_url)
    host.click("#go-to-table")
    guest = new_context().new_page()
    guest.add_init_script(f"localStorage.setItem('cuarenta.name', {json.dumps(json.dumps(DIRTY))})")
    guest.goto(links["join"] + "?lang=en")
    watcher = new_context().new_page()
    watcher.goto(links["watch"] + "?lang=en")
    for page in (host, guest, watcher):
        page.wait_for_selector("#chat-input")

    chat(host, "¡Hola, mesa!")
    chat(guest, "Buenas")
    for page in (host, guest, watcher):
        expect(page.locator(".chat-players .chat-text")).to_have_text(["¡Hola, mesa!", "Buenas"])
    chat(watcher, "Qué partida")
    expect(watcher.locator(".chat-spectators .chat-text")).to_have_text(["Qué partida"])
    chat(host, "sigo")
    expect(host.locator(".chat-line")).to_have_count(3)  # the spectator's line never arrived
    assert "Qué partida" not in lines(host) + lines(guest)

    # the guest's name arrived cleaned and is shown as text: no element made from it
    shown = guest.locator(".chat-players .chat-who").nth(1).inner_text()
    assert shown == clean_text(DIRTY, MAX_NAME_CHARS)
    assert "\u202e" not in shown
    assert "\x00" not in shown
    for page in (host, guest, watcher):
        assert page.locator(".chat-panel img, .seat img").count() == 0

    # a burst of lines meets the rate limit: a calm note, what was typed is kept
    for n in range(8):
        chat(host, f"línea {n}")
    expect(host.locator(".chat-note[data-kind=calm]")).to_be_visible()
    for width, height in VIEWPORTS:
        host.set_viewport_size({"width": width, "height": height})
        assert_chat_beside_the_table(host, width)
        host.screenshot(path=str(artifacts / f"chat-{width}x{height}.png"))


CHAT_CLEAR_OF_FELT = """() => {
  const chat = document.querySelector("#chat");
  const felt = document.querySelector(".felt, .table-main");
  if (!chat || !felt) return false;
  const a = chat.getBoundingClientRect(), b = felt.getBoundingClientRect();
  return a.left >= b.right || a.right <= b.left || a.top >= b.bottom || a.bottom <= b.top;
}"""


def assert_chat_beside_the_table(page: Page, width: int) -> None:
    """The chat never overlaps the felt: beside it on wide screens, below it on a phone.

    Checked once the page has laid itself out for the new size (its fit runs on resize)."""
    try:
        page.wait_for_function(CHAT_CLEAR_OF_FELT, timeout=5000)
    except PlaywrightTimeout:
        chat_box = page.locator("#chat").bounding_box()
        felt = page.locator(".felt, .table-main").first.bounding_box()
        raise AssertionError(("the chat overlaps the felt", width, chat_box, felt)) from None


class Host:
    """A person at seat 0 (a Python client on its own event loop thread) with three bots."""

    def __init__(self, web_url: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.ws_url = web_url.replace("http://", "ws://") + "/ws"
        self.session: ClientSession | None = None
        self.rng = random.Random(15)

    def run(self, coroutine: Any, timeout: float = 60) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    async def _open(self) -> s.TableCreated:
        self.session = await ClientSession.connect(self.ws_url, "Lucía")
        created = await self.session.request(c.CreateTable(public=True))
        assert isinstance(created, s.TableCreated)
        await self.session.request(c.Join(key=created.host_key))
        for seat in (1, 2, 3):
            await self.session.request(c.AddBot(level=1, seat=seat))
        await self.session.request(c.Start())
        return created

    def open(self) -> s.TableCreated:
        created: s.TableCreated = self.run(self._open())
        return created

    async def _play(self, stop_after: int | None) -> s.Snapshot:
        assert self.session is not None
        held = self.session.snapshot  # where an earlier stop left it: perhaps our turn
        required = [a for a in (held.legal if held else []) if isinstance(a, c.Play | c.Announce)]
        if required:
            await self.session.act(self.rng.choice(required))
        return await play_until_finished(self.session, self.rng, stop_after)

    def play(self, stop_after: int | None = None) -> s.Snapshot:
        snap: s.Snapshot = self.run(self._play(stop_after))
        return snap

    def record(self) -> dict[str, Any]:
        assert self.session is not None
        answer = self.run(self.session.request(c.GetRecord()))
        assert isinstance(answer, s.RecordMessage)
        return dict(answer.record)

    def close(self) -> None:
        if self.session is not None:
            self.run(self.session.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


def test_the_tv_screen_joined_mid_game_shows_the_whole_log_both_piles_and_no_hidden_card(
    web_url: str, new_context: NewContext, artifacts: Path
) -> None:
    host = Host(web_url)
    try:
        created = host.open()
        host.play(stop_after=45)  # well into the first hand
        tv = new_context(viewport={"width": 1920, "height": 1080}).new_page()
        frames: list[bytes] = []
        tv.on(
            "websocket",
            lambda ws: ws.on(
                "framereceived",
                lambda data: frames.append(data if isinstance(data, bytes) else data.encode()),
            ),
        )
        tv.goto(f"{web_url}/t/{created.watch_key}?screen&lang=en")
        tv.wait_for_selector(".tv")
        log = fetch_json(tv, f"{web_url}/watch-log/{created.watch_key}")["log"]
        drawn = next(e["n"] for e in log if e["event"]["type"] == "dealer_drawn")
        plays = [e["n"] for e in log if e["event"]["type"] == "played"]
        assert len(plays) >= 20  # the screen joins mid-game
        shown = tv.locator(".tv-log-lines li")
        expect(shown.last).to_have_attribute("data-n", str(drawn))  # from the diamond draw (R3)
        numbers = {int(n) for n in shown.evaluate_all("(els) => els.map((e) => e.dataset.n)")}
        assert set(plays) <= numbers  # every play so far, not only those after the joining
        for team in (0, 1):
            expect(tv.locator(f"[data-pile='{team}']")).to_contain_text("cards")
            expect(tv.locator(f"[data-score='{team}']")).to_be_visible()
        tv.screenshot(path=str(artifacts / "tv-1920x1080-mid-game.png"))
        for _ in range(8):  # a felt just swept clean (a limpia) shows no card: play on a little
            if tv.locator(".tv-cards .card").count():
                break
            shown_at = tv.evaluate("globalThis.__cuarenta.model.lastEvent")
            last = host.play(stop_after=shown_at).last_event
            tv.wait_for_function(f"globalThis.__cuarenta.model.lastEvent >= {last}")
        assert_cards_legible_from_three_metres(tv, 1080)
        # a dropped connection: the screen watches again, and the plays it missed are in its log
        welcomes = tv.evaluate("globalThis.__cuarenta.model.welcomes")
        tv.evaluate("globalThis.__cuarenta.dropConnection()")
        host.play(stop_after=plays[-1] + 12)
        tv.wait_for_function(f"globalThis.__cuarenta.model.welcomes > {welcomes}")
        log = fetch_json(tv, f"{web_url}/watch-log/{created.watch_key}")["log"]
        plays = [e["n"] for e in log if e["event"]["type"] == "played"]
        tv.wait_for_function(
            f"Number(document.querySelector('.tv-log-lines li').dataset.n) >= {plays[-1]}"
        )
        numbers = {int(n) for n in shown.evaluate_all("(els) => els.map((e) => e.dataset.n)")}
        assert set(plays) <= numbers
        host.play()  # to the end: the hands' score sheet fills in
        expect(tv.locator(".tv-final")).to_be_visible(timeout=30_000)
        expect(tv.locator(".tv-sheet tbody tr").first).to_be_visible()
        tv.screenshot(path=str(artifacts / "tv-1920x1080.png"))
        SHOTS.mkdir(exist_ok=True)
        tv.screenshot(path=str(SHOTS / "tv-table-screen.png"))
        assert_legible_from_three_metres(tv, 1080)
        tv.set_viewport_size({"width": 1280, "height": 720})
        tv.screenshot(path=str(artifacts / "tv-1280x720.png"))
        assert_legible_from_three_metres(tv, 720)
        record = host.record()
        assert frames
        assert leaked_cards(frames, None, record) == []
        # the rematch: the screen follows the table into the next game by itself
        assert host.session is not None
        host.run(host.session.request(c.Rematch()))
        expect(tv.locator(".tv-final")).to_have_count(0, timeout=10_000)
        later = tv.locator(".tv-log-lines li").last  # the oldest line shown: the new draw
        expect(later).not_to_have_attribute("data-n", str(drawn))
    finally:
        host.close()


def fetch_json(page: Page, url: str) -> Any:
    return page.evaluate("async (url) => (await fetch(url)).json()", url)


def test_the_replay_viewer_steps_a_record_to_the_end_and_back_with_the_engines_score(
    web_url: str, new_context: NewContext, artifacts: Path
) -> None:
    path = ROOT / "tests" / "data" / "games" / "pagat-4p-claim.json"
    expected = replay(Record.from_json(json.loads(path.read_text())))
    page = new_context(viewport={"width": 1366, "height": 900}).new_page()
    page.goto(f"{web_url}/replay?lang=en")
    page.set_input_files("#replay-file", str(path))
    page.wait_for_selector("#replay-forward")
    steps = page.evaluate("globalThis.__replay.replay.steps.length")
    assert steps == len(json.loads(path.read_text())["actions"]) + 1
    for _ in range(steps - 1):
        page.click("#replay-forward")
    expect(page.locator("#replay-forward")).to_be_disabled()
    shown = [int(page.inner_text(f"#replay-score [data-score='{team}']")) for team in (0, 1)]
    assert shown == expected["scores"]
    counted = ".replay-sheet tbody tr[data-team='0'][data-counted='true']"  # a line pair per hand
    assert page.locator(counted).count() == len(expected["hands"])
    page.screenshot(path=str(artifacts / "replay-end.png"))
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "replay-viewer.png"))
    for _ in range(steps - 1):
        page.click("#replay-back")
    expect(page.locator("#replay-back")).to_be_disabled()
    start = Game.from_record(Record.from_json(json.loads(path.read_text())), play_actions=False)
    expect(page.locator("#replay-score")).to_have_text(f"{start.scores[0]} – {start.scores[1]}")
    assert page.locator(".replay-hand .card").count() == 20  # four hands of five, face up


def test_a_public_table_is_in_the_lobby_within_a_second_and_a_private_one_never(
    web_url: str, new_context: NewContext, artifacts: Path
) -> None:
    lobby = new_context().new_page()
    lobby.goto(f"{web_url}/tables?lang=en")
    host = new_context().new_page()
    host.goto(f"{web_url}/?lang=en")
    host.fill("#player-name", "Lucía")
    host.check("#public-table")
    host.click("button[type=submit]")
    host.wait_for_selector("#link-watch")
    watch = host.input_value("#link-watch")
    host.goto(f"{web_url}/?lang=en")
    host.fill("#player-name", "Privada")
    host.click("button[type=submit]")
    host.wait_for_selector("#link-watch")
    private_watch = host.input_value("#link-watch")
    key = watch.rsplit("/t/", 1)[1]
    expect(lobby.locator(f".lobby-watch[href^='/t/{key}']")).to_be_visible(timeout=1000)
    lobby.screenshot(path=str(artifacts / "lobby.png"))
    listed = fetch_json(lobby, f"{web_url}/tables.json")
    assert private_watch.rsplit("/t/", 1)[1] not in json.dumps(listed)
    assert "Privada" not in lobby.inner_text("main")


def test_the_club_page_shows_the_finished_game_with_its_replay_and_guards_the_export(
    club_server: tuple[str, str], new_context: NewContext, artifacts: Path
) -> None:
    web_url, host_key = club_server
    bots = Host(web_url)
    try:
        table = bots.run(play_club_game(bots.ws_url, host_key))
    finally:
        bots.close()
    page = new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.goto(f"{web_url}/c/{CLUB}?lang=en")
    result = page.locator(f".club-result[data-table='{table}']")
    expect(result).to_be_visible(timeout=5000)
    expect(result).to_contain_text(" and ")  # a team worded as the table page words it (team.pair)
    assert "&" not in result.inner_text()
    page.screenshot(path=str(artifacts / "club-page.png"))
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "club-page.png"))
    refused = page.evaluate("async (u) => (await fetch(u)).status", f"/c/{CLUB}/results.json")
    assert refused == 403
    export = fetch_json(page, f"/c/{CLUB}/results.json?key={host_key}")
    assert [(r["table"], r["game"]) for r in export["results"]] == [(table, 1)]
    result.locator("a", has_text="replay").click()
    page.wait_for_selector("#replay-forward")
    steps = page.evaluate("globalThis.__replay.replay.steps.length")
    page.click("#replay-end")
    shown = [int(page.inner_text(f"#replay-score [data-score='{team}']")) for team in (0, 1)]
    assert shown == export["results"][0]["scores"]
    assert steps > 1


async def play_club_game(ws_url: str, host_key: str) -> str:
    """Four bots at the club table (seated with its host key) play a whole game."""
    async with await ClientSession.connect(ws_url, "Referee") as referee:
        await referee.request(c.Watch(key=host_key))
        for seat in range(4):
            await referee.request(c.AddBot(level=1, seat=seat))
        await referee.request(c.Start())
        snap = await referee.next_snapshot(lambda x: x.info.stage == "finished", wait_s=60)
        return snap.info.table


TV_CARDS = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, w: r.width}; };
  return {room: box(document.querySelector(".tv-cards")),
    cards: [...document.querySelectorAll(".tv-cards .card")].map(box)};
}"""


def assert_cards_legible_from_three_metres(tv: Page, height: int) -> None:
    """The felt's cards lie whole in their room (none cut by it) and take it: as wide as 18% of
    the screen's height (tv.js cardWidth), or spanning most of the room's width or height. Their
    corner index (a fifth of a card's width: 12 of the face's 60 units, cards.js) is as tall as
    the screen's smallest text."""
    seen = tv.evaluate(TV_CARDS)
    room, cards = seen["room"], seen["cards"]
    assert cards, "cards on the felt mid-game"
    for card in cards:
        for edge in ("left", "top"):
            assert card[edge] >= room[edge] - 0.5, (edge, seen)
        for edge in ("right", "bottom"):
            assert card[edge] <= room[edge] + 0.5, (edge, seen)
    smallest = max(14, height * 0.019)
    assert min(card["w"] for card in cards) / 5 >= smallest, (seen, smallest)
    spans = [
        (max(c[far] for c in cards) - min(c[near] for c in cards)) / (room[far] - room[near])
        for near, far in (("left", "right"), ("top", "bottom"))
    ]
    largest = cards[0]["w"] >= height * 0.18 - 1
    assert largest or max(spans) >= 0.85, (spans, seen)


def assert_legible_from_three_metres(tv: Page, height: int) -> None:
    """Scores a tenth of the screen high, text at least 2% of it, nothing cut or overlapping."""
    sizes = tv.evaluate(
        """() => Object.fromEntries([".tv-score", ".tv-pile", ".tv-turn", ".tv-log-lines li",
          ".tv-seat"].map((sel) => [sel, parseFloat(getComputedStyle(document.querySelector(sel))
          .fontSize)]))"""
    )
    assert sizes[".tv-score"] >= height / 10, sizes
    assert min(sizes.values()) >= max(14, height * 0.019), sizes
    boxes = {
        sel: tv.locator(sel).first.bounding_box()
        for sel in (".tv-team-0", ".tv-team-1", ".tv-side", ".tv-felt", ".tv-qr")
    }
    for box in boxes.values():
        assert box is not None
        assert box["y"] + box["height"] <= height + 1, boxes
    side = boxes[".tv-side"]
    for sel in (".tv-team-1", ".tv-felt"):
        box = boxes[sel]
        assert box is not None
        assert side is not None
        assert box["x"] + box["width"] <= side["x"], (sel, boxes)
    for team in (0, 1):  # the score's digits stay inside their team's box
        score = tv.locator(f"[data-score='{team}']").bounding_box()
        own = boxes[f".tv-team-{team}"]
        assert score is not None
        assert own is not None
        assert score["x"] + score["width"] <= own["x"] + own["width"] + 1, (team, score, own)
        for part in (".tv-team-name", ".tv-pile"):  # names and piles never run under the score
            box = tv.locator(f".tv-team-{team} {part}").bounding_box()
            assert box is not None
            assert box["x"] + box["width"] <= score["x"] + 1, (team, part, box, score)
