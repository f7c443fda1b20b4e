"""Drive a referee through its one door, ``Referee.apply``: each helper builds the command.

The tests read as the shell's commands do: ``handle(ref, "ana", c.Start(), T0)`` is the request a
connection makes, ``tick(ref, now)`` the clock, ``bots_due(ref, now)`` what a tick asks the bots,
``bot_act(ref, request, action, now)`` a bot's answer.
"""

from __future__ import annotations

from engine.actions import Action
from protocol import client_messages as c
from server.core.commands import Attach, BotAnswer, Detach, Request, Resume, Tick
from server.core.outcome import BotRequest, Outcome
from server.core.referee import Referee
from server.store.base import KeyRole


def attach(
    ref: Referee,
    conn: str,
    name: str,
    request: c.Join | c.Watch,
    role: KeyRole,
    now: float,
    last_event: int | None = None,
) -> Outcome:
    return ref.apply(Attach(conn, name, request, role, last_event), now)


def resume(
    ref: Referee, conn: str, name: str, token: str, last_event: int | None, rid: int, now: float
) -> Outcome:
    return ref.apply(Resume(conn, name, token, last_event, rid), now)


def detach(ref: Referee, conn: str, now: float) -> Outcome:
    return ref.apply(Detach(conn), now)


def handle(ref: Referee, conn: str, message: c.ClientMessage, now: float) -> Outcome:
    return ref.apply(Request(conn, message), now)


def tick(ref: Referee, now: float) -> Outcome:
    return ref.apply(Tick(), now)


def bots_due(ref: Referee, now: float) -> list[BotRequest]:
    """The bot decisions a tick at ``now`` finds due (it also runs the clocks that passed)."""
    return tick(ref, now).bots


def bot_act(ref: Referee, request: BotRequest, action: Action | None, now: float) -> Outcome:
    return ref.apply(BotAnswer(request.seat, request.at, action), now)
