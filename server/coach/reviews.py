"""The coach's review of each finished game: computed once, stored with the game's record.

When a game with at least one person at it ends, ``GameRecorder`` hands its record here; the
review runs in the bot runner's review worker (its own process, at low priority: never on the
loop, never holding up a table's bots), is kept in the table store beside the record
(``Store.keep_review``: the first one stays) and each person's accuracy goes into their history
(``/me`` lists it). ``/review/`` serves the stored review; for a game finished before reviews
were kept, the first ask computes it, once. One computation per game in this process at a time
(single flight); at most `QUEUED_REVIEWS` wait, the rest are computed when first asked for.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import structlog

from server.people.model import game_id
from server.store.base import StoreError
from server.tasks import cancel_and_wait

if TYPE_CHECKING:
    from server.bots import BotRunner
    from server.people import Players
    from server.store.base import Store

log = structlog.get_logger("server.coach.reviews")
REVIEW_FORMAT = "cuarenta-review/1"
QUEUED_REVIEWS = 64  # reviews waiting for the worker at most: a burst of game ends sheds the rest

Game = tuple[str, int]  # (table, game)


class Reviews:
    """Computes, keeps and finds the reviews of finished games."""

    def __init__(self, store: Store, bots: BotRunner, players: Players) -> None:
        self.store = store
        self.bots = bots
        self.players = players
        self.computed = 0  # reviews this process computed (each game's once)
        self._running: dict[Game, asyncio.Task[None]] = {}

    def start(
        self,
        which: Game,
        record: dict[str, Any] | bytes,
        people: Mapping[int, str] | None = None,
    ) -> bool:
        """Start ``which``'s review unless it is running or too many wait; True if running.
        ``record``: the R15 record, or its stored JSON (read only by the review's worker);
        ``people`` (seat -> public id): the persons whose
        histories take their accuracy."""
        if which in self._running:
            return True
        if len(self._running) >= QUEUED_REVIEWS:
            log.warning("review shed: too many waiting", table=which[0], game=which[1])
            return False
        task = asyncio.get_running_loop().create_task(self._review(which, record, people or {}))
        self._running[which] = task
        task.add_done_callback(lambda _: self._running.pop(which, None))
        return True

    def running(self, which: Game) -> bool:
        return which in self._running

    async def done(self, which: Game) -> None:
        """Return once ``which``'s review under way (if any) has ended."""
        task = self._running.get(which)
        if task is not None:
            await asyncio.shield(task)

    async def find(self, which: Game) -> bytes | None:
        """The stored review of ``which`` (JSON), or None (not yet, or of an older format)."""
        kept = await self.store.find_review(*which)
        if kept is None or json.loads(kept).get("format") != REVIEW_FORMAT:
            return None
        return kept

    async def _review(
        self, which: Game, record: dict[str, Any] | bytes, people: Mapping[int, str]
    ) -> None:
        try:
            kept = await self.find(which)
            if kept is None:
                text = record if isinstance(record, bytes) else json.dumps(record).encode()
                review = await self.bots.review(text)
                self.computed += 1
                kept = json.dumps(review).encode()
                if not await self.store.keep_review(*which, kept):
                    kept = await self.find(which) or kept  # another process kept one first
            await self._note_accuracy(which, json.loads(kept), people)
        except (StoreError, ValueError) as exc:  # the next ask computes it again
            log.warning("review not kept", table=which[0], game=which[1], error=str(exc)[:200])
        except Exception:  # a review is a courtesy: its failure never reaches a table
            log.exception("review failed", table=which[0], game=which[1])

    async def _note_accuracy(
        self, which: Game, review: dict[str, Any], people: Mapping[int, str]
    ) -> None:
        for seat, player_id in people.items():
            accuracy = review["seats"][seat]["accuracy"]
            if accuracy is not None:
                await self.players.store.record_accuracy(player_id, game_id(*which), accuracy)

    async def close(self) -> None:
        """Stop the reviews under way (a later ask computes them again)."""
        await cancel_and_wait(list(self._running.values()))
