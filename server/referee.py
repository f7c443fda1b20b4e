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

from typing import Literal, assert_never

from engine.actions import Misdeal
from engine.errors import EngineError
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.convert import action_from_wire
from protocol.errors import ErrorCode
from server import keys
from server.core.chica import deal_chica
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
from server.errors import Refused
from server.seating import TokenBucket, Viewer, first_free, is_free
from server.store.base import KeyRole
from server.table_flow import TableFlow
from server.table_state import STATE_FORMAT, BotRequest, Outcome, RefereeConfig, checked_options

__all__ = ["STATE_FORMAT", "BotRequest", "Outcome", "Referee", "RefereeConfig"]


class Referee(TableFlow):
    """One table's referee: every request of its viewers, checked before anything changes."""

    def apply(self, command: Command, now: float) -> Outcome:
        """Carry out one command at time ``now``; raises ``Refused`` with nothing changed."""
        match command:
            case Attach(conn, name, request, role):
                return self.attach(conn, name, request, role, now)
            case Resume(conn, name, token, last_event, rid):
                return self.resume(conn, name, token, last_event, rid, now)
            case Detach(conn):
                return self.detach(conn, now)
            case Request(conn, message):
                return self.handle(conn, message, now)
            case Tick():
                return self.tick(now)
            case BotAnswer(seat, at, action):
                return self.bot_answer(seat, at, action, now)
            case Reattach(tickets):
                return self.reattach(tickets, now)
            case DealChica(name, level):
                return deal_chica(self, name, level, now)
            case _:
                assert_never(command)

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
                if self.in_game and not seat.stand_in:
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
            case c.Play() | c.TakeMissed() | c.Announce() | c.Claim():
                self._on_play(out, viewer, message, now)
            case _:  # hello, ping, create, join, watch: the connection's, not the table's
                raise Refused(ErrorCode.WRONG_PHASE, f"{message.type!r} is not a table request")
        return self._finish(out)

    def _on_leave(self, out: Outcome, viewer: Viewer, msg: c.Leave, now: float) -> None:
        out.ack(viewer.conn, msg.rid)
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
        self._require_lobby("start")
        out.ack(viewer.conn, msg.rid)
        self._start_game(out, now)

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

    # ------------------------------------------------------------------ rebuilt tables
    def tickets(self, live: set[str], last_event: int | None = None) -> list[Ticket]:
        """Tickets of the viewers whose connections are in ``live``, to seat them again on a
        rebuilt referee (``Reattach``).

        ``last_event`` is what they have all been sent (the stored log's end, after a reload):
        each resume then also replays the events the resumes before it published.
        """
        tickets = []
        for viewer in self.viewers.values():
            if viewer.conn not in live:
                continue
            role: KeyRole = "host" if viewer.host else "join" if viewer.can_sit else "watch"
            token = self.seats[viewer.seat].token if viewer.seat is not None else None
            tickets.append(
                Ticket(viewer.conn, viewer.name, self.keys.get(role), role, token, last_event)
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
                merged.to(ticket.conn, s.Goodbye(reason="the table moved to another server: "
                                                        "join it again with its link"))
                merged.detached.append(ticket.conn)
                continue
            merged.merge(part)
        return merged

    def _reattach_one(self, ticket: Ticket, now: float) -> Outcome:
        if ticket.token is not None:
            try:
                return self.resume(ticket.conn, ticket.name, ticket.token, ticket.last_event, 0,
                                   now)
            except Refused:
                if ticket.key is None:
                    raise  # the seat is gone (stood up, kicked) and there is no link to watch by
        if ticket.key is None:
            raise Refused(ErrorCode.NOT_AT_TABLE, "no link to rejoin the table with")
        return self.attach(ticket.conn, ticket.name, c.Watch(key=ticket.key), ticket.role, now)

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
