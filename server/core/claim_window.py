"""When the R10 claim window has nothing left to wait for, so the table closes it at once.

The window closes with the same ``CloseClaims`` system action its clock issues (the engine's
rules and the R15 record are unchanged); only the moment moves earlier:

- no claim can score: no team below 30 holds an unclaimed ronda-caída event with its claiming
  still open (a valid claim at 30 or more scores nothing, a wrong claim ends the team's claiming);
- every seat that may still claim is done: a bot (or the stand-in of an absent person) declined,
  a person sent ``no_claim``.
"""

from __future__ import annotations

from collections.abc import Collection

from engine.game import Game
from engine.phase import Phase


def nothing_can_score(game: Game) -> bool:
    """True when no claim could add a point (R10: +10 only below 30)."""
    return all(game.scores[team] >= 30 for team, _rank in game.r10_open)


def claim_window_done(game: Game, done: Collection[int]) -> bool:
    """True when the open claim window waits for nobody: it may close now."""
    if game.phase is not Phase.CLAIMS:
        return False
    if nothing_can_score(game):
        return True
    return all(index in done for index in game.to_act())
