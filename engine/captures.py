"""Capture enumeration (R7, R8): every distinct capture a played rank can make on a table.

The table is held as ``by_rank``: for each rank the table cards of that rank, oldest first.
Sum bases come from `SUM_PARTS`, the partitions of each value precomputed once, so finding
them is a few length checks instead of a search over subsets of the table.
A capture is a bit mask of the table cards taken (bit ``c`` for card ``c``) plus the missed
sequence cards it leaves (R8, ``sequence = manual``).

`captures` and `rank_captures` are the readable references (the tests hold them to a brute
force oracle); `engine.corecaps.capture_masks` and `rank_capture_masks` list the same captures
as bare masks, the form `legal_actions` and `apply` use (compiled with the fast core), and
`missed_cards` reads a capture's missed cards back from its mask.
"""

from __future__ import annotations

from itertools import combinations, product
from operator import mul
from typing import Final

Capture = tuple[int, tuple[int, ...], tuple[int, ...]]
"""(mask of the table cards taken, missed sequence cards left for the other team, the cards
taken: basis first, then the sequence upward)."""


def _partitions(value: int, largest: int) -> list[list[int]]:
    """Return the partitions of ``value`` into parts no larger than ``largest``, largest first."""
    if value == 0:
        return [[]]
    out = []
    for part in range(min(value, largest), 0, -1):
        out += [[part, *rest] for rest in _partitions(value - part, part)]
    return out


def _sum_parts(rank: int) -> tuple[tuple[tuple[int, int], ...], ...]:
    """Return, for a played numeric rank, each sum basis as ((rank, how many), …) (R7)."""
    value = rank + 1
    groups = []
    for parts in _partitions(value, value - 1):  # two or more parts: none equals the value
        counts = {part: parts.count(part) for part in parts}
        if max(counts.values()) <= 4:  # a rank has only four cards
            groups.append(tuple((part - 1, count) for part, count in sorted(counts.items())))
    return tuple(groups)


#: rank -> its sum bases; figures (J, Q, K) and A (value 1) have none (R2, R7).
SUM_PARTS: Final = tuple(_sum_parts(rank) if 1 <= rank <= 6 else () for rank in range(10))


Parts = tuple[tuple[int, int], ...]

_USABLE: dict[int, tuple[tuple[Parts, ...], ...]] = {}


#: What one table card of each rank adds to the table's code: a table's per-rank card counts
#: packed in base 5 (no rank has more than four cards). The one definition of that code, read by
#: `table_code`, `low_code` and `engine.game.Game.apply`'s running update of it.
RANK_UNIT: Final = tuple(5**rank for rank in range(10))
_LOW_UNIT: Final = RANK_UNIT[:6]


def table_code(by_rank: list[list[int]]) -> int:
    """Return the table's per-rank counts packed in base 5 (`RANK_UNIT`), all ten ranks."""
    return sum(map(mul, map(len, by_rank), RANK_UNIT))


def low_code(by_rank: list[list[int]]) -> int:
    """Return the table's code over ranks A-6 only (a key for `usable_sums`: the sum bases)."""
    return sum(map(mul, map(len, by_rank), _LOW_UNIT))


