"""Clients that record everything they receive, and the checks the fault suite makes of them.

Helpers only (no tests). A ``Person`` is one seat (or one spectator) across reconnects; each of
its connections is a ``Recorder`` (a ``ClientSession`` keeping every message in order). People
play random legal moves and note each request's fate: acknowledged, refused (an error answer) or
unknown (the connection went away first). ``check_table`` then asserts, per connection and per
person, what the fault suite promises:

- no gap, no duplicate, no view going backwards (the session's own numbering checks);
- every event a viewer was sent equals the stored log's event as that viewer may see it;
- every acknowledged move is the first game event stored after the event it was made at, and
  no refused move is (unless an acknowledged retry landing there put it there);
- at the end every connected viewer has been sent the whole stored log.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from websockets.exceptions import ConnectionClosed

from clients.session import ClientSession, RequestRefused, SessionError
from engine.record import Record
from engine.replay import replay
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.game_events import is_game_event
from server.config import Settings
from server.core.referee import Referee
from server.frames import Built
from server.store.base import Store

NAMES = ("Ana", "Beto", "Caro", "Dani")
Fate = Literal["acked", "refused", "unknown"]
#: a refusal that says the move's fate is not settled (the store stayed away): "unknown"
UNSETTLED = ("could not tell whether", "not known yet")


@dataclass
class Move:
    seat: int
    at: int  # the last event the mover had seen: stored, the move is the next game event
    kind: str  # play or announce
    fate: Fate
    action: str = ""
    detail: str = ""
    sent: c.Play | c.Announce | None = None  # the move itself (its card and take, or its call)
    session: int = 0  # which of the person's connections made it (an index into ``sessions``)


class Recorder(ClientSession):
    """A session that keeps every message it receives, in order."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.stream: list[s.ServerMessage] = []
        super().__init__(*args, **kwargs)

    def _track(self, message: s.ServerMessage) -> None:
        super()._track(message)
        self.stream.append(message)


@dataclass
class Person:
    """One seat's person (``seat`` None: a spectator) and every connection it had."""

    name: str
    seat: int | None
    sessions: list[Recorder] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)

    @property
    def session(self) -> Recorder:
        return self.sessions[-1]

    async def reconnect(self, url: str) -> None:
        """Take the seat back on ``url`` with the seat token, after the last event seen."""
        old = self.session
        await old.close()
        assert old.token is not None
        new = await Recorder.connect(
            url, self.name, resume=old.token, last_event=old.last_event, wait_s=60, table=old.table
        )
        assert isinstance(new, Recorder)
        self.sessions.append(new)

    async def rewatch(self, url: str, key: str, table: str | None = None) -> None:
        """A spectator whose connection went away watches again (a newcomer: a snapshot);
        ``table``: its id, to route the socket to the table's process."""
        await self.session.close()
        new = await Recorder.connect(url, self.name, wait_s=60, table=table)
        assert isinstance(new, Recorder)
        await new.request(c.Watch(key=key))
        self.sessions.append(new)


@dataclass
class Table:
    table_id: str
    keys: s.TableCreated
    people: list[Person]  # four seats, then the spectators

    @property
    def players(self) -> list[Person]:
        return [person for person in self.people if person.seat is not None]


async def caught_up(store: Store, table: Table, within_s: float = 10.0) -> int:
    """The table's last stored event, once every viewer has been sent it (a bounded wait)."""
    stored = await store.load(table.table_id)
    assert stored is not None
    last = stored.last_event

    async def everyone_there() -> bool:
        return all(person.session.last_event == last for person in table.people)

    await wait_for(everyone_there, within_s, f"every viewer to be sent event {last}")
    return last


def a_move(table: Table) -> tuple[Person, c.Play | c.Announce]:
    """A player whose snapshot offers a play or an announcement (not a claim or a take of
    missed cards), and the first one it offers: a move a test makes on purpose."""
    for person in table.players:
        snapshot = person.session.snapshot
        for action in snapshot.legal if snapshot is not None else []:
            if isinstance(action, c.Play | c.Announce):
                return person, action
    raise AssertionError("no player has a play or an announcement to make")


