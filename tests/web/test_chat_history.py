"""Chat that stays: a reload, a second tab or a resumed connection shows the chat said before (the
whole snapshot's last lines), once each; a player never reads the spectators' lines, spectators
read the table's and their own, as they do live.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.web.conftest import NewContext

pytestmark = pytest.mark.browser
LINES = ".chat-line .chat-text"


def open_table(page: Page, base: str) -> dict[str, str]:
    page.goto(f"{base}/?lang=en")
    page.fill("#player-name", "Lucía")
    page.select_option("#turn-timer", "0")
    page.uncheck("#fill-bots")
    page.click("button[type=submit]")
    page.wait_for_selector("#go-to-table")
    return {"join": page.input_value("#link-join"), "watch": page.input_value("#link-watch")}


def say(page: Page, text: str) -> None:
    page.fill("#chat-input", text)
    page.click("#chat-send")


@pytest.mark.timeout(90)
def test_a_reload_and_a_second_tab_show_the_chat_said_before(
    new_context: NewContext, web_url: str
) -> None:
    host = new_context().new_page()
    links = open_table(host, web_url)
    host.click("#go-to-table")
    watcher = new_context().new_page()
    watcher.goto(links["watch"] + "?lang=en")
    for page in (host, watcher):
        page.wait_for_selector("#chat-input")
    say(host, "¡Hola, mesa!")
    expect(watcher.locator(LINES)).to_have_text(["¡Hola, mesa!"])
    say(watcher, "Qué partida")
    expect(watcher.locator(LINES)).to_have_text(["¡Hola, mesa!", "Qué partida"])
    say(host, "Empezamos")
    expect(host.locator(LINES)).to_have_text(["¡Hola, mesa!", "Empezamos"])

    host.reload()  # the seat token brings the player back, and the chat with it
    expect(host.locator(LINES)).to_have_text(["¡Hola, mesa!", "Empezamos"])
    second = watcher.context.new_page()  # a second tab on the watch link
    second.goto(links["watch"] + "?lang=en")
    expect(second.locator(LINES)).to_have_text(["¡Hola, mesa!", "Qué partida", "Empezamos"])
    # A visitor on the join link reads as a spectator until seated: then the table's lines only.
    guest = new_context().new_page()
    guest.goto(links["join"] + "?lang=en")
    expect(guest.locator(LINES)).to_have_text(["¡Hola, mesa!", "Qué partida", "Empezamos"])
    guest.fill("#sit-name", "Beto")
    guest.click("#sit-down")
    guest.wait_for_function("globalThis.__cuarenta.model.you !== null")
    expect(guest.locator(LINES)).to_have_text(["¡Hola, mesa!", "Empezamos"])
    # A dropped connection resumes with a whole snapshot: its lines replace, never repeat.
    seen = host.evaluate("globalThis.__cuarenta.model.welcomes")
    host.evaluate("globalThis.__cuarenta.dropConnection()")
    host.wait_for_function("n => globalThis.__cuarenta.model.welcomes > n", arg=seen)
    say(host, "Sigo aquí")
    expect(host.locator(LINES)).to_have_text(["¡Hola, mesa!", "Empezamos", "Sigo aquí"])
    expect(second.locator(LINES)).to_have_text(
        ["¡Hola, mesa!", "Qué partida", "Empezamos", "Sigo aquí"]
    )
    assert "Qué partida" not in host.locator(LINES).all_inner_texts()
