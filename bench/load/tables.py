"""Four seats of one table, driven by a load process: against the Cuarenta server or the floor.

A **round** is one action of one seat and its delivery to the table's four seats. The next seat
to act answers as soon as its turn reaches it (closed loop), or not before ``1 / pace`` seconds
after the table's previous action (paced). A delivery's latency runs from the moment the action
was written to the socket to the moment a seat has received everything it caused: for the
Cuarenta server the seat's next ``snapshot`` (which follows the action's events), for the floor
the broadcast copy. All four seats of a table live in one process, on one clock.
"""

from __future__ import annotations

import asyncio
import time
from array import array
from collections import Counter
from collections.abc import Callable
from functools import partial
from typing import Any

import msgpack

from bench.floor import READY, SEATS
from bench.load.errors import LoadError
from bench.load.wire import WireConnection, open_connection
from protocol import client_messages as c
from protocol import encode

#: Messages that answer a request by its ``rid`` (everything else is pushed).
ANSWERS = frozenset({"welcome", "ack", "error", "table_created", "seated", "record"})
#: R10 awards without a claim window: a closed loop never waits on the server's claim clock.
TABLE_OPTIONS: dict[str, str | int | bool] = {"special_claims": "auto"}
REQUEST_TIMEOUT_S = 120.0  # generous: on a busy machine seating thousands of tables is slow


def greedy(legal: list[dict[str, Any]]) -> dict[str, Any]:
    """The legal action taking the most table cards (R7); the first listed among equals.

    Not simply the first legal action: lists start with trails, and seats that only trail pile
    the table up until every subset summing to a card is its own legal capture (thousands per
    decision). Capturing greedily keeps the table, and so the work per turn, like real play.
    """
    return max(legal, key=lambda action: len(action.get("take") or ()))


class Recorder:
    """What one load process measured inside the current window."""

    def __init__(self) -> None:
        self.window = (float("inf"), float("inf"))
        self.latencies = array("d")
        self.rounds = 0
        self.frames = 0
        self.errors: Counter[str] = Counter()

    def open_window(self, start: float, end: float) -> None:
        self.window = (start, end)
        self.latencies = array("d")
        self.rounds = self.frames = 0
        self.errors = Counter()

    def inside(self, now: float) -> bool:
        return self.window[0] <= now < self.window[1]


class TableLoad:
    """Seat bookkeeping shared by both targets: pending actions, deliveries, pacing."""

    def __init__(self, index: int, recorder: Recorder) -> None:
        self.index = index
        self.recorder = recorder
        self.connections: list[WireConnection] = []
        self.pending: dict[int, list[float]] = {}  # action's "at" -> [sent at, copies left]
        self.seen = [0] * SEATS
        self.interval = 0.0
        self.next_due = float("inf")  # not started: nobody acts
        self.acted_at = -1
        self.stopped = False

    async def connect(self) -> None:
        """Open the table's four connections."""
        raise NotImplementedError

    async def seat(self) -> None:
        """Seat four players at the table, ready to start."""
        raise NotImplementedError

    def start(self, at: float, interval: float) -> None:
        """Let the table play from ``at``, one action per ``interval`` seconds (0: closed loop)."""
        self.interval = interval
        self.next_due = at
        self._kick_off()

    def stop(self) -> None:
        self.stopped = True
        for connection in self.connections:
            connection.close()

    def _kick_off(self) -> None:
        """Begin play; the subclass sends whatever makes the first seat's turn come."""

    # ------------------------------------------------------------------ turn taking
    def turn(self, seat: int, at: int, act: Callable[[int, int], None]) -> None:
        """``seat`` may act on position ``at``: now, or when the pace allows."""
        if self.stopped or at == self.acted_at:
            return
        self.acted_at = at
        delay = self.next_due - time.monotonic()
        if delay <= 0:
            self._send_action(seat, at, act)
        else:
            asyncio.get_running_loop().call_later(delay, self._send_action, seat, at, act)

    def _send_action(self, seat: int, at: int, act: Callable[[int, int], None]) -> None:
        if self.stopped:
            return
        now = time.monotonic()
        self.pending[at] = [now, float(SEATS)]
        self.next_due = now + self.interval
        act(seat, at)

    def delivered(self, seat: int, upto: int, now: float) -> None:
        """``seat`` has received everything up to position ``upto``: credit pending actions."""
        seen = self.seen[seat]
        if upto <= seen:
            return
        self.seen[seat] = upto
        recorder = self.recorder
        for at in [at for at in self.pending if seen <= at < upto]:
            entry = self.pending[at]
            entry[1] -= 1
            if recorder.inside(now):
                recorder.latencies.append(now - entry[0])
                if entry[1] == 0:
                    recorder.rounds += 1
            if entry[1] == 0:
                del self.pending[at]


