"""Who is here, and the clocks: connections come (attach, resume), go (detach), are put back
after a rebuild (tickets, reattach), and the clocks that pass act (tick).

A seat outlives its connection (ARCHITECTURE invariant 5): a person who goes away keeps the seat
for the grace period, a stand-in plays their turns meanwhile, and the seat token takes it back
at any time. Every deadline comes from ``server.core.clocks``; a tick runs the ones that passed
and asks the bots whose decisions are due, once per table state (``Outcome.bots``).
"""

from __future__ import annotations

from typing import Any

from engine.actions import CloseClaims
from engine.phase import Phase
from engine.views import view_of
from protocol import client_messages as c
from protocol import server_messages as s
from protocol import table_events as t
from protocol.errors import ErrorCode
from server import keys
from server.core import clocks, turns
from server.core.commands import Ticket
from server.core.outcome import BotRequest, Outcome
from server.core.play import apply_action
from server.core.publishing import Publisher
from server.core.seating import TokenBucket, Viewer
from server.core.sitting import seat_for_newcomer, seat_of_player, sit
from server.core.step import Step
from server.core.table import Table
from server.errors import Refused
from server.store.base import KeyRole


def _viewer(table: Table, conn: str, name: str, player: str | None = None) -> Viewer:
    chat = TokenBucket(table.config.chat_per_min / 60, table.config.chat_burst)
    return Viewer(conn, name, chat, player=player)


def attach(
    step: Step,
    conn: str,
    name: str,
    request: c.Join | c.Watch,
    role: KeyRole,
    last: int | None,
    player: str | None = None,
    version: int = 3,
) -> None:
    """A connection joins (takes a seat) or watches through a link key of ``role``.

    A watch with ``last`` (a spectator put back after a rebuild or a takeover) is sent the
    events after it first, like a seat's resume, so its numbering goes on. A join by a person
    (``player``) who holds a seat here already takes that seat back, as its token would.
    """
    table, out, publisher = step.table, step.out, step.publisher
    held = seat_of_player(step, player) if isinstance(request, c.Join) else None
    if held is not None:
        token = table.seats[held].token
        assert token is not None
        resume(step, conn, name, token, None, request.rid, version)
        return
    viewer = table.viewers.get(conn) or _viewer(table, conn, name, player)
    viewer.player = viewer.player or player
    viewer.version = version
    viewer.host = viewer.host or role == "host"
    viewer.can_sit = viewer.can_sit or role in ("join", "host", "club")
    if isinstance(request, c.Watch):
        table.viewers[conn] = viewer
        if last is None:
            out.ack(conn, request.rid)
        else:  # the answer first, then what was missed, then the state: like a resume
            out.to(conn, s.Ack(rid=request.rid))
            for n in range(last + 1, table.last_event + 1):
                out.to(conn, publisher.event_for(n, viewer))
        publisher.snapshot_to(out, viewer)
        step.presence()
        return
    if not viewer.can_sit:
        raise Refused(ErrorCode.FORBIDDEN, "the watch link cannot take a seat")
    if viewer.seat is not None:
        raise Refused(ErrorCode.SEAT_TAKEN, f"you already sit in seat {viewer.seat}")
    seat = seat_for_newcomer(step, request.seat, viewer)
    if conn not in table.viewers:  # a newcomer's baseline: the state, then every event
        table.viewers[conn] = viewer
        publisher.snapshot_to(out, viewer)
    sit(step, viewer, seat, request.rid)


def resume(
    step: Step, conn: str, name: str, token: str, last: int | None, rid: int, version: int = 3
) -> None:
    """Take a seat back with its token: its events after ``last``, then a snapshot."""
    table, out, publisher = step.table, step.out, step.publisher
    index = next(
        (i for i, seat in enumerate(table.seats) if keys.same_secret(token, seat.token)), None
    )
    if index is None:
        raise Refused(ErrorCode.BAD_TOKEN, "this seat token does not hold a seat here")
    seat = table.seats[index]
    if seat.conn is not None and seat.conn != conn:
        old = table.viewers.pop(seat.conn, None)
        if old is not None:
            out.to(old.conn, s.Goodbye(reason="the seat was taken back by a new connection"))
            out.detached.append(old.conn)
    viewer = table.viewers.get(conn) or _viewer(table, conn, seat.name or name, seat.player)
    viewer.seat, viewer.can_sit, viewer.version = index, True, version
    viewer.host = viewer.host or seat.host
    table.viewers[conn] = viewer
    # a stand-in the rebuild assumed (``restored``) was never announced: nor is its leaving
    was_standing_in = seat.stand_in and not seat.restored
    seat.conn, seat.away_since, seat.stand_in, seat.open = conn, None, False, False
    seat.restored = False
    out.dirty = True
    out.to(conn, s.Seated(rid=rid, table=table.table_id, seat=index, token=token))
    if last is not None:
        for n in range(last + 1, table.last_event + 1):
            out.to(conn, publisher.event_for(n, viewer))
    if was_standing_in:  # everyone, the returning player too, sees the stand-in leave
        publisher.whole_next()  # the new connection may hold no snapshot
        step.publish(t.StandIn(seat=index, active=False, reason="returned"))
    else:
        publisher.snapshot_to(out, viewer)
        step.presence()


