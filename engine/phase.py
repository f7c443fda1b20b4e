"""The phases of a game: who may act, and with which kind of action."""

from __future__ import annotations

from enum import StrEnum


class Phase(StrEnum):
    """What the game waits for."""

    ANNOUNCE = "announce"  # R6 manual announcements, one seat at a time
    PLAY = "play"  # R7 turns
    CLAIMS = "claims"  # R10 claim window, closed by the system action CloseClaims
    WAITING = "waiting"  # R15 a replayed record ran out of packs
    FINISHED = "finished"  # R12 a winner (or an R14 heads-up draw)
