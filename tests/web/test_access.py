"""A page everyone can use: axe-core finds no serious or critical violation on any page of the web
client (home, the links, the table before its start, in play, the TV screen, the solo ladder, the
free two-player game, the lobby, the club page, the replay viewer); each page's counts are
printed (``pytest -s``). The table in play, its claim window and its end are checked by the
keyboard game of test_access_keyboard.py.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page

from tests.web.axe import assert_accessible
from tests.web.conftest import CLUB, ROOT, NewContext
from tests.web.test_browser import STEP_TIMEOUT_MS, create_table, show_choices
from tests.web.test_club_night import Host, play_club_game

pytestmark = pytest.mark.browser
DESKTOP = {"width": 1366, "height": 900}


@pytest.fixture(scope="module")
def web_url(club_server: tuple[str, str]) -> str:
    return club_server[0]


@pytest.fixture
def page(new_context: NewContext) -> Page:
    return new_context(viewport=DESKTOP, locale="es-EC").new_page()


@pytest.mark.timeout(120)
def test_home_links_and_the_table_before_and_in_play(page: Page, web_url: str) -> None:
    page.goto(f"{web_url}/")
    page.wait_for_selector("#player-name")
    assert_accessible(page, "home")
    create_table(page, web_url)
    assert_accessible(page, "the table's links")
    page.click("#go-to-table")
    page.wait_for_selector("#start-game")
    assert_accessible(page, "the table before its start")
    page.click("#start-game")
    page.wait_for_selector(".hand button.card, .game-over", timeout=STEP_TIMEOUT_MS)
    assert_accessible(page, "the table in play")
    if page.locator(".hand button.card.is-playable").count():
        show_choices(page)
        assert_accessible(page, "the table, a card chosen")


@pytest.mark.timeout(120)
def test_the_table_on_a_phone_with_its_panels_and_a_notice(
    new_context: NewContext, web_url: str
) -> None:
    page = new_context(viewport={"width": 390, "height": 844}, locale="en-US").new_page()
    create_table(page, web_url)
    page.click("#go-to-table")
    page.click("#start-game")
    page.wait_for_selector(".hand button.card, .game-over", timeout=STEP_TIMEOUT_MS)
    page.click("#chat summary")
    page.fill("#chat-input", "Good luck!")
    page.click("#chat-send")
    page.wait_for_selector(".chat-line")
    page.evaluate("import('/js/toasts.js').then((m) => m.toast('Marta hace caída: +2', 'score'))")
    page.wait_for_selector(".toast")
    page.click(".host-panel > summary")
    assert_accessible(page, "the table on a phone, panels open, a notice")


CLAIM_WINDOW = """async () => {
  const { actionBar } = await import('/js/play.js');
  const model = { you: 0, status: "open", table: { seats: 4 }, selection: { card: null, take: [] },
    claimPassed: null, legal: "7K".split("").map((rank) => ({ type: "claim", rank })),
    game: { phase: "claims", handNumber: 1, claims: [], hand: [], history: [
      { seat: 2, card: "7H", take: ["7C"], caida: true },
      { seat: 0, card: "KC", take: ["KD"], caida: true }] } };
  const names = { nameOf: () => 'Ana', teamOf: () => 'Ana y Beto', seats: 4 };
  const bar = actionBar(model, model.game, { act: () => {}, redraw: () => {},
    passClaims: () => {}, names });
  document.querySelector('#main').replaceChildren(bar);
}"""


@pytest.mark.timeout(60)
def test_the_claim_window_as_the_page_draws_it(page: Page, web_url: str) -> None:
    """R10's window lasts a second in these tests: its bar is drawn by the page's own code."""
    page.goto(f"{web_url}/")
    page.wait_for_selector("#player-name")
    page.evaluate(CLAIM_WINDOW)
    page.wait_for_selector("[data-action='claim-none']")
    assert_accessible(page, "the claim window")


@pytest.mark.timeout(120)
def test_the_tv_screen_solo_and_the_free_game(page: Page, web_url: str) -> None:
    links = create_table(page, web_url)
    page.click("#go-to-table")
    page.click("#start-game")
    page.wait_for_selector(".hand button.card, .game-over", timeout=STEP_TIMEOUT_MS)
    tv = page.context.new_page()
    tv.goto(links["watch"] + "?screen")
    tv.wait_for_selector(".tv, .is-screen, body.screen-mode", timeout=STEP_TIMEOUT_MS)
    assert_accessible(tv, "the TV screen")
    page.goto(f"{web_url}/?solo")
    page.wait_for_selector("main :is(button, a)", timeout=STEP_TIMEOUT_MS)
    assert_accessible(page, "solo")
    page.goto(f"{web_url}/")
    page.select_option("#profile", "libre-2p")
    page.fill("#player-name", "Lucía")
    page.click("button[type=submit]")
    page.click("#go-to-table")
    page.wait_for_selector("#start-game")
    page.click("#start-game")
    page.wait_for_selector(".hand button.card, .game-over", timeout=STEP_TIMEOUT_MS)
    assert_accessible(page, "the free two-player game")


@pytest.mark.timeout(120)
def test_the_club_page(page: Page, club_server: tuple[str, str]) -> None:
    web_url, host_key = club_server
    bots = Host(web_url)
    try:
        table = bots.run(play_club_game(bots.ws_url, host_key))
    finally:
        bots.close()
    page.goto(f"{web_url}/c/{CLUB}")
    page.wait_for_selector(f".club-result[data-table='{table}']")
    assert_accessible(page, "the club page")


@pytest.mark.timeout(60)
def test_the_lobby_and_the_replay_viewer(page: Page, web_url: str) -> None:
    """The lobby and the replay viewer, at a forwarded play: no serious or critical finding."""
    page.goto(f"{web_url}/tables")
    page.wait_for_selector("main")
    assert_accessible(page, "the lobby")
    page.goto(f"{web_url}/replay")
    page.set_input_files("#replay-file", str(ROOT / "tests/data/games/pagat-4p-claim.json"))
    page.wait_for_selector("#replay-forward")
    page.click("#replay-forward")
    assert_accessible(page, "the replay viewer")
