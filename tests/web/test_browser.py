"""The web client in a real chromium against the real server, and the helpers its tests share.

The whole game by mouse is in test_table_fits (at 1366x768, with a spectator and a reload), the
one by keys in test_access_keyboard.

Each test drives the page the way a person does (the home form, the table's buttons) and reads
the server's truth independently (the finished game's R15 record, replayed by the engine).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from engine.record import Record
from engine.replay import replay
from tests.web.conftest import NewContext

pytestmark = pytest.mark.browser

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
DECISION = (
    ".game-over, .hand button.card.is-playable, [data-action^='announce-'], "
    "[data-action^='claim-'], [data-action='take-missed']"
)
STEP_TIMEOUT_MS = 20_000
MAX_DECISIONS = 200  # a game to 40 needs far fewer of this seat's decisions


def missing_strings(page: Page) -> list[str]:
    found: list[str] = page.evaluate("[...globalThis.__cuarentaMissingStrings]")
    return found


def model(page: Page, expression: str) -> Any:
    return page.evaluate(
        f"(() => {{ const m = globalThis.__cuarenta.model; return {expression}; }})()"
    )


def create_table(page: Page, base: str) -> dict[str, str]:
    """Fill the home form as a host would: no turn timer, automatic R10 awards, bots of level 1."""
    page.goto(f"{base}/")
    page.fill("#player-name", "Lucía")
    page.select_option("#turn-timer", "0")
    page.select_option("#opt-special_claims", "auto")
    page.check("#fill-bots")
    page.select_option("#bot-level", "1")
    page.click("button[type=submit]")
    page.wait_for_selector("#go-to-table")
    return {
        "join": page.input_value("#link-join"),
        "watch": page.input_value("#link-watch"),
    }


def host_at_table(
    new_context: NewContext, web_url: str, viewport: dict[str, int]
) -> tuple[Page, dict[str, str]]:
    """A host (es-EC) who created a table and sits at it, not started: the page and its links."""
    host = new_context(viewport=viewport, locale="es-EC").new_page()
    links = create_table(host, web_url)
    host.click("#go-to-table")
    host.wait_for_selector("#start-game")
    return host, links


def guest_sits(new_context: NewContext, host: Page, join: str, name: str) -> Page:
    """A guest on a phone who opens the join link and takes the first free chair under ``name``,
    once the host's page shows them seated."""
    guest = new_context(viewport={"width": 390, "height": 844}, locale="es-EC").new_page()
    guest.goto(join)
    guest.wait_for_selector("#sit-name")
    guest.fill("#sit-name", name)
    guest.click("#sit-down")
    guest.wait_for_function("globalThis.__cuarenta.model.you !== null")
    host.wait_for_selector(f".host-seat-name >> text={name}")
    return guest


def decide(page: Page) -> bool:
    """Make this seat's next decision with the keyboard; False once the game is over.

    Any legal choice will do: a window's button (R6, R8, R10) if one is open, else the first
    playable card (Enter) and its first capture, or the trail (Space).
    """
    page.wait_for_selector(DECISION, timeout=STEP_TIMEOUT_MS)
    found = page.evaluate(
        """() => {
          if (document.querySelector(".game-over")) return null;
          const window = document.querySelector(
            "[data-action='take-missed'], [data-action^='claim-'], [data-action^='announce-']");
          return {seen: globalThis.__cuarenta.model.lastEvent, window: Boolean(window)};
        }"""
    )
    if found is None:
        return False
    if found["window"]:
        page.locator(
            "[data-action='take-missed'], [data-action^='claim-'], [data-action^='announce-']"
        ).first.press("Enter")
    else:
        page.locator(".hand button.card.is-playable").first.press("Enter")
        # Captures come before the trail in the action bar: the first button is a capture if any.
        page.locator("[data-action='capture'], [data-action='trail']").first.press(" ")
    page.wait_for_function("n => globalThis.__cuarenta.model.lastEvent > n", arg=found["seen"])
    return True


