"""The replay viewer in Chromium: each link names its game, and the final score is the engine's.

A Python player (seat 0, holding the host key) plays whole games against bots at machine speed; the
browser opens the table, the game-over links and the replays as a newcomer would. The final score
the viewer shows is compared with what ``cuarenta replay`` (engine.replay_cli) prints for the same
record (R15). Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest
from playwright.sync_api import Page, expect

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.base import Profile
from tests.server.players import play_until_finished
from tests.web.conftest import NewContext

pytestmark = pytest.mark.browser
VIEWPORTS = [(1280, 720), (1366, 768), (1920, 1080), (390, 844)]
ENGINE_WORDS = re.compile(r"\b[0-3] [A2-7JQK][CDHS]\b|close-claims|take-missed|\bannounce\b|Play:")


SHEETS_WHOLE = """() => [...document.querySelectorAll('.sheet-scroll')]
  .filter((scroll) => scroll.offsetParent !== null)
  .filter((scroll) => {
    const total = scroll.querySelector('thead th:last-child').getBoundingClientRect();
    const right = scroll.getBoundingClientRect().right;
    return total.right > right + 0.5 || scroll.scrollWidth > scroll.clientWidth;
  }).map((scroll) => scroll.closest('section, details, div.end-sheet')?.className)"""


class Player:
    """Ana at seat 0 (a Python client on its own event-loop thread), bots in the other chairs."""

    def __init__(self, web_url: str, profile: Profile = "pagat-4p", public: bool = False) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.ws_url = web_url.replace("http://", "ws://") + "/ws"
        self.profile, self.public = profile, public
        self.session: ClientSession | None = None
        self.created: s.TableCreated | None = None
        self.rng = random.Random(28)

    def run(self, coroutine: Any, timeout: float = 90) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    async def _open(self, bots: bool, start: bool) -> s.TableCreated:
        self.session = await ClientSession.connect(self.ws_url, "Ana")
        created = await self.session.request(
            c.CreateTable(profile=self.profile, public=self.public)
        )
        assert isinstance(created, s.TableCreated)
        await self.session.request(c.Join(key=created.host_key))
        seats = 4 if self.profile == "pagat-4p" else 2
        for seat in range(1, seats) if bots else ():
            await self.session.request(c.AddBot(level=1, seat=seat))
        if start:
            await self.session.request(c.Start())
        self.created = created
        return created

    def open(self, bots: bool = True, start: bool = True) -> s.TableCreated:
        created: s.TableCreated = self.run(self._open(bots, start))
        return created

    async def _finish(self) -> s.Snapshot:
        assert self.session is not None
        held = self.session.snapshot  # the last one read (a rematch's start): perhaps our turn
        required = [a for a in (held.legal if held else []) if isinstance(a, c.Play | c.Announce)]
        if required and held is not None and held.last_event == self.session.last_event:
            await self.session.act(self.rng.choice(required))
        return await play_until_finished(self.session, self.rng)

    def finish(self) -> s.Snapshot:
        snap: s.Snapshot = self.run(self._finish())
        return snap

    async def _rematch(self) -> None:
        assert self.session is not None
        await self.session.request(c.Rematch())
        await self.session.next_snapshot(lambda snap: snap.info.stage == "playing", wait_s=30)

    def rematch(self) -> None:
        self.run(self._rematch())

    def close(self) -> None:
        if self.session is not None:
            self.run(self.session.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


def engine_result(page: Page, record_url: str, tmp: Path) -> dict[str, Any]:
    """What `cuarenta replay` prints for the record the link serves."""
    record = page.evaluate("async (u) => (await fetch(u)).text()", record_url)
    path = tmp / "record.json"
    path.write_text(record)
    cli = Path(sys.executable).parent / "cuarenta"
    done = subprocess.run(
        [str(cli), "replay", str(path)], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.stdout, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def shown_score(page: Page) -> list[int]:
    return [int(page.inner_text(f"#replay-score [data-score='{team}']")) for team in (0, 1)]


def replay_url(base: str, created: s.TableCreated, game: int, people: list[str]) -> str:
    record = f"/record/{created.table}/{game}?key={created.host_key}"
    query = "&".join(f"seat={name}" for name in people)
    return f"{base}/replay?lang=en&record={quote(record, safe='')}&{query}"


@pytest.mark.timeout(300)
def test_after_a_rematch_game_ones_links_open_game_one_with_its_own_score(
    web_url: str, new_context: NewContext, artifacts: Path, tmp_path: Path
) -> None:
    ana = Player(web_url)
    try:
        created = ana.open()
        ana.finish()
        page = new_context(viewport={"width": 1280, "height": 720}).new_page()
        host = json.dumps(created.host_key)  # the host's browser knows the host key
        page.add_init_script(f"localStorage.setItem('cuarenta.host.{created.join_key}', '{host}')")
        page.goto(f"{web_url}/t/{created.join_key}?lang=en")
        expect(page.locator("#replay-link")).to_be_visible(timeout=15000)
        for width, height in VIEWPORTS:
            page.set_viewport_size({"width": width, "height": height})
            page.screenshot(path=str(artifacts / f"game-over-links-{width}x{height}.png"))
            assert page.evaluate(SHEETS_WHOLE) == [], f"a sheet's Total is cut at {width}x{height}"
        page.set_viewport_size({"width": 1280, "height": 720})
        first_replay = page.get_attribute("#replay-link", "href") or ""
        first_record = page.get_attribute("#record-link", "href") or ""
        assert urlsplit(first_record).path == f"/record/{created.table}/1"
        record_of_replay = parse_qs(urlsplit(first_replay).query)["record"][0]
        assert urlsplit(record_of_replay).path == f"/record/{created.table}/1"
        assert parse_qs(urlsplit(first_replay).query)["seat"][0] == "Ana"
        expect(page.locator("#lobby-link")).to_have_attribute("href", "/tables")
        ana.rematch()
        ana.finish()  # game 2 over too: "the table's latest game" is now game 2
        page.reload()  # game 2's end at once (live, the page paces every play for the eye)
        expect(page.locator("#replay-link")).to_have_attribute(
            "href", re.compile(r"%2F2%3F"), timeout=30000
        )
        game_one = engine_result(page, f"{web_url}{first_record}", tmp_path)
        game_two = engine_result(
            page, f"{web_url}/record/{created.table}/2?key={created.host_key}", tmp_path
        )
        page.goto(f"{web_url}{first_replay}")
        page.wait_for_selector("#replay-forward")
        page.keyboard.press("End")
        assert shown_score(page) == game_one["scores"]
        rows = page.locator(".replay-sheet tbody tr[data-team='0']")
        assert rows.count() >= len(game_one["hands"])
        if game_two["scores"] != game_one["scores"]:
            assert shown_score(page) != game_two["scores"]
    finally:
        ana.close()


WALK_BY_KEYS = """() => {
  const seen = [];
  const read = (selector) => document.querySelector(selector).innerText;
  for (const _ of globalThis.__replay.replay.steps) {
    seen.push([read(".replay-where"), read("#replay-explain")]);
    if (document.querySelector("#replay-forward").disabled) break;
    document.body.dispatchEvent(new KeyboardEvent("keydown", { key: "ArrowRight", bubbles: true }));
  }
  return seen;
}"""
"""Every step from the first to the last by the ArrowRight key, in the page (one round trip
where a step a press would take three): each step's place and explanation, as shown."""


