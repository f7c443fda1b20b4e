"""The engine's one error tree; every message names the rule (R-number) and the reason.

::

    EngineError (ValueError)
    ├── IllegalAction    an action the rules forbid now; the game is left untouched
    ├── InvalidOptions   an unknown profile or option, a value outside R13, a changed R14 rule
    └── InvalidRecord    a game record (R15) that cannot be read: wrong shape, format or fields
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base of every error the engine raises on bad input (python-chess style: a ValueError)."""

    def __init__(self, rule: str, reason: str) -> None:
        super().__init__(f"{rule}: {reason}")
        self.rule = rule
        self.reason = reason

    def __reduce__(self) -> tuple[type[EngineError], tuple[str, str], dict[str, object]]:
        """Pickled with both arguments (and ``index``): an error raised in a bot or review
        worker crosses back to the server, and one that cannot be read breaks the whole pool."""
        return type(self), (self.rule, self.reason), dict(self.__dict__)


class IllegalAction(EngineError):
    """An action the rules do not allow in the current state.

    ``index`` is the action's position when it came from a record (`Game.from_record`).
    """

    index: int | None = None


class InvalidOptions(EngineError):
    """A profile or option set that R13/R14 do not allow."""


class InvalidRecord(EngineError):
    """A game record that is not a valid ``cuarenta-record/1`` document (R15)."""
