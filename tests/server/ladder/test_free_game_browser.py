"""The free game (R14 libre-2p) in a real chromium, in its description's words and keys.

A person opens a free game against a bot from the home page, in Spanish: the trail button reads
«Tirar»; N in the middle of the game asks first (declining keeps the game), then starts a new
game at the same table. Scores on the solo page follow the chosen language's digit grouping
(checked under node for es, en and pt: "10.038" must not appear in English).
"""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Dialog, Page

from tests.server.ladder.test_solo_browser import DESKTOP

pytestmark = pytest.mark.browser

WAIT_MS = 20_000
WEB = Path(__file__).resolve().parents[3] / "clients" / "web"


def model(page: Page, expression: str) -> Any:
    return page.evaluate(
        f"(() => {{ const m = globalThis.__cuarenta.model; return {expression}; }})()"
    )


def open_free_game(page: Page, base: str) -> None:
    page.goto(f"{base}/?lang=es")
    page.fill("#player-name", "Lucía")
    page.select_option("#profile", "libre-2p")
    page.select_option("#turn-timer", "0")
    page.check("#fill-bots")
    page.select_option("#bot-level", "1")
    page.click("button[type=submit]")
    page.click("#go-to-table")
    page.wait_for_selector("#start-game")
    page.click("#start-game")
    page.wait_for_function("globalThis.__cuarenta?.model?.table?.stage === 'playing'")


def my_turn(page: Page) -> None:
    page.wait_for_selector(".hand button.card.is-playable", timeout=WAIT_MS)


@pytest.mark.timeout(120)
def test_r14_libre_2p_tirar_and_n_starts_a_new_game_after_confirming(
    browser: Browser, web_url: str, artifacts: Path
) -> None:
    context = browser.new_context(viewport=DESKTOP, locale="es-EC", reduced_motion="reduce")
    page = context.new_page()
    open_free_game(page, web_url)
    my_turn(page)
    page.click(".hand button.card.is-playable")
    trail = page.locator("[data-action='trail']")
    assert trail.inner_text().startswith("Tirar "), "R14: the trail button is «Tirar»"
    page.add_style_tag(content=".toasts { display: none; }")
    page.screenshot(path=artifacts / "free-game-tirar.png", full_page=True)
    start = model(page, "m.lastEvent")
    trail.click()  # libre-2p: trailing is always allowed (capture is optional)
    page.wait_for_function(  # the trail and the bot's answer seen: not the hand before the click
        f"globalThis.__cuarenta.model.lastEvent > {start}", timeout=WAIT_MS
    )
    my_turn(page)
    game = model(page, "m.table.gameNumber")
    before = model(page, "m.lastEvent")

    asked: list[str] = []

    def answer(accept: bool) -> Callable[[Dialog], None]:
        def on_dialog(dialog: Dialog) -> None:
            asked.append(dialog.message)
            if accept:
                dialog.accept()
            else:
                dialog.dismiss()

        return on_dialog

    page.once("dialog", answer(False))
    page.locator("body").press("n")
    assert asked == ["¿Dejar esta partida y empezar una nueva?"]
    assert model(page, "m.table.gameNumber") == game, "declining keeps the game"
    assert model(page, "m.lastEvent") == before

    page.once("dialog", answer(True))
    page.locator("body").press("n")
    page.wait_for_function("n => globalThis.__cuarenta.model.table.gameNumber === n + 1", arg=game)
    assert len(asked) == 2
    assert model(page, "m.table.stage") == "playing"
    assert page.locator("#free-new").inner_text() == "Partida nueva (N)"
    assert page.evaluate("[...globalThis.__cuarentaMissingStrings]") == []
    context.close()


def test_scores_are_written_the_chosen_languages_way() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: the web client's tests need it (apt-get install nodejs)")
    script = (
        "globalThis.document = { documentElement: {} };"
        "const { setLanguage, formatNumber } = await import('./i18n/index.js');"
        "const out = {}; for (const l of ['es', 'en', 'pt']) { setLanguage(l);"
        " out[l] = formatNumber(10038); } console.log(JSON.stringify(out));"
    )
    done = subprocess.run(
        [node, "--input-type=module", "-e", script],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert done.stdout.strip() == '{"es":"10.038","en":"10,038","pt":"10.038"}'
