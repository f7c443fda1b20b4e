"""Cards as small ints (R2): the one place that knows card codes.

A card is an int ``0..39``: ``rank = card // 4`` (0=A, 1=2, …, 6=7, 7=J, 8=Q, 9=K) and
``suit = card % 4`` (0=C, 1=D, 2=H, 3=S). Ints keep hands, tables and capture tables cheap;
codes such as ``"6S"`` exist only at the edges (records, text forms, the wire).

>>> parse_card("6s"), card_code(23)
(23, '6S')
>>> [value_of(rank_of(parse_card(code))) for code in ("AC", "7H", "JD")]
[1, 7, None]
"""

from __future__ import annotations

from collections.abc import Iterable

from engine.errors import IllegalAction

RANKS = "A234567JQK"
SUITS = "CDHS"
DIAMONDS = 1
DECK: tuple[int, ...] = tuple(range(40))
FIGURES = frozenset({7, 8, 9})

_CODES: tuple[str, ...] = tuple(r + s for r in RANKS for s in SUITS)
_BY_CODE: dict[str, int] = {code: card for card, code in enumerate(_CODES)}


def rank_of(card: int) -> int:
    """Return the rank index (0 = A … 9 = K) in R2 sequence order."""
    return card >> 2


def suit_of(card: int) -> int:
    """Return the suit index (0 = C, 1 = D, 2 = H, 3 = S)."""
    return card & 3


def value_of(rank: int) -> int | None:
    """Return a rank's numeric value for sums (R2): A=1 … 7=7, figures None."""
    return rank + 1 if rank <= 6 else None


def card_code(card: int) -> str:
    """Return the upper-case code of a card (R2 writers emit upper case)."""
    return _CODES[card]


def card_by_code(text: str) -> int:
    """Return the card of an upper-case code, or -1 for anything else (a fast lookup)."""
    return _BY_CODE.get(text, -1)


def parse_card(text: str) -> int:
    """Read a card code in either case (R2); an unknown code is an `IllegalAction`."""
    card = _BY_CODE.get(text.upper()) if isinstance(text, str) else None
    if card is None:
        raise IllegalAction("R2", f"{text!r} is not a card code (rank A234567JQK + suit CDHS)")
    return card


def parse_rank(text: str) -> int:
    """Read a rank letter in either case (R2)."""
    index = RANKS.find(text.upper()) if isinstance(text, str) and len(text) == 1 else -1
    if index < 0:
        raise IllegalAction("R2", f"{text!r} is not a rank (one of A234567JQK)")
    return index


def codes(cards: Iterable[int]) -> list[str]:
    """Return the codes of cards in the given order."""
    return list(map(_CODES.__getitem__, cards))


def cards_text(cards: Iterable[int]) -> str:
    """Return cards as space-separated codes, sorted (a one-line text form)."""
    return " ".join(_CODES[card] for card in sorted(cards))
