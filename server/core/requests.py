"""A connection's table request, sent to the handler that judges it; chat and the record.

Each request names its handler here, by message type: seating (``sitting``), the host's rulings
(``hosting``), the game (``play``). Hello, ping, create, join and watch are the connection's,
not the table's, and are refused.
"""

from __future__ import annotations

from typing import Literal

from protocol import client_messages as c
from protocol import server_messages as s
from protocol.coach import SetHints
from protocol.errors import ErrorCode
from server.core import hosting, play, sitting
from server.core.seating import Viewer
from server.core.step import Step
from server.errors import Refused


def handle(step: Step, conn: str, message: c.ClientMessage) -> None:
    """Carry out one table request from ``conn``; raises ``Refused`` with nothing changed."""
    viewer = step.table.viewers.get(conn)
    if viewer is None:
        raise Refused(ErrorCode.NOT_AT_TABLE, "join or watch a table first")
    match message:  # the game's actions first: each class pattern is an ABCMeta check
        case c.Play() | c.TakeMissed() | c.Announce() | c.Claim():
            play.on_play(step, viewer, message)
        case c.Leave():
            sitting.on_leave(step, viewer, message)
        case c.Sit():
            sitting.on_sit(step, viewer, message)
        case c.Stand():
            sitting.on_stand(step, viewer, message)
        case c.Swap():
            sitting.on_swap(step, viewer, message)
        case c.AddBot():
            sitting.on_add_bot(step, viewer, message)
        case c.RemoveBot():
            sitting.on_remove_bot(step, viewer, message)
        case c.Kick():
            sitting.on_kick(step, viewer, message)
        case c.Lock():
            hosting.on_lock(step, viewer, message)
        case SetHints():
            hosting.on_set_hints(step, viewer, message)
        case c.SetOptions():
            hosting.on_set_options(step, viewer, message)
        case c.Start():
            hosting.on_start(step, viewer, message)
        case c.RuleMisdeal():
            hosting.on_misdeal(step, viewer, message)
        case c.Rematch():
            play.on_rematch(step, viewer, message)
        case c.NoClaim():
            play.on_no_claim(step, viewer, message)
        case c.GetRecord():
            on_get_record(step, viewer, message)
        case c.Chat():
            on_chat(step, viewer, message)
        case c.Sync():  # protocol 4: the client's view went astray; start it over
            step.out.to(viewer.conn, s.Ack(rid=message.rid))
            step.publisher.snapshot_to(step.out, viewer)
        case _:  # hello, ping, create, join, watch: the connection's, not the table's
            raise Refused(ErrorCode.WRONG_PHASE, f"{message.type!r} is not a table request")


def on_get_record(step: Step, viewer: Viewer, msg: c.GetRecord) -> None:
    """R15: the finished game's record, for the players and the host."""
    table = step.table
    if viewer.seat is None and not viewer.host:
        raise Refused(ErrorCode.FORBIDDEN, "the record is for the players and the host")
    if table.finished_record is None:
        raise Refused(ErrorCode.RECORD_UNAVAILABLE, "R15: no game has finished at this table")
    step.out.to(
        viewer.conn, s.RecordMessage(rid=msg.rid, game=table.game_no, record=table.finished_record)
    )


def on_chat(step: Step, viewer: Viewer, msg: c.Chat) -> None:
    """A line to the players (from a seat) or among the spectators, rate-limited."""
    if not viewer.chat.allow(step.now):
        raise Refused(ErrorCode.RATE_LIMITED, "chat: too many lines, wait a moment")
    channel: Literal["players", "spectators"] = (
        "players" if viewer.seat is not None else "spectators"
    )
    line = s.ChatLine(channel=channel, name=viewer.name, seat=viewer.seat, text=msg.text)
    step.out.ack(viewer.conn, msg.rid)
    step.publisher.chat(step.out, line)
