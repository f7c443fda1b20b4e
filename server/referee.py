"""The sans-I/O room core: one table's seats, viewers, game and clocks.

Commands and the current time go in; numbered log entries (to store), per-connection messages and
the next wake-up time come out. No asyncio, no clock, no sockets: the websockets shell
(``server.room``) feeds it and the tests drive it directly.

Every change goes through :meth:`Referee._publish`: it numbers the new events, redacts engine
events for every kind of viewer through ``engine.views.redact`` (the one redaction path,
invariant 1), and queues for every viewer its events followed by a fresh snapshot built from
``engine.views.view_of``. The shell commits ``Outcome.entries`` and the new state to the store
*before* it sends ``Outcome.messages`` (invariant 3).

Clocks (all absolute server times, persisted, so a restart keeps them): a person's turn deadline
(``turn_timer``; manual announcements use it too, or the claim window when the timer is off),
the R10 claim window, and each absent person's grace. Bots — real bot seats, stand-ins for absent
people, and the stand-in that acts for a person past a deadline — are asked through
``due_bots``; their answers come back through ``bot_act`` like any command.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from engine.actions import Action, CloseClaims, Misdeal, action_from_json
from engine.errors import EngineError, IllegalAction
from engine.events import ClaimsClosed, ClaimsOpened, GameOver
from engine.events import Event as EngineEvent
from engine.game import Game
from engine.phase import Phase
from engine.rules import check_options
from engine.views import View, redact, view_of
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.base import WireModel
from protocol.convert import action_from_wire, action_to_wire, view_to_wire
from protocol.errors import ErrorCode
from server import keys
from server.errors import Refused
from server.seating import SeatState, TokenBucket, Viewer, first_free, is_free
from server.store.base import KeyRole

STATE_FORMAT = "cuarenta-table/1"
SEATS_OF = {"pagat-4p": 4, "heads-up": 2, "libre-2p": 2}


@dataclass(frozen=True, slots=True)
class RefereeConfig:
    """The referee's share of the server settings."""

    grace_s: float = 60.0
    claim_window_s: float = 15.0
    bot_delay_s: float = 0.6
    away_turn_s: float = 5.0  # an absent person's turn waits this long for a quick reconnect
    stand_in_level: int = 3
    chat_per_min: float = 12.0
    chat_burst: float = 5.0


@dataclass(frozen=True, slots=True)
class BotRequest:
    """Ask a bot for ``seat``'s decision at event ``at``; answer with ``Referee.bot_act``."""

    table: str
    seat: int
    level: int
    view: View
    legal: tuple[Action, ...]
    at: int
    seed: int


@dataclass(slots=True)
class Outcome:
    """What one command caused: log entries to store first, then messages to send."""

    entries: list[bytes] = field(default_factory=list)
    messages: list[tuple[str, s.ServerMessage]] = field(default_factory=list)
    detached: list[str] = field(default_factory=list)
    dirty: bool = False

    def to(self, conn: str, message: s.ServerMessage) -> None:
        self.messages.append((conn, message))


