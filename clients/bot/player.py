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
RATE_RETRIES = 8
RATE_BACKOFF_S = 0.1
"""A refused ``rate_limited`` action is sent again after 0.1 s, 0.2 s, … (the limit refills)."""
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
        try:
            await self.place.request(request)
        except TableRefused as exc:
            if exc.code not in BENIGN:
                self.tally.refused.append(f"{request.type}: {exc}")

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
        for attempt in range(1, RATE_RETRIES + 1):
            try:
                await self.place.act(action_to_wire(action), at)
                self.tally.actions += 1
                return
            except TableRefused as exc:
                if exc.code == ErrorCode.RATE_LIMITED and attempt < RATE_RETRIES:
                    # the server's per-connection limit: an all-bot table can outrun it; the
                    # table waits for this seat, so back off and send the same decision again
                    await asyncio.sleep(RATE_BACKOFF_S * attempt)
                    if self.place.current.last_event == at:
                        continue
                    return  # the table moved meanwhile (a stand-in acted): nothing to send
                if exc.code not in BENIGN:
                    self.tally.refused.append(f"{action}: {exc}")
                return

    def _choose(
        self, view: View, legal: tuple[Action, ...], seed: int, budget: bots.Budget
    ) -> Action | None:
        return bots.choose(self.level, view, legal, random.Random(seed), budget)
