"""Every deadline of a table, computed in one place (``due``).

A table's clocks are absolute server times derived from its state, so a restart keeps them: a
person's turn deadline (``turn_timer``; manual announcements use it too, or the claim window when
the timer is off), the R10 claim window, each absent person's grace, and each bot's decision
(bot seats, stand-ins for absent people); a solo table (R14) runs no clock for its person, and
a turn-based table gives each person its move deadline for every decision (the claim window
too) and no grace (``docs/rules.md``), and reminds the person an hour before (``remind``). The
same list feeds a ``Tick`` (``presence.tick``: what passed; ``presence.due_bots``: who must
decide), ``next_wakeup`` (when to look again) and the deadlines published to viewers
(``published``), so what a client is shown is what the server acts on.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from engine.game import Game
from engine.phase import Phase
from server.core.table import Table

Kind = Literal["turn", "announce", "claims", "grace", "bot", "remind"]
PUBLIC: frozenset[Kind] = frozenset({"turn", "announce", "claims", "grace"})
REMIND_BEFORE_S = 3600.0  # a turn-based deadline's "deadline near" notice comes this early


@dataclass(frozen=True, slots=True)
class Clock:
    """One deadline: at ``at``, ``kind`` is due for ``seat``.

    ``level`` is the bot that decides when it passes: the seat's bot (``bot``) or the stand-in
    that acts for a person past the turn deadline (``turn``, ``announce``).
    """

    kind: Kind
    seat: int | None
    at: float
    level: int | None = None


def person_limit(table: Table, game: Game) -> float:
    """How long a person has for the decision now awaited (0: no limit)."""
    if table.move_deadline:
        return float(table.move_deadline)
    if game.phase is Phase.ANNOUNCE:
        return table.turn_timer or table.config.claim_window_s
    return float(table.turn_timer)


def due(table: Table) -> list[Clock]:
    """Every deadline of the table now: decisions (bots', people's), claims, graces."""
    config = table.config
    clocks: list[Clock] = []
    game = table.game
    if game is not None and table.in_game:
        people_here = any(seat.occupant == "person" and seat.conn for seat in table.seats)
        pace = config.bot_delay_s if people_here else 0.0
        if game.phase is Phase.CLAIMS:
            pace = 0.0  # bots decide on claims at once: nobody watches a claim being thought over
        required = game.turn if game.phase in (Phase.PLAY, Phase.ANNOUNCE) else None
        for index in game.to_act():
            seat = table.seats[index]
            if game.phase is Phase.CLAIMS and index in table.claims_done:
                continue
            if seat.is_bot_controlled:
                at = table.decision_since + pace
                if seat.occupant == "person" and seat.away_since is not None:
                    at = max(at, seat.away_since + config.away_turn_s)
                level = seat.bot_level if seat.occupant == "bot" else config.stand_in_level
                clocks.append(Clock("bot", index, at, level or config.stand_in_level))
            elif index == required and not table.solo:  # a solo game waits for its person
                limit = person_limit(table, game)
                if limit:
                    kind: Kind = "announce" if game.phase is Phase.ANNOUNCE else "turn"
                    at = table.decision_since + limit
                    clocks.append(Clock(kind, index, at, config.stand_in_level))
                    if limit > REMIND_BEFORE_S and table.reminded != table.game_event:
                        clocks.append(Clock("remind", index, at - REMIND_BEFORE_S))
    if table.claims_deadline is not None:
        clocks.append(Clock("claims", None, table.claims_deadline))
    for index, seat in enumerate(table.seats):
        if table.waits:
            break  # a solo or turn-based seat is its person's for as long as the table lives
        if seat.occupant == "person" and seat.away_since is not None and not seat.open:
            clocks.append(Clock("grace", index, seat.away_since + config.grace_s))
    return clocks


def deciding(clocks: list[Clock]) -> list[Clock]:
    """The decisions a bot makes when they fall due (a bot's turn, a person's expired one)."""
    return [clock for clock in clocks if clock.level is not None]


def next_wakeup(table: Table, clocks: list[Clock] | None = None) -> float | None:
    """The earliest time something is due that has not been done yet (``clocks``: the table's
    ``due`` list now, when the caller has it already)."""
    last_event, asked = table.last_event, table.asked
    times = [
        clock.at
        for clock in (due(table) if clocks is None else clocks)
        if clock.level is None or (clock.seat, last_event) not in asked
    ]
    return min(times) if times else None


def published(table: Table, now: float, clocks: list[Clock] | None = None) -> list[dict[str, Any]]:
    """The public deadlines' JSON form (``Deadline``); ``remaining_ms`` counts from ``now``, so a
    client can show a countdown whatever its own clock says (``clocks`` as for ``next_wakeup``).
    """
    return [
        {
            "kind": clock.kind,
            "seat": clock.seat,
            "at": clock.at,
            "remaining_ms": max(0, round((clock.at - now) * 1000)),
        }
        for clock in (due(table) if clocks is None else clocks)
        if clock.kind in PUBLIC
    ]
