"""Whether a viewer may have a hint now, and the position it is weighed from (sans-I/O).

A hint is for learning: casual and solo tables give one, a rated table or a club night's
never does (a hint there would be help from outside the game). It is given for the asker's
own decision to play a card (R7), from that seat's view alone, once per decision.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.actions import Action, Play
from engine.views import View, view_of
from protocol.errors import ErrorCode
from server.core.table import Table
from server.errors import Refused

NOT_HERE = "hints are given at casual and solo tables only, never in a rated game"
SWITCHED_OFF = "the host has switched hints off at this table"


@dataclass(frozen=True, slots=True)
class HintAsk:
    """The position a hint is weighed from: the seat's own view and its legal list."""

    table: str
    seat: int
    at: int  # the event the decision stands at: one hint per decision
    view: View
    legal: tuple[Action, ...]


def given_here(table: Table) -> bool:
    """Hints at casual and solo tables; never at a rated one nor a club night's (its rounds
    are a tournament's)."""
    return (table.casual or table.solo) and "club" not in table.keys


def hints_allowed(table: Table) -> bool:
    """A hint may be asked for: a table where hints are given, its host has not said no."""
    return given_here(table) and table.hints


def hint_ask(table: Table, conn: str) -> HintAsk:
    """The position of ``conn``'s decision, or `Refused` saying why there is no hint."""
    viewer = table.viewers.get(conn)
    if viewer is None or viewer.seat is None:
        raise Refused(ErrorCode.NOT_SEATED, "only a seated player may ask for a hint")
    if not given_here(table):
        raise Refused(ErrorCode.FORBIDDEN, NOT_HERE)
    if not table.hints:
        raise Refused(ErrorCode.FORBIDDEN, SWITCHED_OFF)
    game = table.game
    if game is None or not table.in_game:
        raise Refused(ErrorCode.WRONG_PHASE, "a hint needs a game in play")
    seat = viewer.seat
    legal = tuple(game.legal_actions(seat, by_rank=True))
    if not any(isinstance(action, Play) for action in legal):
        raise Refused(ErrorCode.NOT_YOUR_TURN, "a hint is for your own turn to play a card")
    return HintAsk(table.table_id, seat, table.last_event, view_of(game, seat), legal)
