"""Rules for each game from every screen, explanations a tap opens, and the wording fixes.

The Rules link of a table opens the rules of that table's game (R1-R12 for four players, R14 for
the two-player games); a phone, which never shows a hover tooltip, opens the tantos-and-perros
explanation with a tap; the TV's end line agrees with its subject in en/es/pt; the TV's sheet is
labelled and keeps the hand the game ended in; home's two-player form and the solo player's name.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from protocol.base import Profile
from tests.web.conftest import NewContext
from tests.web.test_replay import VIEWPORTS, Player

pytestmark = pytest.mark.browser

TEAM_WINS = {
    "en": r"^West and East win!$",
    "es": r"^¡Ganan Oeste y Este!$",
    "pt": r"^Oeste e Leste vencem!$",
}


def rules_from_table(page: Page) -> Page:
    """Follow the table's Rules link (a new tab) and return the rules page."""
    link = page.locator("#rules-link")
    expect(link).to_have_attribute("href", re.compile(r"game="))
    with page.context.expect_page() as opened:
        link.click()
    rules = opened.value
    rules.wait_for_selector(".rules-game")
    return rules


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("profile", "words"), [("pagat-4p", "partners"), ("heads-up", "must capture")]
)
def test_a_tables_rules_link_opens_the_rules_of_that_tables_game(
    profile: Profile, words: str, web_url: str, new_context: NewContext, artifacts: Path
) -> None:
    ana = Player(web_url, profile)
    try:
        created = ana.open()
        page = new_context(viewport={"width": 1280, "height": 720}).new_page()
        page.goto(f"{web_url}/t/{created.watch_key}?lang=en")
        rules = rules_from_table(page)
        expect(rules.locator(f"details#{profile}")).to_have_attribute("open", "")
        others = rules.locator(f".rules-game:not(#{profile})")
        for index in range(others.count()):
            expect(others.nth(index)).not_to_have_attribute("open", "")
        expect(rules.locator("h1")).to_contain_text(
            "Four players" if profile == "pagat-4p" else "Heads-up"
        )
        expect(rules.locator(f"details#{profile} .rules-own")).to_contain_text(words)
        if profile == "pagat-4p":
            for width, height in VIEWPORTS:
                rules.set_viewport_size({"width": width, "height": height})
                rules.screenshot(path=str(artifacts / f"rules-4p-{width}x{height}.png"))
                assert rules.evaluate("document.documentElement.scrollWidth") <= width
    finally:
        ana.close()


@pytest.mark.timeout(120)
def test_a_phone_tap_opens_the_tantos_and_perros_explanation(
    web_url: str, new_context: NewContext, artifacts: Path
) -> None:
    ana = Player(web_url)
    try:
        created = ana.open()
        phone = new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
        page = phone.new_page()
        page.goto(f"{web_url}/t/{created.watch_key}?lang=en")
        page.locator("[data-focus='tally']").tap()
        tally = page.locator(".tally").first
        expect(tally).to_be_visible()
        tally.tap()
        tip = page.locator(".tap-tip")
        expect(tip).to_be_visible()
        expect(tip).to_contain_text("tanto")
        expect(tip).to_contain_text("perro")
        page.screenshot(path=str(artifacts / "tally-tap-390x844.png"))
        page.goto(f"{web_url}/rules.html?lang=en")
        word = page.locator("#word-tantos")
        expect(word.locator("p")).not_to_be_visible()
        word.locator("summary").tap()
        expect(word.locator("p")).to_be_visible()
        expect(word.locator("p")).to_contain_text("perro")
    finally:
        ana.close()