def detach(step: Step, conn: str) -> None:
    """The connection went away: its seat stays for the grace period (invariant 5)."""
    table, out = step.table, step.out
    viewer = table.viewers.pop(conn, None)
    if viewer is None:
        return
    if viewer.seat is not None:
        seat = table.seats[viewer.seat]
        if seat.conn == conn:
            seat.conn, seat.away_since = None, step.now
            out.dirty = True
            if table.in_game and not seat.stand_in and not table.waits:
                seat.stand_in = True
                step.publish(t.StandIn(seat=viewer.seat, active=True, reason="disconnected"))
                return
    step.presence()


def tick(step: Step) -> None:
    """Run the clocks that passed (close an expired claim window, end expired graces), then ask
    the bots whose decisions are due (``Outcome.bots``)."""
    table, now = step.table, step.now
    game = table.game
    passed = [clock for clock in clocks.due(table) if clock.at <= now]
    if any(clock.kind == "claims" for clock in passed) and game and game.phase is Phase.CLAIMS:
        apply_action(step, CloseClaims())
    for clock in passed:
        if clock.kind == "remind" and clock.seat is not None:
            step.out.notices.append(turns.notice(table, "deadline_near", clock.seat))
            table.reminded = table.game_event
            step.out.dirty = True
    events: list[Any] = []
    for clock in clocks.due(table):
        if clock.kind != "grace" or clock.at > now:
            continue
        assert clock.seat is not None
        seat = table.seats[clock.seat]
        if table.in_game:
            seat.open = True
            step.out.dirty = True
        else:
            seat.clear()
            events.append(t.SeatFreed(seat=clock.seat, reason="grace_expired"))
    if events:
        step.publish(*events)
    step.out.bots += due_bots(table, now)


def due_bots(table: Table, now: float) -> list[BotRequest]:
    """Bot decisions due now (``clocks.deciding``), each asked once per table state."""
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
                    stand_in=table.seats[seat].occupant != "bot",
                )
            )
    return requests


def tickets(table: Table, live: set[str], last_event: int | None = None) -> list[Ticket]:
    """Tickets of the viewers whose connections are in ``live``, to seat them again on a
    rebuilt referee (``Reattach``).

    ``last_event`` is what they have all been sent (the stored log's end, after a reload):
    each resume then also replays the events the resumes before it published.
    """
    found = []
    for viewer in table.viewers.values():
        if viewer.conn not in live:
            continue
        role: KeyRole = "host" if viewer.host else "join" if viewer.can_sit else "watch"
        token = table.seats[viewer.seat].token if viewer.seat is not None else None
        key = table.keys.get(role)
        found.append(
            Ticket(
                viewer.conn,
                viewer.name,
                key,
                role,
                token,
                last_event,
                viewer.player,
                viewer.version,
            )
        )
    return found


def reattach(table: Table, publisher: Publisher, given: tuple[Ticket, ...], now: float) -> Outcome:
    """Resume every ticket's seat (or watch); one merged outcome to commit.

    A table is rebuilt from the store when this process takes it over or after a failed
    commit: the state knows seats and tokens, not who is connected. Each ticket is replayed
    as a seat-token resume (a player) or a watch (a spectator), each its own update, so nobody
    has to reconnect and nobody sees an event twice (invariant 2).
    """
    merged = Outcome()
    for ticket in given:
        step = Step(table, publisher, Outcome(), now)
        try:
            _reattach_one(step, ticket)
        except Refused:
            merged.to(
                ticket.conn,
                s.Goodbye(reason="the table moved to another server: join it again with its link"),
            )
            merged.detached.append(ticket.conn)
            continue
        merged.merge(publisher.finish(step.out))
    return merged


def _reattach_one(step: Step, ticket: Ticket) -> None:
    if ticket.token is not None:
        try:
            resume(
                step, ticket.conn, ticket.name, ticket.token, ticket.last_event, 0, ticket.version
            )
            return
        except Refused:
            if ticket.key is None:
                raise  # the seat is gone (stood up, kicked) and there is no link to watch by
    if ticket.key is None:
        raise Refused(ErrorCode.NOT_AT_TABLE, "no link to rejoin the table with")
    watch = c.Watch(key=ticket.key)
    attach(
        step,
        ticket.conn,
        ticket.name,
        watch,
        ticket.role,
        ticket.last_event,
        ticket.player,
        ticket.version,
    )
