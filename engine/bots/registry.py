"""The bot levels' registry: `Budget`, `Policy` and `register` (see `engine.bots`).

Apart from the package so that every level's module imports it without importing the
package that imports those modules (no import circle).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from engine.actions import Action
from engine.views import View


@dataclass(frozen=True, slots=True)
class Budget:
    """How much a searching bot may spend: samples, and/or a deadline on a given clock."""

    samples: int | None = None
    deadline: float | None = None
    clock: Callable[[], float] | None = None

    def expired(self) -> bool:
        """Tell whether the deadline has passed (never, without a deadline and a clock)."""
        if self.deadline is None or self.clock is None:
            return False
        return self.clock() >= self.deadline


Policy = Callable[[View, tuple[Action, ...], random.Random, Budget], Action | None]

LEVELS: dict[int, Policy] = {}
#: policies that stand in for a level (a stand-in, a search level under load) but are no
#: rung of the ladder: `levels` does not list them, `choose` finds them by their number.
STAND_INS: dict[int, Policy] = {}


def register(level: int) -> Callable[[Policy], Policy]:
    """Register a policy as bot ``level`` (a decorator)."""

    def decorate(policy: Policy) -> Policy:
        LEVELS[level] = policy
        return policy

    return decorate


def stand_in(number: int) -> Callable[[Policy], Policy]:
    """Register a policy as stand-in ``number`` (a decorator; see `STAND_INS`)."""

    def decorate(policy: Policy) -> Policy:
        STAND_INS[number] = policy
        return policy

    return decorate
