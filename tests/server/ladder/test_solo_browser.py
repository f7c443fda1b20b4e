"""The solo ladder in a real chromium (R14): one click deals a chica against a level-1 bot.

The person plays every turn with the test's own greedy policy — the legal move taking the most
cards — by clicking the hand card and the capture (or trail) button, as a player does; the
ladder bar must then show the chica counted: a win raises the streak and the bot's level, a
loss ends the streak. Screenshots land in test-artifacts/ (git-ignored); the ones in
docs/screenshots/ are copies of them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

pytestmark = pytest.mark.browser

DESKTOP: ViewportSize = {"width": 1280, "height": 900}
STEP_TIMEOUT_MS = 20_000
MAX_DECISIONS = 150
RANKS = "A234567JQK"


def stat(page: Page, name: str) -> str:
    return page.inner_text(f".solo-stat[data-stat='{name}'] .solo-stat-value")


def greedy(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """The play taking the most cards; with nothing to take, the lowest card is trailed."""
    plays = [action for action in legal if action["type"] == "play"]
    return max(
        plays,
        key=lambda play: (len(play["take"]), 0 if play["take"] else -RANKS.index(play["card"][0])),
    )


def play_one_turn(page: Page) -> bool:
    """Wait for the person's turn and play the greedy move by clicking; False at the end."""
    page.wait_for_selector(".game-over, .hand button.card.is-playable", timeout=STEP_TIMEOUT_MS)
    seen = page.evaluate(
        """() => document.querySelector('.game-over') ? null : {
          n: globalThis.__cuarenta.model.lastEvent, legal: globalThis.__cuarenta.model.legal}"""
    )
    if seen is None:
        return False
    move = greedy(seen["legal"])
    page.click(f".hand button.card[data-card='{move['card']}']")
    if move["take"]:
        page.click(f"[data-action='capture'][data-take='{' '.join(move['take'])}']")
    else:
        page.click("[data-action='trail']")
    page.wait_for_function("n => globalThis.__cuarenta.model.lastEvent > n", arg=seen["n"])
    return True


def assert_two_seats_face_to_face(page: Page) -> None:
    """R14: two players sit opposite each other: the bot above the felt, the person below."""
    top = page.locator(".seat.seat-top").bounding_box()
    bottom = page.locator(".seat.seat-bottom").bounding_box()
    assert top is not None
    assert bottom is not None
    assert page.locator(".seat").count() == 2
    assert page.locator(".seat.seat-left, .seat.seat-right").count() == 0
    assert top["y"] + top["height"] <= bottom["y"]
    top_centre = top["x"] + top["width"] / 2
    bottom_centre = bottom["x"] + bottom["width"] / 2
    assert abs(top_centre - bottom_centre) < 0.1 * DESKTOP["width"]
    assert page.get_attribute(".seat.seat-top", "data-seat") == "1"


@pytest.mark.timeout(240)
def test_solo_ladder_one_click_a_chica_played_greedily_and_the_streak_counted(
    browser: Browser, web_url: str, artifacts: Path
) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="es-EC", reduced_motion="reduce")
    page = context.new_page()
    page.goto(f"{web_url}/")
    page.evaluate("localStorage.setItem('cuarenta.name', JSON.stringify('Lucía'))")
    page.click("#solo-link")  # the one click: "Jugar solo"
    page.wait_for_selector(".solo-table .hand")
    assert (stat(page, "streak"), stat(page, "level"), stat(page, "best")) == ("0", "1", "0")
    assert page.get_attribute(".seat.seat-top", "data-state") is not None
    assert page.locator(".seat.seat-top .badge-bot").inner_text().endswith("1")
    assert_two_seats_face_to_face(page)
    token = page.evaluate("localStorage.getItem('cuarenta.ladder')")
    assert token

    decisions = 0
    while play_one_turn(page):
        decisions += 1
        assert decisions < MAX_DECISIONS
        if decisions == 3:  # a reload in mid-chica resumes the same chica and the same streak
            table = page.evaluate("globalThis.__cuarenta.model.table.id")
            page.reload()
            page.wait_for_selector(".solo-table .felt")
            page.wait_for_function("globalThis.__cuarenta?.model?.table?.id !== undefined")
            assert page.evaluate("globalThis.__cuarenta.model.table.id") == table
            assert page.evaluate("localStorage.getItem('cuarenta.ladder')") == token

    page.wait_for_selector(".solo-result")
    scores = [int(page.inner_text(f".game-over [data-final='{seat}']")) for seat in (0, 1)]
    result = page.get_attribute(".solo-result", "data-result")
    if scores[0] > scores[1]:
        assert result == "won"
        assert (stat(page, "streak"), stat(page, "level")) == ("1", "2")
        assert stat(page, "margin") == f"+{scores[0] - scores[1]}"
        assert stat(page, "best") == f"{10_000 + scores[0] - scores[1]:,}".replace(",", ".")
    else:
        assert result in ("lost", "draw")
        assert (stat(page, "streak"), stat(page, "level")) == ("0", "1")
    assert page.locator("#rematch").is_hidden()  # the ladder offers the next chica instead
    page.click(".solo-board summary")
    page.wait_for_selector(".solo-board-lines li, .solo-board .hint")
    page.add_style_tag(content=".toasts { display: none; }")  # banners would hide the bar
    page.screenshot(path=artifacts / "solo-ladder.png", full_page=True)

    page.click("#solo-next")  # the next chica: against level 2 after a win, level 1 after a loss
    page.wait_for_selector(".solo-table .hand")
    expected = "2" if result == "won" else "1"
    page.wait_for_function(
        "level => document.querySelector('.seat.seat-top .badge-bot')?.textContent.endsWith(level)",
        arg=expected,
    )
    assert stat(page, "level") == expected

    # "Nuevo": a fresh streak against a level-1 bot (after confirming, when a streak would end).
    table = page.evaluate("globalThis.__cuarenta.model.table.id")
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#solo-new")
    page.wait_for_function(
        "old => (globalThis.__cuarenta?.model?.table?.id ?? old) !== old", arg=table
    )
    page.wait_for_selector(".solo-table .hand")
    assert (stat(page, "streak"), stat(page, "level")) == ("0", "1")
    assert page.locator(".seat.seat-top .badge-bot").inner_text().endswith("1")
    assert page.evaluate("[...globalThis.__cuarentaMissingStrings]") == []
    context.close()


def test_tips_page_in_spanish_and_english_names_the_thresholds(
    browser: Browser, web_url: str, artifacts: Path
) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="es-EC", reduced_motion="reduce")
    page = context.new_page()
    page.goto(f"{web_url}/?tips&lang=es")
    assert page.inner_text("h1") == "Cómo se juega la Cuarenta"
    assert "dorada al llegar a 20" in page.inner_text("[data-tip='gold']")
    assert "Desde 30 puntos la ronda ya no cuenta" in page.inner_text("[data-tip='ronda30']")
    assert "Con 38 la limpia ya no cuenta" in page.inner_text("[data-tip='limpia38']")
    page.screenshot(path=artifacts / "solo-tips.png", full_page=True)
    page.goto(f"{web_url}/?tips&lang=en")
    assert page.inner_text("h1") == "How to play Cuarenta"
    assert "turns gold at 20" in page.inner_text("[data-tip='gold']")
    assert "From 30 points a ronda no longer counts" in page.inner_text("[data-tip='ronda30']")
    assert "At 38 a limpia does not count" in page.inner_text("[data-tip='limpia38']")
    assert page.evaluate("[...globalThis.__cuarentaMissingStrings]") == []
    context.close()
