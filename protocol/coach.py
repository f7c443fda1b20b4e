"""The coach's messages: a hint, level 5's play for the asker's own decision.

A seated player whose turn it is sends ``hint``; the server weighs the plays from that seat's
view alone (nothing the seat cannot see) and answers the asker alone with ``hint``, or with an
``error``: not this seat's turn, a rated table or a club night's (hints are for casual and solo
tables), the host switched hints off at this table, or one hint already given for this decision.

The host of a casual table may switch hints off (and on again) at any time with ``set_hints``;
every viewer is told by the table event ``hints_changed`` and sees it in ``table.hints``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from protocol.base import CardCode, RequestId, WireModel

# --- client to server ---------------------------------------------------------------------------


class HintRequest(WireModel):
    """What would level 5 play here? (the asker's own turn; once a decision)."""

    type: Literal["hint"] = "hint"
    rid: RequestId = 0


class SetHints(WireModel):
    """Host: whether the players at this table may ask for a hint (answered by ``ack``)."""

    type: Literal["set_hints"] = "set_hints"
    rid: RequestId = 0
    hints: bool = True


# --- server to client ---------------------------------------------------------------------------


class HintPlay(WireModel):
    """One play as a sentence needs it: the card, what it takes, its R9 caída and limpia, the
    points it scores at once, and its expected worth in points (a game is worth 40)."""

    card: CardCode
    take: list[CardCode] = Field(default_factory=list)
    caida: bool = False
    limpia: bool = False
    points: int = 0
    expected: float = 0.0


class Hint(WireModel):
    """Level 5's play for the asker (``at``: the event it was weighed at) and by how much it
    beats ``next_best`` in expected points (both None: the only play)."""

    type: Literal["hint"] = "hint"
    rid: RequestId = 0
    at: int
    play: HintPlay
    margin: float | None = None
    next_best: HintPlay | None = None


class HintsChanged(WireModel):
    """A table event: the host switched hints on or off at this table."""

    type: Literal["hints_changed"] = "hints_changed"
    hints: bool
