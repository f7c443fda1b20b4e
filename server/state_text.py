"""The stored state's JSON, and its two big parts kept as JSON between commits.

Every commit stores the table's whole state (``TableState.to_state``). Its bulk is the game's
action list, which only grows, and the finished game's record, which changes once a game:
re-serialising both on every commit made each commit's cost grow with the game. `StateText`
serialises each new action once and the record once, and ``to_state`` splices the texts in.
JSON is written by orjson: the stored state, the actions and the event log are written on every
change, and orjson writes the same compact JSON as ``json.dumps(..., separators=(",", ":"))``
(UTF-8 instead of ``\\u`` escapes) about ten times faster.
"""

from __future__ import annotations

from typing import Any

import orjson

from engine.actions import Action
from engine.game import Game


def compact(value: Any) -> bytes:
    """The one JSON form of what is stored: compact, UTF-8.

    Copied to a bytes object of its own size: orjson returns its working buffer, about 4 KB
    even for ``null``, and the log lines and action texts are kept for a table's lifetime.
    """
    return memoryview(orjson.dumps(value)).tobytes()


class StateText:
    """One table's actions and finished record as compact JSON, remembered between commits."""

    __slots__ = ("_game", "_last", "_parts", "_record", "_record_text")

    def __init__(self) -> None:
        self._game: Game | None = None
        self._last: Action | None = None
        self._parts: list[bytes] = []
        self._record: object = None
        self._record_text = b"null"

    def actions(self, game: Game | None) -> bytes:
        """Return ``compact([a.to_json() for a in game.actions])``, or ``null`` for no game."""
        if game is None:
            return b"null"
        actions = game.actions
        done = len(self._parts)
        if (
            game is not self._game
            or len(actions) < done
            or (done and actions[done - 1] is not self._last)
        ):
            self._game, self._parts, done = game, [], 0  # another game (a rematch, a reload)
        self._parts += [compact(action.to_json()) for action in actions[done:]]
        self._last = actions[-1] if actions else None
        return b"[" + b",".join(self._parts) + b"]"

    def record(self, record: dict[str, Any] | None) -> bytes:
        """Return ``compact(record)``, serialised once per record object (set once a game)."""
        if record is not self._record:
            self._record, self._record_text = record, compact(record)
        return self._record_text
