"""Level 6's belief: deals weighed by how likely the others' plays of the packet make them."""

from __future__ import annotations

import random

import pytest

from engine import Game, Phase, Play
from engine.bots import Budget, belief, choose
from tests.engine.helpers import act, deal


def test_level_6_with_the_belief_on_still_plays_legally(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the belief on (`WEIGHTED_SEATS`), level 6 still decides: a legal play."""
    monkeypatch.setattr(belief, "WEIGHTED_SEATS", (4,))
    game = deal(0, {1: "QC AH 2H 3H 4H", 2: "5S 6S 7S JS KS", 3: "QD AD 2D 3D 4D"})
    act(game, "1 QC", "2 5S")
    legal = game.legal_actions(3)
    action = choose(6, game.view(3), legal, random.Random(3), Budget(2))
    assert isinstance(action, Play)
    assert action in legal


@pytest.mark.parametrize("profile", ["heads-up", "pagat-4p"])
def test_where_level_6_measured_worse_it_plays_level_5s_search(
    profile: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On the tables of `LEVEL5_SEATS` level 6 decides exactly as level 5 (same deals)."""
    monkeypatch.setattr(belief, "LEVEL5_SEATS", (2, 4))
    game = Game.new(profile, seed=f"belief/level5/{profile}")
    rng = random.Random(1)
    compared = 0
    while compared < 12 and game.phase is not Phase.FINISHED:
        seat = game.turn
        acted = False
        for mover in game.to_act():
            legal = game.legal_actions(mover)
            if mover == seat and any(isinstance(a, Play) for a in legal) and not game.missed:
                view = game.view(mover)
                six = choose(6, view, legal, random.Random(compared), Budget(3))
                assert six == choose(5, view, legal, random.Random(compared), Budget(3))
                compared += 1
            action = choose(3, game.view(mover), legal, rng)
            if action is not None:
                game.apply(action)
                acted = True
                break
        if not acted:
            game.apply(game.system_actions()[0])
    assert compared == 12
