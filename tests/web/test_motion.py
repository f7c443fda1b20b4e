"""Every play seen: a played card flies from its seat to the table or to the capturing
team's pile, and the last play stays in words on the felt; with prefers-reduced-motion nothing
moves, and the words still say what happened.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.web.conftest import NewContext
from tests.web.test_table_fits import VIEWPORTS, click_decision, open_started_table

pytestmark = pytest.mark.browser

WATCH_FLIGHTS = """() => {
  window.__flights = [];
  new MutationObserver((changes) => {
    for (const change of changes) for (const node of change.addedNodes) {
      if (!node.classList?.contains("fly-card")) continue;
      const start = node.getBoundingClientRect();
      const flight = {card: node.dataset.card, x0: start.left, y0: start.top, x1: null, y1: null};
      window.__flights.push(flight);
      setTimeout(() => { const r = node.getBoundingClientRect();
        flight.x1 = r.left; flight.y1 = r.top; }, 260);
    }
  }).observe(document.body, {childList: true, subtree: true});
}"""


def play_a_few(page: Page, moves: int) -> None:
    page.evaluate(WATCH_FLIGHTS)
    for _ in range(moves):
        if not click_decision(page):
            break


def flights(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.evaluate("window.__flights")
    return found


@pytest.mark.timeout(120)
def test_a_played_card_flies_and_the_last_play_stays_in_words(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    page = new_context(
        viewport=VIEWPORTS["1366x768"], locale="es-EC", reduced_motion="no-preference"
    ).new_page()
    open_started_table(page, web_url)
    play_a_few(page, 3)
    page.wait_for_function(
        "window.__flights.some((f) => f.x1 !== null && Math.hypot(f.x1 - f.x0, f.y1 - f.y0) > 20)"
    )
    moved = [f for f in flights(page) if f["x1"] is not None]
    assert any(abs(f["x1"] - f["x0"]) + abs(f["y1"] - f["y0"]) > 20 for f in moved), moved
    page.wait_for_selector(".felt .last-play")
    assert page.locator(".seat.is-last").count() == 1  # who played last, until the next play
    page.screenshot(path=artifacts / "motion-last-play.png")


@pytest.mark.timeout(120)
def test_nothing_moves_under_reduced_motion(new_context: NewContext, web_url: str) -> None:
    page = new_context(
        viewport=VIEWPORTS["1366x768"], locale="es-EC", reduced_motion="reduce"
    ).new_page()
    open_started_table(page, web_url)
    play_a_few(page, 3)
    page.wait_for_selector(".felt .last-play")  # the words still tell the last play
    assert flights(page) == []
    assert page.locator(".fly-card, .fx-burst").count() == 0
