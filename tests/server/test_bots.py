"""Bot seats' decisions: quick levels inline, search levels in a spawned process pool."""

from __future__ import annotations

import time

from engine import Play, bots
from engine.bots.search import LEVEL4, candidates_of
from engine.game import Game
from engine.views import view_of
from server.bots import (
    INLINE_MAX_LEVEL,
    LEAST_SHARE,
    SEARCH_SHARE,
    BotRunner,
    Lateness,
    budget_of,
    decide,
    resolve_level,
)


def test_a_missing_level_falls_back_to_the_best_level_below_it() -> None:
    available = bots.levels()
    assert resolve_level(max(available)) == max(available)
    assert resolve_level(99) == max(available)
    assert resolve_level(0) == min(available)


async def test_search_levels_decide_in_the_process_pool_from_one_seats_view_r7() -> None:
    runner = BotRunner(workers=1, budget_s=0.2)
    game = Game.new(seed=3)
    seat = game.turn
    assert seat is not None
    legal = game.legal_actions(seat)
    try:
        for level in (1, max(bots.levels())):
            action = await runner.decide(level, view_of(game, seat), legal, seed=1)
            assert action in legal
        assert (runner._pool is not None) == (max(bots.levels()) > INLINE_MAX_LEVEL)
    finally:
        runner.close()


def test_each_search_level_has_its_own_budget_within_the_servers_cap() -> None:
    assert (budget_of(4, 1.0), budget_of(5, 1.0), budget_of(6, 1.0)) == (0.3, 0.5, 0.5)
    assert budget_of(5, 0.2) == 0.2  # the operator's cap (--bot-budget) still bounds it


def test_a_request_that_waited_past_its_deadline_gets_level_3s_choice_at_once() -> None:
    """The deadline is set at the request, so time spent queueing for a worker counts."""
    game = Game.new(seed=3)
    seat = game.turn
    assert seat is not None
    view, legal = view_of(game, seat), game.legal_actions(seat, by_rank=True)
    plays = [action for action in legal if isinstance(action, Play)]
    first = candidates_of(view, plays, LEVEL4)[0]
    start = time.process_time()
    assert decide(4, view, legal, 1, 0.3, deadline=time.monotonic() - 1.0) == first
    assert time.process_time() - start < 0.05


def test_searches_stop_earlier_when_answers_have_been_arriving_late() -> None:
    """On a loaded machine answers come late past their deadline: later searches are given
    the budget less that lateness (90th percentile), never under LEAST_SHARE of it."""
    lateness = Lateness()
    assert lateness.search_s(0.3) == SEARCH_SHARE * 0.3
    for _ in range(20):
        lateness.record(0.02)  # on time: the full share
        lateness.record(-0.1)  # stopped early: says nothing of lateness
    assert lateness.search_s(0.3) == SEARCH_SHARE * 0.3
    for _ in range(40):
        lateness.record(0.15)
    assert abs(lateness.search_s(0.3) - 0.15) < 1e-9
    for _ in range(40):
        lateness.record(1.0)
    assert lateness.search_s(0.5) == LEAST_SHARE * 0.5
