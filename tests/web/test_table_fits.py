"""The table fits the screen: at four common viewports every seat, the felt, both scores and piles,
the hand and the prompt are on screen at once, and the notice strip covers none of them; a whole
game is played by clicking at 1366x768 without the page ever scrolling (issue 14).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from tests.web.conftest import SHOTS, NewContext
from tests.web.test_browser import (
    DECISION,
    MAX_DECISIONS,
    STEP_TIMEOUT_MS,
    create_table,
    model,
    show_choices,
)

pytestmark = pytest.mark.browser

VIEWPORTS = {
    "1280x720": {"width": 1280, "height": 720},
    "1366x768": {"width": 1366, "height": 768},
    "1920x1080": {"width": 1920, "height": 1080},
    "phone-390x844": {"width": 390, "height": 844},
}
#: The README's pictures (into SHOTS: docs/screenshots/ under make screenshots).
README_SHOTS = {"1366x768": "table-desktop.png", "phone-390x844": "table-phone.png"}
#: What a player must see without scrolling: every seat, the felt, each team's score box (with its
#: card pile), the hand and the action prompt.
MUST_SEE = ".seat, .felt, .scoreboard .team, .hand, .action-bar"

BOXES = """() => {
  const box = (e) => { const r = e.getBoundingClientRect();
    return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, w: r.width, h: r.height}; };
  const shown = (e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden"; };
  return {
    parts: [...document.querySelectorAll(MUST_SEE)].map((e) => ({
      what: e.className.split(" ")[0] + (e.dataset.seat ?? e.dataset.team ?? ""), ...box(e)})),
    notices: [...document.querySelectorAll(".toast")].filter(shown).map(box),
    view: {width: innerWidth, height: innerHeight},
    scrollY: window.scrollY,
    docHeight: document.documentElement.scrollHeight,
  };
}""".replace("MUST_SEE", repr(MUST_SEE))


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return (
        a["left"] < b["right"]
        and b["left"] < a["right"]
        and a["top"] < b["bottom"]
        and (b["top"] < a["bottom"])
    )


def assert_table_fits(page: Page) -> dict[str, Any]:
    seen: dict[str, Any] = page.evaluate(BOXES)
    names = sorted(part["what"] for part in seen["parts"])
    assert [n for n in names if n.startswith("seat")] == ["seat0", "seat1", "seat2", "seat3"]
    assert {"felt", "hand", "action-bar", "team0", "team1"} <= set(names), names
    view = seen["view"]
    for part in seen["parts"]:
        assert part["w"] > 0, part
        assert part["h"] > 0, part
        assert part["left"] >= 0, part
        assert part["top"] >= 0, part
        assert part["right"] <= view["width"] + 0.5, part
        assert part["bottom"] <= view["height"] + 0.5, part
        for notice in seen["notices"]:
            assert not overlaps(part, notice), (part, notice)
    assert seen["scrollY"] == 0
    return seen


def open_started_table(page: Page, base: str) -> None:
    create_table(page, base)
    page.click("#go-to-table")
    page.wait_for_selector("#start-game")
    page.click("#start-game")
    for _ in range(5):  # a cuarenta dealt at once ends a game before any card (R6): play again
        page.wait_for_selector(".hand button.card.is-playable, .game-over", timeout=STEP_TIMEOUT_MS)
        if not page.locator(".game-over").count():
            return
        page.click("#rematch")
        page.wait_for_selector(".game-over", state="detached")
    pytest.fail("five games in a row ended at their first deal")


@pytest.mark.timeout(120)
def test_the_whole_table_is_on_screen_and_notices_cover_none_of_it(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    page = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    open_started_table(page, web_url)
    for name, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        page.reload()  # laid out afresh at this size: the seat token brings the player back
        page.wait_for_selector(".hand button.card.is-playable", timeout=STEP_TIMEOUT_MS)
        if name in README_SHOTS:  # the README's pictures: a card chosen, its captures offered
            show_choices(page)
            page.wait_for_timeout(250)  # the chosen card's lift settles (a CSS transition)
            page.screenshot(path=SHOTS / README_SHOTS[name])
            page.locator(".hand button.card[aria-pressed='true']").press("Enter")  # unselect
        # A notice in its strip, as after every caída or limpia: it must cover nothing.
        page.evaluate("import('/js/toasts.js').then((m) => m.toast('Marta hace caída: +2'))")
        page.wait_for_selector(".toast")
        seen = assert_table_fits(page)
        assert seen["notices"], "the notice is on screen"
        if viewport["width"] >= 1000:  # the side panel scrolls inside itself, never the page
            assert seen["docHeight"] <= viewport["height"]
        page.screenshot(path=artifacts / f"fits-{name}.png")


def click_decision(page: Page) -> bool:
    """Make this seat's next decision by mouse clicks; False once the game is over."""
    page.wait_for_selector(DECISION, timeout=STEP_TIMEOUT_MS)
    if page.locator(".game-over").count():
        return False
    seen = model(page, "m.lastEvent")
    windows = page.locator(
        "[data-action='take-missed'], [data-action='claim-none'], [data-action^='claim-'],"
        " [data-action^='announce-']"
    )
    if windows.count():
        windows.first.click()
    else:
        page.locator(".hand button.card.is-playable").first.click()
        page.locator("[data-action='capture'], [data-action='trail']").first.click()
    page.wait_for_function("n => globalThis.__cuarenta.model.lastEvent > n", arg=seen)
    return True


@pytest.mark.timeout(300)
def test_a_whole_game_by_clicking_at_1366x768_never_scrolls(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    page = new_context(viewport=VIEWPORTS["1366x768"], locale="en-US").new_page()
    open_started_table(page, web_url)
    page.evaluate("window.__scrolled = 0; addEventListener('scroll', () => { __scrolled += 1; })")
    decisions = 0
    while click_decision(page):
        decisions += 1
        assert decisions < MAX_DECISIONS
        if page.locator(".hand button.card.is-playable").count():
            assert_table_fits(page)
        assert page.evaluate("document.documentElement.scrollHeight") <= 768
    page.wait_for_selector(".game-over")
    assert page.evaluate("[window.scrollY, window.__scrolled]") == [0, 0]
    # The score sheet at the end: its running totals end at the final score, hand by hand.
    final = [int(page.inner_text(f".game-over [data-final='{team}']")) for team in (0, 1)]
    totals = page.evaluate(
        """() => [0, 1].map((team) => [...document.querySelectorAll(
          `.end-sheet tr[data-team='${team}'] [data-total]`)]
          .map((td) => Number(td.dataset.total)))"""
    )
    if totals[0]:  # a cuarenta at the first deal (R6) ends the game before any hand
        assert [totals[0][-1], totals[1][-1]] == final
        assert all(a <= b for a, b in zip(totals[0], totals[0][1:], strict=False))
    page.screenshot(path=artifacts / "fits-game-over-1366x768.png")
    page.screenshot(path=SHOTS / "game-over.png")
    page.locator(".game-over").screenshot(path=SHOTS / "score-sheet.png")
