"""The moment a guest arrives at a friend's table (R1: partners sit opposite).

- A first-time guest of the join link sees each free chair named by its company ("Pareja de
  Ana", "Contra Beto") and sits in the one they choose; the name they are typing survives the
  redraw when someone else sits down meanwhile.
- A returning guest (the browser knows their name) is placed in the first free chair, which may
  be an opponent's: the page says whose chair it is, and one click moves them beside the
  grandmother, a move that survives a reload (the seat token follows the chair).
- Two guests reaching for the same chair: the slower one is told the chair is taken and still
  chooses among the others (the choice used to vanish for good).
- Once the game starts no chair is offered, and the server refuses a late sit.
"""

from __future__ import annotations

import asyncio
import json
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from playwright.sync_api import Page, WebSocketRoute

from clients.session import ClientSession, RequestRefused
from protocol import client_messages as c
from protocol.errors import ErrorCode
from tests.web.conftest import NewContext
from tests.web.test_browser import STEP_TIMEOUT_MS, model
from tests.web.test_table_fits import VIEWPORTS

pytestmark = pytest.mark.browser

ON_SCREEN = """(selector) => {
  const r = document.querySelector(selector)?.getBoundingClientRect();
  return Boolean(r && r.width && r.top >= 0 && r.left >= 0
    && r.bottom <= innerHeight && r.right <= innerWidth);
}"""
"""Whether the element is wholly inside the window, with no scrolling."""

#: every socket of the page, a reconnect too (it names its table: /ws?t=<id>)
WS_URL = re.compile(r"/ws(\?|$)")


def hosted_table(new_context: NewContext, web_url: str, name: str) -> tuple[Page, dict[str, str]]:
    """A host (es-EC, 1366x768) who created a table with bots to fill it, sitting at it."""
    host = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    host.goto(f"{web_url}/")
    host.fill("#player-name", name)
    host.select_option("#turn-timer", "0")
    host.check("#fill-bots")
    host.select_option("#bot-level", "1")
    host.click("button[type=submit]")
    host.wait_for_selector("#go-to-table")
    links = {"join": host.input_value("#link-join"), "watch": host.input_value("#link-watch")}
    host.click("#go-to-table")
    host.wait_for_selector("#start-game")
    # the host's page may show its button before the answer that seats it arrives (a loaded
    # machine): wait for that answer, then the host sits at chair 0
    host.wait_for_function("globalThis.__cuarenta.model.you !== null")
    assert model(host, "m.you") == 0
    return host, links


def sit_down(new_context: NewContext, join: str, name: str, seat: int) -> Page:
    """A first-time guest on a phone who opens the join link and takes chair ``seat``."""
    page = new_context(viewport=VIEWPORTS["phone-390x844"], locale="es-EC").new_page()
    page.goto(join)
    page.wait_for_selector(f"[data-action='sit-{seat}']")
    page.fill("#sit-name", name)
    page.click(f"[data-action='sit-{seat}']")
    page.wait_for_function("globalThis.__cuarenta.model.role === 'player'")
    assert model(page, "m.you") == seat
    return page


def chair(page: Page, seat: int) -> str:
    text: str = page.inner_text(f".seat[data-seat='{seat}']")
    return text


