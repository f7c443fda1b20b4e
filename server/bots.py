"""Bot seats' decisions: inline for the quick levels, in a process pool for search levels.

Levels 1-3 decide in well under 5 ms, so they run on the event loop; levels 4 and up search
and run in a small spawn-safe ``ProcessPoolExecutor`` within a time budget, so the loop never
stalls (invariant 6). A level that does not exist (yet) falls back to the best one below it.

Each searching level has its own budget (`LEVEL_BUDGET_S`), counted from the request, so the
time a request waits for a free worker is spent from it: the search's deadline is set when
the request is made (``time.monotonic`` is system-wide, the same clock in every worker) at
`SEARCH_SHARE` of the budget, leaving the rest for the playout that passes the deadline
and the trip back. A request that waited past its deadline gets level 3's choice at once.
On a loaded machine answers arrive later past their deadline (a worker waits for a core):
`Lateness` remembers by how much, and later deadlines are set that much earlier.

The learned policy (`engine.bots.learned`, no deals, under a millisecond) runs inline: it
plays for people (away, timed out, gone: ``stand_in``) in place of level 3, and, when every
worker is already searching (``under_load``), for a search level's request, which would
otherwise queue and spend its budget waiting. `BotRunner.decide_served` says which policy
ran (the level asked for, or `CHEAP_LEVEL`); the server's bot metrics count both.
"""

from __future__ import annotations

import asyncio
import ctypes
import json
import multiprocessing
import os
import random
import signal
import sys
import time
from collections import deque
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

import structlog

from engine import bots
from engine.actions import Action
from engine.bots.hint import hint as coach_hint
from engine.bots.learned import CHEAP_LEVEL
from engine.bots.review import review
from engine.record import Record
from engine.views import View

log = structlog.get_logger("server.bots")

INLINE_MAX_LEVEL = 3
#: the time from a request to its answer, at p95, each searching level is given (seconds).
LEVEL_BUDGET_S: dict[int, float] = {4: 0.3, 5: 0.5, 6: 0.5}
#: the share of a level's budget its search may use (see the module docstring), and the
#: least it is given however late answers arrive.
SEARCH_SHARE = 0.7
LEAST_SHARE = 0.3
#: how many recent answers `Lateness` remembers.
LATE_WINDOW = 40
#: the time from a hint's request to its answer; its deals, at most a tournament level 5's.
HINT_BUDGET_S = 0.8
HINT_SAMPLES = 24
#: a review's deals for each judged play, and how far below the bots its one worker runs.
REVIEW_SAMPLES = 8
REVIEW_NICE = 10
PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent ends


class Lateness:
    """How late recent answers arrived past their search's deadline (the last playout, the
    trip back, the wait for a core): a search is given its level's budget less the 90th
    percentile of that, between `LEAST_SHARE` and `SEARCH_SHARE` of the budget, so the time
    from request to answer keeps within the budget at p95 on a loaded machine too."""

    def __init__(self) -> None:
        self._late: deque[float] = deque(maxlen=LATE_WINDOW)

    def record(self, late: float) -> None:
        """Note an answer ``late`` seconds past its deadline (one that stopped early: none)."""
        if late >= 0.0:
            self._late.append(late)

    def search_s(self, budget_s: float) -> float:
        """The seconds a search of a level with budget ``budget_s`` may use now."""
        if not self._late:
            return SEARCH_SHARE * budget_s
        ordered = sorted(self._late)
        late = ordered[int(0.9 * (len(ordered) - 1))]
        return min(SEARCH_SHARE * budget_s, max(LEAST_SHARE * budget_s, budget_s - late))


def budget_of(level: int, cap: float) -> float:
    """The budget of a decision of ``level``: its own (`LEVEL_BUDGET_S`), at most ``cap``."""
    return min(cap, LEVEL_BUDGET_S.get(level, cap))


def resolve_level(level: int) -> int:
    """The level that plays for ``level``: itself (a level or a stand-in), or the highest
    existing level below it."""
    if level in bots.stand_ins():
        return level
    available = bots.levels()
    below = [each for each in available if each <= level]
    return max(below) if below else min(available)


def decide(
    level: int,
    view: View,
    legal: tuple[Action, ...],
    seed: int,
    budget_s: float,
    deadline: float | None = None,
) -> Action | None:
    """One bot decision from one seat's view (a top-level function: the pool pickles it).

    ``deadline`` (``time.monotonic``), set at the request, overrides ``budget_s`` from now.
    """
    if deadline is None:
        deadline = time.monotonic() + budget_s
    budget = bots.Budget(deadline=deadline, clock=time.monotonic)
    return bots.choose(resolve_level(level), view, legal, random.Random(seed), budget)


def weigh_hint(
    view: View, legal: tuple[Action, ...], seed: int, deadline: float
) -> dict[str, Any] | None:
    """Level 5's play for the viewer, as JSON (a top-level function: the pool pickles it)."""
    budget = bots.Budget(samples=HINT_SAMPLES, deadline=deadline, clock=time.monotonic)
    found = coach_hint(view, legal, budget, seed)
    return None if found is None else found.to_json()


def review_record(record: bytes, samples: int) -> dict[str, Any]:
    """A finished game's review (``cuarenta-review/1``) from its record's JSON: a top-level
    function for the pool (the worker reads the JSON: a text crosses to it in one copy)."""
    found = review(Record.from_json(json.loads(record)), bots.Budget(samples=samples))
    return found.to_json()


