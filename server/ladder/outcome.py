"""Read how a ladder chica ended from its table's event log (pure: entries in, outcome out).

The ladder never trusts a client's word for a result: it reads the table's own numbered log (the
same entries the store keeps, so any process can settle any chica, also after a restart). Only
the table's first game counts — a rematch on a ladder table is outside the ladder.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from server.core.publishing import seen_by


@dataclass(frozen=True, slots=True)
class ChicaOutcome:
    """The first game's end as the person at ``seat`` lived it.

    ``assisted`` is true when a stand-in bot played at least one card for the person (they were
    away at their turn): such a win is not the person's own and does not raise the streak.
    """

    result: Literal["won", "lost", "draw"]
    margin: int
    scores: tuple[int, int]
    assisted: bool


def chica_outcome(entries: Iterable[dict[str, Any]], seat: int) -> ChicaOutcome | None:
    """The outcome of the table's first game for ``seat``, or None while it is not over."""
    standing_in = assisted = False
    for entry in entries:
        event = seen_by(entry, seat)
        kind = event.get("type")
        if kind == "stand_in" and event.get("seat") == seat:
            standing_in = bool(event.get("active"))
        elif kind == "played" and event.get("seat") == seat and standing_in:
            assisted = True
        elif kind == "game_over":
            ours, theirs = int(event["scores"][seat]), int(event["scores"][1 - seat])
            winner = event["winner"]
            result: Literal["won", "lost", "draw"] = (
                "draw" if winner == "draw" else "won" if winner == seat else "lost"
            )
            # A cuarenta wins at any score (R6): a win from behind has a margin of 0, not less.
            margin = max(ours - theirs, 0) if result == "won" else ours - theirs
            scores = (int(event["scores"][0]), int(event["scores"][1]))
            return ChicaOutcome(result, margin, scores, assisted)
    return None
