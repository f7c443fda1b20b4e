"""The watch over waiting tables: it loads each turn-based table whose due time has come.

Every process runs one. Each ``period_s`` it reads the tables due by now from the board
(``server.waiting.board``) and loads those placed on this process that are not loaded yet; the
loaded room's own clock then does what is due (a stand-in's move at a passed deadline, a
reminder) and files the table's next due time, and the lobby unloads it again once it is idle.
Loading takes the table's lease, so of two processes that see one due table only one ever
writes it (the commit is fenced, invariant 9), and a deadline that came while no process ran
is acted on by the first one to start: it is in the store, not in anyone's memory.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import structlog

from server.lobby import Lobby
from server.store.base import StoreError
from server.tasks import cancel_and_wait
from server.waiting.board import WaitingBoard

log = structlog.get_logger("server.waiting")
SCAN_S = 1.0  # a deadline is acted on within this of its time (plus the load)
BATCH = 200  # due tables loaded per scan at most (the rest wait for the next one)


class DeadlineWatch:
    """Wakes the due waiting tables of this process's share."""

    def __init__(
        self,
        board: WaitingBoard,
        lobby: Lobby,
        clock: Callable[[], float] = time.time,
        period_s: float = SCAN_S,
        batch: int = BATCH,
    ) -> None:
        self.board = board
        self.lobby = lobby
        self.clock = clock
        self.period_s = period_s
        self.batch = batch
        self.woken = 0  # tables loaded because they were due, so far
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="deadline-watch")

    def stop(self) -> asyncio.Task[None] | None:
        """Stop scanning; the task returned is the caller's to await (``cancel_and_wait``)."""
        return self._task

    async def close(self) -> None:
        await cancel_and_wait([self._task])

    async def _run(self) -> None:
        while True:
            try:
                await self.scan()
            except StoreError as exc:
                log.warning("the deadline scan failed; retrying", error=str(exc)[:200])
            except Exception:
                log.exception("the deadline scan failed")
            await asyncio.sleep(self.period_s)  # a polling period, not a synchronisation

    async def scan(self) -> list[str]:
        """Load the due tables placed here and not loaded yet; the ids of those loaded."""
        lobby, cluster = self.lobby, self.lobby.cluster
        woken = []
        for table_id in await self.board.due(self.clock(), self.batch):
            if table_id in lobby.rooms or lobby.closing:
                continue  # loaded here: its own clock acts
            if cluster is not None and not cluster.members.placed_here(table_id):
                continue  # the process it is placed on wakes it
            try:
                room = await lobby.room(table_id)
            except StoreError as exc:
                log.warning("a due table did not load", table=table_id, error=str(exc)[:200])
                continue
            if room is None:  # the table is gone (expired): nothing is due any more
                await self.board.put(table_id, None, None)
            elif lobby.loaded(table_id) is room:
                woken.append(table_id)
        self.woken += len(woken)
        if woken:
            log.info("due tables woken", tables=len(woken))
        return woken
