"""Stacked positions for the terminal's pure tests, built by the real engine."""

from __future__ import annotations

from engine.game import Game
from tests.engine.helpers import act, deal


def worked_example() -> Game:
    """R7's worked example: table 2C 4D 7H JC (JC just trailed by seat 3), seat 0 to play
    holding 6S (sum 2C+4D, then the sequence 7H JC: limpia) and JS (match JC: caída)."""
    game = deal(
        3, {0: "2C 6S JS 3H 5D", 1: "4D 2H 3S QC KC", 2: "7H AS AD 3C QD", 3: "JC 5S 4H 6C KS"}
    )
    act(game, "0 2C", "1 4D", "2 7H", "3 JC")
    return game
