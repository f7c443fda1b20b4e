"""`cuarenta bench ceiling`: the clairvoyant player against a level, by duplicate pairs."""

from __future__ import annotations

import argparse
import json

import pytest

from bench.ceiling import add_arguments, clairvoyant, play_pair, run
from engine import Game


def _args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(list(argv))


def test_the_clairvoyant_beats_random_play_by_a_wide_margin(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert run(_args("--pairs", "1", "--levels", "1", "--jobs", "1", "--json")) == 0
    summary = json.loads(capsys.readouterr().out)
    (level,) = summary["levels"]
    assert level["level"] == 1
    assert level["pairs"] == 1
    assert level["headroom_per_hand"]["mean"] > 5


def test_a_pair_is_the_same_games_every_time() -> None:
    """Fixed seeds (the tournament's pair seeds) and fixed samples: the figures repeat."""
    assert play_pair((1, 0, "ceiling-1", 1)) == play_pair((1, 0, "ceiling-1", 1))


def test_the_clairvoyant_only_makes_legal_plays() -> None:
    game = Game.new("pagat-4p", seed="ceiling-test")
    seat = game.turn
    assert seat is not None
    assert clairvoyant(game, seat) in game.legal_actions(seat)


def test_an_unknown_level_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    assert run(_args("--pairs", "1", "--levels", "9")) == 2
    assert "levels must be among" in capsys.readouterr().out


def test_the_clairvoyant_breaks_ties_as_level_3_ranks_plays() -> None:
    """Among the plays its true-deal playouts value equally, the clairvoyant plays the one
    level 3 ranks first (R2: one play per play up to suits), never the legal list's first."""
    from bench.ceiling import playout_value, ranked_by_level_3
    from engine.bots.routine import routine

    ties_where_orders_differ = 0
    for seed in range(6):
        game = Game.new("pagat-4p", seed=f"ceiling-ties-{seed}")
        for _ in range(40):
            seats = game.to_act()
            if not seats:
                game.apply(game.system_actions()[0])  # R10: nobody claims: the window closes
                continue
            seat = seats[0]
            legal = game.legal_actions(seat)
            if not routine(game.view(seat), legal)[0]:
                ranked = ranked_by_level_3(game, seat)
                values = {play: playout_value(game, play, seat & 1) for play in ranked}
                top = max(values.values())
                tied = [play for play in ranked if values[play] == top]
                listed = [p for p in game.legal_actions(seat, by_rank=True) if p in values]
                first_listed = next(p for p in listed if values[p] == top)
                if len(tied) > 1 and first_listed != tied[0]:
                    ties_where_orders_differ += 1
                assert clairvoyant(game, seat) == tied[0]
            game.apply(clairvoyant(game, seat) or legal[0])
    assert ties_where_orders_differ > 0, "no tie tells the orders apart: the test proves nothing"
