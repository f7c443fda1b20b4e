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