@pytest.mark.timeout(240)
def test_the_tv_says_who_won_in_each_language_and_its_sheet_is_labelled_and_whole(
    web_url: str, new_context: NewContext, artifacts: Path
) -> None:
    ana = Player(web_url)
    try:
        created = ana.open()
        ana.finish()
        page = new_context(viewport={"width": 1920, "height": 1080}).new_page()
        replayed = page.request.get(
            f"{web_url}/replayed/{created.table}/1?key={created.host_key}"
        ).json()
        hands = len({step["hand"] for step in replayed["steps"]})
        winner = replayed["result"]["winner"]
        for lang in ("en", "es", "pt"):
            page.goto(f"{web_url}/t/{created.watch_key}?screen&lang={lang}")
            title = page.locator("#end-title")
            expect(title).to_be_visible(timeout=10000)
            if winner == 1:  # West and East: a team of two, a plural verb
                expect(title).to_have_text(re.compile(TEAM_WINS[lang]))
            else:
                expect(title).to_contain_text({"en": "win!", "es": "¡Ganan", "pt": "vencem!"}[lang])
            heads = page.locator(".tv-sheet thead th")
            expect(heads).to_have_count(8)
            rows = page.locator(".tv-sheet tbody tr[data-team='0']")
            expect(rows).to_have_count(hands)  # the hand the game ended in included
            whole = page.evaluate(
                """() => {
              const box = document.querySelector('.tv-sheet').getBoundingClientRect();
              const total = document.querySelector('.tv-sheet thead th:last-child')
                .getBoundingClientRect();
              return total.right <= box.right && total.width > 0;
            }"""
            )
            assert whole, f"the TV sheet's Total column is cut ({lang})"
            page.screenshot(path=str(artifacts / f"tv-game-over-{lang}.png"))
        expect(page.locator(".tv-sheet thead")).to_contain_text("Total")
    finally:
        ana.close()


def test_home_words_the_two_player_form_and_shows_every_option_whole(
    web_url: str, new_context: NewContext, artifacts: Path
) -> None:
    page = new_context(viewport={"width": 1280, "height": 720}).new_page()
    for lang, four in (
        ("en", "four players"),
        ("es", "cuatro jugadores"),
        ("pt", "quatro jogadores"),
    ):
        page.goto(f"{web_url}/?lang={lang}")
        expect(page.locator(".options .hint")).to_contain_text(four)
        page.select_option("#profile", "libre-2p")
        expect(page.locator(".options .hint")).not_to_contain_text(four)
        page.select_option("#profile", "heads-up")
        expect(page.locator(".options .hint")).not_to_contain_text(four)
    page.goto(f"{web_url}/?lang=en")
    expect(page.locator("#home-tables")).to_have_attribute("href", "/tables")
    for width, height in VIEWPORTS:
        page.set_viewport_size({"width": width, "height": height})
        page.select_option("#opt-misdeal_penalty", "game")
        cut = page.evaluate(
            """() => {
          const select = document.querySelector('#opt-misdeal_penalty');
          const probe = document.createElement('span');
          probe.style.font = getComputedStyle(select).font;
          probe.style.position = 'absolute';
          probe.textContent = select.selectedOptions[0].textContent;
          document.body.append(probe);
          const need = probe.getBoundingClientRect().width;
          probe.remove();
          const style = getComputedStyle(select);
          const room = select.clientWidth - parseFloat(style.paddingLeft)
            - parseFloat(style.paddingRight);
          return need > room - 16;
        }"""
        )
        page.screenshot(path=str(artifacts / f"home-{width}x{height}.png"), full_page=True)
        assert not cut, f"'Dealer's team loses the game' is cut at {width}x{height}"


@pytest.mark.timeout(120)
@pytest.mark.parametrize(("lang", "name"), [("en", "Player"), ("es", "Jugador"), ("pt", "Jogador")])
def test_the_solo_player_is_not_called_guest(
    lang: str, name: str, web_url: str, new_context: NewContext
) -> None:
    page = new_context(viewport={"width": 1280, "height": 720}).new_page()
    page.goto(f"{web_url}/?solo&lang={lang}")
    page.wait_for_function("globalThis.__cuarenta?.model?.you === 0", timeout=15000)
    seated = page.evaluate("globalThis.__cuarenta.model.table.occupants[0].name")
    assert seated == name, json.dumps(seated)
    assert "guest" not in page.inner_text("main")