@pytest.mark.timeout(300)
@pytest.mark.parametrize("profile", ["pagat-4p", "heads-up", "libre-2p"])
def test_the_replays_final_score_is_the_engines_and_every_step_speaks_the_logs_words(
    profile: Profile, web_url: str, new_context: NewContext, artifacts: Path, tmp_path: Path
) -> None:
    ana = Player(web_url, profile)
    try:
        created = ana.open()
        ana.finish()
    finally:
        ana.close()
    page = new_context(viewport={"width": 1366, "height": 768}).new_page()
    seats = ["Ana", "", "Luz", ""] if profile == "pagat-4p" else ["Ana", ""]
    page.goto(replay_url(web_url, created, 1, seats))
    page.wait_for_selector("#replay-forward")
    record = f"{web_url}/record/{created.table}/1?key={created.host_key}"
    expected = engine_result(page, record, tmp_path)
    page.keyboard.press("ArrowRight")  # one step by a real key; the rest in the page, below
    expect(page.locator(".replay-where")).to_contain_text(" 1 ")
    page.keyboard.press("ArrowLeft")
    seen = page.evaluate(WALK_BY_KEYS)
    assert len(seen) == page.evaluate("globalThis.__replay.replay.steps.length")
    assert all(f" {at} " in where for at, (where, _) in enumerate(seen)), seen[:3]
    assert shown_score(page) == expected["scores"], (profile, expected)
    page.goto(replay_url(web_url, created, 1, seats) + "#step=8")
    expect(page.locator(".replay-where")).to_contain_text(" 8 ")
    page.screenshot(path=str(artifacts / f"replay-{profile}-step8.png"))
    page.keyboard.press("End")
    expect(page.locator(".replay-where")).to_contain_text(f" {len(seen) - 1} ")
    text = "\n".join(explained for _, explained in seen)
    assert not ENGINE_WORDS.search(text), ENGINE_WORDS.search(text)
    assert "Ana" in text
    assert "Ana" in page.inner_text(".replay-head")
    if profile == "pagat-4p":
        assert "Luz" in page.inner_text(".replay-felt")
        expect(page.locator(".replay-head")).to_contain_text("Ana and Luz")
    expect(page.locator(".replay-sheet tbody tr[data-team='0']").first).to_be_visible()
    total = page.locator(".replay-sheet tbody tr[data-team='0'] .sheet-total").last
    assert int(total.get_attribute("data-total") or "-1") == expected["scores"][0]
    page.screenshot(path=str(artifacts / f"replay-{profile}-end.png"))
    expect(page.locator("#rules-link")).to_have_attribute("href", re.compile(profile))


