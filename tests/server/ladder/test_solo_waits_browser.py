"""The solo chica waits for its person in a real chromium (R14, ARCHITECTURE invariant 5).

The server runs with ``--away-turn 0`` and a one-second grace: at any other table a stand-in bot
would play for an absent person at once. The person leaves a chica mid-hand (the tab is closed),
the server has seen both of the page's sockets go (its own connection gauge), and on coming
back the chica is exactly where it was: same hand, same event, same streak, and no "a bot plays
for you" / "is back" line. A finished chica's result and the choice of what next survive a
reload; nothing is dealt until the person chooses.
"""

from __future__ import annotations

import re
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, StorageState

from tests.server.ladder.test_solo_browser import DESKTOP, MAX_DECISIONS, play_one_turn, stat
from tests.serving import ServerProcess

pytestmark = pytest.mark.browser

WAIT_MS = 20_000
POLL_S = 0.05


@pytest.fixture(scope="module")
def web_url() -> Iterator[str]:
    """A server whose stand-ins would act at once anywhere a stand-in may act."""
    server = ServerProcess(
        ["--away-turn", "0", "--grace", "1", "--store", "memory", "--log-level", "warning"]
    )
    server.start()
    try:
        yield server.url.rstrip("/")
    finally:
        server.kill()


def connections(web_url: str) -> int:
    with urllib.request.urlopen(f"{web_url}/metrics", timeout=5) as answer:
        text = answer.read().decode()
    match = re.search(r"^cuarenta_connections (\S+)$", text, re.MULTILINE)
    assert match, "the server exports its connection gauge"
    return int(float(match.group(1)))


def position(page: Page) -> dict[str, object]:
    seen: dict[str, object] = page.evaluate(
        """() => { const m = globalThis.__cuarenta.model;
          return {table: m.table.id, n: m.lastEvent, hand: m.game.hand, scores: m.game.scores,
                  turn: m.legal.length > 0}; }"""
    )
    return seen


def open_solo(
    browser: Browser, web_url: str, storage: StorageState | None = None
) -> tuple[BrowserContext, Page]:
    context = browser.new_context(
        viewport=DESKTOP, locale="es-EC", reduced_motion="reduce", storage_state=storage
    )
    page = context.new_page()
    page.goto(f"{web_url}/?solo")
    return context, page


def wait_for_turn(page: Page) -> None:
    page.wait_for_selector(".hand button.card.is-playable", timeout=WAIT_MS)
    page.wait_for_function("globalThis.__cuarenta.model.legal.length > 0", timeout=WAIT_MS)


@pytest.mark.timeout(240)
def test_r14_a_solo_chica_left_mid_hand_waits_for_its_person(
    browser: Browser, web_url: str, artifacts: Path
) -> None:
    context, page = open_solo(browser, web_url)
    page.evaluate("localStorage.setItem('cuarenta.name', JSON.stringify('Lucía'))")
    page.wait_for_selector(".solo-table .hand")
    for _ in range(3):
        assert play_one_turn(page)
    wait_for_turn(page)
    before = position(page)
    streak = stat(page, "streak")
    storage = context.storage_state()
    context.close()  # the tab is closed in the middle of the hand
    # The server has dropped both sockets of the page (the ladder's and the table's) and so
    # handled the seat's detach: at an ordinary table the stand-in would be playing now.
    deadline = time.monotonic() + WAIT_MS / 1000
    while connections(web_url) > 0:  # a condition polled, not a pause
        assert time.monotonic() < deadline, "the server never saw the page go"
        time.sleep(POLL_S)

    context, page = open_solo(browser, web_url, storage)
    page.wait_for_selector(".solo-table .hand")
    page.wait_for_function("n => globalThis.__cuarenta?.model?.lastEvent >= n", arg=before["n"])
    wait_for_turn(page)
    after = position(page)
    assert after == before, "same table, same cards, same event: nothing was played meanwhile"
    assert stat(page, "streak") == streak
    log = page.inner_text(".table-side")
    assert "Un bot juega por" not in log
    assert "vuelve a la mesa" not in log
    assert page.locator(".host-panel, #host-lock").count() == 0  # the ladder is the host
    page.add_style_tag(content=".toasts { display: none; }")
    page.screenshot(path=artifacts / "solo-back-mid-hand.png", full_page=True)

    decisions = 0
    while play_one_turn(page):  # the rest of the chica, then a reload at its end
        decisions += 1
        assert decisions < MAX_DECISIONS
    page.wait_for_selector(".solo-result")
    finished = page.evaluate("globalThis.__cuarenta.model.table.id")
    result = page.get_attribute(".solo-result", "data-result")
    text = page.inner_text(".solo-result p")
    stats = {name: stat(page, name) for name in ("streak", "level", "best")}
    page.reload()
    page.wait_for_selector(".solo-result", timeout=WAIT_MS)
    assert page.get_attribute(".solo-result", "data-result") == result
    assert page.inner_text(".solo-result p") == text
    assert page.locator("#solo-next").is_visible()
    assert {name: stat(page, name) for name in stats} == stats
    page.wait_for_selector(".game-over", timeout=WAIT_MS)  # the finished chica's own table
    assert page.evaluate("globalThis.__cuarenta.model.table.id") == finished
    assert page.locator(".hand button.card.is-playable").count() == 0
    page.add_style_tag(content=".toasts { display: none; }")
    page.screenshot(path=artifacts / "solo-reload-after-chica.png", full_page=True)

    page.click("#solo-next")  # only now the next chica is dealt
    page.wait_for_function(
        "old => (globalThis.__cuarenta?.model?.table?.id ?? old) !== old", arg=finished
    )
    page.wait_for_selector(".solo-table .hand")
    assert page.locator(".solo-result").count() == 0
    assert page.evaluate("[...globalThis.__cuarentaMissingStrings]") == []
    context.close()
