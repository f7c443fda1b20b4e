"""Helpers for bot tests: play a game on with bots at one level in every seat."""

from __future__ import annotations

import random

from engine import Action, Game, Phase
from engine.bots import Budget, choose


def play_hand(game: Game, level: int, rng: random.Random, budget: Budget) -> list[Action]:
    """Play one hand (up to the next hand or the end) with ``level`` everywhere; return the
    actions taken, each checked against the legal actions of its seat."""
    hand = game.hand_number
    taken: list[Action] = []
    while game.phase is not Phase.FINISHED and game.hand_number == hand:
        for seat in game.to_act():
            legal = game.legal_actions(seat)
            action = choose(level, game.view(seat), legal, rng, budget)
            if action is not None:
                assert action in legal, f"level {level} chose illegal {action} in {game}"
                game.apply(action)
                taken.append(action)
                break
        else:
            game.apply(game.system_actions()[0])  # R10: the window closes
    return taken
