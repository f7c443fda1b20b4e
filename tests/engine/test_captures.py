"""R7/R8 capture enumeration against an oracle written straight from the rules text."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.captures import (
    captures,
    check_capture,
    low_code,
    missed_cards,
    table_code,
    usable_sums,
)
from engine.corecaps import capture_masks
from engine.legal import cards_of as legal_cards_of
from tests.strategies import tables


def by_rank_of(table: list[int]) -> list[list[int]]:
    by_rank: list[list[int]] = [[] for _ in range(10)]
    for card in table:
        by_rank[card >> 2].append(card)
    return by_rank


def is_basis(rank: int, group: tuple[int, ...]) -> bool:
    """R7: exactly one card of the played rank, or 2+ numeric cards adding up to its value."""
    if len(group) == 1 and group[0] >> 2 == rank:
        return True
    numeric = all(c >> 2 <= 6 for c in group) and rank <= 6
    return numeric and len(group) >= 2 and sum((c >> 2) + 1 for c in group) == rank + 1


def run_length(table: list[int], rank: int, exclude: set[int]) -> int:
    ranks = {c >> 2 for c in table if c not in exclude}
    length = 0
    while rank + 1 + length <= 9 and rank + 1 + length in ranks:
        length += 1
    return length


def oracle(card: int, table: list[int], manual: bool) -> set[frozenset[int]]:
    """Every legal take, by brute force over the table's subsets (R7, R8)."""
    rank = card >> 2
    legal = set()
    for size in range(1, len(table) + 1):
        for take in combinations(table, size):
            for basis_size in range(1, size + 1):
                for basis in combinations(take, basis_size):
                    if not is_basis(rank, basis):
                        continue
                    rest = sorted(c >> 2 for c in take if c not in basis)
                    if rest != list(range(rank + 1, rank + 1 + len(rest))):
                        continue
                    longest = run_length(table, rank, set(basis))
                    if manual or len(rest) == longest:
                        legal.add(frozenset(take))
    return legal


def cards_of(mask: int) -> frozenset[int]:
    return frozenset(c for c in range(40) if mask >> c & 1)


@settings(max_examples=100, deadline=None)
@given(tables(max_size=8), st.booleans())
def test_captures_are_exactly_the_takes_the_rules_allow_R7_R8(
    position: tuple[int, list[int]], manual: bool
) -> None:
    card, table = position
    listed = captures(by_rank_of(table), card >> 2, manual, forfeit=True)
    masks = [mask for mask, _, _ in listed]
    assert len(masks) == len(set(masks)), "each capture is listed once"
    assert {cards_of(mask) for mask in masks} == oracle(card, table, manual)


@settings(max_examples=80, deadline=None)
@given(tables(max_size=8), st.booleans(), st.booleans())
def test_the_direct_check_agrees_with_the_listing_on_every_take_R7_R8(
    position: tuple[int, list[int]], manual: bool, forfeit: bool
) -> None:
    card, table = position
    by_rank = by_rank_of(table)
    listed = {mask: missed for mask, missed, _ in captures(by_rank, card >> 2, manual, forfeit)}
    for size in range(len(table) + 1):
        for take in combinations(table, size):
            mask = sum(1 << c for c in take)
            missed = check_capture(by_rank, card >> 2, take, manual, forfeit) if take else None
            assert missed == listed.get(mask), (take, missed, listed.get(mask))


@settings(max_examples=60, deadline=None)
@given(tables(max_size=9))
def test_missed_cards_are_the_oldest_card_of_each_rank_left_in_the_run_R8(
    position: tuple[int, list[int]],
) -> None:
    card, table = position
    by_rank = by_rank_of(table)
    for mask, missed, cards in captures(by_rank, card >> 2, manual=True, forfeit=True):
        taken = cards_of(mask)
        assert sorted(cards) == sorted(taken)
        for each in missed:
            assert each not in taken
            assert by_rank[each >> 2][0] == each  # laid first among its rank
        # the run resumes right above the last rank the sequence took (or the played card)
        last = max([card >> 2] + [c >> 2 for c in taken if c >> 2 > card >> 2])
        assert [m >> 2 for m in missed] == list(range(last + 1, last + 1 + len(missed)))


@settings(max_examples=150, deadline=None)
@given(tables(max_size=10), st.booleans())
def test_the_fast_masks_are_the_listed_captures_in_colex_order_R7_R8(
    position: tuple[int, list[int]], manual: bool
) -> None:
    card, table = position
    by_rank = by_rank_of(table)
    rank = card >> 2
    listed = captures(by_rank, rank, manual, forfeit=True)
    sums = usable_sums(low_code(by_rank))[rank]
    assert capture_masks(by_rank, rank, manual, sums) == sorted(mask for mask, _, _ in listed)
    for mask, missed, taken in listed:
        assert missed_cards(by_rank, rank, mask) == missed  # R8: read back from the mask
        assert legal_cards_of(mask) == tuple(sorted(taken))


@given(tables(max_size=40))
def test_the_table_code_is_the_per_rank_counts_in_base_5_and_the_low_code_its_a_to_6_part(
    drawn: tuple[int, list[int]],
) -> None:
    by_rank = by_rank_of(drawn[1])
    counts = [len(cards) for cards in by_rank]
    assert table_code(by_rank) == sum(count * 5**rank for rank, count in enumerate(counts))
    assert low_code(by_rank) == table_code(by_rank) % 5**6
