"""The pocket's engine snapshot (issue 42): the first start on a device keeps a snapshot of
Python with the engine loaded, later starts restore it (the first deal within seconds on a
phone), a spoilt one costs one slower start and never the game, and while the engine starts
the table says so in words a player uses.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Route

from clients import pocket
from tests.web.axe import assert_accessible
from tests.web.conftest import NewContext

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
SPOIL = """async () => { const cache = await caches.open(`cuarenta-pocket-${POCKET.version}`);
  await cache.put(`/offline/snapshot?v=${POCKET.version}`, new Response("not a snapshot")); }"""
PERSONS_TURN = "__pocket.chica && !__pocket.thinking && __pocket.chica.to_move === 'person'"


def started(page: Page) -> dict[str, Any]:
    """Wait for the engine's start and its snapshot's keeping; how it started."""
    page.wait_for_function("__pocket.started?.kept != null", timeout=90_000)
    page.wait_for_function(PERSONS_TURN, timeout=60_000)
    answer: dict[str, Any] = page.evaluate("__pocket.started")
    return answer


def play_one(page: Page) -> None:
    """The person plays a card and the bot answers: the engine plays, not only deals."""
    before = len(page.evaluate("__pocket.chica.record.actions"))
    page.locator(".pocket-hand button.card").first.click()
    choices = page.locator(".choices button")
    if choices.count():
        choices.first.click()
    page.wait_for_function(PERSONS_TURN, timeout=60_000)
    assert len(page.evaluate("__pocket.chica.record.actions")) > before + 1


@pytest.mark.timeout(240)
def test_a_later_start_restores_the_snapshot_and_a_spoilt_one_starts_fresh_R14(
    new_context: NewContext, web_url: str
) -> None:
    pocket.build(ROOT / "clients" / "web" / "offline")
    page = new_context(locale="en-US").new_page()
    page.goto(f"{web_url}/pocket.html?pace=0")
    first = started(page)
    assert (first["from"], first["kept"]) == ("fresh", True)
    play_one(page)
    chica: Any = page.evaluate("__pocket.chica")

    page.reload()
    again = started(page)
    assert again["from"] == "snapshot"
    assert "python" not in again["laps"], "no interpreter init after a restore"
    restored: Any = page.evaluate("__pocket.chica")
    assert restored["record"] == chica["record"], "the chica is taken up where it was"
    play_one(page)  # the bots' modules and data are in the restored memory or on its disk

    page.evaluate(SPOIL)
    page.reload()
    spoilt = started(page)
    assert (spoilt["from"], spoilt["kept"]) == ("fresh", True), "started fresh and kept anew"
    play_one(page)
    page.reload()
    assert started(page)["from"] == "snapshot"


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("locale", "shuffling", "first_time"),
    [
        ("es-EC", "Barajando las cartas…", "La primera vez en este dispositivo tarda un poco más."),
        ("en-US", "Shuffling the cards…", "The first time on this device takes a little longer."),
        ("pt", "Embaralhando as cartas…", "Na primeira vez neste aparelho demora um pouco mais."),
    ],
)
def test_while_the_engine_starts_the_table_says_the_cards_are_being_shuffled(
    new_context: NewContext, web_url: str, locale: str, shuffling: str, first_time: str
) -> None:
    pocket.build(ROOT / "clients" / "web" / "offline")
    context = new_context(locale=locale)
    held: list[Route] = []

    def hold(route: Route) -> None:
        held.append(route)  # never answered: the engine never gets its loader

    context.route("**/vendor/pyodide.mjs", hold)
    page = context.new_page()
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto(f"{web_url}/pocket.html?pace=0")
    waiting = page.locator(".pocket-waiting")
    waiting.wait_for()
    page.wait_for_function("document.querySelector('.pocket-waiting .pocket-first-time')")
    assert waiting.get_attribute("aria-busy") == "true"
    assert page.locator(".pocket-waiting [role=status]").inner_text() == shuffling
    assert page.locator(".pocket-waiting .pocket-first-time").inner_text() == first_time
    box = waiting.bounding_box()
    assert box is not None
    assert box["y"] + box["height"] <= 844, "in sight on a phone"
    assert held, "the engine's start was held"
    assert_accessible(page, f"pocket.html while the engine starts ({locale})")
