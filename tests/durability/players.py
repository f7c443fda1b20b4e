"""Test players for the durability tests: people who play random legal moves over the wire.

Helpers only (no tests): seat four people at a table, let them play until a condition holds or
the game ends, stop them mid-hand, and reconnect them elsewhere with their seat tokens.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
from collections.abc import Callable, Sequence

from clients.session import ClientSession, RequestRefused
from engine.record import Record
from engine.replay import replay
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.errors import ErrorCode

NAMES = ("Ana", "Beto", "Caro", "Dani")
WAIT_S = 60.0  # generous: the suite shares two cores with everything else
#: refusals a fair player can meet in a race with the table's clock or a resumed connection
RACES = {ErrorCode.STALE, ErrorCode.NOT_YOUR_TURN, ErrorCode.WRONG_PHASE}


def finished(snap: s.Snapshot) -> bool:
    return snap.info.stage == "finished" and snap.view is not None


async def seat_four(urls: Sequence[str]) -> tuple[list[ClientSession], s.TableCreated]:
    """Ana creates a table on ``urls[0]``; the four people join through ``urls[i % len]``."""
    host = await ClientSession.connect(urls[0], NAMES[0])
    created = await host.request(c.CreateTable(profile="pagat-4p"))
    assert isinstance(created, s.TableCreated)
    await host.request(c.Join(key=created.host_key))
    sessions = [host]
    for index, name in enumerate(NAMES[1:], 1):
        session = await ClientSession.connect(urls[index % len(urls)], name)
        await session.request(c.Join(key=created.join_key))
        sessions.append(session)
    assert [session.seat for session in sessions] == [0, 1, 2, 3]
    await host.request(c.Start())
    return sessions, created


async def play(
    session: ClientSession,
    rng: random.Random,
    stop: Callable[[s.Snapshot], bool] = finished,
    halt: asyncio.Event | None = None,
) -> s.Snapshot | None:
    """Play a random legal card or announcement (R6, R7) on each turn until ``stop`` holds.

    The player decides on the newest snapshot it holds, and looks again whenever a message
    arrives or a second passes; it gives up when nothing moves for ``WAIT_S``. ``halt`` stops
    it from outside (cancelling is unreliable here: Python 3.11's ``wait_for`` can swallow a
    cancellation that meets a message).
    """
    clock = asyncio.get_running_loop().time
    deadline, seen = clock() + WAIT_S, session.last_event
    while True:
        with contextlib.suppress(TimeoutError):
            await session.next_snapshot(wait_s=0.5)
        if halt is not None and halt.is_set():
            return None
        if session.last_event != seen:
            deadline, seen = clock() + WAIT_S, session.last_event
        snap = session.snapshot
        if snap is None:
            continue
        if stop(snap) or finished(snap):
            return snap
        moves = [a for a in snap.legal if isinstance(a, c.Play | c.Announce)]
        if moves and snap.last_event == session.last_event:
            try:
                await session.act(rng.choice(moves))
            except RequestRefused as exc:
                if exc.code not in RACES:
                    raise
        if clock() > deadline:
            view = snap.view
            raise TimeoutError(
                f"seat {session.seat}: nothing moved for {WAIT_S} s at event {snap.last_event}"
                f" ({snap.info.stage}, {view.phase if view else None}, turn"
                f" {view.turn if view else None}, legal {[a.type for a in snap.legal]})"
            )


async def play_all(sessions: Sequence[ClientSession], seed: int) -> list[s.Snapshot]:
    """Everyone plays to the end of the game; their final snapshots."""
    finals = await asyncio.gather(
        *(play(session, random.Random(seed + i)) for i, session in enumerate(sessions))
    )
    return [final for final in finals if final is not None]


async def play_until_mid_hand(sessions: Sequence[ClientSession], seed: int, events: int) -> None:
    """Play until the table is past event ``events`` in the middle of a hand, then stop.

    A game can end before that hand comes (a deal can end it at once: a cuarenta of R6 at 38
    points, say); then everyone asks for a rematch (same seats) and play goes on in it.
    """

    def mid_hand(snap: s.Snapshot) -> bool:
        return (
            snap.last_event >= events
            and snap.view is not None
            and snap.view.phase == "play"
            and bool(snap.view.table)
        )

    for game in itertools.count(1):
        halt = asyncio.Event()
        watcher = asyncio.create_task(
            play(sessions[0], random.Random(seed + 10 * game), mid_hand, halt)
        )
        tasks = [
            asyncio.create_task(play(session, random.Random(seed + 10 * game + i), halt=halt))
            for i, session in enumerate(sessions[1:], 1)
        ]
        try:
            done, _ = await asyncio.wait([watcher, *tasks], return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                task.result()  # a player's failure surfaces here, not as a stall
            stopped = watcher.result() if watcher in done else None
        finally:
            halt.set()
            await asyncio.gather(watcher, *tasks, return_exceptions=True)
        if stopped is not None and not finished(stopped):
            return
        assert game < 3, "three games ended before the hand we meant to interrupt"
        for session in sessions:
            await session.request(c.Rematch())
        for session in sessions:
            await session.next_snapshot(lambda snap: snap.info.stage == "playing", WAIT_S)


async def reconnect_all(sessions: Sequence[ClientSession], url: str) -> list[ClientSession]:
    """Each person reconnects to ``url`` with the seat token, resuming after the last event."""
    resumed = []
    for session, name in zip(sessions, NAMES, strict=True):
        await session.close()
        resumed.append(await session.reconnect(url, name))
    return resumed


async def assert_record_replays_to(session: ClientSession, finals: Sequence[s.Snapshot]) -> None:
    """The finished game's record (R15) replays to the scores every player saw."""
    answer = await session.request(c.GetRecord())
    assert isinstance(answer, s.RecordMessage)
    result = replay(Record.from_json(answer.record))
    assert result["status"] == "finished"
    for final in finals:
        assert final.view is not None
        assert final.view.scores == result["scores"]
        assert final.view.winner == result["winner"]


def contiguous(session: ClientSession) -> bool:
    """No event lost or repeated (invariant 2), across resumes too.

    The session notes any event that does not follow the last number it knows; a snapshot may
    move that number forward (it covers the events it summarises, e.g. the returning player's
    own "returned" event), never back. Numbers only ever increase: nothing is shown twice.
    """
    numbers = [event.n for event in session.events]
    return session.problems == [] and all(a < b for a, b in itertools.pairwise(numbers))
