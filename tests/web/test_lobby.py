"""The lobby in sight: linked from home and the game over, filtered, a free seat taken from it.

A public table still waiting for players lists its join key (server/listing.py ``join``): the
lobby's Sit button goes through it, as the host's shared join link would. Screenshots at the four
viewports go to test-artifacts/.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.web.conftest import NewContext
from tests.web.test_replay import VIEWPORTS, Player

pytestmark = pytest.mark.browser


@pytest.mark.timeout(180)
def test_a_newcomer_finds_the_lobby_filters_it_and_sits_at_a_free_seat(
    web_url: str, new_context: NewContext, artifacts: Path
) -> None:
    waiting = Player(web_url, "libre-2p", public=True)
    playing = Player(web_url, "pagat-4p", public=True)
    try:
        free = waiting.open(bots=False, start=False)  # Ana waits for a second player
        full = playing.open()
        page = new_context(viewport={"width": 1280, "height": 720}).new_page()
        page.goto(f"{web_url}/?lang=en")
        page.click("#home-tables")
        expect(page).to_have_url(f"{web_url}/tables")
        waiting_card = page.locator(f".lobby-table[data-table='{free.table}']")
        playing_card = page.locator(f".lobby-table[data-table='{full.table}']")
        expect(waiting_card).to_be_visible(timeout=5000)
        expect(playing_card).to_be_visible()
        expect(playing_card.locator(".lobby-sit")).to_have_count(0)  # being played: watch only
        expect(waiting_card).to_contain_text("1 free seat")
        page.select_option("#lobby-profile", "pagat-4p")
        expect(waiting_card).to_have_count(0)
        expect(playing_card).to_be_visible()
        page.select_option("#lobby-profile", "")
        page.check("#lobby-free")
        expect(playing_card).to_have_count(0)
        expect(waiting_card).to_be_visible()
        expect(page).to_have_url(f"{web_url}/tables?free=1")
        for width, height in VIEWPORTS:
            page.set_viewport_size({"width": width, "height": height})
            page.screenshot(path=str(artifacts / f"lobby-{width}x{height}.png"))
            assert page.evaluate("document.documentElement.scrollWidth") <= width
        page.set_viewport_size({"width": 390, "height": 844})
        waiting_card.locator(".lobby-sit").click()
        expect(page).to_have_url(f"{web_url}/t/{free.join_key}")
        page.fill("#sit-name", "Beto")
        page.click("#sit-down")
        page.wait_for_function("globalThis.__cuarenta.model.you === 1")
        expect(page.locator(".table-page")).to_contain_text("Beto")
    finally:
        waiting.close()
        playing.close()


def test_the_listing_offers_no_join_key_for_a_private_or_started_table(
    web_url: str, new_context: NewContext
) -> None:
    private = Player(web_url, "heads-up", public=False)
    started = Player(web_url, "heads-up", public=True)
    try:
        hidden = private.open(bots=False, start=False)
        running = started.open()
        page = new_context().new_page()
        page.goto(f"{web_url}/tables?lang=en")
        expect(page.locator(f".lobby-table[data-table='{running.table}']")).to_be_visible(
            timeout=5000
        )
        listed = page.evaluate("async () => (await fetch('/tables.json')).json()")
        mine = [t for t in listed["tables"] if t["table"] == running.table]
        assert mine
        assert mine[0]["join"] is None
        assert hidden.join_key not in str(listed)
        assert hidden.table not in str(listed)
    finally:
        private.close()
        started.close()
