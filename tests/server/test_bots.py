"""Bot seats' decisions: quick levels inline, search levels in a spawned process pool."""

from __future__ import annotations

from engine import bots
from engine.game import Game
from engine.views import view_of
from server.bots import INLINE_MAX_LEVEL, BotRunner, resolve_level


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
