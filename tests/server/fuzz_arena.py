"""A real table server on its own event-loop thread, a table that keeps playing, a fuzzed seat.

Hypothesis runs synchronous examples; the server, the four players of the playing table and
the fuzzer's connection all live on one background loop, so the playing table really plays
while (and between) the examples. ``Arena.check(frame, rid)`` sends one frame from the fuzzer's
seat at a second, started table, then a ping, and judges everything that came back before the
pong (the server handles one connection's frames in order, so that is the frame's answer).

Invariant 7: bad input gets a clear refusal and hurts nobody else.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import threading
import time
from collections import Counter
from collections.abc import Coroutine
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from websockets.exceptions import ConnectionClosed

from clients.session import ClientSession, RequestRefused, SessionError
from protocol import client_messages as c
from protocol import encode
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.app import TableServer
from tests.server.players import seat_four
from tests.serving import TEST_SETTINGS

T = TypeVar("T")
SENTINEL_RID = 2_000_000_011
"""The rid of the ping after each fuzzed frame: its pong ends the frame's answer."""
CLOSES = frozenset({1008, 1009})  # policy violation, too big: the documented closes
ANSWER_WAIT_S = 20.0
THINK_S = 0.005
"""A player's pause before each move: the table plays briskly and leaves the CPU to the rest."""
FUZZ_SETTINGS = replace(TEST_SETTINGS, claim_window_s=0.1, away_turn_s=600.0)
"""No stand-in bot ever plays for an away seat: the fuzzed table moves only by accepted input."""


@dataclass
class Tally:
    """What the fuzzer saw, for the long run's report and the assertions."""

    frames: int = 0
    outcomes: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)


@dataclass
class Playing:
    """The table beside the fuzzer: four people playing random legal moves, game after game."""

    sessions: list[ClientSession]
    tasks: list[asyncio.Task[None]] = field(default_factory=list)
    games: int = 0
    answers: int = 0
    longest_gap_s: float = 0.0
    last_event_at: float = field(default_factory=time.monotonic)
    changed: asyncio.Event = field(default_factory=asyncio.Event)  # a seat saw a snapshot

    def events(self) -> int:
        return sum(session.last_event for session in self.sessions)

    async def moved_past(self, events: int, wait_s: float) -> None:
        """Wait until the seats have seen more than ``events`` events in all. Only the seats'
        own tasks read their sessions: a second reader would take the snapshot that tells a
        seat it is its turn, and the table would stop."""
        async with asyncio.timeout(wait_s):
            while self.events() <= events:
                self.changed.clear()
                await self.changed.wait()

    async def play(self, session: ClientSession, rng: random.Random) -> None:
        """Play a legal card or call on each turn (R6, R7); ask for a rematch at the end."""
        asked = False
        while True:
            snap = session.snapshot  # the latest state: decide on it, then wait for a change
            assert snap is not None
            if snap.info.stage == "finished":
                if not asked and snap.view is not None:
                    asked = True
                    if session is self.sessions[0]:
                        self.games += 1
                    with contextlib.suppress(RequestRefused):  # the rematch began already
                        await session.request(c.Rematch(), wait_s=ANSWER_WAIT_S)
                        self.answers += 1
            else:
                asked = False
                required = [a for a in snap.legal if isinstance(a, c.Play | c.Announce)]
                if required and snap.last_event == session.last_event:
                    await asyncio.sleep(THINK_S)
                    try:
                        await session.act(rng.choice(required), wait_s=ANSWER_WAIT_S)
                    except RequestRefused as refused:  # another seat moved first: decide again
                        if refused.code is not ErrorCode.STALE:
                            raise
                    self.answers += 1
                    continue
            await session.next_snapshot(wait_s=ANSWER_WAIT_S)
            self.changed.set()
            now = time.monotonic()
            self.longest_gap_s = max(self.longest_gap_s, now - self.last_event_at)
            self.last_event_at = now


