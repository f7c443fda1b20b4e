"""Clients that record everything they receive, seated at a table and playing it.

Helpers only (no tests). A ``Person`` is one seat (or one spectator) across reconnects; each of
its connections is a ``Recorder`` (a ``ClientSession`` keeping every message in order). People
play random legal moves and note each request's fate: acknowledged, refused (an error answer) or
unknown (the connection went away first). ``bench.log_audit`` checks what they recorded against
the stored log.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from websockets.exceptions import ConnectionClosed

from clients.session import ClientSession, RequestRefused, SessionError
from protocol import client_messages as c
from protocol import server_messages as s
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


async def close_all(tables: list[Table]) -> None:
    for table in tables:
        for person in table.people:
            await person.session.close()