class Referee:
    """One table. Mutated only through its methods, by one owner at a time (invariant 4)."""

    def __init__(
        self,
        table_id: str,
        table_keys: dict[KeyRole, str],
        profile: str,
        options: dict[str, Any],
        turn_timer: int,
        config: RefereeConfig,
        seeds: Callable[[], int] | None = None,
    ) -> None:
        self.table_id = table_id
        self.keys = table_keys
        self.profile = profile
        self.options = options
        self.turn_timer = turn_timer
        self.config = config
        self.seeds = seeds or (lambda: secrets.randbits(63))
        self.seats = [SeatState() for _ in range(SEATS_OF[profile])]
        self.locked = False
        self.stage: str = "lobby"
        self.game_no = 0
        self.seed: int | None = None
        self.game: Game | None = None
        self.decision_since = 0.0
        self.claims_deadline: float | None = None
        self.claims_done: set[int] = set()
        self.rematch: set[int] = set()
        self.finished_record: dict[str, Any] | None = None
        self.log: list[dict[str, Any]] = []
        self.game_event = 0  # the number of the last event that changed the game
        self.viewers: dict[str, Viewer] = {}
        self._issued: set[tuple[int, int]] = set()

    # ------------------------------------------------------------------ creation and storage
    @classmethod
    def create(
        cls,
        profile: str,
        options: dict[str, Any],
        turn_timer: int,
        config: RefereeConfig,
        seeds: Callable[[], int] | None = None,
        club: str | None = None,
    ) -> Referee:
        """A new table with fresh keys; bad options are refused naming the rule (R13, R14)."""
        checked = _checked_options(profile, options)
        table_keys: dict[KeyRole, str] = {
            "join": keys.new_key(),
            "watch": keys.new_key(),
            "host": keys.new_key(),
        }
        if club:
            table_keys["club"] = club
        return cls(keys.new_table_id(), table_keys, profile, checked, turn_timer, config, seeds)

    def to_state(self) -> bytes:
        """Everything needed to rebuild the table (with its log), as JSON bytes."""
        game = self.game
        state = {
            "format": STATE_FORMAT,
            "table": self.table_id,
            "keys": self.keys,
            "profile": self.profile,
            "options": self.options,
            "turn_timer": self.turn_timer,
            "seats": [seat.to_json() for seat in self.seats],
            "locked": self.locked,
            "stage": self.stage,
            "game_no": self.game_no,
            "seed": self.seed,
            "actions": [action.to_json() for action in game.actions] if game else None,
            "decision_since": self.decision_since,
            "claims_deadline": self.claims_deadline,
            "claims_done": sorted(self.claims_done),
            "rematch": sorted(self.rematch),
            "finished_record": self.finished_record,
            "last_event": len(self.log),
            "game_event": self.game_event,
        }
        return json.dumps(state, separators=(",", ":")).encode()

    @classmethod
    def from_state(
        cls,
        data: bytes,
        log: list[bytes],
        config: RefereeConfig,
        now: float,
        seeds: Callable[[], int] | None = None,
    ) -> Referee:
        """Rebuild a table from its stored state and log; every person starts away at ``now``."""
        state = json.loads(data)
        if state.get("format") != STATE_FORMAT:
            raise ValueError(f"not a {STATE_FORMAT} state")
        ref = cls(
            state["table"], state["keys"], state["profile"], state["options"],
            state["turn_timer"], config, seeds,
        )
        ref.seats = [SeatState.from_json(seat, now) for seat in state["seats"]]
        for seat in ref.seats:
            if seat.occupant == "person" and ref.stage_is_game(state["stage"]):
                seat.stand_in = True
        ref.locked, ref.stage, ref.game_no = state["locked"], state["stage"], state["game_no"]
        ref.seed = state["seed"]
        if state["actions"] is not None:
            game = Game.new(ref.profile, ref.options, ref.seed)
            for action in state["actions"]:
                game.apply(action_from_json(action))
            ref.game = game
        ref.decision_since = state["decision_since"]
        ref.claims_deadline = state["claims_deadline"]
        ref.claims_done = set(state["claims_done"])
        ref.rematch = set(state["rematch"])
        ref.finished_record = state["finished_record"]
        ref.log = [json.loads(entry) for entry in log]
        ref.game_event = state.get("game_event", len(ref.log))
        if len(ref.log) != state["last_event"]:
            raise ValueError(f"log has {len(ref.log)} events, state expects {state['last_event']}")
        return ref

    @staticmethod
    def stage_is_game(stage: str) -> bool:
        return stage == "playing"

    @property
    def last_event(self) -> int:
        return len(self.log)

    @property
    def in_game(self) -> bool:
        return self.stage == "playing"

    # ------------------------------------------------------------------ connections
    def attach(
        self, conn: str, name: str, request: c.Join | c.Watch, role: KeyRole, now: float
    ) -> Outcome:
        """A connection joins (takes a seat) or watches through a link key of ``role``."""
        out = Outcome()
        viewer = self.viewers.get(conn)
        if viewer is None:
            viewer = Viewer(conn, name, TokenBucket(self.config.chat_per_min / 60,
                                                    self.config.chat_burst))
        viewer.host = viewer.host or role == "host"
        viewer.can_sit = viewer.can_sit or role in ("join", "host", "club")
        if isinstance(request, c.Watch):
            self.viewers[conn] = viewer
            out.to(conn, s.Ack(rid=request.rid))
            self._snapshot_to(out, viewer)
            self._presence(out)
            return out
        if not viewer.can_sit:
            raise Refused(ErrorCode.FORBIDDEN, "the watch link cannot take a seat")
        if viewer.seat is not None:
            raise Refused(ErrorCode.SEAT_TAKEN, f"you already sit in seat {viewer.seat}")
        seat = self._seat_for_newcomer(request.seat, viewer)
        if conn not in self.viewers:  # a newcomer's baseline: the state, then every event
            self.viewers[conn] = viewer
            self._snapshot_to(out, viewer)
        self._sit(out, viewer, seat, request.rid, now)
        return out

    def resume(self, conn: str, name: str, token: str, last_event: int | None,
               rid: int, now: float) -> Outcome:
        """Take a seat back with its token: its events after ``last_event``, then a snapshot."""
        index = next(
            (i for i, seat in enumerate(self.seats) if keys.same_secret(token, seat.token)), None
        )
        if index is None:
            raise Refused(ErrorCode.BAD_TOKEN, "this seat token does not hold a seat here")
        out = Outcome()
        seat = self.seats[index]
        if seat.conn is not None and seat.conn != conn:
            old = self.viewers.pop(seat.conn, None)
            if old is not None:
                out.to(old.conn, s.Goodbye(reason="the seat was taken back by a new connection"))
                out.detached.append(old.conn)
        viewer = self.viewers.get(conn) or Viewer(
            conn, seat.name or name,
            TokenBucket(self.config.chat_per_min / 60, self.config.chat_burst),
        )
        viewer.seat, viewer.can_sit = index, True
        viewer.host = viewer.host or seat.host
        self.viewers[conn] = viewer
        was_standing_in = seat.stand_in
        seat.conn, seat.away_since, seat.stand_in, seat.open = conn, None, False, False
        out.dirty = True
        out.to(conn, s.Seated(rid=rid, table=self.table_id, seat=index, token=token))
        if last_event is not None:
            for n in range(last_event + 1, self.last_event + 1):
                out.to(conn, self._event_for(n, viewer))
        if was_standing_in:  # everyone, the returning player too, sees the stand-in leave
            self._publish(out, [s.StandIn(seat=index, active=False, reason="returned")], now)
        else:
            self._snapshot_to(out, viewer)
            self._presence(out)
        return out

    def detach(self, conn: str, now: float) -> Outcome:
        """The connection went away: its seat stays for the grace period (invariant 5)."""
        out = Outcome()
        viewer = self.viewers.pop(conn, None)
        if viewer is None:
            return out
        if viewer.seat is not None:
            seat = self.seats[viewer.seat]
            if seat.conn == conn:
                seat.conn, seat.away_since = None, now
                out.dirty = True
                if self.in_game and not seat.stand_in:
                    seat.stand_in = True
                    self._publish(out, [s.StandIn(seat=viewer.seat, active=True,
                                                  reason="disconnected")], now)
                    return out
        self._presence(out)
        return out

    # ------------------------------------------------------------------ requests
    def handle(self, conn: str, message: c.ClientMessage, now: float) -> Outcome:
        """Carry out one table request from ``conn``; raises ``Refused`` with nothing changed."""
        viewer = self.viewers.get(conn)
        if viewer is None:
            raise Refused(ErrorCode.NOT_AT_TABLE, "join or watch a table first")
        handler = getattr(self, "_on_" + message.type, None)
        if handler is None:
            raise Refused(ErrorCode.WRONG_PHASE, f"{message.type!r} is not a table request")
        out = Outcome()
        handler(out, viewer, message, now)
        return out

    def _on_leave(self, out: Outcome, viewer: Viewer, msg: c.Leave, now: float) -> None:
        out.to(viewer.conn, s.Ack(rid=msg.rid))
        self.viewers.pop(viewer.conn, None)
        out.detached.append(viewer.conn)
        if viewer.seat is None:
            self._presence(out)
            return
        seat = self.seats[viewer.seat]
        if self.in_game:
            seat.conn, seat.away_since, seat.open = None, now, True
            seat.stand_in = True
            self._publish(out, [s.StandIn(seat=viewer.seat, active=True, reason="left")], now)
        else:
            seat.clear()
            self._publish(out, [s.SeatFreed(seat=viewer.seat, reason="left")], now)

    def _on_sit(self, out: Outcome, viewer: Viewer, msg: c.Sit, now: float) -> None:
        self._require_lobby("sit")
        if not viewer.can_sit:
            raise Refused(ErrorCode.FORBIDDEN, "the watch link cannot take a seat")
        if not is_free(self.seats[self._seat_index(msg.seat)], False):
            raise Refused(ErrorCode.SEAT_TAKEN, f"seat {msg.seat} is taken")
        if viewer.seat is None:
            self._check_unlocked(viewer)
            self._sit(out, viewer, msg.seat, msg.rid, now)
            return
        self._move(out, viewer.seat, msg.seat, msg.rid, viewer, now)

    def _on_stand(self, out: Outcome, viewer: Viewer, msg: c.Stand, now: float) -> None:
        self._require_lobby("stand")
        index = self._require_seated(viewer)
        self.seats[index].clear()
        viewer.seat = None
        out.to(viewer.conn, s.Ack(rid=msg.rid))
        self._publish(out, [s.SeatFreed(seat=index, reason="stood")], now)

    def _on_swap(self, out: Outcome, viewer: Viewer, msg: c.Swap, now: float) -> None:
        self._require_lobby("swap")
        a, b = self._seat_index(msg.seat), self._seat_index(msg.other)
        if not viewer.host:
            mine = self._require_seated(viewer)
            other = b if a == mine else a if b == mine else None
            if other is None or self.seats[other].occupant == "person":
                raise Refused(ErrorCode.FORBIDDEN,
                              "only the host swaps people; you may swap with an empty or bot seat")
        if a == b:
            raise Refused(ErrorCode.INVALID_MESSAGE, "a swap needs two different seats")
        self.seats[a], self.seats[b] = self.seats[b], self.seats[a]
        for other_viewer in self.viewers.values():
            if other_viewer.seat in (a, b):
                other_viewer.seat = b if other_viewer.seat == a else a
        out.to(viewer.conn, s.Ack(rid=msg.rid))
        self._publish(out, [s.SeatsSwapped(seat=a, other=b)], now)

    def _on_add_bot(self, out: Outcome, viewer: Viewer, msg: c.AddBot, now: float) -> None:
        self._require_host(viewer, "add a bot")
        self._require_lobby("add a bot")
        index = msg.seat if msg.seat is not None else first_free(self.seats, False)
        if index is None:
            raise Refused(ErrorCode.NO_FREE_SEAT, "every seat is taken")
        if self.seats[self._seat_index(index)].occupant != "empty":
            raise Refused(ErrorCode.SEAT_TAKEN, f"seat {index} is taken")
        name = f"Bot {msg.level}"
        self.seats[index].seat_bot(msg.level, name)
        out.to(viewer.conn, s.Ack(rid=msg.rid))
        self._publish(out, [s.SeatTaken(seat=index, name=name, bot_level=msg.level)], now)

    def _on_remove_bot(self, out: Outcome, viewer: Viewer, msg: c.RemoveBot, now: float) -> None:
        self._require_host(viewer, "remove a bot")
        self._require_lobby("remove a bot")
        if self.seats[self._seat_index(msg.seat)].occupant != "bot":
            raise Refused(ErrorCode.INVALID_MESSAGE, f"seat {msg.seat} holds no bot")
        self.seats[msg.seat].clear()
        out.to(viewer.conn, s.Ack(rid=msg.rid))
        self._publish(out, [s.SeatFreed(seat=msg.seat, reason="removed")], now)

    def _on_kick(self, out: Outcome, viewer: Viewer, msg: c.Kick, now: float) -> None:
        self._require_host(viewer, "kick")
        seat = self.seats[self._seat_index(msg.seat)]
        if seat.occupant != "person":
            raise Refused(ErrorCode.INVALID_MESSAGE, f"seat {msg.seat} holds no person")
        if seat.conn is not None:
            kicked = self.viewers.pop(seat.conn, None)
            if kicked is not None:
                out.to(kicked.conn, s.Goodbye(reason="the host removed you from the table"))
                out.detached.append(kicked.conn)
        out.to(viewer.conn, s.Ack(rid=msg.rid))
        if self.in_game:
            seat.token, seat.conn, seat.open, seat.stand_in = None, None, True, True
            seat.away_since = now
            self._publish(out, [s.StandIn(seat=msg.seat, active=True, reason="kicked")], now)
        else:
            seat.clear()
            self._publish(out, [s.SeatFreed(seat=msg.seat, reason="kicked")], now)

    def _on_lock(self, out: Outcome, viewer: Viewer, msg: c.Lock, now: float) -> None:
        self._require_host(viewer, "lock the table")
        self.locked = msg.locked
        out.to(viewer.conn, s.Ack(rid=msg.rid))
        self._publish(out, [s.LockChanged(locked=msg.locked)], now)

    def _on_set_options(self, out: Outcome, viewer: Viewer, msg: c.SetOptions,
                        now: float) -> None:
        self._require_host(viewer, "change the options")
        self._require_lobby("change the options")
        self.options = _checked_options(self.profile, msg.options)
        if msg.turn_timer is not None:
            self.turn_timer = msg.turn_timer
        out.to(viewer.conn, s.Ack(rid=msg.rid))
        self._publish(out, [s.OptionsChanged(profile=self.profile, options=self.options,
                                             turn_timer=self.turn_timer)], now)  # type: ignore[arg-type]

    def _on_start(self, out: Outcome, viewer: Viewer, msg: c.Start, now: float) -> None:
        self._require_host(viewer, "start the game")
        self._require_lobby("start")
        out.to(viewer.conn, s.Ack(rid=msg.rid))
        self._start_game(out, now)

    def _on_rematch(self, out: Outcome, viewer: Viewer, msg: c.Rematch, now: float) -> None:
        index = self._require_seated(viewer)
        if self.stage != "finished":
            raise Refused(ErrorCode.WRONG_PHASE, "a rematch follows a finished game")
        self.rematch.add(index)
        out.to(viewer.conn, s.Ack(rid=msg.rid))
        self._publish(out, [s.RematchAsked(seat=index)], now)
        waiting = [i for i, seat in enumerate(self.seats)
                   if seat.occupant == "person" and seat.conn is not None and i not in self.rematch]
        if not waiting and all(seat.occupant != "empty" for seat in self.seats):
            self._start_game(out, now)

    def _on_misdeal(self, out: Outcome, viewer: Viewer, msg: c.RuleMisdeal, now: float) -> None:
        self._require_host(viewer, "rule a misdeal")
        if viewer.seat is not None:
            raise Refused(ErrorCode.FORBIDDEN, "R5: only a non-playing host referees a misdeal")
        game = self._require_game()
        if Misdeal() not in game.system_actions():
            raise Refused(ErrorCode.ILLEGAL_ACTION,
                          "R5: a misdeal is ruled after a packet is dealt, before its first card")
        out.to(viewer.conn, s.Ack(rid=msg.rid))
        self._apply(out, Misdeal(), now)

    def _on_get_record(self, out: Outcome, viewer: Viewer, msg: c.GetRecord, now: float) -> None:
        if viewer.seat is None and not viewer.host:
            raise Refused(ErrorCode.FORBIDDEN, "the record is for the players and the host")
        if self.finished_record is None:
            raise Refused(ErrorCode.RECORD_UNAVAILABLE, "R15: no game has finished at this table")
        out.to(viewer.conn, s.RecordMessage(rid=msg.rid, game=self.game_no,
                                            record=self.finished_record))

    def _on_chat(self, out: Outcome, viewer: Viewer, msg: c.Chat, now: float) -> None:
        if not viewer.chat.allow(now):
            raise Refused(ErrorCode.RATE_LIMITED, "chat: too many lines, wait a moment")
        channel: Literal["players", "spectators"] = (
            "players" if viewer.seat is not None else "spectators"
        )
        line = s.ChatLine(channel=channel, name=viewer.name, seat=viewer.seat, text=msg.text)
        out.to(viewer.conn, s.Ack(rid=msg.rid))
        for other in self.viewers.values():
            if channel == "players" or other.seat is None:
                out.to(other.conn, line)

    def _on_play(self, out: Outcome, viewer: Viewer, msg: c.GameAction, now: float) -> None:
        index = self._require_seated(viewer)
        game = self._require_game()
        if msg.at is not None and msg.at < self.game_event:
            raise Refused(ErrorCode.STALE,
                          f"the game moved on at event {self.game_event}; you saw {msg.at}")
        if index not in game.to_act():
            raise Refused(ErrorCode.NOT_YOUR_TURN, f"seat {index} has no decision now")
        try:
            action = action_from_wire(msg, index)
            events = game.apply(action)
        except EngineError as exc:
            raise Refused(ErrorCode.ILLEGAL_ACTION, str(exc)) from None
        out.to(viewer.conn, s.Ack(rid=msg.rid))
        self._after_game_events(out, events, now)

    _on_take_missed = _on_play
    _on_announce = _on_play
    _on_claim = _on_play

    # ------------------------------------------------------------------ bots and clocks
    def due_bots(self, now: float) -> list[BotRequest]:
        """Bot decisions due now, each asked once per table state."""
        requests = []
        self._issued = {asked for asked in self._issued if asked[1] == self.last_event}
        for seat, due, level in self._bot_schedule():
            if due <= now and (seat, self.last_event) not in self._issued:
                self._issued.add((seat, self.last_event))
                game = self.game
                assert game is not None
                requests.append(BotRequest(
                    table=self.table_id, seat=seat, level=level, view=view_of(game, seat),
                    legal=game.legal_actions(seat), at=self.last_event, seed=self.seeds(),
                ))
        return requests

    def bot_act(self, request: BotRequest, action: Action | None, now: float) -> Outcome:
        """Apply a bot's answer if the table is still where the bot saw it."""
        out = Outcome()
        game = self.game
        if game is None or request.at != self.last_event or not self.in_game:
            return out  # stale: the next due_bots asks again
        if action is None:  # the bot declines an optional action (a claim, missed cards)
            if game.phase is Phase.CLAIMS:
                self.claims_done.add(request.seat)
                out.dirty = True
                self._maybe_close_claims(out, now)
            return out
        try:
            events = game.apply(action)
        except IllegalAction:
            events = game.apply(request.legal[0])
        self._after_game_events(out, events, now)
        return out

    def tick(self, now: float) -> Outcome:
        """Run the clocks: close an expired claim window, end expired graces."""
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
        return out

    def next_wakeup(self) -> float | None:
        """The earliest time ``tick`` or ``due_bots`` has something to do."""
        times = [due for seat, due, _ in self._bot_schedule()
                 if (seat, self.last_event) not in self._issued]
        if self.claims_deadline is not None:
            times.append(self.claims_deadline)
        times += [seat.away_since + self.config.grace_s for seat in self.seats
                  if seat.occupant == "person" and seat.away_since is not None and not seat.open]
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
                    schedule.append((index, self.decision_since + limit,
                                     self.config.stand_in_level))
        return schedule

    def _person_limit(self, game: Game) -> float:
        if game.phase is Phase.ANNOUNCE:
            return self.turn_timer or self.config.claim_window_s
        return float(self.turn_timer)

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
        self._publish(out, [s.GameStarted(game=self.game_no, names=names),
                            *self.game.start_events], now)
        self._maybe_close_claims(out, now)

    def _apply(self, out: Outcome, action: Action, now: float) -> None:
        game = self._require_game()
        self._after_game_events(out, game.apply(action), now)

    def _after_game_events(self, out: Outcome, events: tuple[EngineEvent, ...],
                           now: float) -> None:
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

    # ------------------------------------------------------------------ publishing
    def _publish(self, out: Outcome, events: list[Any], now: float) -> None:
        """Number ``events``, log them, and send every viewer its events plus a snapshot."""
        out.dirty = True
        first = self.last_event + 1
        for event in events:
            if not isinstance(event, WireModel):
                self.game_event = self.last_event + 1  # a game change: older actions are stale
            entry = self._entry(event)
            self.log.append(entry)
            out.entries.append(json.dumps(entry, separators=(",", ":")).encode())
        shared: dict[object, Any] = {}
        for viewer in self.viewers.values():
            for n in range(first, self.last_event + 1):
                out.to(viewer.conn, self._event_for(n, viewer))
            out.to(viewer.conn, self.snapshot(viewer, shared))

    def _entry(self, event: Any) -> dict[str, Any]:
        """A log entry: one public form, or one form per seat plus the spectators' (``v``)."""
        if isinstance(event, WireModel):
            return {"a": event.model_dump(mode="json")}
        forms = [redact(event, seat).to_json() for seat in range(len(self.seats))]
        forms.append(redact(event, None).to_json())
        if all(form == forms[0] for form in forms):
            return {"a": forms[0]}
        return {"v": forms}

    def _event_for(self, n: int, viewer: Viewer) -> s.Event:
        entry = self.log[n - 1]
        form = entry["a"] if "a" in entry else entry["v"][
            viewer.seat if viewer.seat is not None else -1
        ]
        return s.Event.model_construct(type="event", n=n, event=form)

    def _snapshot_to(self, out: Outcome, viewer: Viewer) -> None:
        out.to(viewer.conn, self.snapshot(viewer))

    def snapshot(self, viewer: Viewer, shared: dict[object, Any] | None = None) -> s.Snapshot:
        """``viewer``'s snapshot; ``shared`` caches what viewers of one publish have in common
        (the table info, the deadlines, each seat's and the spectators' view)."""
        shared = {} if shared is None else shared
        game = self.game
        view = legal = None
        if game is not None:
            key = ("view", viewer.seat)
            if key not in shared:
                shared[key] = view_to_wire(view_of(game, viewer.seat), self.options)
            view = shared[key]
            if viewer.seat is not None and viewer.seat in game.to_act() and self.in_game:
                legal = [action_to_wire(a) for a in game.legal_actions(viewer.seat)]
        if "info" not in shared:
            shared["info"], shared["deadlines"] = self.info(), self.deadlines()
        return s.Snapshot(
            last_event=self.last_event,
            you=s.You(role="player" if viewer.seat is not None else "spectator",
                      seat=viewer.seat, host=viewer.host, name=viewer.name),
            info=shared["info"],
            view=view,
            legal=legal or [],
            deadlines=shared["deadlines"],
        )

    def info(self) -> s.TableInfo:
        return s.TableInfo(
            table=self.table_id, profile=self.profile, options=self.options,
            turn_timer=self.turn_timer,  # type: ignore[arg-type]
            locked=self.locked, stage=self.stage,  # type: ignore[arg-type]
            game=self.game_no, seats=self.seat_infos(), spectators=self.spectators,
            rematch_asked=sorted(self.rematch),
        )

    def seat_infos(self) -> list[s.SeatInfo]:
        return [
            s.SeatInfo(seat=i, occupant=seat.occupant, name=seat.name, bot_level=seat.bot_level,
                       connected=seat.connected, stand_in=seat.stand_in)
            for i, seat in enumerate(self.seats)
        ]

    @property
    def spectators(self) -> int:
        return sum(1 for viewer in self.viewers.values() if viewer.seat is None)

    def deadlines(self) -> list[s.Deadline]:
        """Public deadlines: people's decisions, the claim window, absent people's grace."""
        now_ref = self.decision_since
        out: list[s.Deadline] = []
        game = self.game
        if game is not None and self.in_game and game.phase in (Phase.PLAY, Phase.ANNOUNCE):
            turn = game.turn
            if turn is not None and not self.seats[turn].is_bot_controlled:
                limit = self._person_limit(game)
                if limit:
                    kind: Literal["turn", "announce"] = (
                        "announce" if game.phase is Phase.ANNOUNCE else "turn"
                    )
                    out.append(s.Deadline(kind=kind, seat=turn, at=now_ref + limit,
                                          remaining_ms=int(limit * 1000)))
        if self.claims_deadline is not None:
            out.append(s.Deadline(kind="claims", seat=None, at=self.claims_deadline,
                                  remaining_ms=int(self.config.claim_window_s * 1000)))
        for index, seat in enumerate(self.seats):
            if seat.occupant == "person" and seat.away_since is not None and not seat.open:
                at = seat.away_since + self.config.grace_s
                out.append(s.Deadline(kind="grace", seat=index, at=at,
                                      remaining_ms=int(self.config.grace_s * 1000)))
        return out

    def _presence(self, out: Outcome) -> None:
        message = s.Presence(seats=self.seat_infos(), spectators=self.spectators)
        for viewer in self.viewers.values():
            out.to(viewer.conn, message)

    # ------------------------------------------------------------------ records
    def record_for(self, credential: str) -> dict[str, Any] | None:
        """The finished game's R15 record for a current seat token or the host key."""
        allowed = keys.same_secret(credential, self.keys.get("host")) or any(
            keys.same_secret(credential, seat.token) for seat in self.seats
        )
        return self.finished_record if allowed else None

    # ------------------------------------------------------------------ seating helpers
    def _seat_for_newcomer(self, wanted: int | None, viewer: Viewer) -> int:
        self._check_unlocked(viewer)
        if wanted is not None:
            if not is_free(self.seats[self._seat_index(wanted)], self.in_game):
                raise Refused(ErrorCode.SEAT_TAKEN, f"seat {wanted} is taken")
            return wanted
        index = first_free(self.seats, self.in_game)
        if index is None:
            raise Refused(ErrorCode.NO_FREE_SEAT, "every seat is taken: watch instead")
        return index

    def _check_unlocked(self, viewer: Viewer) -> None:
        if self.locked and not viewer.host:
            raise Refused(ErrorCode.TABLE_LOCKED, "the host has locked this table")

    def _sit(self, out: Outcome, viewer: Viewer, index: int, rid: int, now: float) -> None:
        seat = self.seats[index]
        token = keys.new_seat_token(self.table_id)
        seat.seat_person(viewer.name, token, viewer.conn, host=viewer.host)
        viewer.seat = index
        out.to(viewer.conn, s.Seated(rid=rid, table=self.table_id, seat=index, token=token))
        self._publish(out, [s.SeatTaken(seat=index, name=viewer.name)], now)

    def _move(self, out: Outcome, old: int, new: int, rid: int, viewer: Viewer,
              now: float) -> None:
        self.seats[old], self.seats[new] = self.seats[new], self.seats[old]
        viewer.seat = new
        out.to(viewer.conn, s.Ack(rid=rid))
        self._publish(out, [s.SeatsSwapped(seat=old, other=new)], now)

    def _seat_index(self, index: int) -> int:
        if not 0 <= index < len(self.seats):
            raise Refused(ErrorCode.INVALID_MESSAGE,
                          f"R1/R14: this table has seats 0-{len(self.seats) - 1}")
        return index

    def _require_lobby(self, what: str) -> None:
        if self.in_game:
            raise Refused(ErrorCode.WRONG_PHASE, f"cannot {what} while a game is being played")

    def _require_host(self, viewer: Viewer, what: str) -> None:
        if not viewer.host:
            raise Refused(ErrorCode.FORBIDDEN, f"only the host may {what}")

    def _require_seated(self, viewer: Viewer) -> int:
        if viewer.seat is None:
            raise Refused(ErrorCode.NOT_SEATED, "spectators cannot do that: take a seat")
        return viewer.seat

    def _require_game(self) -> Game:
        if self.game is None or not self.in_game:
            raise Refused(ErrorCode.WRONG_PHASE, "no game is being played")
        return self.game


def _checked_options(profile: str, options: dict[str, Any]) -> dict[str, Any]:
    try:
        return check_options(profile, options)
    except EngineError as exc:
        raise Refused(ErrorCode.BAD_OPTIONS, str(exc)) from None
