"""The coach at the table: a hint for the asker's own decision, weighed in the bot pool.

The position comes from the referee's table (``server.core.coaching``: the seat's view only),
read at once on the loop; the weighing runs in `BotRunner`'s process pool (invariant 6), and
the answer goes to the asker alone. One hint per decision: a second ask at the same event is
refused, so a hint cannot be polled as the search's deals vary.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from protocol import coach as m
from protocol.errors import ErrorCode
from server.core.coaching import NOT_HERE, hint_ask
from server.errors import Refused

if TYPE_CHECKING:
    from server.bots import BotRunner
    from server.cluster import RemoteRoom
    from server.core.referee import Referee
    from server.room import Room


class Coach:
    """Hints for one connection."""

    def __init__(self, bots: BotRunner) -> None:
        self.bots = bots
        self._given: tuple[str, int] | None = None  # the decision last hinted: (table, at)

    async def hint(self, conn: str, room: Room | RemoteRoom, rid: int) -> m.Hint:
        """The hint for ``conn``'s decision at ``room``, or `Refused` saying why not."""
        referee: Referee | None = getattr(room, "referee", None)  # None: owned elsewhere
        if referee is None:  # a table another process owns: its view is not here
            raise Refused(ErrorCode.FORBIDDEN, NOT_HERE)
        ask = hint_ask(referee.table, conn)
        if self._given == (ask.table, ask.at):
            raise Refused(ErrorCode.RATE_LIMITED, "one hint per decision: you have had it")
        self._given = (ask.table, ask.at)
        found = await self.bots.hint(ask.view, ask.legal)
        if found is None:
            raise Refused(ErrorCode.NOT_YOUR_TURN, "a hint is for your own turn to play a card")
        return _message(rid, ask.at, found)


def _play(data: dict[str, Any]) -> m.HintPlay:
    return m.HintPlay(
        card=data["card"],
        take=list(data["take"]),
        caida=data["caida"],
        limpia=data["limpia"],
        points=data["points"],
        expected=data["value"],
    )


def _message(rid: int, at: int, found: dict[str, Any]) -> m.Hint:
    after = found["next_best"]
    return m.Hint(
        rid=rid,
        at=at,
        play=_play(found["play"]),
        margin=found["margin"],
        next_best=None if after is None else _play(after),
    )
