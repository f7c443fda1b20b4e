"""A turn-based table's forfeit rule (``on_deadline = "forfeit"``): missed deadlines, counted.

The reading (``docs/rules.md``, "Turn-based tables"):

- A missed deadline is always played by the stand-in first (the game must move on); it counts
  when what the deadline played is a **card** (R7) of a person's seat: the turn the game cannot
  go on without. A manual announcement (R6) the stand-in makes at its deadline, an R10 claim
  window that closes with events unclaimed and a bot's move for a seat the host emptied (kick)
  are not missed deadlines: they neither count nor reset the count.
- Each team keeps the count of the deadlines it missed in a row (``Table.missed``; R14's
  two-player profiles: team = seat). Any game action made by a person of the team (a card, an
  announcement, missed cards taken, a claim or "nothing to claim"; any seat of the team, any
  device) sets it back to 0.
- The team's second missed deadline in a row ends the game at once: the other team wins by
  forfeit (``server.core.play.forfeit_game``).

The counts live in the stored table (``storage.pace``), so a restart keeps them; a new game
(a rematch) starts them at 0.
"""

from __future__ import annotations

from typing import Any

from engine.phase import Phase
from protocol.follow import forfeited
from server.core.table import Table

FORFEIT_AFTER = 2  # missed deadlines in a row that lose the game


def counts(table: Table) -> bool:
    """Whether this table counts missed deadlines (a turn-based table whose rule is forfeit)."""
    return table.move_deadline > 0 and table.on_deadline == "forfeit"


def is_missed(table: Table, seat: int) -> bool:
    """Whether a stand-in's answer for ``seat`` now plays a missed deadline that counts: the
    card of a person's turn whose deadline passed (read before the answer is applied)."""
    game = table.game
    if not counts(table) or game is None or not table.in_game:
        return False
    person = table.seats[seat]
    return (
        game.phase is Phase.PLAY
        and game.turn == seat
        and person.occupant == "person"
        and not person.is_bot_controlled  # a bot playing for an emptied seat has no deadline
    )


def missed(table: Table, seat: int) -> int | None:
    """Count ``seat``'s team's missed deadline; the team if it now forfeits (else None)."""
    game = table.game
    assert game is not None
    team = game.team_of(seat)
    table.missed[team] += 1
    if table.missed[team] >= FORFEIT_AFTER and table.in_game:
        return team
    return None


def shown_over(table: Table, view: dict[str, Any]) -> None:
    """A forfeited game's public view (``GameView`` fields) shows it over, though no rule of
    R12 ended it: finished, nobody to act, the other team the winner."""
    if table.ended is not None:  # as a client following the events makes it (protocol.follow)
        view.update(forfeited(1 - table.ended["team"]))


def decided(table: Table, seat: int) -> bool:
    """A person of ``seat``'s team made a decision: the team's count starts again (True: the
    count changed)."""
    game = table.game
    if not counts(table) or game is None:
        return False
    team = game.team_of(seat)
    if not table.missed[team]:
        return False
    table.missed[team] = 0
    return True