class Arena:
    """Start with ``open()``, judge frames with ``check()``, end with ``close()``."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.tally = Tally()

    def call(self, coroutine: Coroutine[Any, Any, T], timeout: float = 60.0) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def open(self) -> Arena:
        self.thread.start()
        self.call(self._open())
        return self

    def close(self) -> None:
        try:
            self.call(self._close())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(10)
            self.loop.close()

    async def _open(self) -> None:
        self.server = TableServer(FUZZ_SETTINGS)
        await self.server.start()
        players, _ = await seat_four(self.server, keep_frames=False)
        self.playing = Playing(players)
        target, self.created = await seat_four(self.server, keep_frames=False)
        for sessions in (players, target):
            await sessions[0].request(c.Start())
            for session in sessions:
                await session.next_snapshot(lambda snap: snap.view is not None)
        rng = random.Random(40)
        self.playing.tasks = [
            asyncio.create_task(self.playing.play(session, rng)) for session in players
        ]
        view = target[0].snapshot.view if target[0].snapshot else None
        assert view is not None
        # Neither the host (host controls would be accepted) nor the seat on turn (a play
        # would be): everything the fuzzer sends to this table must be refused.
        self.fuzzer = next(x for x in target[1:] if x.seat != view.turn)
        self.target = target

    async def _close(self) -> None:
        tasks = self.playing.tasks
        crashed = [t.exception() for t in tasks if t.done() and not t.cancelled()]
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for session in {*self.playing.sessions, *self.target, self.fuzzer}:
            await session.close()
        await self.server.close()
        left = asyncio.all_tasks() - {asyncio.current_task()}
        for task in left:  # nothing may outlive the loop: a pending task is a leaked socket
            task.cancel()
        await asyncio.gather(*left, return_exceptions=True)
        await self.loop.shutdown_asyncgens()
        assert crashed == [], f"a playing seat stopped: {crashed!r}"

    # ---------------------------------------------------------------- the fuzzed table
    def stored_state(self) -> bytes:
        room = self.server.lobby.rooms[self.created.table]
        return room.referee.to_state()

    async def _reanchor(self) -> None:
        """Take the fuzzer's seat back on a fresh connection (after a close or an accept)."""
        old = self.fuzzer
        await old.close()
        self.fuzzer = await old.reconnect(self.server.ws_url, "Fuzz")
        await self.fuzzer.next_snapshot(lambda snap: snap.view is not None)

    def check(self, frame: bytes | str, rid: int | None) -> None:
        """Send ``frame``; fail the example unless its answer is one the document allows."""
        verdict = self.call(self._check(frame, rid))
        self.tally.frames += 1
        self.tally.outcomes[verdict] += 1

    async def _check(self, frame: bytes | str, rid: int | None) -> str:
        fuzzer = self.fuzzer
        before = self.stored_state()
        events_before = self.playing.events()
        with contextlib.suppress(ConnectionClosed):
            await fuzzer.send_raw(frame)
            await fuzzer.send_raw(encode(c.Ping(rid=SENTINEL_RID)))
        answers: list[s.ServerMessage] = []
        try:
            while True:
                message = await fuzzer.recv(wait_s=ANSWER_WAIT_S)
                if isinstance(message, s.Pong) and message.rid == SENTINEL_RID:
                    break
                answers.append(message)
        except SessionError:
            pass
        internal = [m for m in answers if isinstance(m, s.Error) and m.code is ErrorCode.INTERNAL]
        assert not internal, f"internal error for {frame!r}: {internal}"
        assert fuzzer.problems == [], fuzzer.problems
        if fuzzer.closed.is_set():
            code = fuzzer.ws.close_code
            assert code in CLOSES, f"close {fuzzer.close_text()} after {frame!r}"
            await self._reanchor()
            return f"close {code}"
        errors = [m for m in answers if isinstance(m, s.Error)]
        accepted = [
            m
            for m in answers
            if not isinstance(m, s.Error | s.Snapshot | s.Event) and getattr(m, "rid", -1) == rid
        ]
        assert errors or accepted, f"no answer to {frame!r}: {answers}"
        if accepted:
            if not isinstance(accepted[0], s.Pong):
                await self._reanchor()  # e.g. a re-hello: back to a known seat
            return f"accepted {accepted[0].type}"
        after = self.stored_state()
        assert after == before, f"refused {frame!r} ({errors[0].code}) changed the table"
        assert self.playing.events() >= events_before
        return f"error {errors[0].code}"
