"""A forfeited game says so where people look back (issue 41): Rosa, away from a one-hour
forfeit table, misses two deadlines in a row (the server stopped and started again, its clock
an hour and more later each time); her /me then says "Lost by forfeit" on the table's line and
in her history, beside the score — in her language, at 390×844 and 1280×720, axe clean. The
forfeit is a table's rule beside RULES.md, which ends a game only with a winner at 40 (R12): the
R15 record stops where the game stopped, and the history line, not the record, says why."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import ViewportSize

from clients.session import ClientSession
from protocol import away as a
from protocol import players as p
from protocol.players import Language
from tests.server.people.wire import new_key
from tests.web.axe import assert_accessible
from tests.web.conftest import NewContext
from tests.web.test_browser import STEP_TIMEOUT_MS
from tests.web.test_push_worker import seated
from tests.web.test_turn_based import (
    HOUR,
    Site,
    keyed,
    on_the_wire,
    site_on_a_fresh_redis,
    turns_of,
)

pytestmark = pytest.mark.browser
PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 720}
MOST_RESTARTS = 8  # a deadline that closes a claim window is not a missed one: a few more


site = pytest.fixture(scope="module", name="site")(site_on_a_fresh_redis)


def settled(site: Site, key: str, table: str) -> a.TurnLine:
    """Her table's line once the started server has acted on what was due: the game over, or
    a decision of hers awaited until a deadline still ahead (a bounded number of asks)."""
    for _ in range(200):
        turns = on_the_wire(turns_of(site.url, key))
        line = next(line for line in turns.tables if line.table == table)
        if line.stage == "finished":
            return line
        if line.your_turn and line.deadline is not None and line.deadline > turns.server_time:
            return line
    raise AssertionError("the table never came round to Rosa")


async def history_of(url: str, key: str) -> p.History:
    ws = url.replace("http://", "ws://") + "/ws"
    async with await ClientSession.connect(ws, "Rosa", player_key=key) as rosa:
        for _ in range(200):  # recorded off the table's path, after its commit
            history = await rosa.request(p.HistoryRequest())
            assert isinstance(history, p.History)
            if history.games:
                return history
    raise AssertionError("the forfeited game never reached her history")


async def speaks(url: str, key: str, lang: Language) -> None:
    ws = url.replace("http://", "ws://") + "/ws"
    async with await ClientSession.connect(ws, "Rosa", player_key=key) as rosa:
        me = await rosa.request(p.SetMe(language=lang))
        assert isinstance(me, p.Me)
        assert me.language == lang


@pytest.mark.timeout(600)
def test_a_game_lost_by_forfeit_says_so_on_me_in_the_line_and_the_history(
    site: Site, new_context: NewContext, artifacts: Path
) -> None:
    key = new_key()
    created = on_the_wire(seated(site.url, key, move_deadline=HOUR, on_deadline="forfeit"))
    line = settled(site, key, created.table)
    for _ in range(MOST_RESTARTS):
        if line.stage == "finished":
            break
        site.restart(hours=1.1)  # nobody came: her deadline passed while the server was down
        line = settled(site, key, created.table)
    assert (line.stage, line.forfeit) == ("finished", "lost")
    (game,) = on_the_wire(history_of(site.url, key)).games
    assert (game.result, game.by) == ("lost", "forfeit")
    score = f"{game.score[0]}–{game.score[1]}"
    cases: tuple[tuple[ViewportSize, str, Language, str], ...] = (
        (PHONE, "390x844", "en", "Lost by forfeit"),
        (DESKTOP, "1280x720", "es", "Perdiste por abandono"),
        (PHONE, "390x844", "pt", "Derrota por desistência"),
    )
    for viewport, size, lang, words in cases:
        on_the_wire(speaks(site.url, key, lang))  # /me is in the person's own language
        context = new_context(viewport=viewport)
        context.add_init_script(keyed(key))
        page = context.new_page()
        page.goto(f"{site.url}/me?lang={lang}")
        page.wait_for_selector(".me-game", timeout=STEP_TIMEOUT_MS)
        page.wait_for_selector(f".me-turn[data-table='{created.table}']", timeout=STEP_TIMEOUT_MS)
        status = page.locator(f".me-turn[data-table='{created.table}'] .me-turn-status")
        assert status.inner_text() == words
        result = page.locator(".me-game .me-result")
        assert result.inner_text() == words
        assert result.get_attribute("data-by") == "forfeit"
        assert page.locator(".me-game .me-score").inner_text() == score  # beside the score
        assert_accessible(page, f"/me with a game lost by forfeit, {size}, {lang}")
        page.screenshot(path=str(artifacts / f"me-forfeit-{size}-{lang}.png"), full_page=True)
        context.close()