@pytest.mark.timeout(120)
def test_a_guest_chooses_the_chair_opposite_the_one_they_partner_r1(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    host, links = hosted_table(new_context, web_url, "Ana")
    grandson = new_context(viewport=VIEWPORTS["1280x720"], locale="es-EC").new_page()
    grandson.goto(links["join"])
    grandson.wait_for_selector("[data-action='sit-1']")
    grandson.click("#sit-name")
    grandson.keyboard.type("Ni")
    # Beto sits down while the grandson is still typing his name: the redraw keeps what he typed.
    sit_down(new_context, links["join"], "Beto", 1)
    grandson.wait_for_selector(".seat[data-seat='1'] >> text=Beto")
    grandson.keyboard.type("co")
    assert grandson.input_value("#sit-name") == "Nico"

    # Each free chair says with whom and against whom it plays (R1: 0 & 2 against 1 & 3).
    assert "Pareja de Ana" in chair(grandson, 2)
    assert "Contra Beto" in chair(grandson, 2)
    assert "Pareja de Beto" in chair(grandson, 3)
    assert "Contra Ana" in chair(grandson, 3)
    for name, viewport in VIEWPORTS.items():
        grandson.set_viewport_size(viewport)
        grandson.wait_for_function(ON_SCREEN, arg="[data-action='sit-2']")
        assert grandson.evaluate(ON_SCREEN, "#sit-name"), f"at {name} the name field is off screen"
        grandson.screenshot(path=artifacts / f"seating-choice-{name}.png")

    grandson.click("[data-action='sit-2']")
    grandson.wait_for_function("globalThis.__cuarenta.model.role === 'player'")
    assert model(grandson, "m.you") == 2
    host.wait_for_selector(".seat[data-seat='2'] >> text=Nico")
    assert "Ana y Nico" in host.inner_text(".scoreboard .team-0")


@pytest.mark.timeout(120)
def test_a_returning_guest_placed_against_the_grandmother_moves_beside_her_in_one_click(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    host, links = hosted_table(new_context, web_url, "Abuela Rosa")
    guest = new_context(viewport=VIEWPORTS["phone-390x844"], locale="es-EC").new_page()
    guest.add_init_script(
        f"localStorage.setItem('cuarenta.name', {json.dumps(json.dumps('Nico'))})"
    )
    guest.goto(links["join"])  # he played here last week: the link seats him at once
    guest.wait_for_function("globalThis.__cuarenta?.model?.role === 'player'")
    assert model(guest, "m.you") == 1  # the first free chair: beside her, not opposite
    note = guest.inner_text(".chair-note")
    assert "Tu silla: Oeste" in note
    assert "Contra Abuela Rosa" in note
    partner_chair = guest.locator("[data-action='sit-2']")
    assert partner_chair.inner_text() == "Cambiarme aquí"
    assert "Pareja de Abuela Rosa" in chair(guest, 2)
    guest.screenshot(path=artifacts / "seating-move-phone-390x844.png")
    # The host sees whose partner each free chair makes its next occupant, and arranges people
    # from the host panel: the ring offers her no chair (her page's gold button is the start).
    host.wait_for_selector(".seat[data-seat='3'] >> text=Pareja de Nico")
    assert host.locator("[data-action^='sit-']").count() == 0

    partner_chair.click()
    guest.wait_for_function("globalThis.__cuarenta.model.you === 2")
    host.wait_for_selector(".seat[data-seat='2'] >> text=Nico")
    host.wait_for_selector(".seat[data-seat='1'][data-state='empty']")
    assert "Pareja de Abuela Rosa" in guest.inner_text(".chair-note")
    guest.reload()  # the seat token went with him to the new chair
    guest.wait_for_function("globalThis.__cuarenta?.model?.role === 'player'")
    assert model(guest, "m.you") == 2
    # The host still arranges the table: she moves him to the chair opposite a bot's.
    host.click("[data-action='add-bot'][data-seat='1']")
    host.wait_for_selector(".seat[data-seat='1'][data-state='bot']")
    host.select_option("[data-action='move-2']", "3")
    guest.wait_for_function("globalThis.__cuarenta.model.you === 3")


@pytest.mark.timeout(120)
def test_a_guest_who_loses_a_chair_to_a_quicker_one_still_chooses_among_the_others(
    new_context: NewContext, web_url: str
) -> None:
    host, links = hosted_table(new_context, web_url, "Ana")
    guest = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    sockets: list[WebSocketRoute] = []
    deaf = [False]  # once set, the first connection hears nothing more: its page falls behind

    def relay(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        first = not sockets
        sockets.append(ws)
        server.on_message(lambda message: None if first and deaf[0] else ws.send(message))

    guest.route_web_socket(WS_URL, relay)
    guest.goto(links["join"])
    guest.wait_for_selector("[data-action='sit-3']")
    deaf[0] = True
    sit_down(new_context, links["join"], "Beto", 3)  # quicker: the guest's page has not heard
    host.wait_for_selector(".seat[data-seat='3'] >> text=Beto")
    guest.fill("#sit-name", "Nico")
    guest.click("[data-action='sit-3']")
    guest.wait_for_selector(".toast >> text=Esa silla está ocupada")
    guest.wait_for_selector(".seat[data-seat='3'] >> text=Beto")
    guest.click("[data-action='sit-2']")  # the choice is still there: Ana's partner's chair
    guest.wait_for_function("globalThis.__cuarenta.model.role === 'player'")
    assert model(guest, "m.you") == 2
    assert len(sockets) >= 2


def sit_after_the_start(ws_url: str, join_key: str) -> ErrorCode:
    """A visitor of the join link who asks for chair 1 after the start: the refusal's code."""

    async def attempt() -> ErrorCode:
        session = await ClientSession.connect(ws_url, "Tío Juan")
        try:
            await session.request(c.Watch(key=join_key))
            await session.request(c.Sit(seat=1))
        except RequestRefused as refused:
            return refused.code
        finally:
            await session.close()
        raise AssertionError("the server let a visitor sit in a started game")

    with ThreadPoolExecutor(1) as pool:  # Playwright's sync API holds this thread's event loop
        return pool.submit(asyncio.run, attempt()).result(timeout=30)


@pytest.mark.timeout(120)
def test_once_the_game_starts_no_chair_is_offered_and_a_late_sit_is_refused(
    new_context: NewContext, web_url: str
) -> None:
    host, links = hosted_table(new_context, web_url, "Ana")
    guest = sit_down(new_context, links["join"], "Nico", 2)
    watcher = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    watcher.goto(links["watch"])
    watcher.wait_for_selector(".seat[data-seat='2'] >> text=Nico")
    assert guest.locator("[data-action='sit-1']").count() == 1  # before the start: a choice

    host.click("#start-game")  # the free chairs fill with bots
    guest.wait_for_selector(".hand .card", timeout=STEP_TIMEOUT_MS)
    for page in (host, guest, watcher):
        assert page.locator("[data-action^='sit-'], .chair-note, #sit-name").count() == 0
    late = new_context(viewport=VIEWPORTS["phone-390x844"], locale="es-EC").new_page()
    late.goto(links["join"])
    late.wait_for_function("globalThis.__cuarenta?.model?.table?.started === true")
    assert late.locator("[data-action^='sit-'], #sit-name").count() == 0
    ws_url = web_url.replace("http://", "ws://") + "/ws"
    assert sit_after_the_start(ws_url, links["join"].rsplit("/t/", 1)[1]) is ErrorCode.WRONG_PHASE


@pytest.mark.timeout(120)
def test_the_watch_link_offers_no_chair_the_server_would_refuse(
    new_context: NewContext, web_url: str
) -> None:
    """A first-time visitor of the watch link watches: no name form and no "Sentarme aquí" on
    the free chairs (clicking one ended in a bare "forbidden"), while the join link offers them."""
    host, links = hosted_table(new_context, web_url, "Ana")
    onlooker = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    onlooker.goto(links["watch"])
    onlooker.wait_for_function("globalThis.__cuarenta.model.role === 'spectator'")
    onlooker.wait_for_selector(".seat[data-seat='2']")
    assert model(onlooker, "m.canSit") is False
    assert onlooker.locator("#sit-name").count() == 0
    assert onlooker.locator("[data-action^='sit-']").count() == 0
    guest = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    guest.goto(links["join"])
    guest.wait_for_selector("[data-action='sit-2']")
    assert model(guest, "m.canSit") is True
    host.close()


PAST_ITS_PANEL = """() => [...document.querySelectorAll('.table-side .panel *')].filter((el) => {
  const box = el.getBoundingClientRect();
  const panel = el.closest('.panel').getBoundingClientRect();
  return box.width > 0 && (box.right > panel.right + 0.5 || box.left < panel.left - 0.5);
}).map((el) => `${el.className}: ${el.textContent.trim().slice(0, 30)}`)"""
"""The side column's elements that reach past their panel's edge (cut by the column)."""


@pytest.mark.timeout(120)
def test_a_visitors_side_column_lies_within_its_panels_at_1280x720(
    new_context: NewContext, web_url: str
) -> None:
    """The chat of a visitor waiting to sit (Spanish, the narrowest laptop) is whole: its
    'Enviar' and its hint for spectators were cut at the window's right edge."""
    host, links = hosted_table(new_context, web_url, "Ana")
    guest = new_context(viewport=VIEWPORTS["1280x720"], locale="es-EC").new_page()
    guest.goto(links["join"])
    guest.wait_for_selector("[data-action='sit-2']")
    guest.wait_for_selector(".table-side .chat-form button")
    assert guest.evaluate(PAST_ITS_PANEL) == []
    send = guest.locator(".chat-form button").bounding_box()
    assert send is not None
    assert send["x"] + send["width"] <= 1280
    host.close()
