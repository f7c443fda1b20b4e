"""People who come back, in the browser: the player key, /me, the move link and "forget me".

A person plays a whole game against a bot, the game over speaks to them ("¡Ganaste…" or
"Perdiste…", their rating change) while a spectator reads the neutral words; they close the
browser (its storage kept) and find that game on /me with its result, and its replay opens that
game; the move link makes a second browser the same person; "forget me" leaves nothing of them
in the store (Redis, scanned) nor in the browser. The site runs on Redis for the scan.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from playwright.sync_api import BrowserContext, Page, ViewportSize

from tests.redis_server import RedisServer
from tests.serving import ServerProcess
from tests.web.axe import assert_accessible
from tests.web.conftest import NewContext
from tests.web.test_browser import STEP_TIMEOUT_MS

pytestmark = pytest.mark.browser

GAME_TIMEOUT_MS = 300_000  # a whole game; the machine may be shared and slow
PHONE: ViewportSize = {"width": 390, "height": 844}
LAPTOP: ViewportSize = {"width": 1366, "height": 768}

AUTOPLAY = """() => {
  // The person's moves, sent as the page's buttons send them (the first legal action), one at a
  // time: a whole game against an instant bot in seconds.
  setInterval(() => {
    const c = globalThis.__cuarenta;
    if (!c || c.busy || !c.model.legal.length) return;
    c.busy = true;
    c.send({ ...c.model.legal[0], at: c.model.lastEvent }).finally(() => { c.busy = false; });
  }, 30);
}"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, RedisServer]]:
    """`cuarenta serve` on its own Redis (tests/redis_server.py), and that Redis to scan."""
    store = RedisServer(tmp_path_factory.mktemp("redis"))
    store.start_anew()
    args = ["--claim-window", "1", "--store", store.url, "--log-level", "warning"]
    server = ServerProcess([*args, "--commands-per-s", "1000"])
    server.start()
    try:
        yield server.url.rstrip("/"), store
    finally:
        server.kill()
        store.stop()


@pytest.fixture(scope="module")
def web_url(site: tuple[str, RedisServer]) -> str:
    """This module's pages are served by the Redis-backed site (conftest's browser uses it)."""
    return site[0]


def create_heads_up(page: Page, base: str, name: str, casual: bool = False) -> dict[str, str]:
    """The home form: a heads-up table against a level-1 bot, no turn timer."""
    page.goto(f"{base}/?lang=es")
    page.fill("#player-name", name)
    page.select_option("#profile", "heads-up")
    page.select_option("#turn-timer", "0")
    page.check("#fill-bots")
    page.select_option("#bot-level", "1")
    if casual:
        page.check("#casual-table")
    page.click("button[type=submit]")
    page.wait_for_selector("#go-to-table")
    return {"join": page.input_value("#link-join"), "watch": page.input_value("#link-watch")}


def play_a_whole_game(page: Page) -> dict[str, Any]:
    """Start and play to the end; the final state as the page has it."""
    page.click("#go-to-table")
    page.wait_for_selector("#start-game")
    page.click("#start-game")
    page.evaluate(AUTOPLAY)
    page.wait_for_selector(".game-over", timeout=GAME_TIMEOUT_MS)
    ended: dict[str, Any] = page.evaluate("""() => { const m = globalThis.__cuarenta.model;
      return { you: m.you, winner: m.game.winner, scores: m.game.scores, table: m.table.id }; }""")
    return ended


def local_keys(page: Page) -> dict[str, str]:
    keys: dict[str, str] = page.evaluate(
        "() => Object.fromEntries(Object.entries(localStorage)"
        ".filter(([k]) => k.startsWith('cuarenta.')))"
    )
    return keys


def me_id(page: Page) -> str:
    page.wait_for_function("globalThis.__cuarentaMe?.state.me")
    found: str = page.evaluate("globalThis.__cuarentaMe.state.me.id")
    return found


def open_me(context: BrowserContext, base: str) -> Page:
    page = context.new_page()
    page.goto(f"{base}/me?lang=es")
    page.wait_for_selector("#me-title", timeout=STEP_TIMEOUT_MS)
    return page