def usable_sums(code: int) -> tuple[tuple[Parts, ...], ...]:
    """Return, per played rank, the sum bases a table with these low counts can make.

    Memoised by `low_code` (at most 5**6 tables), so a play's sum bases are found by one dict
    lookup instead of checking every partition against the table.
    """
    usable = _USABLE.get(code)
    if usable is None:
        counts = [code // unit % 5 for unit in _LOW_UNIT]
        usable = _USABLE[code] = tuple(
            tuple(
                parts
                for parts in SUM_PARTS[rank]
                if all(counts[part_rank] >= count for part_rank, count in parts)
            )
            for rank in range(10)
        )
    return usable


def _mask(cards: tuple[int, ...] | list[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


Basis = tuple[int, tuple[int, ...]]
"""(mask, cards) of one basis."""


def _sum_bases(by_rank: list[list[int]], sums: tuple[Parts, ...]) -> list[Basis]:
    bases: list[Basis] = []
    for parts in sums:
        mask = 0  # when each rank has just the cards needed, there is one way only
        taken: list[int] = []
        for part_rank, count in parts:
            cards = by_rank[part_rank]
            if len(cards) != count:
                break
            for card in cards:
                mask |= 1 << card
            taken += cards
        else:
            bases.append((mask, tuple(taken)))
            continue
        choices = [list(combinations(by_rank[part_rank], count)) for part_rank, count in parts]
        for picked in product(*choices):
            group = tuple(card for part in picked for card in part)
            bases.append((_mask(group), group))
    return bases


def captures(
    by_rank: list[list[int]],
    rank: int,
    manual: bool,
    forfeit: bool,
    sums: tuple[Parts, ...] | None = None,
) -> list[Capture]:
    """Return every distinct capture with a card of ``rank`` (R7), in a deterministic order.

    ``manual`` lets a capture stop its sequence early (R8 ``sequence = manual``); ``forfeit``
    reports the rest of the run as missed cards (one per rank, the oldest on the table).
    ``sums`` are the usable sum bases (`usable_sums`), computed here when not given.
    """
    if sums is None:
        sums = usable_sums(low_code(by_rank))[rank]
    bases: list[Basis] = [(1 << card, (card,)) for card in by_rank[rank]]
    if sums:
        bases += _sum_bases(by_rank, sums)
    if not bases:
        return []
    run: list[list[int]] = []
    next_rank = rank + 1
    while next_rank <= 9 and by_rank[next_rank]:
        run.append(by_rank[next_rank])
        next_rank += 1
    if not run:
        return [(mask, (), cards) for mask, cards in bases]
    if not manual:
        sequence = 0
        for cards in run:
            if len(cards) != 1:
                return [
                    (mask | _mask(seq), (), basis + seq)
                    for mask, basis in bases
                    for seq in product(*run)
                ]
            sequence |= 1 << cards[0]
        tail = tuple(cards[0] for cards in run)
        return [(mask | sequence, (), basis + tail) for mask, basis in bases]
    out: list[Capture] = []
    for length in range(len(run) + 1):
        missed = tuple(cards[0] for cards in run[length:]) if forfeit else ()
        for seq in product(*run[:length]):
            sequence = _mask(seq)
            out += [(mask | sequence, missed, basis + seq) for mask, basis in bases]
    return out


def missed_cards(by_rank: list[list[int]], rank: int, mask: int) -> tuple[int, ...]:
    """Return the missed cards (R8) a legal capture ``mask`` with ``rank`` leaves: the rest of
    the run above its sequence, the card longest on the table of each rank."""
    end = rank + 1
    while end <= 9 and (mask >> (4 * end)) & 15:  # the sequence takes one card of each rank
        end += 1
    missed = []
    while end <= 9 and by_rank[end]:
        missed.append(by_rank[end][0])
        end += 1
    return tuple(missed)


def can_capture(by_rank: list[list[int]], rank: int) -> bool:
    """Tell whether a card of ``rank`` has any capture (R13 ``capture_mandatory``)."""
    if by_rank[rank]:
        return True
    for parts in SUM_PARTS[rank]:
        for part_rank, count in parts:
            if len(by_rank[part_rank]) < count:
                break
        else:
            return True
    return False


def check_capture(
    by_rank: list[list[int]], rank: int, taken: tuple[int, ...], manual: bool, forfeit: bool
) -> tuple[int, ...] | None:
    """Return the missed cards if ``taken`` (table cards) is a legal capture with ``rank``, else
    None. The direct test behind `captures`, in time linear in the cards taken."""
    match = 0
    total = 0
    lower = 0
    higher: list[int] = []
    for card in taken:
        card_rank = card >> 2
        if card_rank == rank:
            match += 1
        elif card_rank < rank:
            lower += 1
            total += card_rank + 1
        else:
            higher.append(card_rank)
    if match == 1 and not lower:
        pass  # a match basis (R7)
    elif match or lower < 2 or total != rank + 1 or rank > 6:
        return None  # no basis, two bases, or a sum that is not the played value (R7)
    higher.sort()
    if higher != list(range(rank + 1, rank + 1 + len(higher))):
        return None  # the sequence must run unbroken from the rank above the played card
    end = rank + 1
    while end <= 9 and by_rank[end]:
        end += 1
    available = end - rank - 1
    if len(higher) == available:
        return ()
    if not manual:
        return None  # R8: sequence = auto takes the longest run
    if not forfeit:
        return ()
    return tuple(by_rank[next_rank][0] for next_rank in range(rank + 1 + len(higher), end))


def rank_captures(
    by_rank: list[list[int]],
    rank: int,
    manual: bool,
    forfeit: bool,
    sums: tuple[Parts, ...] | None = None,
    caida: int = -1,
) -> list[Capture]:
    """Return one capture per rank multiset of the take with a card of ``rank`` (R2, R7).

    Captures that differ only by which copy of an equal-rank table card they take change
    nothing in play (R2: suits never matter), yet their number grows with the product of the
    copies; this list grows only with the sum bases and the run, so no table can make it
    explode. Each rank's representatives are the cards longest on the table (R8's tie rule).
    The one card whose copy matters is ``caida``, the card the previous player just trailed:
    taking it by match is a caída (R9, R10), so its match is offered beside the match on the
    oldest other copy (a different outcome, however poor).
    """
    if sums is None:
        sums = usable_sums(low_code(by_rank))[rank]
    bases: list[Basis] = []
    matches = by_rank[rank]
    plain = next((card for card in matches if card != caida), None)
    if plain is not None:
        bases.append((1 << plain, (plain,)))
    if caida in matches:
        bases.append((1 << caida, (caida,)))
    for parts in sums:
        group = tuple(card for part_rank, count in parts for card in by_rank[part_rank][:count])
        bases.append((_mask(group), group))
    if not bases:
        return []
    run: list[int] = []
    next_rank = rank + 1
    while next_rank <= 9 and by_rank[next_rank]:
        run.append(by_rank[next_rank][0])
        next_rank += 1
    out: list[Capture] = []
    for length in range(len(run) + 1) if manual else (len(run),):
        sequence = tuple(run[:length])
        sequence_mask = _mask(sequence)
        missed = tuple(run[length:]) if forfeit else ()
        out += [(mask | sequence_mask, missed, basis + sequence) for mask, basis in bases]
    return out
