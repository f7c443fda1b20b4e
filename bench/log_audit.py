"""The checks the fault suite makes of recording clients (``bench.recording``) against the
stored log.

Helpers only (no tests). ``check_table`` asserts, per connection and per person, what the fault
suite promises (``audit_table`` counts the same, without asserting):

- no gap, no duplicate, no view going backwards (the session's own numbering checks);
- every event a viewer was sent equals the stored log's event as that viewer may see it;
- every acknowledged move is the first game event stored after the event it was made at, and
  no refused move is (unless an acknowledged retry landing there put it there);
- at the end every connected viewer has been sent the whole stored log.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from bench.recording import Move, Person, Recorder, Table, finished, wait_for
from engine.record import Record
from engine.replay import replay
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.game_events import is_game_event
from server.config import Settings
from server.core.referee import Referee
from server.frames import Built
from server.store.base import Store


async def rebuilt(store: Store, table_id: str) -> Referee:
    stored = await store.load(table_id)
    assert stored is not None
    log = [event.data for event in await store.events_after(table_id, 0)]
    return Referee.from_state(stored.state, log, Settings().referee_config(), time.time())


KINDS = (
    *("lost", "duplicated", "gapped", "backwards", "mismatched", "refused_stored", "behind"),
    "replay",
)
"""What the audit counts: an acknowledged move (or an event a viewer was sent) not in the stored
log; an event sent twice; one skipped; a view going backwards; an event unlike the stored one; a
refused move that is stored (refused_stored: the same card and take, or the same call, stored
for the seat while its person stayed connected); a connected viewer never sent the end of the
log; a finished game whose record does not replay to what its players saw."""


@dataclass
class Audit:
    """What ``audit_table`` found: counts, and each violation in words."""

    counts: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("events", "acked", "refused", "unknown", "sessions", "finished", "stood_in"), 0
        )
    )
    violations: dict[str, list[str]] = field(default_factory=lambda: {k: [] for k in KINDS})

    def add(self, kind: str, detail: str) -> None:
        self.violations[kind].append(detail)

    def merge(self, other: Audit) -> None:
        for name, value in other.counts.items():
            self.counts[name] = self.counts.get(name, 0) + value
        for kind, details in other.violations.items():
            self.violations[kind] += details

    @property
    def total(self) -> int:
        return sum(len(details) for details in self.violations.values())


async def check_table(
    store: Store, table: Table, connected: bool = True, stand_ins: bool = False
) -> dict[str, int]:
    """The suite's assertions for one table (see the module docstring); returns counts.

    ``connected``: every person's last connection is still open, so each must have been sent
    the whole stored log (waited for: the last events may still be on their way).
    ``stand_ins``: someone was really away (no check that no stand-in was announced).
    """
    audit = await audit_table(store, table, connected)
    if not stand_ins:  # nobody was away: a rebuild or takeover must not announce a stand-in
        referee = await rebuilt(store, table.table_id)
        last = referee.table.last_event
        announced = [n for n in range(1, last + 1) if _kind_at(referee, n) == "stand_in"]
        assert announced == [], f"stand-in events at {announced} for seats never away"
    found = {kind: details for kind, details in audit.violations.items() if details}
    assert not found, found
    return audit.counts


async def audit_table(store: Store, table: Table, connected: bool = True) -> Audit:
    """Every check of the module docstring on one table, counted (``KINDS``), not asserted."""
    audit = Audit()
    stored = await store.load(table.table_id)
    if stored is None:
        audit.add("lost", f"{table.table_id}: the table is not stored")
        return audit
    last = stored.last_event
    if connected:

        async def caught_up() -> bool:
            return all(person.session.last_event >= last for person in table.people)

        try:
            await wait_for(caught_up, 30, f"every viewer of {table.table_id} sent event {last}")
        except AssertionError as exc:
            audit.add("behind", str(exc))
    referee = await rebuilt(store, table.table_id)
    audit.counts["events"] = last
    later: list[tuple[str, int | None, s.Event]] = []  # events past the log as first read
    for person in table.people:
        where = f"{table.table_id} {person.name}"
        seen: set[int] = set()
        high = 0  # the last event this person was sent, over all their connections
        for session in person.sessions:
            audit.counts["sessions"] += 1
            for problem in session.problems:  # its gaps and snapshots (events: below)
                kind = _problem_kind(problem)
                if kind is not None:
                    audit.add(
                        kind,
                        f"{where} (connection {session.connection_id}): {problem}; "
                        f"received {_outline(session)}",
                    )
            for message in session.stream:
                if isinstance(message, s.Snapshot) and message.last_event < high:
                    audit.add(  # a newcomer's first one too: its view may not go back
                        "backwards", f"{where}: a snapshot at {message.last_event} after {high}"
                    )
                if not isinstance(message, s.Event):
                    continue
                n = message.n
                if n in seen:  # across connections too: a resume starts after the last seen
                    audit.add("duplicated", f"{where}: event {n} again; {_outline(session)}")
                elif n < high:
                    audit.add("backwards", f"{where}: event {n} after {high}")
                seen.add(n)
                high = max(high, n)
                if n > referee.table.last_event:  # stored since the rebuild (a timer) or never
                    later.append((where, person.seat, message))
                    continue
                _check_event(referee, where, person.seat, message, audit)
        for move in person.moves:
            audit.counts[move.fate] += 1
            if move.fate == "refused":  # by code: storage, stale, not your turn
                code = move.detail.split(":", 1)[0].rsplit(".", 1)[-1].lower()
                audit.counts[f"refused {code}"] = audit.counts.get(f"refused {code}", 0) + 1
        _check_moves(referee, person, audit)
    if later:  # the table moved on during the audit (a turn timer): read it again, once
        referee = await rebuilt(store, table.table_id)
        for where, seat, message in later:
            if message.n > referee.table.last_event:
                audit.add(
                    "lost",
                    f"{where}: sent event {message.n}, the log ends at {referee.table.last_event}",
                )
            else:
                _check_event(referee, where, seat, message, audit)
    await _check_record(store, table, audit)
    return audit


def _check_event(
    referee: Referee, where: str, seat: int | None, message: s.Event, audit: Audit
) -> None:
    """What the viewer was sent is the stored log, redacted for it."""
    expected = Built(referee.publisher.event_frame(message.n, seat), "event", message.n).model()
    if message != expected:
        audit.add("mismatched", f"{where}: event {message.n} {message} != {expected}")


async def _check_record(store: Store, table: Table, audit: Audit) -> None:
    """A finished game's stored record (R15) replays, by the engine, to the final scores and
    winner each of its players was shown."""
    finals = []
    for person in table.players:
        shown = [
            m for session in person.sessions for m in session.stream if isinstance(m, s.Snapshot)
        ]
        done = [snap for snap in shown if finished(snap)]
        if done and done[-1].view is not None:
            finals.append((person.name, done[-1].view.scores, done[-1].view.winner))
    if not finals:
        return
    audit.counts["finished"] += 1
    kept = await store.find_record(table.table_id)
    if kept is None:
        audit.add("replay", f"{table.table_id}: finished, but no record is stored")
        return
    result = replay(Record.from_json(json.loads(kept.record)))
    for name, scores, winner in finals:
        if result["status"] != "finished" or (list(scores), winner) != (
            result["scores"],
            result["winner"],
        ):
            audit.add(
                "replay",
                f"{table.table_id} {name} was shown {list(scores)} (winner {winner}); the "
                f"record replays to {result['status']} {result['scores']} ({result['winner']})",
            )


def _outline(session: Recorder) -> str:
    """What a connection received, in short: runs of events as ``a-b``, a snapshot only where it
    is not at the event just received, and the seat and goodbye messages."""
    parts: list[str] = []
    run: list[int] = []
    last = -1

    def flush() -> None:
        if run:
            parts.append(f"{run[0]}-{run[-1]}" if len(run) > 1 else str(run[0]))
            run.clear()

    for message in session.stream:
        if isinstance(message, s.Event):
            if run and message.n != run[-1] + 1:
                flush()
            run.append(message.n)
            last = message.n
        elif isinstance(message, s.Snapshot) and message.last_event != last:
            flush()
            parts.append(f"snapshot@{message.last_event}")
            last = message.last_event
        elif isinstance(message, s.Seated | s.Welcome | s.Goodbye):
            flush()
            parts.append(message.type)
    flush()
    return " ".join(parts)


def _problem_kind(problem: str) -> str | None:
    """A session's own note (``ClientSession._track``) as one of ``KINDS``: a gap, or a
    snapshot out of step (an event out of order is counted from the events themselves: None)."""
    words = problem.split()
    if len(words) >= 5 and words[0] in ("event", "snapshot") and words[-1].isdigit():
        got, after = int(words[-4]), int(words[-1])
        if words[0] == "event":
            return "gapped" if got > after + 1 else None
        return "gapped" if got > after else "backwards"
    return "mismatched"  # an unreadable message


def _check_moves(referee: Referee, person: Person, audit: Audit) -> None:
    """Acknowledged: the move is the first game event stored after the one it was made at.
    Refused (and no acknowledged retry landing on that same game event, no answer lost): it is
    not this person's move.

    A move the seat did not choose may be stored there all the same: a stand-in's, for a person
    away (a disconnection, announced; after a rebuild, assumed and never announced) or past a
    deadline (the announcement's, unannounced too). The log does not say who chose a move, so
    the stand-in is told apart by what it played: another card, take or call than every move
    the store refused (a referee's refusal, stale or "not at the table", stores nothing); or the
    same, first sent to the person on a later connection (they were away meanwhile, so a
    stand-in may have chosen it). Those are counted (``stood_in``), not violations."""
    landing: dict[int | None, list[Move]] = {}  # the first game event after each move's `at`
    for move in person.moves:
        landing.setdefault(_game_event_after(referee, move.at), []).append(move)
    for n, moves in landing.items():
        stored = None if n is None else _move_at(referee, n)
        fates = {move.fate for move in moves}
        acked = [move for move in moves if move.fate == "acked"]
        if acked and (
            n is None
            or stored != (person.seat, acked[0].kind)
            or not _same_move(acked[0], _body(referee, n))
        ):
            audit.add("lost", f"{person.name}'s acknowledged move {acked[0]}: stored {stored}")
        elif fates == {"refused"} and n is not None and stored and stored[0] == person.seat:
            event = _body(referee, n)
            same = [move for move in moves if _same_move(move, event) and _storage(move)]
            first = _first_session_with(person, n)
            if not same or first is None or first > max(move.session for move in same):
                audit.counts["stood_in"] += 1  # another choice, or the person was away
                continue
            audit.add(
                "refused_stored",
                f"{person.name}'s moves {moves}: refused, yet event {n} stores {event} (sent on "
                f"connection {first}: {_outline(person.sessions[first])})",
            )


def _storage(move: Move) -> bool:
    """Refused by the store (its commit failed), not by the referee: only such a refusal comes
    after a commit was sent, so only it could be one that was stored all the same."""
    return "storage_unavailable" in move.detail.lower()


def _same_move(move: Move, event: dict[str, Any]) -> bool:
    """Whether a stored move's event is this very move: its card and take, or its call."""
    sent = move.sent
    if isinstance(sent, c.Play):
        return event.get("type") == "played" and (event.get("card"), sorted(event["take"])) == (
            sent.card,
            sorted(sent.take),
        )
    if isinstance(sent, c.Announce):
        return event.get("type") == "announced" and event.get("call") == sent.call
    return sent is None  # a move noted without what it was (a test's): its kind was checked


def _first_session_with(person: Person, n: int) -> int | None:
    """The index of the person's first connection sent event ``n`` (or a view past it)."""
    for index, session in enumerate(person.sessions):
        for message in session.stream:
            if isinstance(message, s.Event) and message.n >= n:
                return index
            if isinstance(message, s.Snapshot) and message.last_event >= n:
                return index
    return None


def _body(referee: Referee, n: int) -> dict[str, Any]:
    return _event(referee, n).event.model_dump()


def _kind_at(referee: Referee, n: int) -> str:
    event = Built(referee.publisher.event_frame(n, None), "event", n).model()
    assert isinstance(event, s.Event)
    return str(event.event.model_dump().get("type"))


def _game_event_after(referee: Referee, at: int) -> int | None:
    """The number of the first game event after event ``at`` (None: none yet). A table event (a
    seat left or came back, a stand-in) does not make a move stale, so a move made at ``at``
    may be stored after some (``server.core.play``)."""
    for n in range(at + 1, referee.table.last_event + 1):
        if is_game_event(_event(referee, n).event):
            return n
    return None


def _event(referee: Referee, n: int) -> s.Event:
    event = Built(referee.publisher.event_frame(n, None), "event", n).model()
    assert isinstance(event, s.Event)
    return event


def _move_at(referee: Referee, n: int) -> tuple[int, str] | None:
    """The (seat, play/announce) of stored event ``n`` if it is a move, else None."""
    body = _event(referee, n).event.model_dump()
    kind = {"played": "play", "announced": "announce"}.get(str(body.get("type")))
    seat = body.get("seat")
    return None if kind is None or not isinstance(seat, int) else (seat, kind)
