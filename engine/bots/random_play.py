"""Level 1: a random legal action whenever the bot must act; optional actions declined."""

from __future__ import annotations

import random

from engine.actions import Action
from engine.bots.registry import Budget, register
from engine.views import View


@register(1)
def random_play(
    view: View, legal: tuple[Action, ...], rng: random.Random, budget: Budget
) -> Action | None:
    """Pick uniformly among the legal actions on the bot's turn; otherwise do nothing."""
    if view.turn != view.viewer or not legal:
        return None
    mandatory = [action for action in legal if action.seat == view.viewer]
    return rng.choice(mandatory) if mandatory else None
