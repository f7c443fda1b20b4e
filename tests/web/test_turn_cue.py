"""Your turn, unmistakably: the tab's title says so, a sound the person may turn on
(off by default, remembered), and a desktop notification when the tab is hidden and allowed.
"""

from __future__ import annotations

import pytest

from tests.web.conftest import NewContext
from tests.web.test_table_fits import VIEWPORTS, click_decision, open_started_table

pytestmark = pytest.mark.browser

RECORD_NOTIFICATIONS = """
window.__notes = [];
const Real = window.Notification;
if (Real) window.Notification = class extends Real {
  constructor(title, options) { super(title, options); window.__notes.push(title); }
};
"""


@pytest.mark.timeout(120)
def test_the_tab_title_the_sound_switch_and_a_notification_when_hidden(
    new_context: NewContext, web_url: str
) -> None:
    context = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC")
    context.grant_permissions(["notifications"])
    context.add_init_script(RECORD_NOTIFICATIONS)
    page = context.new_page()
    open_started_table(page, web_url)
    page.wait_for_function("document.title.includes('Tu turno')")
    # The sound is off until the person turns it on; the choice survives a reload.
    assert page.get_attribute("#turn-sound", "aria-pressed") == "false"
    page.click("#turn-sound")
    assert page.get_attribute("#turn-sound", "aria-pressed") == "true"
    page.reload()
    page.wait_for_selector("#turn-sound[aria-pressed='true']")
    page.wait_for_function("document.title.includes('Tu turno')")
    # Hidden tab: the next turn brings a desktop notification (permission granted above).
    page.evaluate("Object.defineProperty(document, 'visibilityState', {get: () => 'hidden'})")
    for _ in range(6):
        if not click_decision(page) or page.evaluate("window.__notes.length"):
            break
    page.wait_for_function("window.__notes.length > 0")
    assert page.evaluate("window.__notes[0]") == "Tu turno"


@pytest.mark.timeout(120)
def test_the_person_is_told_when_a_bot_played_for_them(
    new_context: NewContext, web_url: str
) -> None:
    """A turn timer ran out: the stand-in's play is told to the person it played for."""
    page = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    page.goto(f"{web_url}/")
    page.fill("#player-name", "Lucía")
    page.select_option("#turn-timer", "15")
    page.check("#fill-bots")
    page.select_option("#bot-level", "1")
    page.click("button[type=submit]")
    page.click("#go-to-table")
    page.click("#start-game")
    page.wait_for_selector(".hand button.card.is-playable, .game-over", timeout=20_000)
    if page.locator(".game-over").count():
        pytest.skip("a cuarenta at the first deal ended the game (R6)")
    # Lucía does nothing: after 15 s the stand-in plays her card, and she reads so.
    page.wait_for_selector(".toast >> text=un bot jugó", timeout=40_000)
    assert "por ti" in page.inner_text(".toast")
