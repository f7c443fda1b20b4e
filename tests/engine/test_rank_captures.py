"""Captures up to suit-equivalence (R2, R7): what servers offer and bots choose from.

The complete list (`legal_actions()`, R15) names every distinct set of table cards; on a
crowded table with equal-rank copies it explodes. The offered list (`by_rank=True`) keeps
one capture per played card and rank multiset of the take, on the oldest copies (R8's tie
rule), plus the caída match on the card just trailed (R9). `apply` still takes any legal take.
"""

from __future__ import annotations

from collections.abc import Iterable

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Game, Play
from engine.captures import (
    Capture,
    captures,
    low_code,
    rank_captures,
    usable_sums,
)
from engine.cards import parse_card
from engine.corecaps import rank_capture_masks
from engine.events import Played
from tests.engine.helpers import act, cards, deal
from tests.engine.test_captures import by_rank_of
from tests.strategies import tables

AH, FIVE = parse_card("AH"), parse_card("5H")


def kind(capture: Capture, caida: int) -> tuple[tuple[int, ...], bool]:
    """A capture's class: the ranks it takes, and whether its match is the caída (R9)."""
    mask, _, taken = capture
    return tuple(sorted(c >> 2 for c in taken)), (mask >> caida) & 1 == 1 if caida >= 0 else False


def kinds(listed: Iterable[Capture], rank: int, caida: int) -> set[tuple[tuple[int, ...], bool]]:
    # only a match on the caída card is a caída (R9): by sum or sequence it is not
    return {
        (ranks, hit and ranks.count(rank) == 1 and caida >> 2 == rank)
        for ranks, hit in (kind(capture, caida) for capture in listed)
    }


@settings(max_examples=80, deadline=None)
@given(tables(max_size=9), st.booleans(), st.booleans(), st.integers(-1, 8))
def test_one_capture_per_rank_multiset_on_the_oldest_copies_R2_R7_R8(
    position: tuple[int, list[int]], manual: bool, forfeit: bool, last: int
) -> None:
    card, table = position
    rank = card >> 2
    caida = table[last] if 0 <= last < len(table) else -1  # some card just trailed, or none
    by_rank = by_rank_of(table)
    complete = {
        mask: (missed, taken) for mask, missed, taken in captures(by_rank, rank, manual, forfeit)
    }
    offered = rank_captures(by_rank, rank, manual, forfeit, caida=caida)
    assert len({mask for mask, _, _ in offered}) == len(offered), "each capture offered once"
    assert kinds(offered, rank, caida) == kinds(
        ((mask, *rest) for mask, rest in complete.items()), rank, caida
    ), "every class of capture is offered, once"
    for mask, missed, taken in offered:
        assert mask in complete  # a legal take (R7)
        assert complete[mask][0] == missed  # the same missed cards (R8)
        for each in taken:
            if each != caida:  # the oldest copies, the caída card aside (R8, R9)
                copies = [c for c in by_rank[each >> 2] if c != caida]
                assert copies.index(each) < sum(1 for c in taken if c >> 2 == each >> 2)


def crowded() -> Game:
    """Seat 0 leads packet 2 onto 20 trailed cards: two copies of every rank, clubs first."""
    game = deal(
        3,
        {0: "AC 2C 3C 4C 5C", 1: "6C 7C JC QC KC", 2: "AD 2D 3D 4D 5D", 3: "6D 7D JD QD KD"},
        {0: "AH 2H 3H 4H 5H"},
    )
    first = {0: "AC 2C 3C 4C 5C", 1: "6C 7C JC QC KC", 2: "AD 2D 3D 4D 5D", 3: "6D 7D JD QD KD"}
    for i in range(5):
        act(game, *(f"{seat} {first[seat].split()[i]}" for seat in range(4)))
    assert len(game.table) == 20
    assert game.turn == 0
    return game


def test_a_crowded_table_offers_a_few_captures_out_of_thousands_R2_R7() -> None:
    game = crowded()
    complete = game.legal_actions(0)
    offered = game.copy().legal_actions(0, by_rank=True)
    assert len(complete) > 3000
    assert len(offered) == 5 + 1 + 2 + 2 + 4 + 5  # trails; AH; 2H; 3H; 4H; 5H by ranks
    assert set(offered) <= set(complete)
    assert [a for a in offered if isinstance(a, Play) and not a.take] == [
        a for a in complete if isinstance(a, Play) and not a.take
    ]
    for action in offered:  # every offered action applies
        assert isinstance(action, Play)
        played = [e for e in game.copy().apply(action) if isinstance(e, Played)]
        assert played[0].take == tuple(sorted(action.take))


def test_offered_captures_take_the_oldest_copies_and_other_suits_apply_too_R2_R8() -> None:
    game = crowded()
    plays = [a for a in game.legal_actions(0, by_rank=True) if isinstance(a, Play)]
    longest = max(plays, key=lambda a: len(a.take))
    assert longest == Play(0, AH, cards("AC 2C 3C 4C 5C 6C 7C JC QC KC"))
    same_ranks = Play(0, AH, cards("AD 2D 3C 4D 5C 6D 7C JD QC KD"))
    events = game.apply(same_ranks)  # apply accepts any legal take, not only the offered ones
    played = next(e for e in events if isinstance(e, Played))
    assert played.limpia is False
    assert len(played.take) == 10
    assert sorted(game.table) == sorted(cards("AC 2C 3D 4C 5D 6C 7D JC QD KC"))


def test_the_caida_match_is_offered_beside_the_oldest_copy_R9() -> None:
    game = deal(3, {0: "5C", 1: "KC", 2: "5D", 3: "5H"})
    act(game, "0 5C", "1 KC", "2 5D")  # 5D is the card just trailed
    offered = [a for a in game.legal_actions(3, by_rank=True) if isinstance(a, Play)]
    fives = [a.take for a in offered if a.card == FIVE and a.take]
    assert fives == [cards("5C"), cards("5D")]
    plain = next(e for e in game.copy().apply(Play(3, FIVE, cards("5C"))) if isinstance(e, Played))
    caida = next(e for e in game.apply(Play(3, FIVE, cards("5D"))) if isinstance(e, Played))
    assert (plain.caida, plain.points) == (False, 0)
    assert (caida.caida, caida.points) == (True, 2)


@settings(max_examples=120, deadline=None)
@given(tables(max_size=10), st.booleans(), st.integers(-1, 9))
def test_the_fast_masks_are_the_offered_captures_in_colex_order_R2_R7(
    position: tuple[int, list[int]], manual: bool, last: int
) -> None:
    card, table = position
    rank = card >> 2
    caida = table[last] if 0 <= last < len(table) else -1
    by_rank = by_rank_of(table)
    sums = usable_sums(low_code(by_rank))[rank]
    offered = rank_captures(by_rank, rank, manual, False, sums, caida)
    fast = rank_capture_masks(by_rank, rank, manual, sums, caida)
    assert fast == sorted(mask for mask, _, _ in offered)