def show_choices(page: Page) -> None:
    """Select a hand card that can capture (else the first), so the screenshot shows its choices."""
    cards = page.locator(".hand button.card.is-playable")
    for index in range(cards.count()):
        cards.nth(index).press("Enter")
        if page.locator("[data-action='capture']").count():
            return
        cards.nth(index).press("Enter")
    cards.first.press("Enter")


def assert_spectator_sees_no_hand(spectator: Page, hand: list[str]) -> None:
    """ARCHITECTURE invariant 1: the watch link shows public information only."""
    seen = spectator.evaluate(
        """() => ({
          hands: document.querySelectorAll(".hand").length,
          faceUp: [...document.querySelectorAll(".card:not(.is-back)")].map((c) => c.dataset.card),
          table: [...document.querySelectorAll(".felt .card, .tv-felt .card")]
            .map((c) => c.dataset.card),
          modelHand: globalThis.__cuarenta.model.game.hand,
        })"""
    )
    assert seen["hands"] == 0
    assert seen["modelHand"] == []
    # Every face-up card the spectator sees lies on the table. A card of ``hand`` may be among them:
    # ``hand`` can be read between the event of the player's own play and the snapshot that follows,
    # while the spectator already shows that card played, face up and public (R7).
    assert sorted(seen["faceUp"]) == sorted(seen["table"])
    unplayed = set(hand) - set(seen["table"])
    assert not unplayed & set(seen["faceUp"])


def seat_state(page: Page) -> dict[str, Any]:
    state: dict[str, Any] = model(
        page,
        "({you: m.you, hand: [...m.game.hand].sort(), table: [...m.game.table].sort(),"
        " scores: m.game.scores, piles: m.game.piles, last: m.lastEvent,"
        " legal: m.legal.length})",
    )
    return state


def server_result(page: Page, base: str) -> dict[str, Any]:
    """The server's own account of the game: its R15 record, replayed by the engine."""
    href = page.get_attribute(".game-over a[download]", "href")
    assert href, "the end of the game offers the record"
    response = page.request.get(base + href)
    assert response.ok, response.status
    return replay(Record.from_json(json.loads(response.body())))


@pytest.mark.parametrize(
    ("locale", "lang", "title"),
    [("es-EC", "es", "Abrir una mesa"), ("en-GB", "en", "Open a table")],
)
def test_home_page_speaks_the_browser_language_with_no_missing_string(
    new_context: NewContext, web_url: str, artifacts: Path, locale: str, lang: str, title: str
) -> None:
    page = new_context(viewport=DESKTOP, locale=locale).new_page()
    page.goto(f"{web_url}/")
    page.wait_for_selector("#create-title")
    assert page.get_attribute("html", "lang") == lang
    assert page.inner_text("#create-title") == title
    for profile in ("libre-2p", "pagat-4p"):  # both option sets of R13/R14 are translated
        page.select_option("#profile", profile)
    assert "⟦" not in page.inner_text("body")
    assert missing_strings(page) == []
    if lang == "es":
        page.screenshot(path=artifacts / "home.png", full_page=True)


def create_manual_table(page: Page, base: str) -> None:
    """A table with every R13 option that asks the player: manual R6 calls, R8 picks, R10 claims."""
    page.goto(f"{base}/?lang=en")
    page.select_option("#turn-timer", "60")  # manual calls get the turn timer as their window
    page.select_option("#opt-announcements", "manual")
    page.select_option("#opt-sequence", "manual")
    page.select_option("#bot-level", "1")
    page.click("button[type=submit]")
    page.click("#go-to-table")
    page.click("#start-game")


def pick_first_capture_by_hand(page: Page) -> list[str]:
    """Choose a card that can capture and click its table cards one by one (R8 manual picks).

    Returns the cards taken, or [] when no hand card can capture now.
    """
    cards = page.locator(".hand button.card.is-playable")
    for index in range(cards.count()):
        cards.nth(index).press("Enter")
        capture = page.locator("[data-action='capture']")
        if capture.count():
            take = (capture.first.get_attribute("data-take") or "").split()
            for code in take:
                page.locator(f".felt button.card[data-card='{code}']").press("Enter")
            picked = page.locator("[data-action='capture-picked']")
            assert picked.is_enabled()
            assert page.locator(".felt .card.is-chosen").count() == len(take)
            picked.press("Enter")
            return take
        cards.nth(index).press("Enter")
    return []


