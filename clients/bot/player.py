"""`WireBot`: one seat played by an ``engine.bots`` level over the wire, like a person.

It sees only what its seat's snapshots show (invariant 1), decides with ``engine.bots.choose``
on the view rebuilt from the wire, and answers against the event number it decided on, so a
table that moved on refuses the move as stale instead of applying it blind. Given the host
link it also starts the game once every seat is filled, and asks for rematches until it has
played the games it was asked to.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from clients.reconnect import LastingSession, Status
from clients.session import SessionError
from clients.table import TableRefused
from engine import bots
from engine.actions import Action
from engine.views import View
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.convert import action_to_wire, legal_from_wire, view_from_wire
from protocol.errors import ErrorCode

#: refusals that only mean "the table moved on while we thought": wait for the next snapshot
BENIGN = frozenset({ErrorCode.STALE, ErrorCode.NOT_YOUR_TURN, ErrorCode.WRONG_PHASE})
#: refusals that mean "not now": the same request is sent again after a pause
RETRIED = frozenset({ErrorCode.RATE_LIMITED, ErrorCode.STORAGE_UNAVAILABLE})
RETRY_BACKOFF_S: tuple[float, ...] = (0.1, 0.2, 0.4, 0.8, 1.6, 2.0)
"""Pauses before sending a refused or unanswered request again (the last one repeats)."""
SEARCH_LEVEL = 4  # from this level on a decision searches: keep it off the event loop


def playable_level(level: int) -> int:
    """The level that plays for ``level``: itself, or the highest existing level below it."""
    available = bots.levels()
    below = [each for each in available if each <= level]
    return max(below) if below else min(available)


@dataclass(frozen=True, slots=True)
class BotPlan:
    """How a wire bot plays: its level, its pace, how many games, its random seed."""

    level: int = 2
    pace_s: float = 0.0  # pause before each action (load tests pace their bots)
    games: int = 1  # games to finish before leaving (rematches after the first)
    seed: int | None = None
    budget_s: float = 1.0  # time budget of one searching decision


@dataclass(slots=True)
class BotTally:
    """What a bot did, for reports and load figures."""

    actions: int = 0
    declined: int = 0
    retries: int = 0  # requests sent again after a "not now" refusal or no answer
    refused: list[str] = field(default_factory=list)
    games: list[s.Snapshot] = field(default_factory=list)  # each finished game's last snapshot


class WireBot:
    """Plays one seat until ``plan.games`` games have finished."""

    def __init__(self, place: LastingSession, plan: BotPlan) -> None:
        self.place = place
        self.plan = plan
        self.level = playable_level(plan.level)
        self.rng = random.Random(plan.seed)
        self.tally = BotTally()
        self._decided: set[int] = set()  # event numbers already answered
        self._asked: set[str] = set()  # one-off table requests already sent (start, rematch)

    async def run(self) -> BotTally:
        """Play to the end; raises `SessionError` if the table is lost for good."""
        async for item in self.place.stream():
            if isinstance(item, Status):
                if item.state == "closed":
                    raise SessionError(f"lost the table: {item.detail}")
                continue
            if isinstance(item, s.Snapshot) and await self._on_snapshot(item):
                return self.tally
        raise SessionError("the connection ended before the game did")

    async def _on_snapshot(self, snap: s.Snapshot) -> bool:
        """Handle one snapshot; True once the last game this bot plays has finished."""
        if snap.last_event != self.place.current.last_event:
            return False  # a newer position is already on its way
        info = snap.info
        if info.stage == "lobby":
            await self._start_when_full(snap)
        elif info.stage == "finished" and snap.view is not None:
            if not self.tally.games or self.tally.games[-1].info.game != info.game:
                self.tally.games.append(snap)
            if len(self.tally.games) >= self.plan.games:
                return True
            if snap.you.seat is not None and snap.you.seat not in info.rematch_asked:
                await self._once(f"rematch {info.game}", c.Rematch())
        elif snap.legal and snap.you.seat is not None and snap.view is not None:
            await self._decide(snap, snap.you.seat, snap.view)
        return False

    async def _start_when_full(self, snap: s.Snapshot) -> None:
        if snap.you.host and all(seat.occupant != "empty" for seat in snap.info.seats):
            await self._once(f"start {snap.last_event}", c.Start())

    async def _once(self, tag: str, request: c.ClientMessage) -> None:
        if tag in self._asked:
            return
        self._asked.add(tag)
        if not await self._send(request, lambda: True):
            self._asked.discard(tag)  # the connection dropped: ask again once resumed

    async def _decide(self, snap: s.Snapshot, seat: int, wire_view: s.GameView) -> None:
        at = snap.last_event
        if at in self._decided:
            return
        self._decided.add(at)
        view = view_from_wire(wire_view)
        legal = legal_from_wire(snap.legal, seat)
        budget = bots.Budget(deadline=time.monotonic() + self.plan.budget_s, clock=time.monotonic)
        seed = self.rng.getrandbits(63)
        if self.level >= SEARCH_LEVEL:
            action = await asyncio.to_thread(self._choose, view, legal, seed, budget)
        else:
            action = self._choose(view, legal, seed, budget)
        if action is None:
            self.tally.declined += 1  # an optional claim or missed-cards take, left alone
            return
        if self.plan.pace_s > 0:
            await asyncio.sleep(self.plan.pace_s)  # pacing, a product setting
            if self.place.current.last_event != at:
                return  # the table moved while we waited: decide again on the new snapshot
        move = action_to_wire(action).model_copy(update={"at": at})
        if await self._send(move, lambda: self.place.current.last_event == at):
            self.tally.actions += 1
        else:
            # Refused or never answered: the next snapshot at this same event decides again (a
            # resume, or a new owner seating this connection again: a table taken over by a
            # third process refuses its moves as "not at the table" until it has). Kept, the
            # event would stall the table for good: this seat is connected, no stand-in plays.
            self._decided.discard(at)

    async def _send(self, request: c.ClientMessage, still_due: Callable[[], bool]) -> bool:
        """Send until answered; True if accepted.

        A refusal that only says "not now" (the rate limit, the store away for a moment) or a
        request left unanswered on a live connection is sent again after a growing pause for as
        long as the table still waits for it: this seat is connected, so no stand-in plays for
        it, and giving up would stall the table for good. A request naming its event number
        cannot be applied twice (a second copy is refused as stale). A dropped connection ends
        the attempt: the stream resumes the seat and its snapshot asks again.
        """
        attempt = 0
        while True:
            session = self.place.current
            try:
                await self.place.request(request)
                return True
            except TableRefused as exc:
                if exc.code not in RETRIED:
                    if exc.code not in BENIGN:
                        self.tally.refused.append(f"{request.type}: {exc.code.value}: {exc}")
                    return False
            except SessionError:
                if session.closed.is_set():
                    return False
            self.tally.retries += 1
            await asyncio.sleep(RETRY_BACKOFF_S[min(attempt, len(RETRY_BACKOFF_S) - 1)])
            attempt += 1
            if session.closed.is_set() or not still_due():
                return False  # resumed, or the table moved on (a stand-in acted): decide anew

    def _choose(
        self, view: View, legal: tuple[Action, ...], seed: int, budget: bots.Budget
    ) -> Action | None:
        return bots.choose(self.level, view, legal, random.Random(seed), budget)
