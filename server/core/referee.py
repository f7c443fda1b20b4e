"""The sans-I/O room core: one table's referee, behind one door.

A command (``server.core.commands``) and the current time go in (``Referee.apply``, the one
door); an ``Outcome`` comes out: numbered log entries to store, per-connection messages, the
record to keep, the bot decisions due, the next wake-up time and the table's summary. No
asyncio, no clock, no sockets: the shell (``server.room``) feeds it and the tests drive it
directly. The shell commits ``Outcome.entries`` and the new state to the store *before* it
sends ``Outcome.messages`` (invariant 3). A refused command raises ``Refused`` having changed
nothing.

The referee owns the table (``server.core.table``, plain data) and sends each command to the
module of its role, which changes the table through a ``Step`` (``server.core.step``):

- ``presence``: attach, resume, detach, reattach; the clocks (``Tick``) and the bots they ask;
- ``requests``: a connection's request, by message type, to ``sitting`` (who sits where),
  ``hosting`` (the host's rulings) or ``play`` (the game, the claim window, bots' answers);
- ``chica``: a solo-ladder table laid out through the same requests.

Beside them: ``clocks`` (every deadline), ``publishing`` (what viewers are sent, the log entry
format), ``storage`` (the stored form), ``outcome`` (what a command caused), ``summary`` (what
the listing shows).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self, assert_never

from protocol import server_messages as s
from protocol.base import TurnTimer
from protocol.errors import ErrorCode
from server import keys
from server.core import chica, clocks, play, presence, requests, storage, turns
from server.core.commands import (
    Attach,
    BotAnswer,
    Command,
    DealChica,
    Detach,
    Reattach,
    Request,
    Resume,
    Tick,
    Ticket,
)
from server.core.hosting import checked_options
from server.core.outcome import BotRequest, Outcome
from server.core.publishing import Publisher
from server.core.seating import Viewer
from server.core.step import Step
from server.core.summary import TableSummary, summarize
from server.core.table import LIVE, Pace, RefereeConfig, Table
from server.errors import Refused
from server.store.base import KeptRecord, KeyRole, credential_digest

__all__ = ["BotRequest", "Outcome", "Referee", "RefereeConfig", "TableSummary"]


class Referee:
    """One table's referee: every command, checked before anything changes."""

    __slots__ = (
        "_awaited",
        "_form",
        "_kept_game",
        "_summary",
        "_text",
        "publisher",
        "table",
        "table_id",
    )

    def __init__(self, table: Table) -> None:
        self.table = table
        self.table_id = table.table_id
        self.publisher = Publisher(table)
        self._text = storage.StateText()  # the stored actions' and record's JSON, kept
        self._form = storage.StoredForm()  # what the last commit stored: the next one's base
        self._kept_game = 0  # the last game whose record an outcome carried to keep
        self._summary: TableSummary | None = None  # the last outcome's (its parts are reused)
        #: the decisions of people the table waited for after the last outcome (seat, event)
        self._awaited: frozenset[tuple[int, int]] = frozenset()

    # ------------------------------------------------------------------ creation and storage
    @classmethod
    def create(
        cls,
        profile: str,
        options: dict[str, Any],
        turn_timer: TurnTimer,
        config: RefereeConfig,
        seeds: Callable[[], int] | None = None,
        club: str | None = None,
        public: bool = False,
        casual: bool = False,
        pace: Pace = LIVE,
    ) -> Self:
        """A new table with fresh keys; bad options are refused naming the rule (R13, R14).

        A ``public`` table is listed in the lobby of watchable tables (``server.listing``); a
        ``casual`` one is not rated; ``pace`` makes it turn-based (``Table.move_deadline``);
        a forfeit after missed deadlines is refused for a live table (nothing has a deadline)."""
        checked = checked_options(profile, options)
        if pace.on_deadline != "stand_in" and not pace.move_deadline:
            raise Refused(
                ErrorCode.BAD_OPTIONS,
                f"on_deadline {pace.on_deadline!r} needs a turn-based table (a move_deadline): "
                "a live table has no move deadline to miss",
            )
        table_keys: dict[KeyRole, str] = {
            "join": keys.new_key(),
            "watch": keys.new_key(),
            "host": keys.new_key(),
        }
        if club:
            table_keys["club"] = club
        table = Table(keys.new_table_id(), table_keys, profile, checked, turn_timer, config)
        table.public, table.casual = public, casual
        table.move_deadline, table.on_deadline = pace.move_deadline, pace.on_deadline
        if seeds is not None:
            table.seeds = seeds
        return cls(table)

    def to_state(self) -> bytes:
        """Everything needed to rebuild the table (with its log), as JSON bytes."""
        return storage.to_state(self.table, self._text)

    def stored_form(self) -> tuple[bytes, bool]:
        """What to commit now: a delta against the last form (True) or a snapshot (False).

        Every form given must be committed in order (a failed commit rebuilds the referee)."""
        return self._form.next(self.table, self._text)

    @classmethod
    def from_state(
        cls,
        data: bytes,
        log: list[bytes],
        config: RefereeConfig,
        now: float,
        seeds: Callable[[], int] | None = None,
    ) -> Self:
        """Rebuild a table from its stored state and log; every person starts away at ``now``."""
        referee = cls(storage.from_state(data, log, config, now, seeds))
        referee._awaited = turns.decisions(referee.table)  # told before it was stored
        return referee

    # ------------------------------------------------------------------ what others read
    # The shell reads the table's facts on ``referee.table`` (its own values, read-only there);
    # only the id is the referee's own, fixed for the table's life.
    def snapshot(self, viewer: Viewer) -> s.Snapshot:
        """``viewer``'s snapshot as a model (the frames carry the same, encoded)."""
        return self.publisher.snapshot(viewer)

    def info(self) -> s.TableInfo:
        return self.publisher.info()

    def deadlines(self, now: float | None = None) -> list[s.Deadline]:
        return self.publisher.deadlines(now)

    def record_for(self, credential: str) -> dict[str, Any] | None:
        """The finished game's R15 record for a current seat token or the host key."""
        table = self.table
        allowed = keys.same_secret(credential, table.keys.get("host")) or any(
            keys.same_secret(credential, seat.token) for seat in table.seats
        )
        return table.finished_record if allowed else None

    def tickets(self, live: set[str], last_event: int | None = None) -> list[Ticket]:
        """Tickets to put the viewers in ``live`` back on a rebuilt referee (``Reattach``)."""
        return presence.tickets(self.table, live, last_event)

    def summary(self) -> TableSummary:
        """The table's public facts now (an outcome carries them after each command)."""
        return summarize(self.table)

    def next_wakeup(self) -> float | None:
        """The earliest time a ``Tick`` has something to do."""
        return clocks.next_wakeup(self.table)

    # ------------------------------------------------------------------ the one door
    def apply(self, command: Command, now: float) -> Outcome:
        """Carry out one command at time ``now``; raises ``Refused`` with nothing changed."""
        out = self._run(command, now)
        if self.table.move_deadline and out.dirty:
            awaited = turns.decisions(self.table)
            out.notices += turns.your_turn(self.table, awaited - self._awaited)
            self._awaited = awaited
        if out.dirty and out.record is None:
            out.record = self._record_to_keep()
        if not out.woken:  # a chica deal or a reattach: merged outcomes, the table changed since
            out.wakeup = clocks.next_wakeup(self.table)
        out.summary = self._summary = summarize(self.table, self._summary)
        return out

    def _run(self, command: Command, now: float) -> Outcome:
        """The command, judged by the module of its role; every update sent (``finish``)."""
        table, publisher = self.table, self.publisher
        table.last_input = max(table.last_input, now)
        step = Step(table, publisher, Outcome(), now)
        match command:
            case Attach(conn, name, request, role, last_event, player, version):
                presence.attach(step, conn, name, request, role, last_event, player, version)
            case Resume(conn, name, token, last_event, rid, version):
                presence.resume(step, conn, name, token, last_event, rid, version)
            case Detach(conn):
                presence.detach(step, conn)
            case Request(conn, message):
                requests.handle(step, conn, message)
            case Tick():
                presence.tick(step)
            case BotAnswer(seat, at, action):
                play.bot_answer(step, seat, at, action)
            case Reattach(tickets):
                return presence.reattach(table, publisher, tickets, now)
            case DealChica(name, level):
                host, steps = chica.layout(table, name, level)
                for each in steps:
                    step.out.merge(self._run(each, now))
                chica.reserve(table, host, step.out)
                return step.out
            case _:
                assert_never(command)
        return publisher.finish(step.out)

    def _record_to_keep(self) -> KeptRecord | None:
        """The record of the game that just ended (R15), once per game, else None.

        Outside a game the finished record is the one of game ``game_no``; the readers are the
        host key and the seat tokens at the end, as for the live table's record.
        """
        table = self.table
        if table.finished_record is None or table.in_game or table.game_no == self._kept_game:
            return None
        self._kept_game = table.game_no
        credentials = [table.keys.get("host"), *(seat.token for seat in table.seats)]
        return KeptRecord(
            table.game_no,
            self._text.record(table.finished_record),  # the stored state's text of it
            tuple(credential_digest(credential) for credential in credentials if credential),
        )