class CuarentaTable(TableLoad):
    """A table of the real server: hello, create, four joins, start, then greedy play."""

    def __init__(self, index: int, recorder: Recorder, url: str, version: int) -> None:
        super().__init__(index, recorder)
        self.url = url
        self.version = version
        self._rid = 0
        self._answers: dict[tuple[int, int], asyncio.Future[dict[str, Any]]] = {}
        self._rematch_asked = [0] * SEATS
        self._info: list[dict[str, Any]] = [{}] * SEATS  # each seat's table info (protocol 3)

    async def connect(self) -> None:
        """Open the four connections and greet the server (``hello``) on each."""
        for seat in range(SEATS):
            self.connections.append(await open_connection(self.url, partial(self._on, seat)))
        await asyncio.gather(
            *(
                self._request(seat, c.Hello(version=self.version, name=f"t{self.index}s{seat}"))
                for seat in range(SEATS)
            )
        )

    async def seat(self) -> None:
        """Create the table and fill its seats: the creator through the host key (seat 0)."""
        created = await self._request(0, c.CreateTable(options=TABLE_OPTIONS))
        await self._request(0, c.Join(key=created["host_key"], seat=0))
        for seat in range(1, SEATS):
            await self._request(seat, c.Join(key=created["join_key"], seat=seat))

    def _kick_off(self) -> None:
        self._send(0, c.Start(rid=self._next_rid()))

    # ------------------------------------------------------------------ messages
    def _on(self, seat: int, data: bytes) -> None:
        now = time.monotonic()
        message = msgpack.unpackb(data, raw=False)
        recorder = self.recorder
        if recorder.inside(now):
            recorder.frames += 1
        kind = message["type"]
        if kind == "change":  # protocol 4: the answer, the events, what they cannot tell
            if message["rid"] is not None:
                self._answered(seat, {"type": "ack", "rid": message["rid"]})
            told = {"last_event": message["events"][-1]["n"], "info": message["info"]}
            self._on_snapshot(seat, {**told, "legal": message["legal"]}, now)
        elif kind == "update":  # the answer, the events and the snapshot in one frame
            if message["rid"] is not None:
                self._answered(seat, {"type": "ack", "rid": message["rid"]})
            self._on_snapshot(seat, message["snapshot"], now)
        elif kind == "snapshot":
            self._on_snapshot(seat, message, now)
        elif kind in ANSWERS:
            if kind == "error":
                recorder.errors[message["code"]] += 1
            self._answered(seat, message)

    def _answered(self, seat: int, message: dict[str, Any]) -> None:
        answer = self._answers.pop((seat, message.get("rid") or 0), None)
        if answer is not None and not answer.done():
            answer.set_result(message)

    def _on_snapshot(self, seat: int, snapshot: dict[str, Any], now: float) -> None:
        last = snapshot["last_event"]
        self.delivered(seat, last, now)
        info = snapshot["info"]
        if info is None:  # unchanged since the seat's previous snapshot (protocol 3 and 4)
            info = self._info[seat]
        else:
            self._info[seat] = info
        if info["stage"] == "playing" and snapshot["legal"]:
            self.turn(seat, last, partial(self._play, greedy(snapshot["legal"])))
        elif info["stage"] == "finished" and self._rematch_asked[seat] != info["game"]:
            self._rematch_asked[seat] = info["game"]
            if not self.stopped:
                self._send(seat, c.Rematch(rid=self._next_rid()))

    def _play(self, legal: dict[str, Any], seat: int, at: int) -> None:
        """Send the chosen legal action, stamped with the position it answers (``at``).

        The offered action is already the message to send (PROTOCOL.md): it is packed as it
        is, without building a model first; the server validates it like any other frame.
        """
        message = {**legal, "rid": self._next_rid(), "at": at}
        self.connections[seat].send(msgpack.packb(message))

    # ------------------------------------------------------------------ requests
    def _next_rid(self) -> int:
        self._rid += 1
        return self._rid

    def _send(self, seat: int, message: c.ClientMessage) -> None:
        self.connections[seat].send(encode(message))

    async def _request(self, seat: int, message: c.ClientMessage) -> dict[str, Any]:
        rid = self._next_rid()
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._answers[(seat, rid)] = answer
        self._send(seat, message.model_copy(update={"rid": rid}))
        reply = await asyncio.wait_for(answer, REQUEST_TIMEOUT_S)
        if reply["type"] == "error":
            raise LoadError(
                f"table {self.index} seat {seat}: {message.__class__.__name__} "
                f"refused: {reply['code']}: {reply['message']}"
            )
        return reply


class FloorTable(TableLoad):
    """A table of the floor: frame ``n`` from seat ``(n - 1) % 4`` asks seat ``n % 4`` to act."""

    def __init__(self, index: int, recorder: Recorder, url: str) -> None:
        super().__init__(index, recorder)
        self.url = url.rstrip("/")
        self._ready: list[asyncio.Future[None]] = []

    async def connect(self) -> None:
        loop = asyncio.get_running_loop()
        self._ready = [loop.create_future() for _ in range(SEATS)]
        for seat in range(SEATS):
            self.connections.append(
                await open_connection(f"{self.url}/t{self.index}/{seat}", partial(self._on, seat))
            )

    async def seat(self) -> None:
        """The floor seats a table when its fourth connection arrives: wait for ``ready``."""
        await asyncio.wait_for(asyncio.gather(*self._ready), REQUEST_TIMEOUT_S)

    def _kick_off(self) -> None:
        self.turn(0, 0, self._play)

    def _on(self, seat: int, data: bytes) -> None:
        now = time.monotonic()
        if data == READY:
            if not self._ready[seat].done():
                self._ready[seat].set_result(None)
            return
        if self.recorder.inside(now):
            self.recorder.frames += 1
        number = msgpack.unpackb(data)["n"]
        self.delivered(seat, number, now)
        if number % SEATS == seat:
            self.turn(seat, number, self._play)

    def _play(self, seat: int, at: int) -> None:
        self.connections[seat].send(msgpack.packb({"n": at + 1}))
