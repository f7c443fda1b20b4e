"""The sans-I/O room core: the requests people make at a table.

Commands and the current time go in; numbered log entries (to store), per-connection messages and
the next wake-up time come out. No asyncio, no clock, no sockets: the websockets shell
(``server.room``) feeds it and the tests drive it directly. The shell commits
``Outcome.entries`` and the new state to the store *before* it sends ``Outcome.messages``
(invariant 3). A refused request raises ``Refused`` having changed nothing.

The layers below: ``server.table_state`` (data and storage form), ``server.table_view`` (what
each viewer is sent), ``server.table_flow`` (the game, its clocks and bots).
"""

from __future__ import annotations

from typing import Literal

from engine.actions import Misdeal
from engine.errors import EngineError
from engine.phase import Phase
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.convert import action_from_wire
from protocol.errors import ErrorCode
from server import keys
from server.errors import Refused
from server.seating import TokenBucket, Viewer, first_free, is_free
from server.store.base import KeyRole
from server.table_flow import TableFlow
from server.table_state import STATE_FORMAT, BotRequest, Outcome, RefereeConfig, checked_options

__all__ = ["STATE_FORMAT", "BotRequest", "Outcome", "Referee", "RefereeConfig"]


class Referee(TableFlow):
    """One table's referee: every request of its viewers, checked before anything changes."""

    # ------------------------------------------------------------------ connections
    def attach(
        self, conn: str, name: str, request: c.Join | c.Watch, role: KeyRole, now: float
    ) -> Outcome:
        """A connection joins (takes a seat) or watches through a link key of ``role``."""
        self.last_input = max(self.last_input, now)
        out = Outcome()
        viewer = self.viewers.get(conn)
        if viewer is None:
            viewer = Viewer(
                conn, name, TokenBucket(self.config.chat_per_min / 60, self.config.chat_burst)
            )
        viewer.host = viewer.host or role == "host"
        viewer.can_sit = viewer.can_sit or role in ("join", "host", "club")
        if isinstance(request, c.Watch):
            self.viewers[conn] = viewer
            out.ack(conn, request.rid)
            self._snapshot_to(out, viewer)
            self._presence(out)
            return self._finish(out)
        if not viewer.can_sit:
            raise Refused(ErrorCode.FORBIDDEN, "the watch link cannot take a seat")
        if viewer.seat is not None:
            raise Refused(ErrorCode.SEAT_TAKEN, f"you already sit in seat {viewer.seat}")
        seat = self._seat_for_newcomer(request.seat, viewer)
        if conn not in self.viewers:  # a newcomer's baseline: the state, then every event
            self.viewers[conn] = viewer
            self._snapshot_to(out, viewer)
        self._sit(out, viewer, seat, request.rid, now)
        return self._finish(out)

    def resume(
        self, conn: str, name: str, token: str, last_event: int | None, rid: int, now: float
    ) -> Outcome:
        """Take a seat back with its token: its events after ``last_event``, then a snapshot."""
        self.last_input = max(self.last_input, now)
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
            conn,
            seat.name or name,
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
            self.whole_next()  # the new connection may hold no snapshot
            self._publish(out, [s.StandIn(seat=index, active=False, reason="returned")], now)
        else:
            self._snapshot_to(out, viewer)
            self._presence(out)
        return self._finish(out)

    def detach(self, conn: str, now: float) -> Outcome:
        """The connection went away: its seat stays for the grace period (invariant 5)."""
        self.last_input = max(self.last_input, now)
        out = Outcome()
        viewer = self.viewers.pop(conn, None)
        if viewer is None:
            return out
        if viewer.seat is not None:
            seat = self.seats[viewer.seat]
            if seat.conn == conn:
                seat.conn, seat.away_since = None, now
                out.dirty = True
                if self.in_game and not seat.stand_in and not self.solo:
                    seat.stand_in = True
                    self._publish(
                        out, [s.StandIn(seat=viewer.seat, active=True, reason="disconnected")], now
                    )
                    return self._finish(out)
        self._presence(out)
        return out

    # ------------------------------------------------------------------ requests
    def handle(self, conn: str, message: c.ClientMessage, now: float) -> Outcome:
        """Carry out one table request from ``conn``; raises ``Refused`` with nothing changed."""
        self.last_input = max(self.last_input, now)
        viewer = self.viewers.get(conn)
        if viewer is None:
            raise Refused(ErrorCode.NOT_AT_TABLE, "join or watch a table first")
        handler = getattr(self, "_on_" + message.type, None)
        if handler is None:
            raise Refused(ErrorCode.WRONG_PHASE, f"{message.type!r} is not a table request")
        out = Outcome()
        handler(out, viewer, message, now)
        return self._finish(out)

    def _on_leave(self, out: Outcome, viewer: Viewer, msg: c.Leave, now: float) -> None:
        out.ack(viewer.conn, msg.rid)
        self.viewers.pop(viewer.conn, None)
        out.detached.append(viewer.conn)
        if viewer.seat is None:
            self._presence(out)
            return
        seat = self.seats[viewer.seat]
        if self.in_game and self.solo:  # the solo game waits for its person to come back
            seat.conn, seat.away_since = None, now
            out.dirty = True
            self._presence(out)
        elif self.in_game:
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
        out.ack(viewer.conn, msg.rid)
        self._publish(out, [s.SeatFreed(seat=index, reason="stood")], now)

    def _on_swap(self, out: Outcome, viewer: Viewer, msg: c.Swap, now: float) -> None:
        self._require_lobby("swap")
        a, b = self._seat_index(msg.seat), self._seat_index(msg.other)
        if not viewer.host:
            mine = self._require_seated(viewer)
            other = b if a == mine else a if b == mine else None
            if other is None or self.seats[other].occupant == "person":
                raise Refused(
                    ErrorCode.FORBIDDEN,
                    "only the host swaps people; you may swap with an empty or bot seat",
                )
        if a == b:
            raise Refused(ErrorCode.INVALID_MESSAGE, "a swap needs two different seats")
        self.seats[a], self.seats[b] = self.seats[b], self.seats[a]
        for other_viewer in self.viewers.values():
            if other_viewer.seat in (a, b):
                other_viewer.seat = b if other_viewer.seat == a else a
        out.ack(viewer.conn, msg.rid)
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
        out.ack(viewer.conn, msg.rid)
        self._publish(out, [s.SeatTaken(seat=index, name=name, bot_level=msg.level)], now)

    def _on_remove_bot(self, out: Outcome, viewer: Viewer, msg: c.RemoveBot, now: float) -> None:
        self._require_host(viewer, "remove a bot")
        self._require_lobby("remove a bot")
        if self.seats[self._seat_index(msg.seat)].occupant != "bot":
            raise Refused(ErrorCode.INVALID_MESSAGE, f"seat {msg.seat} holds no bot")
        self.seats[msg.seat].clear()
        out.ack(viewer.conn, msg.rid)
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
        out.ack(viewer.conn, msg.rid)
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
        out.ack(viewer.conn, msg.rid)
        self._publish(out, [s.LockChanged(locked=msg.locked)], now)

    def _on_set_options(self, out: Outcome, viewer: Viewer, msg: c.SetOptions, now: float) -> None:
        self._require_host(viewer, "change the options")
        self._require_lobby("change the options")
        self.options = checked_options(self.profile, msg.options)
        if msg.turn_timer is not None:
            self.turn_timer = msg.turn_timer
        out.ack(viewer.conn, msg.rid)
        self._publish(
            out,
            [
                s.OptionsChanged(
                    profile=self.profile, options=self.options, turn_timer=self.turn_timer
                )
            ],
            now,
        )

    def _on_start(self, out: Outcome, viewer: Viewer, msg: c.Start, now: float) -> None:
        self._require_host(viewer, "start the game")
        if not (self.in_game and self._may_start_afresh(viewer)):
            self._require_lobby("start")
        out.ack(viewer.conn, msg.rid)
        self._start_game(out, now)

    def _may_start_afresh(self, viewer: Viewer) -> bool:
        """R14 libre-2p: "N starts a new game", also mid-game, for a seated host facing only bots
        (nobody else's game is given up)."""
        return (
            self.profile == "libre-2p"
            and viewer.seat is not None
            and all(seat.occupant == "bot" for i, seat in enumerate(self.seats) if i != viewer.seat)
        )

    def _on_rematch(self, out: Outcome, viewer: Viewer, msg: c.Rematch, now: float) -> None:
        index = self._require_seated(viewer)
        if self.stage != "finished":
            raise Refused(ErrorCode.WRONG_PHASE, "a rematch follows a finished game")
        self.rematch.add(index)
        out.ack(viewer.conn, msg.rid)
        self._publish(out, [s.RematchAsked(seat=index)], now)
        waiting = [
            i
            for i, seat in enumerate(self.seats)
            if seat.occupant == "person" and seat.conn is not None and i not in self.rematch
        ]
        if not waiting and all(seat.occupant != "empty" for seat in self.seats):
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
        if viewer.seat is None and not viewer.host:
            raise Refused(ErrorCode.FORBIDDEN, "the record is for the players and the host")
        if self.finished_record is None:
            raise Refused(ErrorCode.RECORD_UNAVAILABLE, "R15: no game has finished at this table")
        out.to(
            viewer.conn,
            s.RecordMessage(rid=msg.rid, game=self.game_no, record=self.finished_record),
        )

    def _on_chat(self, out: Outcome, viewer: Viewer, msg: c.Chat, now: float) -> None:
        if not viewer.chat.allow(now):
            raise Refused(ErrorCode.RATE_LIMITED, "chat: too many lines, wait a moment")
        channel: Literal["players", "spectators"] = (
            "players" if viewer.seat is not None else "spectators"
        )
        line = s.ChatLine(channel=channel, name=viewer.name, seat=viewer.seat, text=msg.text)
        out.ack(viewer.conn, msg.rid)
        for other in self.viewers.values():
            if channel == "players" or other.seat is None:
                out.to(other.conn, line)

    def _on_play(self, out: Outcome, viewer: Viewer, msg: c.GameAction, now: float) -> None:
        index = self._require_seated(viewer)
        game = self._require_game()
        if msg.at is not None and msg.at < self.game_event:
            raise Refused(
                ErrorCode.STALE, f"the game moved on at event {self.game_event}; you saw {msg.at}"
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
        self.claims_done.add(index)
        out.dirty = True
        self._maybe_close_claims(out, now)

    _on_take_missed = _on_play
    _on_announce = _on_play
    _on_claim = _on_play

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

    def _move(self, out: Outcome, old: int, new: int, rid: int, viewer: Viewer, now: float) -> None:
        self.seats[old], self.seats[new] = self.seats[new], self.seats[old]
        viewer.seat = new
        out.ack(viewer.conn, rid)
        self._publish(out, [s.SeatsSwapped(seat=old, other=new)], now)

    def _seat_index(self, index: int) -> int:
        if not 0 <= index < len(self.seats):
            raise Refused(
                ErrorCode.INVALID_MESSAGE, f"R1/R14: this table has seats 0-{len(self.seats) - 1}"
            )
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
