"""The rest of the hand, learned from self-play: level 6's evaluation of a packet's end.

Level 5 values a playout that stops when the next packet is dealt by the chance of winning
once the hand is counted (`deep.chance_of`), assuming every card not yet won goes to either
team with even chance and nothing more is scored in the hand. Level-3 self-play says
otherwise: the cards left on the table at the packet's end favour the team that leads the
next packet (R4: the dealer's left), some cards are never won (R11: the table at the end goes
to nobody), and the packets still to come bring their own caídas, limpias and rondas
(R6, R9, R10), 3-4 points a team in pagat-4p's second packet.

The model (`model`) holds, per profile, packets still to play and cards on the table (capped
at `TABLE_CAP`), what the rest of the hand gave in self-play: the cards each team won and the
points each scored (leading team first). `cuarenta train` (`engine.bots.train`) writes it
from a seed: tens of KB of counts in ``rest_of_hand.json`` beside this module, read once,
with no download and nothing beyond the standard library. `rest_chance` then
averages `winchance.win_chance` over that distribution, the cards counted by R11 on the
piles they would make; cards and points are taken as independent (their joint table would
be too large to average at every playout's end).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path

from engine.bots.winchance import win_chance
from engine.scoring import count_points

#: tables of more cards than this share one entry (rare: a few in a thousand packets).
TABLE_CAP = 8
#: fewer self-play packets than this under a key: the even-chance model stands instead.
LEAST_SAMPLES = 100
#: where `cuarenta train` writes the model and `model` reads it.
MODEL_PATH = Path(__file__).with_name("rest_of_hand.json")

#: (cards won by the leading team, by the dealing team, times seen)
Cards = tuple[tuple[int, int, int], ...]
#: (points scored by the leading team, by the dealing team, times seen)
Points = tuple[tuple[int, int, int], ...]


def key_of(packets_left: int, table_size: int) -> str:
    """Return the model's key for a packet about to be played (``packets_left`` with it)."""
    return f"{packets_left},{min(table_size, TABLE_CAP)}"


@lru_cache(maxsize=1)
def model() -> Mapping[str, Mapping[str, tuple[Cards, Points]]]:
    """Return the trained model: profile -> key -> (cards, points) distributions."""
    if not MODEL_PATH.exists():
        return {}
    raw = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    out: dict[str, dict[str, tuple[Cards, Points]]] = {}
    for profile, entries in raw["profiles"].items():
        out[profile] = {
            key: (
                tuple((a, b, n) for a, b, n in entry["cards"]),
                tuple((a, b, n) for a, b, n in entry["points"]),
            )
            for key, entry in entries.items()
            if entry["samples"] >= LEAST_SAMPLES
        }
    return out


def known(profile: str, key: str) -> bool:
    """Tell whether the model has enough self-play for this packet (`key_of`; else level 5's
    even split stands)."""
    return key in model().get(profile, {})


@lru_cache(maxsize=65536)
def rest_chance(
    profile: str,
    key: str,
    own: int,
    other: int,
    own_pile: int,
    other_pile: int,
    own_deals: bool,
    zero_at_38: bool,
) -> float:
    """Return the chance of winning the game, for a team at ``own`` against ``other`` with
    those piles, when the rest of the hand goes as it went in self-play (`key_of`): each
    count (R11) the cards' distribution gives, by its chance, after the points (`_scored`).

    The team deals now iff ``own_deals`` (the other team leads, R4); after the count the deal
    passes left (R12). ``zero_at_38``: a team at 38 scores no cards (R11, pagat profiles).
    """
    cards = model()[profile][key][0]
    dealer_team = 0 if own_deals else 1
    counts: dict[tuple[int, int], int] = {}
    for lead, dealing, times in cards:
        mine, theirs = (dealing, lead) if own_deals else (lead, dealing)
        pair = count_points((own_pile + mine, other_pile + theirs), dealer_team)
        counts[pair] = counts.get(pair, 0) + times
    total = sum(counts.values())
    return (
        math.fsum(
            times * _scored(profile, key, own, other, mine, theirs, own_deals, zero_at_38)
            for (mine, theirs), times in counts.items()
        )
        / total
    )


@lru_cache(maxsize=65536)
def _scored(
    profile: str,
    key: str,
    own: int,
    other: int,
    count_own: int,
    count_other: int,
    own_deals: bool,
    zero_at_38: bool,
) -> float:
    """The chance of winning once the rest of the hand's points (by their chance) and then
    the count ``count_own``, ``count_other`` are scored."""
    points = model()[profile][key][1]
    total = 0.0
    weight = 0
    for lead, dealing, times in points:
        got, gave = (dealing, lead) if own_deals else (lead, dealing)
        score, against = own + got, other + gave
        mine = 0 if zero_at_38 and score == 38 else count_own
        theirs = 0 if zero_at_38 and against == 38 else count_other
        total += times * win_chance(profile, score + mine, against + theirs, not own_deals)
        weight += times
    return total / weight
