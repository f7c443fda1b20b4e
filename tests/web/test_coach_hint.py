"""The coach at a casual table: «¿Qué jugarías?» by the prompt on your turn, the answer in
Spanish words naming a card of your hand, and that card marked; a rated table offers no button.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page

from tests.web.conftest import NewContext
from tests.web.test_browser import STEP_TIMEOUT_MS
from tests.web.test_confirm import my_turn_to_play
from tests.web.test_table_fits import VIEWPORTS

pytestmark = pytest.mark.browser


def started(page: Page, web_url: str, casual: bool) -> None:
    """A table made from the home form as ``create_table`` makes one, casual or rated, started."""
    page.goto(f"{web_url}/")
    page.fill("#player-name", "Lucía")
    page.select_option("#turn-timer", "0")
    page.select_option("#opt-special_claims", "auto")
    page.check("#fill-bots")
    page.select_option("#bot-level", "1")
    page.set_checked("#casual-table", casual)
    page.click("button[type=submit]")
    page.click("#go-to-table")
    page.wait_for_selector("#start-game")
    page.click("#start-game")


@pytest.mark.timeout(120)
def test_the_button_shows_a_hint_in_spanish_and_marks_its_card(
    new_context: NewContext, web_url: str
) -> None:
    page = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    started(page, web_url, casual=True)
    my_turn_to_play(page)
    page.click("#coach-ask")
    hint = page.wait_for_selector("#coach-hint", timeout=STEP_TIMEOUT_MS)
    assert hint is not None
    words = hint.inner_text()
    assert re.match(r"Juega el \S+ (y llévate|sin llevarte nada)", words), words
    marked = page.locator(".hand .card.is-hinted")
    assert marked.count() == 1
    assert page.locator("#coach-ask").count() == 0  # one hint per decision


@pytest.mark.timeout(120)
def test_a_rated_table_offers_no_hint(new_context: NewContext, web_url: str) -> None:
    page = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    started(page, web_url, casual=False)
    my_turn_to_play(page)
    assert page.locator("#coach-ask").count() == 0