def play_until_a_manual_capture(page: Page, artifacts: Path) -> dict[str, bool]:
    """Play this seat until it has made a manual call (R6) and a capture by picked cards (R8).

    Returns what was done; the game may end first (a cuarenta wins at once, R6).
    """
    done = {"announced": False, "captured": False}
    for _ in range(MAX_DECISIONS):
        page.wait_for_selector(DECISION, timeout=STEP_TIMEOUT_MS)
        if page.locator(".game-over").count():
            return done
        seen = model(page, "m.lastEvent")
        if page.locator("[data-action='announce-pass']").count():
            # R6 manual: every seat makes one call before the first card; pass is always legal.
            if not done["announced"]:
                page.screenshot(path=artifacts / "announce-window.png")
            page.locator("[data-action='announce-pass']").press("Enter")
            done["announced"] = True
        elif page.locator("[data-action^='claim-']").count():
            page.locator("[data-action^='claim-']").first.press("Enter")
        elif page.locator("[data-action='take-missed']").count():
            page.locator("[data-action='take-missed']").press("Enter")
        elif taken := pick_first_capture_by_hand(page):
            # R7: the picked cards leave the table for our pile.
            page.wait_for_function(
                "taken => !globalThis.__cuarenta.model.game.table.some((c) => taken.includes(c))",
                arg=taken,
            )
            done["captured"] = True
            return done
        else:
            page.locator(".hand button.card.is-playable").first.press("Enter")
            page.locator("[data-action='trail']").press(" ")
        page.wait_for_function("n => globalThis.__cuarenta.model.lastEvent > n", arg=seen)
    return done


def test_manual_announcements_and_manual_capture_picks(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    page = new_context(viewport=DESKTOP, locale="en-US").new_page()
    for _table in range(3):  # a cuarenta may end a game before anything: open another table
        create_manual_table(page, web_url)
        done = play_until_a_manual_capture(page, artifacts)
        if done["captured"]:
            break
    assert done == {"announced": True, "captured": True}
    assert "passes" in page.inner_text(".log-panel")
    assert missing_strings(page) == []


def test_a_guest_sits_down_through_the_join_link_under_a_name(
    new_context: NewContext, web_url: str
) -> None:
    host, links = host_at_table(new_context, web_url, DESKTOP)
    guest = new_context(viewport=PHONE, locale="es-EC").new_page()
    guest.goto(links["join"])
    guest.fill("#sit-name", "Marta")  # a first visit: the page asks for a name before seating
    guest.click("#sit-down")
    guest.wait_for_function("globalThis.__cuarenta.model.role === 'player'")
    seat = model(guest, "m.you")
    host.wait_for_selector(f".seat[data-seat='{seat}'] >> text=Marta")
    # Host controls before the start: a house rule (R13) and the lock reach the whole table.
    host.click(".host-options summary")
    host.select_option("#host-opt-ronda_points", "2")
    guest.wait_for_selector(".log-panel >> text=Cambian las reglas de la casa")
    host.check("#host-lock")
    guest.wait_for_selector(".log-panel >> text=La mesa se cierra")
    assert model(guest, "[m.table.options.ronda_points, m.table.locked]") == [2, True]
    guest.reload()  # the seat token brings the guest back to the same seat
    guest.wait_for_function("globalThis.__cuarenta.model.role === 'player'")
    assert model(guest, "m.you") == seat
    assert guest.locator("#sit-name").count() == 0
    # A dropped connection heals by itself: a new hello resumes the seat with the token.
    before = model(guest, "({welcomes: m.welcomes, snapshots: m.snapshots})")
    guest.evaluate("globalThis.__cuarenta.dropConnection()")
    guest.wait_for_function(
        "b => globalThis.__cuarenta.model.welcomes > b.welcomes"
        " && globalThis.__cuarenta.model.snapshots > b.snapshots",
        arg=before,
    )
    assert model(guest, "[m.role, m.you]") == ["player", seat]
