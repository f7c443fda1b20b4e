"""What one command caused: log entries to store first, then messages to send (invariant 3).

The shell (``server.room``) commits ``entries``, the new state and ``record`` (a finished game's
R15 record to keep apart from the table) in one atomic step, then hands ``messages`` to the
connections and forgets the ``detached`` ones; ``wakeup`` is when the table next has something
to do (``server.core.clocks``), ``bots`` the decisions a tick found due (each answered with a
``BotAnswer``), ``notes`` what the shell logs (the core has no logger), ``summary`` the
table's public facts after the command (``server.core.summary``, for the listing) and
``notices`` what people away from a turn-based table are told (``server.core.turns``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import msgpack

from engine.actions import Action
from engine.views import View
from protocol import server_messages as s
from server.core.summary import TableSummary
from server.frames import Built
from server.notices import Notice
from server.store.base import KeptRecord


@dataclass(frozen=True, slots=True)
class BotRequest:
    """Ask a bot for ``seat``'s decision at event ``at``; answer with a ``BotAnswer``."""

    table: str
    seat: int
    level: int
    view: View
    legal: tuple[Action, ...]
    at: int
    seed: int
    stand_in: bool = False  # for a person (away, timed out, gone): `BotRunner`'s stand-in plays


@dataclass(frozen=True, slots=True)
class Note:
    """Something the shell logs at warning level: ``text``, with ``fields`` as its context."""

    text: str
    fields: Mapping[str, str | int | None]


@dataclass(frozen=True, slots=True)
class Baseline:
    """What a table's last update told every viewer: its info (encoded) and the hand's history
    entries (encoded; a list only appended to until the next hand), of which ``length`` then.
    The next update's snapshot is told as a change of it (``server.core.publishing``)."""

    info: bytes
    history: list[bytes]
    length: int


@dataclass(frozen=True, slots=True)
class ReservedSeat:
    """A seat held for a person who has not connected yet: its token resumes it."""

    seat: int
    token: str


@dataclass(slots=True)
class Outcome:
    """What one command caused: log entries to store first, then messages to send.

    ``first_new`` is the number of the first event this outcome logged (None: none); the referee
    turns the new events into one ``update`` per viewer when the command is done, folding in the
    ``acks`` of requests whose viewer gets one (the others get a plain ``ack``).
    """

    entries: list[bytes] = field(default_factory=list)
    messages: list[tuple[str, s.ServerMessage | Built]] = field(default_factory=list)
    detached: list[str] = field(default_factory=list)
    dirty: bool = False
    first_new: int | None = None
    acks: dict[str, int] = field(default_factory=dict)
    baseline: Baseline | None = None  # what this outcome's updates are told as a change of
    reserved: ReservedSeat | None = None  # a seat ``DealChica`` keeps for a person to come
    record: KeptRecord | None = None  # a game that just ended: its record, kept with the commit
    wakeup: float | None = None  # when the table next has something due (after this outcome)
    woken: bool = False  # ``wakeup`` is known (``Publisher.finish``); a merge computes it again
    bots: list[BotRequest] = field(default_factory=list)  # decisions a tick found due
    notes: list[Note] = field(default_factory=list)  # for the shell's log
    summary: TableSummary | None = None  # the table's public facts after the command
    notices: list[Notice] = field(default_factory=list)  # for people away, sent after the commit

    def to(self, conn: str, message: s.ServerMessage | Built) -> None:
        self.messages.append((conn, message))

    def ack(self, conn: str, rid: int) -> None:
        """Answer ``conn``'s request ``rid`` (in its update, if the request changed the table)."""
        self.acks[conn] = rid

    def merge(self, part: Outcome) -> None:
        """Add a finished outcome's entries, messages and detachments to this one."""
        self.entries += part.entries
        self.messages += part.messages
        self.detached += part.detached
        self.dirty = self.dirty or part.dirty
        self.record = part.record or self.record
        self.bots += part.bots
        self.notes += part.notes
        self.notices += part.notices

    def sent(self) -> list[tuple[str, s.ServerMessage]]:
        """The messages as their receivers handle them: built frames read back, updates
        unfolded into their ack, events and whole snapshot (for tests and debugging)."""
        info, history = None, None
        if self.baseline is not None:
            info = s.TableInfo.model_validate(msgpack.unpackb(self.baseline.info))
            entries = self.baseline.history[: self.baseline.length]
            history = [s.SeenPlay.model_validate(msgpack.unpackb(entry)) for entry in entries]
        out: list[tuple[str, s.ServerMessage]] = []
        for conn, message in self.messages:
            model = message.model() if isinstance(message, Built) else message
            if isinstance(model, s.Update):
                out += [(conn, part) for part in model.unfold_after(info, history)]
            else:
                out.append((conn, model))
        return out
