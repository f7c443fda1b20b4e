"""Why a capture is illegal: the message for a refused `Play` (R7, R8).

Legality itself comes from `engine.captures` (a take is legal iff it is one of the listed
captures); this module only turns a refusal into words that name the rule broken.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import TYPE_CHECKING

from engine.cards import card_code, value_of

if TYPE_CHECKING:
    from engine.state import GameState


def why_not_capture(game: GameState, card: int, take: Collection[int]) -> tuple[str, str]:
    """Return (rule, reason) for a take that is not a legal capture with ``card``."""
    played = card_code(card)
    for each in take:
        if type(each) is not int or each not in game.table:
            shown = card_code(each) if type(each) is int and 0 <= each < 40 else repr(each)
            return "R7", f"{shown} is not on the table"
    rank = card >> 2
    same = [c for c in take if c >> 2 == rank]
    lower = [c for c in take if c >> 2 < rank]
    higher = sorted(c >> 2 for c in take if c >> 2 > rank)
    if len(same) > 1:
        return "R7", "a match basis takes exactly one card of the played rank, never two"
    if same and lower:
        return "R7", "never combine two bases (a match and a sum)"
    if not same:
        value = value_of(rank)
        if not lower:
            return "R7", "a sequence alone never captures: a capture needs a match or sum basis"
        if value is None:
            return "R7", f"{played} is a figure: it cannot make a sum"
        total = sum((c >> 2) + 1 for c in lower)
        if len(lower) < 2 or total != value:
            return "R7", (
                f"a sum basis is one group of two or more cards adding up to {value} "
                f"(these add up to {total})"
            )
    if higher != list(range(rank + 1, rank + 1 + len(higher))):
        return "R7", (
            "a sequence runs unbroken upward from the rank above the played card, "
            "one card of each rank"
        )
    if game.rules.sequence == "auto":
        return "R8", "with sequence = auto a capture must take the longest sequence"
    return "R7", f"not a capture with {played}"
