"""A first net: random complete games of every profile keep the engine's invariants."""

from __future__ import annotations

import random

import pytest

from engine import CloseClaims, Game, Phase, replay


@pytest.mark.parametrize("profile", ["pagat-4p", "heads-up", "libre-2p"])
def test_random_games_finish_and_replay_identically_R12_R15(profile: str) -> None:
    rng = random.Random(5)
    for seed in range(5):
        game = Game.new(profile, seed=seed)
        while game.phase is not Phase.FINISHED:
            legal = list(game.legal_actions()) + list(game.system_actions())
            legal = [a for a in legal if a != CloseClaims()] or [CloseClaims()]
            game.apply(rng.choice(legal))
            game.check_invariants()
        result = replay(game.record())
        assert result["status"] == "finished"
        assert result["winner"] == game.winner
        assert result["scores"] == list(game.scores)
