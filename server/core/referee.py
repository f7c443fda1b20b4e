"""The sans-I/O room core: one table's referee.

A command (``server.core.commands``) and the current time go in (``Referee.apply``); an
``Outcome`` comes out: numbered log entries to store, per-connection messages, the record to
keep and the next wake-up time. No asyncio, no clock, no sockets: the shell (``server.room``)
feeds it and the tests drive it directly. The shell commits ``Outcome.entries`` and the new
state to the store *before* it sends ``Outcome.messages`` (invariant 3). A refused command
raises ``Refused`` having changed nothing.

The referee changes the table (``server.core.table``, plain data) and leaves the rest to one
module each: ``clocks`` (every deadline), ``publishing`` (what viewers are sent, the log entry
format), ``storage`` (the stored form), ``outcome`` (what a command caused).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Literal, Self, assert_never

from engine.actions import Action, CloseClaims, Misdeal
from engine.cards import parse_card
from engine.errors import EngineError, IllegalAction
from engine.events import ClaimsClosed, ClaimsOpened, GameOver
from engine.events import Event as EngineEvent
from engine.game import Game
from engine.phase import Phase
from engine.rules import check_options
from engine.views import view_of
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.base import TurnTimer
from protocol.convert import action_from_wire
from protocol.errors import ErrorCode
from server import keys
from server.core import chica, clocks, storage
from server.core.claim_window import claim_window_done
from server.core.commands import (
    Attach,
    BotAnswer,
    Command,
    DealChica,
    Detach,
    Reattach,
    Request,
    Resume,
    Tick,
    Ticket,
)
from server.core.outcome import BotRequest, Outcome
from server.core.publishing import Publisher
from server.core.seating import SeatState, TokenBucket, Viewer, first_free, is_free
from server.core.table import RefereeConfig, Table
from server.errors import Refused
from server.store.base import KeptRecord, KeyRole, credential_digest

__all__ = ["BotRequest", "Outcome", "Referee", "RefereeConfig"]


class Referee:
    """One table's referee: every command, checked before anything changes."""

    __slots__ = ("_kept_game", "_text", "publisher", "table")

    def __init__(self, table: Table) -> None:
        self.table = table
        self.publisher = Publisher(table)
        self._text = storage.StateText()  # the stored actions' and record's JSON, kept
        self._kept_game = 0  # the last game whose record an outcome carried to keep

    # ------------------------------------------------------------------ creation and storage
    @classmethod
    def create(
        cls,
        profile: str,
        options: dict[str, Any],
        turn_timer: TurnTimer,
        config: RefereeConfig,
        seeds: Callable[[], int] | None = None,
        club: str | None = None,
    ) -> Self:
        """A new table with fresh keys; bad options are refused naming the rule (R13, R14)."""
        checked = checked_options(profile, options)
        table_keys: dict[KeyRole, str] = {
            "join": keys.new_key(),
            "watch": keys.new_key(),
            "host": keys.new_key(),
        }
        if club:
            table_keys["club"] = club
        table = Table(keys.new_table_id(), table_keys, profile, checked, turn_timer, config)
        if seeds is not None:
            table.seeds = seeds
        return cls(table)

    def to_state(self) -> bytes:
        """Everything needed to rebuild the table (with its log), as JSON bytes."""
        return storage.to_state(self.table, self._text)

    @classmethod
    def from_state(
        cls,
        data: bytes,
        log: list[bytes],
        config: RefereeConfig,
        now: float,
        seeds: Callable[[], int] | None = None,
    ) -> Self:
        """Rebuild a table from its stored state and log; every person starts away at ``now``."""
        return cls(storage.from_state(data, log, config, now, seeds))

    # ------------------------------------------------------------------ what others read
    @property
    def table_id(self) -> str:
        return self.table.table_id

    @property
    def keys(self) -> dict[KeyRole, str]:
        return self.table.keys

    @property
    def config(self) -> RefereeConfig:
        return self.table.config

    @property
    def seeds(self) -> Callable[[], int]:
        return self.table.seeds

    @property
    def options(self) -> dict[str, Any]:
        return self.table.options

    @property
    def seats(self) -> list[SeatState]:
        return self.table.seats

    @property
    def viewers(self) -> dict[str, Viewer]:
        return self.table.viewers

    @property
    def game(self) -> Game | None:
        return self.table.game

    @property
    def stage(self) -> str:
        return self.table.stage

    @property
    def game_no(self) -> int:
        return self.table.game_no

    @property
    def profile(self) -> str:
        return self.table.profile

    @property
    def public(self) -> bool:
        return self.table.public

    @property
    def spectators(self) -> int:
        return self.publisher.spectators

    @property
    def solo(self) -> bool:
        return self.table.solo

    @property
    def in_game(self) -> bool:
        return self.table.in_game

    @property
    def decision_since(self) -> float:
        return self.table.decision_since

    @property
    def claims_deadline(self) -> float | None:
        return self.table.claims_deadline

    @property
    def finished_record(self) -> dict[str, Any] | None:
        return self.table.finished_record

    @property
    def log(self) -> list[bytes]:
        return self.table.log

    @property
    def last_event(self) -> int:
        return self.table.last_event

    @property
    def forms(self) -> list[bytes | tuple[bytes, ...]]:
        return self.publisher.forms

    def snapshot(self, viewer: Viewer) -> s.Snapshot:
        """``viewer``'s snapshot as a model (the frames carry the same, encoded)."""
        return self.publisher.snapshot(viewer)

    def info(self) -> s.TableInfo:
        return self.publisher.info()

    def deadlines(self, now: float | None = None) -> list[s.Deadline]:
        return self.publisher.deadlines(now)

    def record_for(self, credential: str) -> dict[str, Any] | None:
        """The finished game's R15 record for a current seat token or the host key."""
        table = self.table
        allowed = keys.same_secret(credential, table.keys.get("host")) or any(
            keys.same_secret(credential, seat.token) for seat in table.seats
        )
        return table.finished_record if allowed else None

    # ------------------------------------------------------------------ commands
    def apply(self, command: Command, now: float) -> Outcome:
        """Carry out one command at time ``now``; raises ``Refused`` with nothing changed."""
        match command:
            case Attach(conn, name, request, role, last_event):
                out = self.attach(conn, name, request, role, now, last_event)
            case Resume(conn, name, token, last_event, rid):
                out = self.resume(conn, name, token, last_event, rid, now)
            case Detach(conn):
                out = self.detach(conn, now)
            case Request(conn, message):
                out = self.handle(conn, message, now)
            case Tick():
                out = self.tick(now)
            case BotAnswer(seat, at, action):
                out = self.bot_answer(seat, at, action, now)
            case Reattach(tickets):
                out = self.reattach(tickets, now)
            case DealChica(name, level):
                host, steps = chica.layout(self.table, name, level)
                out = Outcome()
                for step in steps:
                    out.merge(self.apply(step, now))
                chica.reserve(self.table, host, out)
            case _:
                assert_never(command)
        if out.dirty and out.record is None:
            out.record = self._record_to_keep()
        out.wakeup = self.next_wakeup()
        return out

    def _record_to_keep(self) -> KeptRecord | None:
        """The record of the game that just ended (R15), once per game, else None.

        Outside a game the finished record is the one of game ``game_no``; the readers are the
        host key and the seat tokens at the end, as for the live table's record.
        """
        table = self.table
        if table.finished_record is None or table.in_game or table.game_no == self._kept_game:
            return None
        self._kept_game = table.game_no
        credentials = [table.keys.get("host"), *(seat.token for seat in table.seats)]
        return KeptRecord(
            table.game_no,
            json.dumps(table.finished_record, separators=(",", ":")).encode(),
            tuple(credential_digest(credential) for credential in credentials if credential),
        )

    # ------------------------------------------------------------------ clocks
    def due_bots(self, now: float) -> list[BotRequest]:
        """Bot decisions due now (``clocks.deciding``), each asked once per table state."""
        table = self.table
        requests = []
        table.asked = {asked for asked in table.asked if asked[1] == table.last_event}
        for clock in clocks.deciding(clocks.due(table)):
            seat, level = clock.seat, clock.level
            assert seat is not None
            assert level is not None
            if clock.at <= now and (seat, table.last_event) not in table.asked:
                table.asked.add((seat, table.last_event))
                game = table.game
                assert game is not None
                requests.append(
                    BotRequest(
                        table=table.table_id,
                        seat=seat,
                        level=level,
                        view=view_of(game, seat),
                        legal=game.legal_actions(seat, by_rank=True),  # R2, R7: bounded
                        at=table.last_event,
                        seed=table.seeds(),
                    )
                )
        return requests

    def tick(self, now: float) -> Outcome:
        """Run the clocks that passed: close an expired claim window, end expired graces."""
        table = self.table
        table.last_input = max(table.last_input, now)
        out = Outcome()
        game = table.game
        passed = [clock for clock in clocks.due(table) if clock.at <= now]
        if any(clock.kind == "claims" for clock in passed) and game and game.phase is Phase.CLAIMS:
            self._apply(out, CloseClaims(), now)
        events: list[Any] = []
        for clock in clocks.due(table):
            if clock.kind != "grace" or clock.at > now:
                continue
            assert clock.seat is not None
            seat = table.seats[clock.seat]
            if table.in_game:
                seat.open = True
                out.dirty = True
            else:
                seat.clear()
                events.append(s.SeatFreed(seat=clock.seat, reason="grace_expired"))
        if events:
            self.publisher.publish(out, events, now)
        return self.publisher.finish(out)

    def next_wakeup(self) -> float | None:
        """The earliest time ``tick`` or ``due_bots`` has something to do."""
        return clocks.next_wakeup(self.table)

    # ------------------------------------------------------------------ connections
    def attach(
        self,
        conn: str,
        name: str,
        request: c.Join | c.Watch,
        role: KeyRole,
        now: float,
        last_event: int | None = None,
    ) -> Outcome:
        """A connection joins (takes a seat) or watches through a link key of ``role``.

        A watch with ``last_event`` (a spectator put back after a rebuild or a takeover) is
        sent the events after it first, like a seat's resume, so its numbering goes on.
        """
        table = self.table
        table.last_input = max(table.last_input, now)
        out = Outcome()
        viewer = table.viewers.get(conn)
        if viewer is None:
            viewer = Viewer(
                conn, name, TokenBucket(table.config.chat_per_min / 60, table.config.chat_burst)
            )
        viewer.host = viewer.host or role == "host"
        viewer.can_sit = viewer.can_sit or role in ("join", "host", "club")
        if isinstance(request, c.Watch):
            table.viewers[conn] = viewer
            if last_event is None:
                out.ack(conn, request.rid)
            else:  # the answer first, then what was missed, then the state: like a resume
                out.to(conn, s.Ack(rid=request.rid))
                for n in range(last_event + 1, table.last_event + 1):
                    out.to(conn, self.publisher.event_for(n, viewer))
            self.publisher.snapshot_to(out, viewer)
            self.publisher.presence(out)
            return self.publisher.finish(out)
        if not viewer.can_sit:
            raise Refused(ErrorCode.FORBIDDEN, "the watch link cannot take a seat")
        if viewer.seat is not None:
            raise Refused(ErrorCode.SEAT_TAKEN, f"you already sit in seat {viewer.seat}")
        seat = self._seat_for_newcomer(request.seat, viewer)
        if conn not in table.viewers:  # a newcomer's baseline: the state, then every event
            table.viewers[conn] = viewer
            self.publisher.snapshot_to(out, viewer)
        self._sit(out, viewer, seat, request.rid, now)
        return self.publisher.finish(out)

    def resume(
        self, conn: str, name: str, token: str, last_event: int | None, rid: int, now: float
    ) -> Outcome:
        """Take a seat back with its token: its events after ``last_event``, then a snapshot."""
        table = self.table
        table.last_input = max(table.last_input, now)
        index = next(
            (i for i, seat in enumerate(table.seats) if keys.same_secret(token, seat.token)), None
        )
        if index is None:
            raise Refused(ErrorCode.BAD_TOKEN, "this seat token does not hold a seat here")
        out = Outcome()
        seat = table.seats[index]
        if seat.conn is not None and seat.conn != conn:
            old = table.viewers.pop(seat.conn, None)
            if old is not None:
                out.to(old.conn, s.Goodbye(reason="the seat was taken back by a new connection"))
                out.detached.append(old.conn)
        viewer = table.viewers.get(conn) or Viewer(
            conn,
            seat.name or name,
            TokenBucket(table.config.chat_per_min / 60, table.config.chat_burst),
        )
        viewer.seat, viewer.can_sit = index, True
        viewer.host = viewer.host or seat.host
        table.viewers[conn] = viewer
        # a stand-in the rebuild assumed (``restored``) was never announced: nor is its leaving
        was_standing_in = seat.stand_in and not seat.restored
        seat.conn, seat.away_since, seat.stand_in, seat.open = conn, None, False, False
        seat.restored = False
        out.dirty = True
        out.to(conn, s.Seated(rid=rid, table=table.table_id, seat=index, token=token))
        if last_event is not None:
            for n in range(last_event + 1, table.last_event + 1):
                out.to(conn, self.publisher.event_for(n, viewer))
        if was_standing_in:  # everyone, the returning player too, sees the stand-in leave
            self.publisher.whole_next()  # the new connection may hold no snapshot
            self.publisher.publish(
                out, [s.StandIn(seat=index, active=False, reason="returned")], now
            )
        else:
            self.publisher.snapshot_to(out, viewer)
            self.publisher.presence(out)
        return self.publisher.finish(out)

    def detach(self, conn: str, now: float) -> Outcome:
        """The connection went away: its seat stays for the grace period (invariant 5)."""
        table = self.table
        table.last_input = max(table.last_input, now)
        out = Outcome()
        viewer = table.viewers.pop(conn, None)
        if viewer is None:
            return out
        if viewer.seat is not None:
            seat = table.seats[viewer.seat]
            if seat.conn == conn:
                seat.conn, seat.away_since = None, now
                out.dirty = True
                if table.in_game and not seat.stand_in and not table.solo:
                    seat.stand_in = True
                    self.publisher.publish(
                        out, [s.StandIn(seat=viewer.seat, active=True, reason="disconnected")], now
                    )
                    return self.publisher.finish(out)
        self.publisher.presence(out)
        return out

    # ------------------------------------------------------------------ requests
    def handle(self, conn: str, message: c.ClientMessage, now: float) -> Outcome:
        """Carry out one table request from ``conn``; raises ``Refused`` with nothing changed."""
        table = self.table
        table.last_input = max(table.last_input, now)
        viewer = table.viewers.get(conn)
        if viewer is None:
            raise Refused(ErrorCode.NOT_AT_TABLE, "join or watch a table first")
        out = Outcome()
        match message:
            case c.Leave():
                self._on_leave(out, viewer, message, now)
            case c.Sit():
                self._on_sit(out, viewer, message, now)
            case c.Stand():
                self._on_stand(out, viewer, message, now)
            case c.Swap():
                self._on_swap(out, viewer, message, now)
            case c.AddBot():
                self._on_add_bot(out, viewer, message, now)
            case c.RemoveBot():
                self._on_remove_bot(out, viewer, message, now)
            case c.Kick():
                self._on_kick(out, viewer, message, now)
            case c.Lock():
                self._on_lock(out, viewer, message, now)
            case c.SetOptions():
                self._on_set_options(out, viewer, message, now)
            case c.Start():
                self._on_start(out, viewer, message, now)
            case c.Rematch():
                self._on_rematch(out, viewer, message, now)
            case c.RuleMisdeal():
                self._on_misdeal(out, viewer, message, now)
            case c.GetRecord():
                self._on_get_record(out, viewer, message, now)
            case c.Chat():
                self._on_chat(out, viewer, message, now)
            case c.NoClaim():
                self._on_no_claim(out, viewer, message, now)
            case c.Play() | c.TakeMissed() | c.Announce() | c.Claim():
                self._on_play(out, viewer, message, now)
            case _:  # hello, ping, create, join, watch: the connection's, not the table's
                raise Refused(ErrorCode.WRONG_PHASE, f"{message.type!r} is not a table request")
        return self.publisher.finish(out)

    def _on_leave(self, out: Outcome, viewer: Viewer, msg: c.Leave, now: float) -> None:
        table = self.table
        out.ack(viewer.conn, msg.rid)
        table.viewers.pop(viewer.conn, None)
        out.detached.append(viewer.conn)
        if viewer.seat is None:
            self.publisher.presence(out)
            return
        seat = table.seats[viewer.seat]
        if table.in_game and table.solo:  # the solo game waits for its person to come back
            seat.conn, seat.away_since = None, now
            out.dirty = True
            self.publisher.presence(out)
        elif table.in_game:
            seat.conn, seat.away_since, seat.open = None, now, True
            seat.stand_in = True
            self.publisher.publish(
                out, [s.StandIn(seat=viewer.seat, active=True, reason="left")], now
            )
        else:
            seat.clear()
            self.publisher.publish(out, [s.SeatFreed(seat=viewer.seat, reason="left")], now)

    def _on_sit(self, out: Outcome, viewer: Viewer, msg: c.Sit, now: float) -> None:
        table = self.table
        self._require_lobby("sit")
        if not viewer.can_sit:
            raise Refused(ErrorCode.FORBIDDEN, "the watch link cannot take a seat")
        if not is_free(table.seats[self._seat_index(msg.seat)], False):
            raise Refused(ErrorCode.SEAT_TAKEN, f"seat {msg.seat} is taken")
        if viewer.seat is None:
            self._check_unlocked(viewer)
            self._sit(out, viewer, msg.seat, msg.rid, now)
            return
        self._move(out, viewer.seat, msg.seat, msg.rid, viewer, now)

    def _on_stand(self, out: Outcome, viewer: Viewer, msg: c.Stand, now: float) -> None:
        table = self.table
        self._require_lobby("stand")
        index = self._require_seated(viewer)
        table.seats[index].clear()
        viewer.seat = None
        out.ack(viewer.conn, msg.rid)
        self.publisher.publish(out, [s.SeatFreed(seat=index, reason="stood")], now)

    def _on_swap(self, out: Outcome, viewer: Viewer, msg: c.Swap, now: float) -> None:
        table = self.table
        self._require_lobby("swap")
        a, b = self._seat_index(msg.seat), self._seat_index(msg.other)
        if not viewer.host:
            mine = self._require_seated(viewer)
            other = b if a == mine else a if b == mine else None
            if other is None or table.seats[other].occupant == "person":
                raise Refused(
                    ErrorCode.FORBIDDEN,
                    "only the host swaps people; you may swap with an empty or bot seat",
                )
        if a == b:
            raise Refused(ErrorCode.INVALID_MESSAGE, "a swap needs two different seats")
        table.seats[a], table.seats[b] = table.seats[b], table.seats[a]
        for other_viewer in table.viewers.values():
            if other_viewer.seat in (a, b):
                other_viewer.seat = b if other_viewer.seat == a else a
        out.ack(viewer.conn, msg.rid)
        self.publisher.publish(out, [s.SeatsSwapped(seat=a, other=b)], now)

    def _on_add_bot(self, out: Outcome, viewer: Viewer, msg: c.AddBot, now: float) -> None:
        table = self.table
        self._require_host(viewer, "add a bot")
        self._require_lobby("add a bot")
        index = msg.seat if msg.seat is not None else first_free(table.seats, False)
        if index is None:
            raise Refused(ErrorCode.NO_FREE_SEAT, "every seat is taken")
        if table.seats[self._seat_index(index)].occupant != "empty":
            raise Refused(ErrorCode.SEAT_TAKEN, f"seat {index} is taken")
        name = f"Bot {msg.level}"
        table.seats[index].seat_bot(msg.level, name)
        out.ack(viewer.conn, msg.rid)
        self.publisher.publish(out, [s.SeatTaken(seat=index, name=name, bot_level=msg.level)], now)

    def _on_remove_bot(self, out: Outcome, viewer: Viewer, msg: c.RemoveBot, now: float) -> None:
        table = self.table
        self._require_host(viewer, "remove a bot")
        self._require_lobby("remove a bot")
        if table.seats[self._seat_index(msg.seat)].occupant != "bot":
            raise Refused(ErrorCode.INVALID_MESSAGE, f"seat {msg.seat} holds no bot")
        table.seats[msg.seat].clear()
        out.ack(viewer.conn, msg.rid)
        self.publisher.publish(out, [s.SeatFreed(seat=msg.seat, reason="removed")], now)

    def _on_kick(self, out: Outcome, viewer: Viewer, msg: c.Kick, now: float) -> None:
        table = self.table
        self._require_host(viewer, "kick")
        seat = table.seats[self._seat_index(msg.seat)]
        if seat.occupant != "person":
            raise Refused(ErrorCode.INVALID_MESSAGE, f"seat {msg.seat} holds no person")
        if seat.conn is not None:
            kicked = table.viewers.pop(seat.conn, None)
            if kicked is not None:
                out.to(kicked.conn, s.Goodbye(reason="the host removed you from the table"))
                out.detached.append(kicked.conn)
        out.ack(viewer.conn, msg.rid)
        if table.in_game:
            seat.token, seat.conn, seat.open, seat.stand_in = None, None, True, True
            seat.away_since = now
            self.publisher.publish(
                out, [s.StandIn(seat=msg.seat, active=True, reason="kicked")], now
            )
        else:
            seat.clear()
            self.publisher.publish(out, [s.SeatFreed(seat=msg.seat, reason="kicked")], now)

    def _on_lock(self, out: Outcome, viewer: Viewer, msg: c.Lock, now: float) -> None:
        table = self.table
        self._require_host(viewer, "lock the table")
        table.locked = msg.locked
        out.ack(viewer.conn, msg.rid)
        self.publisher.publish(out, [s.LockChanged(locked=msg.locked)], now)

    def _on_set_options(self, out: Outcome, viewer: Viewer, msg: c.SetOptions, now: float) -> None:
        table = self.table
        self._require_host(viewer, "change the options")
        self._require_lobby("change the options")
        table.options = checked_options(table.profile, msg.options)
        if msg.turn_timer is not None:
            table.turn_timer = msg.turn_timer
        out.ack(viewer.conn, msg.rid)
        self.publisher.publish(
            out,
            [
                s.OptionsChanged(
                    profile=table.profile, options=table.options, turn_timer=table.turn_timer
                )
            ],
            now,
        )

    def _on_start(self, out: Outcome, viewer: Viewer, msg: c.Start, now: float) -> None:
        self._require_host(viewer, "start the game")
        if not (self.table.in_game and self._may_start_afresh(viewer)):
            self._require_lobby("start")
        out.ack(viewer.conn, msg.rid)
        self._start_game(out, now)

    def _may_start_afresh(self, viewer: Viewer) -> bool:
        """R14 libre-2p: "N starts a new game", also mid-game, for a seated host facing only bots
        (nobody else's game is given up)."""
        table = self.table
        return (
            table.profile == "libre-2p"
            and viewer.seat is not None
            and all(
                seat.occupant == "bot" for i, seat in enumerate(table.seats) if i != viewer.seat
            )
        )

    def _on_rematch(self, out: Outcome, viewer: Viewer, msg: c.Rematch, now: float) -> None:
        table = self.table
        index = self._require_seated(viewer)
        if table.stage != "finished":
            raise Refused(ErrorCode.WRONG_PHASE, "a rematch follows a finished game")
        table.rematch.add(index)
        out.ack(viewer.conn, msg.rid)
        self.publisher.publish(out, [s.RematchAsked(seat=index)], now)
        waiting = [
            i
            for i, seat in enumerate(table.seats)
            if seat.occupant == "person" and seat.conn is not None and i not in table.rematch
        ]
        if not waiting and all(seat.occupant != "empty" for seat in table.seats):
            self._start_game(out, now)

    def _on_misdeal(self, out: Outcome, viewer: Viewer, msg: c.RuleMisdeal, now: float) -> None:
        self._require_host(viewer, "rule a misdeal")
        if viewer.seat is not None:
            raise Refused(ErrorCode.FORBIDDEN, "R5: only a non-playing host referees a misdeal")
        game = self._require_game()
        if Misdeal() not in game.system_actions():
            raise Refused(
                ErrorCode.ILLEGAL_ACTION,
                "R5: a misdeal is ruled after a packet is dealt, before its first card",
            )
        out.ack(viewer.conn, msg.rid)
        self._apply(out, Misdeal(), now)

    def _on_get_record(self, out: Outcome, viewer: Viewer, msg: c.GetRecord, now: float) -> None:
        table = self.table
        if viewer.seat is None and not viewer.host:
            raise Refused(ErrorCode.FORBIDDEN, "the record is for the players and the host")
        if table.finished_record is None:
            raise Refused(ErrorCode.RECORD_UNAVAILABLE, "R15: no game has finished at this table")
        out.to(
            viewer.conn,
            s.RecordMessage(rid=msg.rid, game=table.game_no, record=table.finished_record),
        )

    def _on_chat(self, out: Outcome, viewer: Viewer, msg: c.Chat, now: float) -> None:
        if not viewer.chat.allow(now):
            raise Refused(ErrorCode.RATE_LIMITED, "chat: too many lines, wait a moment")
        channel: Literal["players", "spectators"] = (
            "players" if viewer.seat is not None else "spectators"
        )
        line = s.ChatLine(channel=channel, name=viewer.name, seat=viewer.seat, text=msg.text)
        out.ack(viewer.conn, msg.rid)
        self.publisher.chat(out, line)

    def _on_play(self, out: Outcome, viewer: Viewer, msg: c.GameAction, now: float) -> None:
        table = self.table
        index = self._require_seated(viewer)
        game = self._require_game()
        if msg.at is not None and msg.at > table.last_event:
            raise Refused(
                ErrorCode.INVALID_MESSAGE,
                f"at {msg.at} is ahead of the table: its last event is {table.last_event}",
            )
        if msg.at is not None and msg.at < table.game_event:
            if self._already_made(index, msg):
                out.ack(viewer.conn, msg.rid)  # its events reached the mover (or its resume will)
                return
            raise Refused(
                ErrorCode.STALE, f"the game moved on at event {table.game_event}; you saw {msg.at}"
            )
        if index not in game.to_act():
            raise Refused(ErrorCode.NOT_YOUR_TURN, f"seat {index} has no decision now")
        try:
            action = action_from_wire(msg, index)
            events = game.apply(action)
        except EngineError as exc:
            raise Refused(ErrorCode.ILLEGAL_ACTION, str(exc)) from None
        out.ack(viewer.conn, msg.rid)
        self._after_game_events(out, events, now)

    def _on_no_claim(self, out: Outcome, viewer: Viewer, msg: c.NoClaim, now: float) -> None:
        """R10: this person has nothing (more) to claim; the window closes once nobody is left."""
        index = self._require_seated(viewer)
        game = self._require_game()
        if game.phase is not Phase.CLAIMS:
            raise Refused(ErrorCode.WRONG_PHASE, "R10: no claim window is open")
        out.ack(viewer.conn, msg.rid)
        self.table.claims_done.add(index)
        out.dirty = True
        self._maybe_close_claims(out, now)

    # ------------------------------------------------------------------ rebuilt tables
    def tickets(self, live: set[str], last_event: int | None = None) -> list[Ticket]:
        """Tickets of the viewers whose connections are in ``live``, to seat them again on a
        rebuilt referee (``Reattach``).

        ``last_event`` is what they have all been sent (the stored log's end, after a reload):
        each resume then also replays the events the resumes before it published.
        """
        table = self.table
        tickets = []
        for viewer in table.viewers.values():
            if viewer.conn not in live:
                continue
            role: KeyRole = "host" if viewer.host else "join" if viewer.can_sit else "watch"
            token = table.seats[viewer.seat].token if viewer.seat is not None else None
            tickets.append(
                Ticket(viewer.conn, viewer.name, table.keys.get(role), role, token, last_event)
            )
        return tickets

    def reattach(self, tickets: tuple[Ticket, ...], now: float) -> Outcome:
        """Resume every ticket's seat (or watch); one merged outcome to commit.

        A table is rebuilt from the store when this process takes it over or after a failed
        commit: the state knows seats and tokens, not who is connected. Each ticket is replayed
        as a seat-token resume (a player) or a watch (a spectator), so nobody has to reconnect
        and nobody sees an event twice (invariant 2).
        """
        merged = Outcome()
        for ticket in tickets:
            try:
                part = self._reattach_one(ticket, now)
            except Refused:
                merged.to(
                    ticket.conn,
                    s.Goodbye(
                        reason="the table moved to another server: join it again with its link"
                    ),
                )
                merged.detached.append(ticket.conn)
                continue
            merged.merge(part)
        return merged

    def _reattach_one(self, ticket: Ticket, now: float) -> Outcome:
        if ticket.token is not None:
            try:
                return self.resume(
                    ticket.conn, ticket.name, ticket.token, ticket.last_event, 0, now
                )
            except Refused:
                if ticket.key is None:
                    raise  # the seat is gone (stood up, kicked) and there is no link to watch by
        if ticket.key is None:
            raise Refused(ErrorCode.NOT_AT_TABLE, "no link to rejoin the table with")
        return self.attach(
            ticket.conn, ticket.name, c.Watch(key=ticket.key), ticket.role, now, ticket.last_event
        )

    # ------------------------------------------------------------------ seating helpers
    def _seat_for_newcomer(self, wanted: int | None, viewer: Viewer) -> int:
        table = self.table
        self._check_unlocked(viewer)
        if wanted is not None:
            if not is_free(table.seats[self._seat_index(wanted)], table.in_game):
                raise Refused(ErrorCode.SEAT_TAKEN, f"seat {wanted} is taken")
            return wanted
        index = first_free(table.seats, table.in_game)
        if index is None:
            raise Refused(ErrorCode.NO_FREE_SEAT, "every seat is taken: watch instead")
        return index

    def _check_unlocked(self, viewer: Viewer) -> None:
        table = self.table
        if table.locked and not viewer.host:
            raise Refused(ErrorCode.TABLE_LOCKED, "the host has locked this table")

    def _sit(self, out: Outcome, viewer: Viewer, index: int, rid: int, now: float) -> None:
        table = self.table
        seat = table.seats[index]
        token = keys.new_seat_token(table.table_id)
        seat.seat_person(viewer.name, token, viewer.conn, host=viewer.host)
        viewer.seat = index
        out.to(viewer.conn, s.Seated(rid=rid, table=table.table_id, seat=index, token=token))
        self.publisher.publish(out, [s.SeatTaken(seat=index, name=viewer.name)], now)

    def _move(self, out: Outcome, old: int, new: int, rid: int, viewer: Viewer, now: float) -> None:
        table = self.table
        table.seats[old], table.seats[new] = table.seats[new], table.seats[old]
        viewer.seat = new
        out.ack(viewer.conn, rid)
        self.publisher.publish(out, [s.SeatsSwapped(seat=old, other=new)], now)

    def _seat_index(self, index: int) -> int:
        table = self.table
        if not 0 <= index < len(table.seats):
            raise Refused(
                ErrorCode.INVALID_MESSAGE, f"R1/R14: this table has seats 0-{len(table.seats) - 1}"
            )
        return index

    def _require_lobby(self, what: str) -> None:
        table = self.table
        if table.in_game:
            raise Refused(ErrorCode.WRONG_PHASE, f"cannot {what} while a game is being played")

    def _require_host(self, viewer: Viewer, what: str) -> None:
        if not viewer.host:
            raise Refused(ErrorCode.FORBIDDEN, f"only the host may {what}")

    def _require_seated(self, viewer: Viewer) -> int:
        if viewer.seat is None:
            raise Refused(ErrorCode.NOT_SEATED, "spectators cannot do that: take a seat")
        return viewer.seat

    def bot_act(self, request: BotRequest, action: Action | None, now: float) -> Outcome:
        """Apply a bot's answer to ``request`` (``BotAnswer``)."""
        return self.bot_answer(request.seat, request.at, action, now)

    def bot_answer(self, seat: int, at: int, action: Action | None, now: float) -> Outcome:
        """Apply a bot's answer if the table is still where the bot saw it (event ``at``)."""
        table = self.table
        table.last_input = max(table.last_input, now)
        out = Outcome()
        game = table.game
        if game is None or at != table.last_event or not table.in_game:
            return out  # stale: the next due_bots asks again
        if action is None:  # the bot declines an optional action (a claim, missed cards)
            if game.phase is Phase.CLAIMS:
                table.claims_done.add(seat)
                out.dirty = True
                self._maybe_close_claims(out, now)
            return self.publisher.finish(out)
        try:
            events = game.apply(action)
        except IllegalAction:  # the first offer the bot was given (the table is where it saw it)
            events = game.apply(game.legal_actions(seat, by_rank=True)[0])
        self._after_game_events(out, events, now)
        return self.publisher.finish(out)

    def _maybe_close_claims(self, out: Outcome, now: float) -> None:
        """Close the claim window (as its clock would) once it waits for nobody (claim_window)."""
        game = self.table.game
        if game is None or game.phase is not Phase.CLAIMS:
            return
        if claim_window_done(game, self.table.claims_done):
            self._apply(out, CloseClaims(), now)

    # ------------------------------------------------------------------ game flow
    def _start_game(self, out: Outcome, now: float) -> None:
        table = self.table
        empty = [i for i, seat in enumerate(table.seats) if seat.occupant == "empty"]
        if empty:
            raise Refused(ErrorCode.WRONG_PHASE, f"seats {empty} are empty: fill them first")
        table.game_no += 1
        table.seed = table.seeds()
        table.game = Game.new(table.profile, table.options, table.seed)
        table.stage = "playing"
        table.rematch.clear()
        table.claims_done.clear()
        table.claims_deadline = None
        for seat in table.seats:
            if seat.occupant == "person" and seat.conn is None and not table.solo:
                seat.stand_in = True
        names = [seat.name or "" for seat in table.seats]
        table.decision_since = now
        self._note(table.game.start_events, now)
        self.publisher.publish(
            out, [s.GameStarted(game=table.game_no, names=names), *table.game.start_events], now
        )
        self._maybe_close_claims(out, now)

    def _apply(self, out: Outcome, action: Action, now: float) -> None:
        game = self._require_game()
        self._after_game_events(out, game.apply(action), now)

    def _after_game_events(self, out: Outcome, events: tuple[EngineEvent, ...], now: float) -> None:
        table = self.table
        table.decision_since = now
        self._note(events, now)
        self.publisher.publish(out, list(events), now)
        self._maybe_close_claims(out, now)

    def _note(self, events: tuple[EngineEvent, ...], now: float) -> None:
        """Update the table's clocks and stage from the engine's events, before publishing."""
        table = self.table
        game = table.game
        assert game is not None
        for event in events:
            if isinstance(event, ClaimsOpened):
                table.claims_deadline = now + table.config.claim_window_s
                table.claims_done.clear()
            elif isinstance(event, ClaimsClosed):
                table.claims_deadline = None
            elif isinstance(event, GameOver):
                table.stage = "finished"
                table.claims_deadline = None
                table.finished_record = game.record().to_json()
                for seat in table.seats:
                    if seat.occupant == "person":
                        seat.stand_in = False
                        if seat.open:
                            seat.clear()

    def _already_made(self, index: int, msg: c.GameAction) -> bool:
        """The move is stored already: the first game event after the one it was made at is
        this very play or announcement of this seat.

        A retry of a move whose answer was lost (its table's owner stored it and died before
        replying; the request, forwarded again, reaches the new owner): it is acknowledged,
        never refused as stale, for a move that was stored is never refused (invariant 9).
        """
        table = self.table
        if msg.at is None or not isinstance(msg, c.Play | c.Announce):
            return False
        for line in table.log[msg.at : table.game_event]:
            entry = json.loads(line)
            form = entry["a"] if "a" in entry else entry["v"][index]
            kind = form.get("type")
            if kind == "played" and isinstance(msg, c.Play):
                return (
                    form.get("seat") == index
                    and parse_card(form["card"]) == parse_card(msg.card)
                    and {parse_card(code) for code in form.get("take", [])}
                    == {parse_card(code) for code in msg.take}
                )
            if kind == "announced" and isinstance(msg, c.Announce):
                return bool(form.get("seat") == index and form.get("call") == msg.call)
            if kind in ("played", "announced"):
                return False  # the next move is another kind of move: not this one
        return False

    def _require_game(self) -> Game:
        table = self.table
        if table.game is None or not table.in_game:
            raise Refused(ErrorCode.WRONG_PHASE, "no game is being played")
        return table.game


def checked_options(profile: str, options: dict[str, Any]) -> dict[str, Any]:
    try:
        return check_options(profile, options)
    except EngineError as exc:
        raise Refused(ErrorCode.BAD_OPTIONS, str(exc)) from None
