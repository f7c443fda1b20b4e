"""A whole game played by keyboard alone (Tab to reach, arrow keys along the hand, Enter to choose
a card, Space for its capture or trail, Enter in the windows of R6, R8 and R10), each line of the
log said through the polite live region in the log's words, and axe-core run on the table in play,
in a claim window when one comes, and at the game's end.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.web.axe import assert_accessible
from tests.web.conftest import NewContext
from tests.web.test_browser import MAX_DECISIONS, STEP_TIMEOUT_MS, model

pytestmark = pytest.mark.browser
WINDOWS = (
    "[data-action='take-missed'], [data-action^='claim-'], [data-action^='announce-'],"
    " [data-action='confirm-play']"
)
PLAYABLE = ".hand button.card.is-playable"
CHOICE = "[data-action='capture'], [data-action='trail']"
DECISION = f".game-over, {PLAYABLE}, {WINDOWS}"
#: Every line added to the live region, in order (kept by the page from its first moment).
HEAR = """
window.__said = [];
new MutationObserver((changes) => { for (const c of changes) if (c.target.id === "plays-live")
  for (const n of c.addedNodes) window.__said.push(n.textContent); }).observe(document,
  {childList: true, subtree: true});
"""
HEARD = "() => [...document.querySelectorAll('#plays-live p')].map((p) => p.textContent)"


def focused(page: Page, selector: str) -> bool:
    return bool(page.evaluate("s => Boolean(document.activeElement?.matches(s))", selector))


def tab_to(page: Page, selector: str, limit: int = 150) -> bool:
    """Press Tab until the focus is on `selector`; False if it left the page meanwhile."""
    for _ in range(limit):
        if focused(page, selector):
            return True
        if not page.locator(selector).count():
            return False
        page.keyboard.press("Tab")
    return False


class KeyboardPlayer:
    def __init__(self, page: Page) -> None:
        self.page = page
        self.checked: set[str] = set()

    def check_once(self, where: str) -> None:
        if where not in self.checked:
            self.checked.add(where)
            assert_accessible(self.page, where)

    def decide(self) -> bool:
        """This seat's next decision by keys alone; False once the game is over."""
        page = self.page
        page.wait_for_selector(DECISION, timeout=STEP_TIMEOUT_MS)
        if page.locator(".game-over").count():
            return False
        seen = model(page, "m.lastEvent")
        if page.locator(WINDOWS).count():
            if page.locator("[data-action^='claim-']").count():
                self.check_once("the claim window")
            if not tab_to(page, WINDOWS):
                return True  # the window closed before the keys reached it
            page.keyboard.press("Enter")
        else:
            self.check_once("the table in play")
            if not tab_to(page, PLAYABLE):
                return True
            self.arrows()
            page.keyboard.press("Enter")
            if not tab_to(page, CHOICE):
                return True
            page.keyboard.press(" ")
        page.wait_for_function("n => globalThis.__cuarenta.model.lastEvent > n", arg=seen)
        return True

    def arrows(self) -> None:
        """The arrow keys walk the hand's playable cards and come back (wrapping)."""
        page = self.page
        count = page.locator(PLAYABLE).count()
        start = page.evaluate("document.activeElement.dataset.card")
        page.keyboard.press("ArrowRight")
        if count > 1:
            assert page.evaluate("document.activeElement.dataset.card") != start
        page.keyboard.press("ArrowLeft")
        assert page.evaluate("document.activeElement.dataset.card") == start


@pytest.mark.timeout(400)
def test_a_whole_game_by_keyboard_alone_told_through_the_live_region(
    new_context: NewContext, web_url: str
) -> None:
    context = new_context(viewport={"width": 1366, "height": 900}, locale="es-EC")
    context.add_init_script(HEAR)
    page = context.new_page()
    page.goto(f"{web_url}/")
    page.fill("#player-name", "Lucía")
    page.select_option("#turn-timer", "0")
    page.check("#fill-bots")
    page.select_option("#bot-level", "1")
    page.click("button[type=submit]")
    page.click("#go-to-table")
    page.wait_for_selector("#start-game")
    assert tab_to(page, "#start-game")
    page.keyboard.press("Enter")
    player = KeyboardPlayer(page)
    decisions = 0
    while player.decide():
        decisions += 1
        assert decisions < MAX_DECISIONS
    page.wait_for_selector(".game-over")
    player.check_once("the game's end")
    # Every line of the log was said, in its words, as it happened (the log keeps the last 60).
    said = set(page.evaluate("window.__said"))
    logged = page.locator(".log li").all_inner_texts()
    assert logged
    assert set(logged) <= said, set(logged) - said
    assert page.evaluate(HEARD), "the live region holds the last lines"
    assert page.get_attribute("#plays-live", "aria-live") == "polite"
    print(f"keyboard game: {decisions} decisions; axe checked {sorted(player.checked)}")
