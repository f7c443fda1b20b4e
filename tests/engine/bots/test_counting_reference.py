"""Level 3's fast appraisal (per-rank counts, shared work) against a plain reference (R7, R9, R11).

The reference below is the list-based reckoning level 3 was first written with: it copies the
table per play and scans it per rank. The fast one must give bit-identical worths, since a
tie or a rounding difference would change which play the bots choose.
"""

from __future__ import annotations

import random
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Action, Event, Game, Phase
from engine.actions import Play
from engine.bots.counting import (
    GIFT,
    WIN_VALUE,
    Position,
    appraise,
    best_play,
    position_of,
    ranked_plays,
)
from engine.bots.odds import chance_holds, count_margin
from engine.bots.playout import Played, position_in
from engine.captures import SUM_PARTS
from engine.rules import resolve_rules
from engine.scoring import play_points
from tests.strategies import play_randomly, random_games


def _sequence_after(table: list[list[int]], rank: int) -> int:
    length = 0
    rank += 1
    while rank <= 9 and table[rank]:
        length += 1
        rank += 1
    return length


def _largest_sum(table: list[list[int]], rank: int) -> int:
    best = 0
    for parts in SUM_PARTS[rank]:
        cards = 0
        for part_rank, count in parts:
            if len(table[part_rank]) < count:
                break
            cards += count
        else:
            best = max(best, cards)
    return best


def _reply_risk(
    pos: Position, table: list[list[int]], size: int, target: int, pile: int, other_pile: int
) -> float:
    if pos.next_hand == 0 or size == 0:
        return 0.0
    rules, other, dealer_own = pos.rules, pos.other_score, pos.dealer_own
    base = count_margin(pile, other_pile, dealer_own)
    target_rank = target >> 2 if target >= 0 else -1
    replies: list[tuple[float, int]] = []
    for rank in range(10):
        held = pos.unseen[rank]
        if held == 0:
            continue
        bases = []
        if table[rank]:
            bases.append((1, rank == target_rank))
        if 1 <= rank <= 6:
            largest = _largest_sum(table, rank)
            if largest:
                bases.append((largest, False))
        if not bases:
            continue
        sequence = _sequence_after(table, rank)
        best = 0.0
        for basis, caida in bases:
            taken = basis + sequence
            points = play_points(rules, other, caida, taken == size)
            value = points + base - count_margin(pile, other_pile + taken + 1, dealer_own)
            if other + points >= rules.target:
                value += WIN_VALUE
            best = max(best, value)
        replies.append((best, held))
    replies.sort(reverse=True)
    risk, none_yet = 0.0, 1.0
    for value, held in replies:
        chance = chance_holds(pos.unseen_total, held, pos.next_hand)
        risk += none_yet * chance * value
        none_yet *= 1.0 - chance
    return risk


def reference_appraise(pos: Position, play: Play) -> float:
    table = pos.by_rank
    rank = play.card >> 2
    after = [cards[:] for cards in table]
    if play.take:
        for card in play.take:
            after[card >> 2].remove(card)
        target = pos.caida_target
        caida = target >= 0 and target >> 2 == rank and target in play.take
        size = pos.table_size - len(play.take)
        points = play_points(pos.rules, pos.score, caida, size == 0)
        pile = pos.pile + len(play.take) + 1
        missed = []  # R8: the rest of the run, which the other team takes before the reply
        if pos.rules.sequence == "manual" and pos.rules.forfeiture and size:
            end = rank + 1
            while end <= 9 and any(card >> 2 == end for card in play.take):
                end += 1
            while end <= 9 and after[end]:
                missed.append(after[end].pop(0))
                end += 1
        other_pile = pos.other_pile + len(missed)
        value = points + count_margin(pile, other_pile, pos.dealer_own)
        value -= count_margin(pos.pile, pos.other_pile, pos.dealer_own)
        if pos.score + points >= pos.rules.target:
            return WIN_VALUE + points
        value -= _reply_risk(pos, after, size - len(missed), -1, pile, other_pile)
        return value - GIFT if missed else value
    after[rank].append(play.card)
    target = play.card if pos.caida_next else -1
    return -_reply_risk(pos, after, pos.table_size + 1, target, pos.pile, pos.other_pile)


