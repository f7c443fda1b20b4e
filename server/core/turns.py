"""A turn-based table's people away: whose decision it waits for, and what they are told.

A turn-based table (``Table.move_deadline``) goes on with nobody connected, so it tells the
people it waits for (``server.notices``): "your turn" when a decision of theirs becomes due,
"deadline near" an hour before it passes (the ``remind`` clock). A notice names the decision by
its table, seat and the game event it became due at: every process, restart or retried commit
that makes it makes the same ``key``, and the sender tells each person once.

At a forfeit table (``server.core.forfeit``) a turn of a side that missed its last deadline is
told with ``warning = "forfeit_next"``: that one more missed turn forfeits the game. It rides
on the turn's own notice (its kind, switch and key), so the person gets one push, not two.

A notice opens ``/me?open=<table>``: the person's own page, which knows their seat at that
table and goes straight to the move (a notice leaves the server and carries no key).
"""

from __future__ import annotations

import json

from engine.phase import Phase
from server.core import clocks, forfeit
from server.core.publishing import seen_by
from server.core.table import Table
from server.notices import Notice, NoticeKind, NoticeWarning


def awaited(table: Table) -> list[int]:
    """The seats of the people (with a public id) whose own decision the table waits for."""
    game = table.game
    if not table.move_deadline or game is None or not table.in_game:
        return []
    seats = []
    for index in game.to_act():
        seat = table.seats[index]
        if seat.occupant != "person" or seat.player is None or seat.is_bot_controlled:
            continue
        if game.phase is Phase.CLAIMS and index in table.claims_done:
            continue
        seats.append(index)
    return seats


def last_play(table: Table) -> str:
    """The last card played, as the public log says it ("Ana: 7H"), or "" before any."""
    for line in reversed(table.log[: table.game_event]):
        form = seen_by(json.loads(line), None)
        if form.get("type") == "played":
            seat = form.get("seat")
            name = table.seats[seat].name if isinstance(seat, int) else None
            return f"{name or seat}: {form.get('card')}"
    return ""


def notice(table: Table, kind: NoticeKind, seat: int) -> Notice:
    """What the person in ``seat`` is told about the decision now awaited from them."""
    player = table.seats[seat].player
    assert player is not None
    deadline = next(
        (clock.at for clock in clocks.due(table) if clock.seat == seat and clock.level),
        None,
    )
    return Notice(
        kind=kind,
        player_id=player,
        key=f"{kind}:{table.table_id}:{seat}:{table.game_event}",
        url=f"/me?open={table.table_id}",
        room_id=table.table_id,
        deadline=deadline,
        detail=last_play(table),
        warning=warning(table, seat),
    )


def warning(table: Table, seat: int) -> NoticeWarning:
    """``forfeit_next`` if ``seat``'s side is one missed deadline from forfeiting the game."""
    game = table.game
    if not forfeit.counts(table) or game is None:
        return ""
    return "forfeit_next" if table.missed[game.team_of(seat)] == forfeit.FORFEIT_AFTER - 1 else ""


def decisions(table: Table) -> frozenset[tuple[int, int]]:
    """The decisions awaited from people now, each as (seat, the game event it came due at)."""
    return frozenset((seat, table.game_event) for seat in awaited(table))


def your_turn(table: Table, new: frozenset[tuple[int, int]]) -> list[Notice]:
    """A "your turn" for each ``new`` decision whose person is not at the table: one who
    leaves while a decision is awaited was shown it already (the sender drops repeats)."""
    return [
        notice(table, "your_turn", seat)
        for seat, _ in sorted(new)
        if table.seats[seat].conn is None
    ]
