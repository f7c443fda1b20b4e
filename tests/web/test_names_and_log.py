"""Names everywhere, one language at a time, the whole log for everyone.

The log and the score sheet are drawn from the table's events at each redraw, so a reload, a
return, a language switch or a spectator arriving mid-game all read the same, current words.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page

from tests.web.conftest import NewContext
from tests.web.test_browser import host_at_table
from tests.web.test_table_fits import VIEWPORTS, click_decision, open_started_table

pytestmark = pytest.mark.browser


def log_text(page: Page) -> str:
    return page.inner_text(".log-panel")


def play(page: Page, moves: int) -> None:
    for _ in range(moves):
        if not click_decision(page):
            return


@pytest.mark.timeout(180)
def test_the_log_names_people_after_a_reload_and_follows_a_language_switch(
    new_context: NewContext, web_url: str, artifacts: Path
) -> None:
    page = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    open_started_table(page, web_url)
    play(page, 3)
    page.reload()
    page.wait_for_selector(".log-panel li")
    page.wait_for_function("globalThis.__cuarenta.model.table !== null")
    text = log_text(page)
    assert "Lucía" in text
    assert "Sur " not in text  # never the compass point of a seat a person holds
    assert page.inner_text(".scoreboard .team-0 .team-label") == "Lucía y Norte"
    # One language at a time: the log already written turns English, notices are cleared.
    page.select_option("#lang", "en")
    english = log_text(page)
    assert "What happened" in english
    assert " bota " not in english
    assert " lleva " not in english
    assert any(word in english for word in (" trails ", " takes "))
    assert page.inner_text(".scoreboard .team-0 .team-label") == "Lucía and North"
    page.screenshot(path=artifacts / "names-log-english.png")


@pytest.mark.timeout(180)
def test_a_spectator_arriving_mid_game_sees_the_log_so_far_and_players_see_them(
    new_context: NewContext, web_url: str
) -> None:
    host, links = host_at_table(new_context, web_url, VIEWPORTS["1366x768"])
    host.click("#start-game")
    play(host, 3)
    watcher = new_context(viewport=VIEWPORTS["1280x720"], locale="es-EC").new_page()
    watcher.goto(links["watch"])
    watcher.wait_for_selector(".log-panel li")
    assert "Aún no pasa nada" not in log_text(watcher)
    assert "Lucía" in log_text(watcher)
    assert "Empieza" in log_text(watcher) or "empieza" in log_text(watcher).lower()
    # The players see that someone watches.
    host.wait_for_selector("#watchers")
    assert host.text_content("#watchers") == "1 mirando"


@pytest.mark.timeout(60)
def test_the_rematch_count_counts_people_not_bots(new_context: NewContext, web_url: str) -> None:
    """The game-over panel drawn by the page's own code for a finished game of 2 people, 2 bots."""
    page = new_context(viewport=VIEWPORTS["1366x768"], locale="es-EC").new_page()
    page.goto(f"{web_url}/")
    page.wait_for_selector("#create-title")
    count = page.evaluate(
        """async () => {
          const { gameOverPanel } = await import('/js/panels.js');
          const person = (name) => ({ empty: false, bot: null, name, connected: true });
          const bot = { empty: false, bot: 2, name: "", connected: true };
          const model = { you: 0, table: { seats: 4, rematchAsked: [0, 1, 3],
            occupants: [person("Ana"), bot, person("Luis"), bot] },
            game: { phase: "finished", winner: 0, scores: [40, 28] } };
          const names = { teamOf: (team) => (team === 0 ? "Ana y Luis" : "Oeste y Este") };
          const panel = gameOverPanel(model, names, { rematch: () => {}, record: null });
          return [panel.querySelector('#rematch-count').textContent,
            panel.querySelector('#end-title').textContent];
        }"""
    )
    assert count == ["1 de 2 piden revancha", "Ana y Luis ganan 40–28"]
