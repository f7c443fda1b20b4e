"""The misclick guard: off by default (a chosen capture or trail is sent at once); turned on, the
play chosen shows selected with a «Jugar» button and nothing is sent until it is pressed. The
setting survives a reload.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.web.conftest import NewContext
from tests.web.test_browser import STEP_TIMEOUT_MS, model
from tests.web.test_table_fits import VIEWPORTS, answered_window, open_started_table

pytestmark = pytest.mark.browser
CHOICE = "[data-action='capture'], [data-action='trail']"


def my_turn_to_play(page: Page) -> int:
    """Answer any window until a card is to be played; the event number seen then."""
    for _ in range(10):
        page.wait_for_selector(
            ".hand button.card.is-playable, [data-action^='claim-'], [data-action^='announce-'],"
            " [data-action='take-missed']",
            timeout=STEP_TIMEOUT_MS,
        )
        if not answered_window(page):
            seen: int = model(page, "m.lastEvent")
            return seen
    pytest.fail("no card to play after ten windows")


@pytest.mark.timeout(120)
def test_plays_go_at_once_by_default_and_wait_for_jugar_when_asked(
    new_context: NewContext, web_url: str
) -> None:
    page = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    open_started_table(page, web_url)
    assert page.get_attribute("#confirm-toggle", "aria-pressed") == "false"
    seen = my_turn_to_play(page)
    page.locator(".hand button.card.is-playable").first.click()
    page.locator(CHOICE).first.click()
    page.wait_for_function("n => globalThis.__cuarenta.model.lastEvent > n", arg=seen)
    assert page.locator("#confirm-play").count() == 0

    page.click("#confirm-toggle")
    assert page.get_attribute("#confirm-toggle", "aria-pressed") == "true"
    page.reload()  # the setting is kept in the browser
    page.wait_for_selector("#confirm-toggle[aria-pressed='true']")
    seen = my_turn_to_play(page)
    card = page.locator(".hand button.card.is-playable").first.get_attribute("data-card")
    page.locator(f".hand button.card[data-card='{card}']").click()
    page.locator(CHOICE).first.click()
    page.wait_for_selector("#confirm-play >> text=Jugar")
    # Shown selected, nothing sent: the page has not sent a move and no event followed.
    assert page.get_attribute(f".hand button.card[data-card='{card}']", "aria-pressed") == "true"
    assert model(page, "[m.lastEvent, m.ownMove, m.held !== null]") == [seen, False, True]
    page.click("#confirm-change")  # «Cambiar»: choose again
    assert page.locator("#confirm-play").count() == 0
    page.locator(CHOICE).first.click()
    page.click("#confirm-play")
    page.wait_for_function("n => globalThis.__cuarenta.model.lastEvent > n", arg=seen)
    assert model(page, "m.held") is None
