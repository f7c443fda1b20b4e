"""Bot seats' decisions: quick levels inline, search levels in a spawned process pool."""

from __future__ import annotations

import asyncio
import pickle
import random
import time

import pytest

from engine import Play, bots
from engine.actions import Action
from engine.bots.learned import CHEAP_LEVEL
from engine.bots.search import LEVEL4, candidates_of
from engine.errors import IllegalAction, InvalidRecord
from engine.game import Game
from engine.views import View, view_of
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


def first_turn() -> tuple[View, tuple[Action, ...]]:
    """The first seat to play in seed 3's game: its view and legal actions."""
    game = Game.new(seed=3)
    seat = game.turn
    assert seat is not None
    return view_of(game, seat), game.legal_actions(seat)


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


async def test_a_person_away_gets_the_learned_stand_in_inline_and_the_answer_says_so() -> None:
    runner = BotRunner(workers=1, budget_s=0.2)
    view, legal = first_turn()
    try:
        action, ran = await runner.decide_served(3, view, legal, 1, stand_in=True)
        assert ran == CHEAP_LEVEL
        assert action == bots.choose(CHEAP_LEVEL, view, legal, random.Random(1))
        assert runner._pool is None  # no worker: the stand-in never searches
        off = BotRunner(workers=1, stand_in=False)
        assert (await off.decide_served(3, view, legal, 1, stand_in=True))[1] == 3
    finally:
        runner.close()


async def test_while_every_worker_searches_a_search_level_gets_the_learned_policy_at_once() -> None:
    """Two level-5 requests at once on one worker: the first searches, the second is the
    learned policy's, answered without waiting; alone again, level 5 searches."""
    runner = BotRunner(workers=1, budget_s=0.2)
    view, legal = first_turn()
    try:
        first, second = await asyncio.gather(
            runner.decide_served(5, view, legal, 1), runner.decide_served(5, view, legal, 2)
        )
        assert (first[1], second[1]) == (5, CHEAP_LEVEL)
        assert first[0] in legal
        assert second[0] in legal
        assert runner.searching == 0
        assert (await runner.decide_served(5, view, legal, 3))[1] == 5
        patient = BotRunner(workers=1, budget_s=0.2, under_load=False)
        try:
            both = await asyncio.gather(
                patient.decide_served(5, view, legal, 1), patient.decide_served(5, view, legal, 2)
            )
            assert [ran for _, ran in both] == [5, 5]
        finally:
            patient.close()
    finally:
        runner.close()


def test_the_learned_policy_resolves_to_itself() -> None:
    assert resolve_level(CHEAP_LEVEL) == CHEAP_LEVEL


async def test_a_dead_worker_costs_one_turn_at_level_3_and_the_next_gets_a_new_pool() -> None:
    """Invariant 5: a bot worker killed (the OOM killer, an operator) never stalls its seat."""
    runner = BotRunner(workers=1, budget_s=0.2)
    view, legal = first_turn()
    try:
        await runner.decide(5, view, legal, seed=1)
        pool = runner._pool
        assert pool is not None
        for process in pool._processes.values():
            process.kill()
            process.join(10)
        fallback = await runner.decide(5, view, legal, seed=1)
        assert fallback == decide(INLINE_MAX_LEVEL, view, legal, 1, runner.budget_s)
        assert runner._pool is None  # the broken pool is dropped
        assert await runner.decide(5, view, legal, seed=1) in legal
        assert runner._pool is not None
        assert runner._pool is not pool
    finally:
        runner.close()


async def test_an_engine_error_in_a_worker_comes_back_as_itself() -> None:
    """A review of a record that is none fails with the engine's error (R15), and the worker
    that raised it stays up: the error crosses back whole instead of breaking the pool."""
    runner = BotRunner(workers=1)
    try:
        for _ in range(2):
            with pytest.raises(InvalidRecord, match="R15"):
                await runner.review(b'{"format": "not a record"}')
    finally:
        runner.close()


def test_engine_errors_pickle_with_their_rule_reason_and_index() -> None:
    error = IllegalAction("R7", "that card is not in your hand")
    error.index = 4
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), str(copy), copy.rule, copy.reason, copy.index) == (
        IllegalAction,
        "R7: that card is not in your hand",
        "R7",
        "that card is not in your hand",
        4,
    )


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