async def seat_table(seat_urls: Sequence[str], watch_urls: Sequence[str] = ()) -> Table:
    """Four people (seat i on ``seat_urls[i % len]``) and a spectator on each ``watch_urls``;
    the game is started."""
    host = await Recorder.connect(seat_urls[0], NAMES[0])
    assert isinstance(host, Recorder)
    created = await host.request(c.CreateTable(profile="pagat-4p"))
    assert isinstance(created, s.TableCreated)
    await host.request(c.Join(key=created.host_key))
    people = [Person(NAMES[0], 0, [host])]
    for index, name in enumerate(NAMES[1:], 1):
        session = await Recorder.connect(seat_urls[index % len(seat_urls)], name)
        assert isinstance(session, Recorder)
        await session.request(c.Join(key=created.join_key))
        people.append(Person(name, index, [session]))
    for index, url in enumerate(watch_urls):
        session = await Recorder.connect(url, f"watcher-{index}")
        assert isinstance(session, Recorder)
        await session.request(c.Watch(key=created.watch_key))
        people.append(Person(f"watcher-{index}", None, [session]))
    assert [person.session.seat for person in people[:4]] == [0, 1, 2, 3]
    await host.request(c.Start())
    return Table(created.table, created, people)


def finished(snap: s.Snapshot) -> bool:
    return snap.info.stage == "finished" and snap.view is not None


async def play(person: Person, rng: random.Random, halt: asyncio.Event) -> None:
    """Play random legal moves until the game ends or ``halt``; note every request's fate.

    Unlike ``players.play``, a refusal of any kind is a fate to record, not a failure: the
    faults make the table refuse moves (storage unavailable, moved, stale after a rebuild).
    """
    while not halt.is_set():
        session = person.session
        if session.closed.is_set():
            await asyncio.sleep(0.05)  # waiting for the test to reconnect this person (polling)
            continue
        with contextlib.suppress(TimeoutError, SessionError):
            await session.next_snapshot(wait_s=0.2)
        snap = session.snapshot
        if snap is None:
            continue
        if finished(snap):
            return
        moves = [a for a in snap.legal if isinstance(a, c.Play | c.Announce)]
        if not moves or snap.last_event != session.last_event:
            continue
        action, at = rng.choice(moves), session.last_event
        assert person.seat is not None
        move = Move(
            person.seat,
            at,
            action.type,
            "unknown",
            repr(action),
            "",
            action,
            len(person.sessions) - 1,
        )
        person.moves.append(move)
        try:
            await session.request(action.model_copy(update={"at": at}), wait_s=60)
            move.fate = "acked"
        except RequestRefused as exc:  # "could not tell": the store stayed away past resolve_s
            unknown = any(words in str(exc) for words in UNSETTLED)
            move.fate, move.detail = "unknown" if unknown else "refused", f"{exc.code}: {exc}"
        except (SessionError, TimeoutError, ConnectionClosed) as exc:  # no answer: unknown
            move.detail = str(exc)


async def play_table(table: Table, seed: int, halt: asyncio.Event) -> None:
    """Everyone at the table plays until the game ends (or ``halt``)."""
    await asyncio.gather(
        *(play(person, random.Random(seed + i), halt) for i, person in enumerate(table.players))
    )


async def wait_for(condition: Any, timeout_s: float, what: str) -> None:
    """Poll an async condition until it holds (a deadline, not a sleep as synchronisation)."""
    deadline = time.monotonic() + timeout_s
    while not await condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")
        await asyncio.sleep(0.05)


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
        last = referee.last_event
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
                if n > referee.last_event:  # stored since the rebuild (a timer) or never
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
            if message.n > referee.last_event:
                audit.add(
                    "lost", f"{where}: sent event {message.n}, the log ends at {referee.last_event}"
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
    for n in range(at + 1, referee.last_event + 1):
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


async def close_all(tables: list[Table]) -> None:
    for table in tables:
        for person in table.people:
            await person.session.close()
