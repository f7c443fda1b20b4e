"""Chances a card-counting bot needs: who may hold a rank, and what a card is worth (R11).

Two small tables, computed once at import:

- `chance_holds(unseen, of_rank, hand)`: the hypergeometric chance that a hand of ``hand``
  cards drawn from ``unseen`` cards holds at least one of ``of_rank`` given ones. The unseen
  cards are exchangeable from one seat's point of view, so this is exact for "the next player
  holds a card of this rank" when nothing else is known.
- `count_margin(own, other, dealer_own)`: the expected card-count points (R11) of a team
  minus those of the other, given the two piles now and assuming each remaining card goes
  to either team with even chance. Its differences are what one more card is worth: little
  far from 20, most around 20, which is how a bot "values progress toward 20 cards".
"""

from __future__ import annotations

from functools import lru_cache
from math import comb

from engine.scoring import count_points


@lru_cache(maxsize=4096)
def chance_holds(unseen: int, of_rank: int, hand: int) -> float:
    """Return the chance a random ``hand`` of the ``unseen`` cards holds one of ``of_rank``."""
    if of_rank <= 0 or hand <= 0:
        return 0.0
    if hand > unseen:
        hand = unseen
    return 1.0 - comb(unseen - of_rank, hand) / comb(unseen, hand)


def _margin(own: int, other: int, dealer_own: bool) -> float:
    remaining = max(0, 40 - own - other)
    dealer_team = 0 if dealer_own else 1
    total = 0.0
    weight = 0.5**remaining
    for gained in range(remaining + 1):
        mine, theirs = count_points((own + gained, other + remaining - gained), dealer_team)
        total += comb(remaining, gained) * weight * (mine - theirs)
    return total


#: `count_margin` as a table: ``MARGINS[dealer_own][own][other]``, piles from 0 to 40 (for
#: loops that look it up many times).
MARGINS: tuple[tuple[tuple[float, ...], ...], ...] = tuple(
    tuple(tuple(_margin(own, other, dealer) for other in range(41)) for own in range(41))
    for dealer in (False, True)
)


def count_margin(own: int, other: int, dealer_own: bool) -> float:
    """Return the expected count points (R11) of a team minus the other's, given the piles."""
    return MARGINS[dealer_own][min(own, 40)][min(other, 40)]