@pytest.mark.timeout(600)
def test_a_person_plays_comes_back_finds_the_game_moves_and_is_forgotten(
    new_context: NewContext, site: tuple[str, RedisServer], tmp_path: Path, artifacts: Path
) -> None:
    base, store = site
    first = new_context(viewport=LAPTOP, locale="es-EC")
    page = first.new_page()
    page.goto(f"{base}/?lang=es")
    key = local_keys(page)["cuarenta.player"]
    assert re.fullmatch(r'"[A-Za-z0-9_-]{43}"', key), "a 43-character base64url key, made at once"
    links = create_heads_up(page, base, "Lucía")
    spectator = new_context(viewport=LAPTOP, locale="es-EC").new_page()
    spectator.goto(links["watch"])
    ended = play_a_whole_game(page)
    won = ended["winner"] == ended["you"]
    mine, theirs = ended["scores"][ended["you"]], ended["scores"][1 - ended["you"]]
    title = page.inner_text("#end-you")
    assert title == (f"¡Ganaste {mine}–{theirs}!" if won else f"Perdiste {mine}–{theirs}"), title
    page.wait_for_selector("#rating-change", timeout=STEP_TIMEOUT_MS)
    change = page.inner_text("#rating-change")
    assert re.search(r"[+−±]\d+ → \d", change), f"a rated game tells the change: {change}"
    assert page.get_attribute(f".final-team[data-team='{ended['you']}']", "data-yours") == "true"
    page.screenshot(path=artifacts / "game-over-you-1366x768.png")
    spectator.wait_for_selector(".game-over", timeout=STEP_TIMEOUT_MS)
    assert not spectator.locator("#end-you").count(), "a spectator is told no one's result"
    neutral = spectator.inner_text("#end-title")
    assert "Ganaste" not in neutral, neutral
    assert "Perdiste" not in neutral, neutral
    assert " gana " in neutral, neutral
    assert not spectator.locator("#rating-change").count()

    # The browser closes; its storage is kept, and the site opened again shows the game.
    kept = first.storage_state(path=tmp_path / "state.json")
    first.close()
    again = new_context(viewport=LAPTOP, locale="es-EC", storage_state=kept)
    me = open_me(again, base)
    game = me.locator(f".me-game[data-table='{ended['table']}']")
    game.wait_for(timeout=STEP_TIMEOUT_MS)
    assert game.get_attribute("data-result") == ("won" if won else "lost")
    assert game.locator(".me-score").inner_text() == f"{mine}–{theirs}"
    assert "Bot 1" in game.inner_text()
    assert_accessible(me, "/me at 1366x768 with a game")
    me.screenshot(path=artifacts / "me-1366x768.png", full_page=True)
    me.set_viewport_size(PHONE)
    me.screenshot(path=artifacts / "me-390x844.png", full_page=True)
    assert_accessible(me, "/me on a phone")
    overflow = me.evaluate("document.documentElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"/me is wider than a phone by {overflow}px"
    me.set_viewport_size(LAPTOP)
    game.locator(".me-replay").click()
    me.wait_for_selector("#replay-end", timeout=STEP_TIMEOUT_MS)
    me.click("#replay-end")
    shown = [int(me.inner_text(f"#replay-score [data-score='{team}']")) for team in (0, 1)]
    assert shown == ended["scores"], "the replay is that game, to its final score"

    # The move link on a second browser: the same person.
    me = open_me(again, base)
    person = me_id(me)
    me.click("#me-move")
    link = me.input_value("#me-move-link")
    assert link == f"{base}/#player={key.strip(chr(34))}"
    other = new_context(viewport=PHONE, locale="es-EC").new_page()
    other.on("dialog", lambda dialog: dialog.accept())
    other.goto(link)
    other.wait_for_selector("#player-name")
    assert "#" not in other.url, "the key leaves the address bar"
    assert local_keys(other)["cuarenta.player"] == key
    other.goto(f"{base}/me?lang=es")
    assert me_id(other) == person
    assert other.inner_text("#me-shown-name") == "Lucía"

    # Forget me: nothing of the person is left in the store, nor in this browser. (The first
    # browser closes first: a page still open elsewhere keeps its presence entry, see the report.)
    again.close()
    client = redis.Redis.from_url(store.url)
    assert any(person in k.decode() for k in client.scan_iter(match="cuarenta:player*")), "kept"
    other.click("#me-forget")
    try:
        other.wait_for_selector("#forgotten", timeout=STEP_TIMEOUT_MS)
    except Exception:
        other.screenshot(path=artifacts / "forget-failed.png")
        raise AssertionError(f"not forgotten: {other.inner_text('body')[:400]}") from None
    # The page closed its socket: its presence entry goes when the server sees the close.
    deadline = time.monotonic() + 10
    while (left := [k.decode() for k in client.scan_iter() if person in k.decode()]) and (
        time.monotonic() < deadline
    ):
        time.sleep(0.1)
    assert left == [], f"forget me left {left}"
    digests = [
        k
        for k in client.scan_iter(match="cuarenta:playerkey:*")
        if client.get(k) == person.encode()
    ]
    assert digests == [], "the key index is gone too"
    assert "cuarenta.player" not in local_keys(other)


@pytest.mark.timeout(120)
def test_the_host_chooses_a_casual_table_and_can_change_it_before_the_start(
    new_context: NewContext, web_url: str
) -> None:
    page = new_context(viewport=PHONE, locale="es-EC").new_page()
    create_heads_up(page, web_url, "Lucía", casual=True)
    page.click("#go-to-table")
    page.wait_for_selector("#start-game")
    page.wait_for_function("globalThis.__cuarenta.model.table.casual === true")
    page.click(".host-options > summary")
    box = page.locator("#host-casual")
    assert box.is_checked(), "the home form's choice reaches the table"
    box.uncheck()
    page.wait_for_function("globalThis.__cuarenta.model.table.casual === false")
    assert not page.locator("#host-casual").is_checked()