@st.composite
def positions_and_plays(draw: st.DrawFn) -> tuple[Position, list[Play]]:
    """A table, the unseen cards and a few plays (trails and captures of table cards)."""
    deck = draw(st.permutations(range(40)))
    table = sorted(deck[: draw(st.integers(0, 14))])
    rest = deck[len(table) :]
    by_rank: list[list[int]] = [[] for _ in range(10)]
    for card in table:
        by_rank[card >> 2].append(card)
    hidden = rest[: draw(st.integers(0, len(rest)))]
    unseen = [0] * 10
    for card in hidden:
        unseen[card >> 2] += 1
    plays: list[Play] = []
    for card in draw(st.lists(st.sampled_from(rest), min_size=1, max_size=8)):
        take = draw(st.sets(st.sampled_from(table))) if table else set()
        plays.append(Play(0, card, frozenset(take)))
    plays += draw(st.lists(st.sampled_from(plays), max_size=3))  # equal worths: ties
    pos = Position(
        rules=draw(
            st.sampled_from(
                [
                    resolve_rules("pagat-4p", {}),
                    resolve_rules("pagat-4p", {"sequence": "manual"}),
                    resolve_rules("heads-up", {}),
                    resolve_rules("libre-2p", {}),
                ]
            )
        ),
        by_rank=by_rank,
        table_size=len(table),
        caida_target=draw(st.sampled_from([-1, *table])),
        unseen=unseen,
        unseen_total=sum(unseen),
        next_hand=draw(st.integers(0, 5)),
        caida_next=draw(st.booleans()),
        score=draw(st.sampled_from([0, 10, 26, 30, 34, 36, 38, 39])),
        other_score=draw(st.sampled_from([0, 10, 26, 30, 34, 36, 38, 39])),
        pile=draw(st.integers(0, 30)),
        other_pile=draw(st.integers(0, 30)),
        dealer_own=draw(st.booleans()),
    )
    return pos, plays


@settings(max_examples=200, deadline=None)
@given(positions_and_plays())
def test_the_fast_appraisal_is_bit_identical_to_the_reference_R7_R9_R11(
    case: tuple[Position, list[Play]],
) -> None:
    pos, plays = case
    for play in plays:
        assert appraise(pos, play).hex() == reference_appraise(pos, play).hex(), play
    ranked = ranked_plays(pos, plays)
    expected = sorted(
        ((reference_appraise(pos, play), index) for index, play in enumerate(plays)),
        key=lambda item: (-item[0], item[1]),
    )
    assert [worth.hex() for worth, _ in ranked] == [worth.hex() for worth, _ in expected]
    assert [play for _, play in ranked] == [plays[index] for _, index in expected]
    assert best_play(pos, plays) is plays[expected[0][1]]  # the first listed of equal worth


@settings(max_examples=100, deadline=None)
@given(positions_and_plays(), st.data())
def test_remembered_reply_risks_never_answer_for_another_position_R9(
    case: tuple[Position, list[Play]], data: st.DataObject
) -> None:
    """Positions that differ in one thing the reply depends on, appraised one after the other,
    each get their own worth (the fast appraisal remembers reply risks across positions)."""
    pos, plays = case
    unseen = list(pos.unseen)
    rank = data.draw(st.integers(0, 9))
    unseen[rank] = (unseen[rank] + 1) % 5
    variants = [
        pos,
        replace(pos, other_pile=pos.other_pile + 1),
        replace(pos, pile=pos.pile + 1),
        replace(pos, other_score=38 if pos.other_score != 38 else 36),
        replace(pos, next_hand=(pos.next_hand + 1) % 6),
        replace(pos, dealer_own=not pos.dealer_own),
        replace(pos, unseen=unseen, unseen_total=sum(unseen)),
        replace(pos, rules=resolve_rules("libre-2p" if pos.rules.seats == 4 else "pagat-4p", {})),
    ]
    for variant in variants:
        for play in plays:
            assert appraise(variant, play).hex() == reference_appraise(variant, play).hex()


@settings(max_examples=25, deadline=None)
@given(random_games())
def test_a_playout_counts_the_cards_a_seat_has_seen_as_its_view_does_R2(
    case: tuple[Game, random.Random],
) -> None:
    """`position_in` with counts kept across moves (and hands) equals a fresh reckoning and
    the seat's own view: the hand's played cards and its own are seen, nothing else."""
    game, rng = case
    played = Played()

    def check(game: Game, action: Action, events: tuple[Event, ...]) -> None:
        seat = game.turn
        if game.phase is not Phase.PLAY or seat is None:
            return
        kept = position_in(game, seat, played)
        assert kept == position_in(game, seat)
        seen = position_of(game.view(seat))
        assert (kept.unseen, kept.next_hand, kept.caida_next) == (
            seen.unseen,
            seen.next_hand,
            seen.caida_next,
        )

    play_randomly(game, rng, check)
