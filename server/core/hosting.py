"""The host's rulings: lock the table, switch hints, set its options, start a game, rule a
misdeal (R5, R13, R14). Seating rulings (bots, kick) are ``server.core.sitting``'s."""

from __future__ import annotations

from typing import Any

from engine.actions import Misdeal
from engine.errors import EngineError
from engine.rules import check_options
from protocol import client_messages as c
from protocol import table_events as t
from protocol.coach import HintsChanged, SetHints
from protocol.errors import ErrorCode
from server.core.play import apply_action, start_game
from server.core.seating import Viewer
from server.core.step import Step, require_game, require_host, require_lobby
from server.errors import Refused


def checked_options(profile: str, options: dict[str, Any]) -> dict[str, Any]:
    """``options`` checked against ``profile``; refused naming the rule (R13, R14)."""
    try:
        return check_options(profile, options)
    except EngineError as exc:
        raise Refused(ErrorCode.BAD_OPTIONS, str(exc)) from None


def on_lock(step: Step, viewer: Viewer, msg: c.Lock) -> None:
    require_host(viewer, "lock the table")
    step.table.locked = msg.locked
    step.out.ack(viewer.conn, msg.rid)
    step.publish(t.LockChanged(locked=msg.locked))


def on_set_hints(step: Step, viewer: Viewer, msg: SetHints) -> None:
    """The host switches hints off (or on) for the table, before or during a game."""
    require_host(viewer, "switch hints")
    step.table.hints = msg.hints
    step.out.ack(viewer.conn, msg.rid)
    step.publish(HintsChanged(hints=msg.hints))


def on_set_options(step: Step, viewer: Viewer, msg: c.SetOptions) -> None:
    table = step.table
    require_host(viewer, "change the options")
    require_lobby(table, "change the options")
    table.options = checked_options(table.profile, msg.options)
    if msg.turn_timer is not None:
        table.turn_timer = msg.turn_timer
    if msg.casual is not None and not table.solo:  # a solo ladder table is never rated (R14)
        table.casual = msg.casual
    step.out.ack(viewer.conn, msg.rid)
    step.publish(
        t.OptionsChanged(
            profile=table.profile,
            options=table.options,
            turn_timer=table.turn_timer,
            casual=table.casual,
        )
    )


def on_start(step: Step, viewer: Viewer, msg: c.Start) -> None:
    require_host(viewer, "start the game")
    if not (step.table.in_game and may_start_afresh(step, viewer)):
        require_lobby(step.table, "start")
    step.out.ack(viewer.conn, msg.rid)
    start_game(step)


def may_start_afresh(step: Step, viewer: Viewer) -> bool:
    """R14 libre-2p: "N starts a new game", also mid-game, for a seated host facing only bots
    (nobody else's game is given up)."""
    table = step.table
    return (
        table.profile == "libre-2p"
        and viewer.seat is not None
        and all(seat.occupant == "bot" for i, seat in enumerate(table.seats) if i != viewer.seat)
    )


def on_misdeal(step: Step, viewer: Viewer, msg: c.RuleMisdeal) -> None:
    require_host(viewer, "rule a misdeal")
    if viewer.seat is not None:
        raise Refused(ErrorCode.FORBIDDEN, "R5: only a non-playing host referees a misdeal")
    game = require_game(step.table)
    if Misdeal() not in game.system_actions():
        raise Refused(
            ErrorCode.ILLEGAL_ACTION,
            "R5: a misdeal is ruled after a packet is dealt, before its first card",
        )
    step.out.ack(viewer.conn, msg.rid)
    apply_action(step, Misdeal())
