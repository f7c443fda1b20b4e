"""What a family notices on the table page, finished.

- The lobby of public tables words a team as the table page does ("Ana y Norte", not "Ana & Norte").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.web.conftest import NewContext
from tests.web.test_seating_phone import public_table
from tests.web.test_table_fits import VIEWPORTS

pytestmark = pytest.mark.browser

SHOTS = Path("/work/scratch/shots/finish")
"""Pictures for the person judging the change (outside the repository)."""


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


@pytest.mark.timeout(120)
def test_the_lobby_words_a_team_as_the_table_page_does(
    new_context: NewContext, web_url: str
) -> None:
    host, _ = public_table(new_context, web_url)
    teams = [host.inner_text(f".team-{team} .team-label") for team in (0, 1)]
    assert teams == ["Abuela Rosa y Norte", "Oeste y Este"]
    lobby = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    for lang, pair in (("es", " y "), ("en", " and "), ("pt", " e ")):
        lobby.goto(f"{web_url}/tables?lang={lang}")
        row = lobby.locator(".lobby-table").filter(has_text="Abuela Rosa")
        row.wait_for()
        names = row.locator(".lobby-names").all_inner_texts()
        if lang == "es":
            assert names == teams
            shot(lobby, "lobby-es")
        assert all(pair in name and "&" not in name for name in names), names
