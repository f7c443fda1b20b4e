"""Level 2: the biggest capture (most cards, then most points), else a random trail.

It also announces what it holds (R6), claims what its team is entitled to (R10) and takes
missed cards whenever it may (R8).
"""

from __future__ import annotations

import random

from engine.actions import Action, Announce, Claim, Play, TakeMissed
from engine.bots.claims import entitled_claims
from engine.bots.registry import Budget, register
from engine.phase import Phase
from engine.scoring import play_points
from engine.views import View


def capture_points(view: View, play: Play) -> int:
    """Return the R9 points ``play`` would score for the viewer's team."""
    target = view.caida_target
    caida = target is not None and target in play.take and target >> 2 == play.card >> 2
    limpia = bool(play.take) and len(play.take) == len(view.table)
    return play_points(view.rules, view.scores[play.seat & 1], caida, limpia)


def _announce(legal: list[Action]) -> Action | None:
    calls = {action.call: action for action in legal if isinstance(action, Announce)}
    for call in ("cuarenta", "ronda", "pass"):
        if call in calls:
            return calls[call]
    return None


@register(2)
def greedy(
    view: View, legal: tuple[Action, ...], rng: random.Random, budget: Budget
) -> Action | None:
    """Choose as described in the module docstring."""
    mine = [action for action in legal if action.seat == view.viewer]
    for action in mine:
        if isinstance(action, TakeMissed):
            return action
    if view.phase is Phase.CLAIMS:
        for rank in entitled_claims(view):
            claim = Claim(view.viewer, rank)  # type: ignore[arg-type]
            if claim in mine:
                return claim
        return None
    if view.phase is Phase.ANNOUNCE:
        return _announce(mine)
    plays = [action for action in mine if isinstance(action, Play)]
    if not plays:
        return None
    captures = [play for play in plays if play.take]
    if not captures:
        return rng.choice(plays)
    scored = [(len(play.take), capture_points(view, play), play) for play in captures]
    best = max((size, points) for size, points, _ in scored)
    return rng.choice([play for size, points, play in scored if (size, points) == best])
