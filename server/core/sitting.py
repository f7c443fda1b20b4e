"""Who sits where: the requests that seat, move and free people and bots (R1, R14).

Sitting, standing and swapping happen in the lobby (between games); leaving and the host's
kick also during a game, where the seat is stood in for by a bot and opens to a newcomer
(ARCHITECTURE invariant 5; the data is ``server.core.seating``'s).
"""

from __future__ import annotations

from protocol import client_messages as c
from protocol import server_messages as s
from protocol import table_events as t
from protocol.errors import ErrorCode
from server import keys
from server.core.seating import Viewer, first_free, is_free
from server.core.step import (
    Step,
    check_unlocked,
    require_host,
    require_lobby,
    require_seated,
    seat_index,
)
from server.errors import Refused


def seat_for_newcomer(step: Step, wanted: int | None, viewer: Viewer) -> int:
    """The seat a newcomer through the join link takes: the one asked for, or the first free."""
    table = step.table
    check_unlocked(table, viewer)
    if wanted is not None:
        if not is_free(table.seats[seat_index(table, wanted)], table.in_game):
            raise Refused(ErrorCode.SEAT_TAKEN, f"seat {wanted} is taken")
        return wanted
    index = first_free(table.seats, table.in_game)
    if index is None:
        raise Refused(ErrorCode.NO_FREE_SEAT, "every seat is taken: watch instead")
    return index


def sit(step: Step, viewer: Viewer, index: int, rid: int) -> None:
    """Seat ``viewer`` in ``index`` with a fresh seat token (its credential from now on)."""
    table = step.table
    seat = table.seats[index]
    token = keys.new_seat_token(table.table_id)
    seat.seat_person(viewer.name, token, viewer.conn, host=viewer.host, player=viewer.player)
    viewer.seat = index
    step.out.to(viewer.conn, s.Seated(rid=rid, table=table.table_id, seat=index, token=token))
    step.publish(t.SeatTaken(seat=index, name=viewer.name, player=viewer.player))


def seat_of_player(step: Step, player: str | None) -> int | None:
    """The seat a person (by public id) holds at this table: the same player key on another
    tab or device takes it back, as the seat token does."""
    if player is None:
        return None
    return next(
        (
            index
            for index, seat in enumerate(step.table.seats)
            if seat.occupant == "person" and seat.player == player and seat.token is not None
        ),
        None,
    )


def on_leave(step: Step, viewer: Viewer, msg: c.Leave) -> None:
    table, out = step.table, step.out
    out.ack(viewer.conn, msg.rid)
    table.viewers.pop(viewer.conn, None)
    out.detached.append(viewer.conn)
    if viewer.seat is None:
        step.presence()
        return
    seat = table.seats[viewer.seat]
    if table.in_game and table.waits:  # the game waits for its person to come back
        seat.conn, seat.away_since = None, step.now
        out.dirty = True
        step.presence()
    elif table.in_game:
        seat.conn, seat.away_since, seat.open = None, step.now, True
        seat.stand_in = True
        step.publish(t.StandIn(seat=viewer.seat, active=True, reason="left"))
    else:
        seat.clear()
        step.publish(t.SeatFreed(seat=viewer.seat, reason="left"))


def on_sit(step: Step, viewer: Viewer, msg: c.Sit) -> None:
    table = step.table
    require_lobby(table, "sit")
    if not viewer.can_sit:
        raise Refused(ErrorCode.FORBIDDEN, "the watch link cannot take a seat")
    if not is_free(table.seats[seat_index(table, msg.seat)], False):
        raise Refused(ErrorCode.SEAT_TAKEN, f"seat {msg.seat} is taken")
    if viewer.seat is None:
        check_unlocked(table, viewer)
        sit(step, viewer, msg.seat, msg.rid)
        return
    old, new = viewer.seat, msg.seat
    table.seats[old], table.seats[new] = table.seats[new], table.seats[old]
    viewer.seat = new
    step.out.ack(viewer.conn, msg.rid)
    step.publish(t.SeatsSwapped(seat=old, other=new))


def on_stand(step: Step, viewer: Viewer, msg: c.Stand) -> None:
    require_lobby(step.table, "stand")
    index = require_seated(viewer)
    step.table.seats[index].clear()
    viewer.seat = None
    step.out.ack(viewer.conn, msg.rid)
    step.publish(t.SeatFreed(seat=index, reason="stood"))


def on_swap(step: Step, viewer: Viewer, msg: c.Swap) -> None:
    table = step.table
    require_lobby(table, "swap")
    a, b = seat_index(table, msg.seat), seat_index(table, msg.other)
    if not viewer.host:
        mine = require_seated(viewer)
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
    step.out.ack(viewer.conn, msg.rid)
    step.publish(t.SeatsSwapped(seat=a, other=b))


def on_add_bot(step: Step, viewer: Viewer, msg: c.AddBot) -> None:
    table = step.table
    require_host(viewer, "add a bot")
    require_lobby(table, "add a bot")
    index = msg.seat if msg.seat is not None else first_free(table.seats, False)
    if index is None:
        raise Refused(ErrorCode.NO_FREE_SEAT, "every seat is taken")
    if table.seats[seat_index(table, index)].occupant != "empty":
        raise Refused(ErrorCode.SEAT_TAKEN, f"seat {index} is taken")
    name = f"Bot {msg.level}"
    table.seats[index].seat_bot(msg.level, name)
    step.out.ack(viewer.conn, msg.rid)
    step.publish(t.SeatTaken(seat=index, name=name, bot_level=msg.level))


def on_remove_bot(step: Step, viewer: Viewer, msg: c.RemoveBot) -> None:
    table = step.table
    require_host(viewer, "remove a bot")
    require_lobby(table, "remove a bot")
    if table.seats[seat_index(table, msg.seat)].occupant != "bot":
        raise Refused(ErrorCode.INVALID_MESSAGE, f"seat {msg.seat} holds no bot")
    table.seats[msg.seat].clear()
    step.out.ack(viewer.conn, msg.rid)
    step.publish(t.SeatFreed(seat=msg.seat, reason="removed"))


def on_kick(step: Step, viewer: Viewer, msg: c.Kick) -> None:
    """The host removes a person: in a game the seat is stood in for and opens to a newcomer."""
    table, out = step.table, step.out
    require_host(viewer, "kick")
    seat = table.seats[seat_index(table, msg.seat)]
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
        seat.away_since = step.now
        step.publish(t.StandIn(seat=msg.seat, active=True, reason="kicked"))
    else:
        seat.clear()
        step.publish(t.SeatFreed(seat=msg.seat, reason="kicked"))
