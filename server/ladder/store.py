"""Where ladder runs and the leaderboard live: in memory, or in Redis next to the tables.

Each run is stored under its ladder token with a version (compare-and-set: two tabs of one
browser never both deal a chica from the same state). The leaderboard keeps each token's best
saved score (R14) — in Redis a sorted set, updated with ``ZADD GT`` so it only ever rises —
and the optional name shown next to it.

Errors::

    StoreError (server.store.base)
    └── LadderConflict   save whose expected version is not the stored one: reload and retry
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

from server.ladder.rules import STREAK_WEIGHT, LadderRun
from server.store.base import StoreError

BOARD_SIZE = 10


class LadderConflict(StoreError):
    """Another request stored this run since it was loaded: nothing was written."""


@dataclass(frozen=True, slots=True)
class BoardEntry:
    """One line of the public leaderboard: a best saved score and its optional name."""

    name: str | None
    score: int

    @property
    def streak(self) -> int:
        return self.score // STREAK_WEIGHT


@runtime_checkable
class LadderStore(Protocol):
    async def load(self, token: str) -> LadderRun | None:
        """The stored run (with its version), or None for a token never stored."""
        ...

    async def save(self, run: LadderRun) -> LadderRun:
        """Store ``run`` if the stored version is still ``run.version``; return it one version on.

        Raises ``LadderConflict`` (nothing written) otherwise; a new run has version 0.
        """
        ...

    async def offer_best(self, token: str, score: int, name: str | None) -> None:
        """Put ``token``'s best score on the board (kept only if higher) and its current name."""
        ...

    async def board(self, size: int = BOARD_SIZE) -> list[BoardEntry]:
        """The best scores, highest first."""
        ...

    async def close(self) -> None: ...


class MemoryLadderStore:
    """The embedded default: one process, gone with it (like ``MemoryStore``'s tables)."""

    def __init__(self) -> None:
        self._runs: dict[str, LadderRun] = {}
        self._best: dict[str, tuple[int, int]] = {}  # token -> (score, order it was reached)
        self._names: dict[str, str | None] = {}
        self._order = 0

    async def load(self, token: str) -> LadderRun | None:
        return self._runs.get(token)

    async def save(self, run: LadderRun) -> LadderRun:
        stored = self._runs.get(run.token)
        if (stored.version if stored else 0) != run.version:
            raise LadderConflict(f"ladder run changed since version {run.version}")
        saved = replace(run, version=run.version + 1)
        self._runs[run.token] = saved
        return saved

    async def offer_best(self, token: str, score: int, name: str | None) -> None:
        self._names[token] = name
        if score > 0 and score > self._best.get(token, (0, 0))[0]:
            self._order += 1
            self._best[token] = (score, self._order)

    async def board(self, size: int = BOARD_SIZE) -> list[BoardEntry]:
        ranked = sorted(self._best.items(), key=lambda item: (-item[1][0], item[1][1]))
        return [BoardEntry(self._names.get(token), score) for token, (score, _) in ranked[:size]]

    async def close(self) -> None:
        return None
