"""Level 6's belief: deals weighed by how likely the others' plays of the packet make them."""

from __future__ import annotations

import random

import pytest

from engine import Play
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