@pytest.mark.timeout(300)
def test_a_step_has_its_link_and_the_arrow_keys_home_and_end_move_through_the_game(
    web_url: str, new_context: NewContext, artifacts: Path
) -> None:
    ana = Player(web_url)
    try:
        created = ana.open()
        ana.finish()
    finally:
        ana.close()
    context = new_context(viewport={"width": 1280, "height": 720}, reduced_motion="no-preference")
    page = context.new_page()
    page.goto(replay_url(web_url, created, 1, ["Ana"]) + "#step=7")
    page.wait_for_selector("#replay-forward")
    assert page.evaluate("globalThis.__replay.at") == 7
    expect(page.locator(".replay-where")).to_contain_text("Step 7 of")
    page.keyboard.press("ArrowRight")
    expect(page).to_have_url(re.compile(r"#step=8$"))
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(page).to_have_url(re.compile(r"#step=6$"))
    page.keyboard.press("End")
    last = page.evaluate("globalThis.__replay.replay.steps.length") - 1
    expect(page).to_have_url(re.compile(rf"#step={last}$"))
    expect(page.locator("#replay-forward")).to_be_disabled()
    page.keyboard.press("Home")
    expect(page).to_have_url(re.compile(r"#step=0$"))
    expect(page.locator("#replay-back")).to_be_disabled()
    expect(page.locator(".replay-headline")).not_to_be_empty()
    played = page.evaluate(
        "globalThis.__replay.replay.steps.findIndex((s, i) => i > 1 && s.events.some("
        "(e) => e.type === 'played'))"
    )
    page.goto(replay_url(web_url, created, 1, ["Ana"]) + f"#step={played - 1}")
    page.wait_for_selector(".replay-felt")
    page.keyboard.press("ArrowRight")
    moving = page.evaluate("document.getAnimations().length")
    assert moving > 0, "the played card moves from its chair to the felt"
    page.select_option("#lang", "es")
    expect(page.locator("#replay-forward")).to_contain_text("Adelante")
    for width, height in VIEWPORTS:
        page.set_viewport_size({"width": width, "height": height})
        page.goto(replay_url(web_url, created, 1, ["Ana"]) + "#step=8")
        page.wait_for_selector(".replay-felt")
        page.screenshot(path=str(artifacts / f"replay-step8-{width}x{height}.png"))
        wide = page.evaluate("document.documentElement.scrollWidth")
        assert wide <= width, f"the replay is wider than the screen at {width}x{height}"
        assert page.locator(".replay-hand .card").count() > 0
