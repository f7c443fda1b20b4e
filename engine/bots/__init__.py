"""Bots: a policy per level, each a function of one seat's view only (no cheating partner).

``choose(level, view, legal, rng, budget)`` returns the action a bot at ``level`` takes, or
None when every legal action is optional (a claim, taking missed cards while it is not the
bot's turn) and the bot declines. Levels 1 and 2 live here; stronger levels register
themselves with `register` from their own modules (``engine.bots.<name>``), listed in
`_PLUGINS` so `choose` finds them without the caller importing them.
"""

from __future__ import annotations

import importlib
import random

from engine.actions import Action
from engine.bots.registry import LEVELS, STAND_INS, Budget, Policy, register
from engine.errors import EngineError
from engine.views import View

#: modules that register further levels when imported (added by their authors).
_PLUGINS: tuple[str, ...] = (
    "engine.bots.counting",
    "engine.bots.search",
    "engine.bots.deep",
    "engine.bots.belief",
    "engine.bots.learned",
)


def levels() -> tuple[int, ...]:
    """Return the available levels, lowest first."""
    _load_plugins()
    return tuple(sorted(LEVELS))


def stand_ins() -> tuple[int, ...]:
    """Return the numbers of the policies that stand in for a level (no rungs)."""
    _load_plugins()
    return tuple(sorted(STAND_INS))


def _load_plugins() -> None:
    for name in _PLUGINS:
        importlib.import_module(name)


def choose(
    level: int,
    view: View,
    legal: tuple[Action, ...],
    rng: random.Random,
    budget: Budget | None = None,
) -> Action | None:
    """Return the action bot ``level`` takes in ``view`` among ``legal`` (its seat's actions)."""
    if level not in LEVELS and level not in STAND_INS:
        _load_plugins()
    policy = LEVELS.get(level) or STAND_INS.get(level)
    if policy is None:
        raise EngineError("bots", f"no bot level {level} (levels: {sorted(LEVELS)})")
    return policy(view, legal, rng, budget or Budget())


from engine.bots import greedy as _greedy  # noqa: E402  (registers levels 1 and 2)
from engine.bots import random_play as _random_play  # noqa: E402

__all__ = ["LEVELS", "STAND_INS", "Budget", "Policy", "choose", "levels", "register", "stand_ins"]
del _greedy, _random_play
