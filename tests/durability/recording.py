"""Clients that record everything they receive, and the checks the fault suite makes of them.

Helpers only (no tests). A ``Person`` is one seat (or one spectator) across reconnects; each of
its connections is a ``Recorder`` (a ``ClientSession`` keeping every message in order). People
play random legal moves and note each request's fate: acknowledged, refused (an error answer) or
unknown (the connection went away first). ``check_table`` then asserts, per connection and per
person, what the fault suite promises:

- no gap, no duplicate, no view going backwards (the session's own numbering checks);
- every event a viewer was sent equals the stored log's event as that viewer may see it;
- every acknowledged move is the stored event right after the event it was made at, and no
  refused move is (unless an acknowledged retry at that same event put it there);
- at the end every connected viewer has been sent the whole stored log.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from websockets.exceptions import ConnectionClosed

from clients.session import ClientSession, RequestRefused, SessionError
from protocol import client_messages as c
from protocol import server_messages as s
from server.config import Settings
from server.core.referee import Referee
from server.frames import Built
from server.store.base import Store

NAMES = ("Ana", "Beto", "Caro", "Dani")
Fate = Literal["acked", "refused", "unknown"]


@dataclass
class Move:
    seat: int
    at: int  # the last event the mover had seen: a stored move is event at + 1
    kind: str  # play or announce
    fate: Fate
    action: str = ""
    detail: str = ""


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
            url, self.name, resume=old.token, last_event=old.last_event, wait_s=60
        )
        assert isinstance(new, Recorder)
        self.sessions.append(new)

    async def rewatch(self, url: str, key: str) -> None:
        """A spectator whose connection went away watches again (a newcomer: a snapshot)."""
        await self.session.close()
        new = await Recorder.connect(url, self.name)
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
        move = Move(person.seat, at, action.type, "unknown", repr(action))
        person.moves.append(move)
        try:
            await session.request(action.model_copy(update={"at": at}), wait_s=60)
            move.fate = "acked"
        except RequestRefused as exc:  # "could not tell": the store stayed away past resolve_s
            unknown = "could not tell whether" in str(exc)
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


async def check_table(
    store: Store, table: Table, connected: bool = True, stand_ins: bool = False
) -> dict[str, int]:
    """The suite's assertions for one table (see the module docstring); returns counts.

    ``connected``: every person's last connection is still open, so each must have been sent
    the whole stored log (waited for: the last events may still be on their way).
    ``stand_ins``: someone was really away (no check that no stand-in was announced).
    """
    stored = await store.load(table.table_id)
    assert stored is not None
    last = stored.last_event
    if connected:

        async def caught_up() -> bool:
            return all(person.session.last_event >= last for person in table.people)

        await wait_for(caught_up, 30, f"every viewer of {table.table_id} sent event {last}")
    referee = await rebuilt(store, table.table_id)
    if not stand_ins:  # nobody was away: a rebuild or takeover must not announce a stand-in
        announced = [n for n in range(1, last + 1) if _kind_at(referee, n) == "stand_in"]
        assert announced == [], f"stand-in events at {announced} for seats never away"
    counts = {"events": last, "acked": 0, "refused": 0, "unknown": 0, "sessions": 0}
    for person in table.people:
        seen: list[int] = []
        for session in person.sessions:
            counts["sessions"] += 1
            assert session.problems == [], (person.name, session.problems)
            mine = [m for m in session.stream if isinstance(m, s.Event)]
            numbers = [event.n for event in mine]
            assert all(a < b for a, b in itertools.pairwise(numbers)), (person.name, numbers)
            seen += numbers
            for event in mine:  # what the viewer was sent is the stored log, redacted for it
                expected = Built(
                    referee.publisher.event_frame(event.n, person.seat), "event", event.n
                ).model()
                assert event == expected, (person.name, event.n, event, expected)
        assert all(a < b for a, b in itertools.pairwise(seen)), (person.name, "across sessions")
        for move in person.moves:
            counts[move.fate] += 1
        _check_moves(referee, person)
    return counts


def _check_moves(referee: Referee, person: Person) -> None:
    """Acknowledged: the move is the first stored move after the event it was made at (table
    events, such as a stand-in starting as someone disconnects, may come between: they do not
    make a move stale). Refused (and no acknowledged retry at the same event, no answer lost):
    it is not the stored event after that one."""
    by_at: dict[int, list[Move]] = {}
    for move in person.moves:
        by_at.setdefault(move.at, []).append(move)
    for at, moves in by_at.items():
        stored = _move_at(referee, at + 1)
        fates = {move.fate for move in moves}
        if "acked" in fates:
            made = _first_move_after(referee, at)
            assert made == (person.seat, moves[0].kind), (person.name, at, made, moves)
        elif fates == {"refused"}:
            assert stored is None or stored[0] != person.seat, (
                f"{person.name}'s move at event {at} was refused but stored: {moves}"
            )


def _kind_at(referee: Referee, n: int) -> str:
    event = Built(referee.publisher.event_frame(n, None), "event", n).model()
    assert isinstance(event, s.Event)
    body = event.event if isinstance(event.event, dict) else event.event.model_dump()
    return str(body.get("type"))


def _first_move_after(referee: Referee, at: int) -> tuple[int, str] | None:
    """The (seat, play/announce) of the first stored move after event ``at``, if any."""
    for n in range(at + 1, referee.last_event + 1):
        move = _move_at(referee, n)
        if move is not None:
            return move
    return None


def _move_at(referee: Referee, n: int) -> tuple[int, str] | None:
    """The (seat, play/announce) of stored event ``n`` if it is a move, else None."""
    if n > referee.last_event:
        return None
    event = Built(referee.publisher.event_frame(n, None), "event", n).model()
    assert isinstance(event, s.Event)
    body = event.event if isinstance(event.event, dict) else event.event.model_dump()
    kind = {"played": "play", "announced": "announce"}.get(str(body.get("type")))
    seat = body.get("seat")
    return None if kind is None or not isinstance(seat, int) else (seat, kind)


async def close_all(tables: list[Table]) -> None:
    for table in tables:
        for person in table.people:
            await person.session.close()