def _bound(server: int) -> None:
    """A worker ends with its server however that ends (on Linux): a killed server's workers
    would otherwise wait on their queue for ever, each holding a Python and its memory. A
    server that died while the worker was starting is no longer its parent: it ends at once."""
    if sys.platform == "linux":
        ctypes.CDLL(None).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != server:
        os._exit(0)


def _lowly(server: int) -> None:
    """A review worker yields its core to the bots of live tables (and ends with its server)."""
    os.nice(REVIEW_NICE)
    _bound(server)


def _retrieved(done: asyncio.Future[Any]) -> None:
    if not done.cancelled():
        done.exception()


class BotRunner:
    """Runs decisions where they belong; the pool starts on first use and stops on close."""

    def __init__(
        self,
        workers: int = 2,
        budget_s: float = 1.0,
        stand_in: bool = True,
        under_load: bool = True,
        review_samples: int = REVIEW_SAMPLES,
    ) -> None:
        self.workers = max(1, workers)
        self.review_samples = review_samples
        self.budget_s = budget_s  # the most any level's decision may take
        self.stand_in = stand_in  # the learned policy plays for people (see the docstring)
        self.under_load = under_load  # ... and for search levels while every worker is busy
        self._pool: ProcessPoolExecutor | None = None
        self._reviews: ProcessPoolExecutor | None = None  # apart: a review never holds up a bot
        self.lateness = Lateness()
        self.searching = 0  # decisions in the pool now

    async def decide(
        self, level: int, view: View, legal: tuple[Action, ...], seed: int
    ) -> Action | None:
        """The decision of a bot of ``level`` (see `decide_served`)."""
        action, _ = await self.decide_served(level, view, legal, seed)
        return action

    async def decide_served(
        self,
        level: int,
        view: View,
        legal: tuple[Action, ...],
        seed: int,
        stand_in: bool = False,
    ) -> tuple[Action | None, int]:
        """A decision for ``level`` (``stand_in``: for a person) and the policy that ran."""
        level = resolve_level(level)
        saturated = self.under_load and self.searching >= self.workers
        if (stand_in and self.stand_in) or (saturated and level > INLINE_MAX_LEVEL):
            level = CHEAP_LEVEL
        if level <= INLINE_MAX_LEVEL or level == CHEAP_LEVEL:
            return decide(level, view, legal, seed, self.budget_s), level
        return await self._searched(level, view, legal, seed), level

    async def _searched(
        self, level: int, view: View, legal: tuple[Action, ...], seed: int
    ) -> Action | None:
        pool = self._started()
        budget_s = budget_of(level, self.budget_s)
        deadline = time.monotonic() + self.lateness.search_s(budget_s)  # queueing counts
        loop = asyncio.get_running_loop()
        self.searching += 1
        try:
            action = await loop.run_in_executor(
                pool, decide, level, view, legal, seed, budget_s, deadline
            )
        except BrokenProcessPool:  # a worker died: the seat still plays (invariant 5)
            self._drop(pool)
            log.warning("a bot worker died; level 3 plays this turn", level=level)
            return decide(INLINE_MAX_LEVEL, view, legal, seed, self.budget_s)
        finally:
            self.searching -= 1
        self.lateness.record(time.monotonic() - deadline)
        return action

    async def hint(
        self, view: View, legal: tuple[Action, ...], seed: int = 0
    ) -> dict[str, Any] | None:
        """A hint weighed in the pool (never on the loop: invariant 6) within `HINT_BUDGET_S`."""
        deadline = time.monotonic() + self.lateness.search_s(HINT_BUDGET_S)
        loop = asyncio.get_running_loop()
        pool = self._started()
        try:
            return await loop.run_in_executor(pool, weigh_hint, view, legal, seed, deadline)
        except BrokenProcessPool:
            self._drop(pool)
            raise

    async def review(self, record: bytes) -> dict[str, Any]:
        """Review a finished game (its record's JSON) in a worker of its own, at low priority
        (invariant 6)."""
        if self._reviews is None:
            context = multiprocessing.get_context("spawn")
            self._reviews = ProcessPoolExecutor(
                1, mp_context=context, initializer=_lowly, initargs=(os.getpid(),)
            )
        loop = asyncio.get_running_loop()
        pool = self._reviews
        running = loop.run_in_executor(pool, review_record, record, self.review_samples)
        running.add_done_callback(_retrieved)  # its waiter may be gone: never "not retrieved"
        try:
            # Shielded: a waiter cancelled never cancels the pool's own future, so when `close`
            # kills the worker every future it holds can still take the pool's error (Python
            # 3.11's pool raises in its manager thread on one already cancelled).
            return await asyncio.shield(running)
        except BrokenProcessPool:
            self._drop(pool)
            raise

    def _drop(self, pool: ProcessPoolExecutor) -> None:
        """Forget a pool one of whose workers died (every later call would fail at once): the
        next call starts a new one."""
        if self._pool is pool:
            self._pool = None
        if self._reviews is pool:
            self._reviews = None
        pool.shutdown(wait=False, cancel_futures=True)

    def _started(self) -> ProcessPoolExecutor:
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(
                self.workers, mp_context=context, initializer=_bound, initargs=(os.getpid(),)
            )
        return self._pool

    def close(self) -> None:
        # A review runs for a minute or more: its worker is stopped, not waited for (the
        # review is computed again when next asked for).
        reviewing = [] if self._reviews is None else list(self._reviews._processes.values())
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
        if self._reviews is not None:  # nothing of it cancelled: see `review`
            self._reviews.shutdown(wait=False)
        for process in reviewing:
            process.kill()
        self._pool = self._reviews = None
