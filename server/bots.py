"""Bot seats' decisions: inline for the quick levels, in a process pool for search levels.

Levels 1-3 decide in well under 5 ms, so they run on the event loop; levels 4 and up search
and run in a small spawn-safe ``ProcessPoolExecutor`` within a time budget, so the loop never
stalls (invariant 6). A level that does not exist (yet) falls back to the best one below it.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
import time
from concurrent.futures import ProcessPoolExecutor

from engine import bots
from engine.actions import Action
from engine.views import View

INLINE_MAX_LEVEL = 3


def resolve_level(level: int) -> int:
    """The level that plays for ``level``: itself, or the highest existing level below it."""
    available = bots.levels()
    below = [each for each in available if each <= level]
    return max(below) if below else min(available)


def decide(
    level: int, view: View, legal: tuple[Action, ...], seed: int, budget_s: float
) -> Action | None:
    """One bot decision from one seat's view (a top-level function: the pool pickles it)."""
    budget = bots.Budget(deadline=time.monotonic() + budget_s, clock=time.monotonic)
    return bots.choose(resolve_level(level), view, legal, random.Random(seed), budget)


class BotRunner:
    """Runs decisions where they belong; the pool starts on first use and stops on close."""

    def __init__(self, workers: int = 2, budget_s: float = 1.0) -> None:
        self.workers = max(1, workers)
        self.budget_s = budget_s
        self._pool: ProcessPoolExecutor | None = None

    async def decide(
        self, level: int, view: View, legal: tuple[Action, ...], seed: int
    ) -> Action | None:
        level = resolve_level(level)
        if level <= INLINE_MAX_LEVEL:
            return decide(level, view, legal, seed, self.budget_s)
        if self._pool is None:
            context = multiprocessing.get_context("spawn")
            self._pool = ProcessPoolExecutor(max_workers=self.workers, mp_context=context)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(
            self._pool, decide, level, view, legal, seed, self.budget_s
        )

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
