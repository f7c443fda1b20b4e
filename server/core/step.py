"""One command's work, and the checks every request makes before it changes anything.

A ``Step`` is what each handler module (``presence``, ``sitting``, ``hosting``, ``play``) is
given: the table it changes, the publisher that numbers and sends what changed, the outcome it
builds and the time. The guards below raise ``Refused`` naming the rule, before any change:
a refused command changes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.game import Game
from protocol.errors import ErrorCode
from server.core.outcome import Outcome
from server.core.publishing import Publisher
from server.core.seating import Viewer
from server.core.table import Table
from server.errors import Refused


@dataclass(slots=True)
class Step:
    """One command being carried out at ``now``: ``out`` collects what it caused."""

    table: Table
    publisher: Publisher
    out: Outcome
    now: float

    def publish(self, *events: Any) -> None:
        """Number and log ``events``; the publisher's ``finish`` sends them to every viewer."""
        self.publisher.publish(self.out, list(events), self.now)

    def presence(self) -> None:
        """Who is here changed (no event): tell every viewer."""
        self.publisher.presence(self.out)


def seat_index(table: Table, index: int) -> int:
    if not 0 <= index < len(table.seats):
        raise Refused(
            ErrorCode.INVALID_MESSAGE, f"R1/R14: this table has seats 0-{len(table.seats) - 1}"
        )
    return index


def require_lobby(table: Table, what: str) -> None:
    if table.in_game:
        raise Refused(ErrorCode.WRONG_PHASE, f"cannot {what} while a game is being played")


def require_host(viewer: Viewer, what: str) -> None:
    if not viewer.host:
        raise Refused(ErrorCode.FORBIDDEN, f"only the host may {what}")


def require_seated(viewer: Viewer) -> int:
    if viewer.seat is None:
        raise Refused(ErrorCode.NOT_SEATED, "spectators cannot do that: take a seat")
    return viewer.seat


def require_game(table: Table) -> Game:
    if table.game is None or not table.in_game:
        raise Refused(ErrorCode.WRONG_PHASE, "no game is being played")
    return table.game


def check_unlocked(table: Table, viewer: Viewer) -> None:
    if table.locked and not viewer.host:
        raise Refused(ErrorCode.TABLE_LOCKED, "the host has locked this table")
