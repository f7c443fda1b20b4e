"""The captures as bare masks (`capture_masks`, `rank_capture_masks`): the hot path of every
legal list, the reference `Game`'s and the fast core's (`engine.core`) alike.

They live here, beside the core, so that mypyc compiles them with it; `engine.captures`
re-exports them beside the readable `captures` listing, and the tests hold the two to a
brute-force oracle.
"""

from __future__ import annotations

from itertools import combinations

Parts = tuple[tuple[int, int], ...]


def _mask(cards: tuple[int, ...] | list[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def capture_masks(
    by_rank: list[list[int]], rank: int, manual: bool, sums: tuple[Parts, ...]
) -> list[int]:
    """Return the masks of every distinct capture with a card of ``rank``, ascending (R7, R8).

    The same captures as `captures` (the readable reference, which the tests hold it to), as
    bare masks in colex order: the hot path of `legal_actions`. Bases and sequences are
    built as masks, one int per choice, never as card tuples. The missed cards of a capture
    (R8) follow from its mask: `missed_cards`.
    """
    matches = by_rank[rank]
    if len(matches) == 1:
        bases = [1 << matches[0]]
    else:
        bases = [1 << card for card in matches] if matches else []
    for parts in sums:
        mask = 0
        for part_rank, count in parts:
            cards = by_rank[part_rank]
            if len(cards) != count:
                break
            for card in cards:
                mask |= 1 << card
        else:
            bases.append(mask)  # each rank holds just the cards needed: one way only
            continue
        bases += _sum_masks(by_rank, parts)
    next_rank = rank + 1
    if not bases or next_rank > 9 or not by_rank[next_rank]:
        if len(bases) > 1:
            bases.sort()
        return bases  # no capture, or no sequence
    sequence = 0  # while each rank of the run has one card, the run is one mask
    prefixes = [0]
    choices: list[int] | None = None  # the run's masks once a rank offers a choice of copies
    while next_rank <= 9:
        cards = by_rank[next_rank]
        if not cards:
            break
        if choices is None and len(cards) == 1:
            sequence |= 1 << cards[0]
            if manual:
                prefixes.append(sequence)
        else:
            choices = [run | 1 << card for run in choices or (sequence,) for card in cards]
            if manual:
                prefixes += choices
        next_rank += 1
    if manual:
        out = [basis | end for basis in bases for end in prefixes]
    elif choices is not None:
        out = [basis | end for basis in bases for end in choices]
    elif len(bases) == 1:
        return [bases[0] | sequence]
    else:
        out = [basis | sequence for basis in bases]
    out.sort()
    return out


def _sum_masks(by_rank: list[list[int]], parts: Parts) -> list[int]:
    """Return every way to take the sum basis ``parts`` from the table, as masks (R7)."""
    ways = [0]
    for part_rank, count in parts:
        cards = by_rank[part_rank]
        if len(cards) == count:
            picks = [_mask(cards)]
        elif count == 1:
            picks = [1 << card for card in cards]
        elif len(cards) > count:
            picks = [_mask(group) for group in combinations(cards, count)]
        else:
            return []
        ways = [way | pick for way in ways for pick in picks]
    return ways


def rank_capture_masks(
    by_rank: list[list[int]], rank: int, manual: bool, sums: tuple[Parts, ...], caida: int = -1
) -> list[int]:
    """Return the masks of `rank_captures` (captures up to suits), ascending: its hot path.

    ``sums`` must be the usable sum bases of this table (`usable_sums`), so every part finds
    its cards; each rank's representatives are its cards longest on the table (R8).
    """
    bases = []
    matches = by_rank[rank]
    for card in matches:
        if card != caida:
            bases.append(1 << card)  # the plain match, on the oldest other copy
            break
    if caida in matches:
        bases.append(1 << caida)  # the caída match (R9): a different outcome
    for parts in sums:
        mask = 0
        for part_rank, count in parts:
            cards = by_rank[part_rank]
            for index in range(count):
                mask |= 1 << cards[index]
        bases.append(mask)
    if not bases:
        return bases
    sequence = 0
    ends = [0]
    next_rank = rank + 1
    while next_rank <= 9 and by_rank[next_rank]:
        sequence |= 1 << by_rank[next_rank][0]
        ends.append(sequence)
        next_rank += 1
    if not manual:
        ends = [sequence]
    out = [basis | end for basis in bases for end in ends]
    out.sort()
    return out
