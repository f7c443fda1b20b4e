"""The game's course at a table: starting it, applying actions, its clocks and its bots.

Clocks are absolute server times kept in the state, so a restart keeps them: a person's turn
deadline (``turn_timer``; manual announcements use it too, or the claim window when the timer is
off), the R10 claim window, and each absent person's grace. Bots — bot seats, stand-ins for
absent people, and the stand-in that acts for a person past a deadline — are asked through
``due_bots``; their answers come back as a ``BotAnswer`` command like any other. A table where every
seat is a bot never waits on a clock.
"""

from __future__ import annotations

from typing import Any

from engine.actions import Action, CloseClaims
from engine.errors import IllegalAction
from engine.events import ClaimsClosed, ClaimsOpened, GameOver
from engine.events import Event as EngineEvent
from engine.game import Game
from engine.phase import Phase
from engine.views import view_of
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.errors import Refused
from server.table_state import BotRequest, Outcome
from server.table_view import TableViews


class TableFlow(TableViews):
    """Start, apply, tick: the game and its clocks, with bots asked when they are due."""

    def due_bots(self, now: float) -> list[BotRequest]:
        """Bot decisions due now, each asked once per table state."""
        requests = []
        self._issued = {asked for asked in self._issued if asked[1] == self.last_event}
        for seat, due, level in self._bot_schedule():
            if due <= now and (seat, self.last_event) not in self._issued:
                self._issued.add((seat, self.last_event))
                game = self.game
                assert game is not None
                requests.append(
                    BotRequest(
                        table=self.table_id,
                        seat=seat,
                        level=level,
                        view=view_of(game, seat),
                        legal=game.legal_actions(seat, by_rank=True),  # R2, R7: bounded
                        at=self.last_event,
                        seed=self.seeds(),
                    )
                )
        return requests

    def bot_act(self, request: BotRequest, action: Action | None, now: float) -> Outcome:
        """Apply a bot's answer to ``request`` (``BotAnswer``)."""
        return self.bot_answer(request.seat, request.at, action, now)

    def bot_answer(self, seat: int, at: int, action: Action | None, now: float) -> Outcome:
        """Apply a bot's answer if the table is still where the bot saw it (event ``at``)."""
        self.last_input = max(self.last_input, now)
        out = Outcome()
        game = self.game
        if game is None or at != self.last_event or not self.in_game:
            return out  # stale: the next due_bots asks again
        if action is None:  # the bot declines an optional action (a claim, missed cards)
            if game.phase is Phase.CLAIMS:
                self.claims_done.add(seat)
                out.dirty = True
                self._maybe_close_claims(out, now)
            return self._finish(out)
        try:
            events = game.apply(action)
        except IllegalAction:  # the first offer the bot was given (the table is where it saw it)
            events = game.apply(game.legal_actions(seat, by_rank=True)[0])
        self._after_game_events(out, events, now)
        return self._finish(out)

    def tick(self, now: float) -> Outcome:
        """Run the clocks: close an expired claim window, end expired graces."""
        self.last_input = max(self.last_input, now)
        out = Outcome()
        deadline = self.claims_deadline
        game = self.game
        if deadline is not None and now >= deadline and game and game.phase is Phase.CLAIMS:
            self._apply(out, CloseClaims(), now)
        events: list[Any] = []
        for index, seat in enumerate(self.seats):
            if seat.occupant != "person" or seat.away_since is None or seat.open:
                continue
            if now >= seat.away_since + self.config.grace_s:
                if self.in_game:
                    seat.open = True
                    out.dirty = True
                else:
                    seat.clear()
                    events.append(s.SeatFreed(seat=index, reason="grace_expired"))
        if events:
            self._publish(out, events, now)
        return self._finish(out)

    def next_wakeup(self) -> float | None:
        """The earliest time ``tick`` or ``due_bots`` has something to do."""
        times = [
            due
            for seat, due, _ in self._bot_schedule()
            if (seat, self.last_event) not in self._issued
        ]
        if self.claims_deadline is not None:
            times.append(self.claims_deadline)
        times += [
            seat.away_since + self.config.grace_s
            for seat in self.seats
            if seat.occupant == "person" and seat.away_since is not None and not seat.open
        ]
        return min(times) if times else None

    def _bot_schedule(self) -> list[tuple[int, float, int]]:
        """(seat, due time, bot level) for every seat a bot must decide for."""
        game = self.game
        if game is None or not self.in_game:
            return []
        people_here = any(seat.occupant == "person" and seat.conn for seat in self.seats)
        pace = self.config.bot_delay_s if people_here else 0.0
        schedule = []
        required = game.turn if game.phase in (Phase.PLAY, Phase.ANNOUNCE) else None
        for index in game.to_act():
            seat = self.seats[index]
            if game.phase is Phase.CLAIMS and index in self.claims_done:
                continue
            if seat.is_bot_controlled:
                due = self.decision_since + pace
                if seat.occupant == "person" and seat.away_since is not None:
                    due = max(due, seat.away_since + self.config.away_turn_s)
                level = seat.bot_level if seat.occupant == "bot" else self.config.stand_in_level
                schedule.append((index, due, level or self.config.stand_in_level))
            elif index == required:
                limit = self._person_limit(game)
                if limit:
                    schedule.append(
                        (index, self.decision_since + limit, self.config.stand_in_level)
                    )
        return schedule

    def _maybe_close_claims(self, out: Outcome, now: float) -> None:
        """An all-bot table never waits on the claim clock (every seat has claimed)."""
        game = self.game
        if game is None or game.phase is not Phase.CLAIMS:
            return
        if all(seat.is_bot_controlled for seat in self.seats) and all(
            index in self.claims_done for index in game.to_act()
        ):
            self._apply(out, CloseClaims(), now)

    # ------------------------------------------------------------------ game flow
    def _start_game(self, out: Outcome, now: float) -> None:
        empty = [i for i, seat in enumerate(self.seats) if seat.occupant == "empty"]
        if empty:
            raise Refused(ErrorCode.WRONG_PHASE, f"seats {empty} are empty: fill them first")
        self.game_no += 1
        self.seed = self.seeds()
        self.game = Game.new(self.profile, self.options, self.seed)
        self.stage = "playing"
        self.rematch.clear()
        self.claims_done.clear()
        self.claims_deadline = None
        for seat in self.seats:
            if seat.occupant == "person" and seat.conn is None:
                seat.stand_in = True
        names = [seat.name or "" for seat in self.seats]
        self.decision_since = now
        self._note(self.game.start_events, now)
        self._publish(
            out, [s.GameStarted(game=self.game_no, names=names), *self.game.start_events], now
        )
        self._maybe_close_claims(out, now)

    def _apply(self, out: Outcome, action: Action, now: float) -> None:
        game = self._require_game()
        self._after_game_events(out, game.apply(action), now)

    def _after_game_events(self, out: Outcome, events: tuple[EngineEvent, ...], now: float) -> None:
        self.decision_since = now
        self._note(events, now)
        self._publish(out, list(events), now)
        self._maybe_close_claims(out, now)

    def _note(self, events: tuple[EngineEvent, ...], now: float) -> None:
        """Update the table's clocks and stage from the engine's events, before publishing."""
        game = self.game
        assert game is not None
        for event in events:
            if isinstance(event, ClaimsOpened):
                self.claims_deadline = now + self.config.claim_window_s
                self.claims_done.clear()
            elif isinstance(event, ClaimsClosed):
                self.claims_deadline = None
            elif isinstance(event, GameOver):
                self.stage = "finished"
                self.claims_deadline = None
                self.finished_record = game.record().to_json()
                for seat in self.seats:
                    if seat.occupant == "person":
                        seat.stand_in = False
                        if seat.open:
                            seat.clear()
