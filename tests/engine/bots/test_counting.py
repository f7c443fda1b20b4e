"""Level 3's card counting: caída and limpia risk (R9), the safe last card, progress to 20 (R11)."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine import Game, Play, parse_card
from engine.bots import choose
from engine.bots.counting import appraise, position_of
from engine.bots.odds import chance_holds, count_margin
from tests.engine.helpers import act, deal, trail_until


def test_the_chance_of_holding_a_rank_is_hypergeometric() -> None:
    assert chance_holds(30, 0, 5) == 0.0
    assert chance_holds(30, 3, 5) == pytest.approx(1 - (25 * 24 * 23) / (30 * 29 * 28))
    assert chance_holds(5, 1, 5) == 1.0


def test_a_card_is_worth_most_near_20_cards_R11() -> None:
    """A card weighs most while the piles race for 20 (18-18: the 19th card of 4 left) and
    least once the count is decided (26-4: each card only moves the count by half a point)."""
    racing = count_margin(19, 18, False) - count_margin(18, 18, False)
    decided = count_margin(27, 4, False) - count_margin(26, 4, False)
    assert racing == pytest.approx(3)
    assert decided == pytest.approx(0.5)
    assert count_margin(21, 19, False) == pytest.approx(8)  # all counted: 21 scores 8
    assert count_margin(20, 20, False) == pytest.approx(6)  # 20-20: the non-dealers score 6


@pytest.mark.parametrize("seed", range(8))
def test_level_3_does_not_hand_over_an_obvious_caida_and_limpia_R9(seed: int) -> None:
    """Leading a packet, it trails a card whose rank the next player can hardly hold.

    Seat 1 holds three 7s (its ronda), JC and 3S. A trailed J or 3 is caught by match (caída
    and limpia, 4 points) whenever seat 2 holds one of three unseen cards of that rank; for a
    7 only one card remains unseen.
    """
    game = deal(0, {1: "7C 7D 7H JC 3S"})
    action = choose(3, game.view(1), game.legal_actions(1), random.Random(seed))
    assert isinstance(action, Play)
    assert action.card >> 2 == parse_card("7C") >> 2
    assert not action.take


def test_level_3_takes_the_card_just_trailed_by_caida_R9() -> None:
    game = deal(0, {1: "QC AH 2H 3H 4H", 2: "QD 5S 6S 7S JS"})
    act(game, "1 QC")
    action = choose(3, game.view(2), game.legal_actions(2), random.Random(0))
    assert action == Play(2, parse_card("QD"), frozenset({parse_card("QC")}))


def test_the_dealers_last_card_of_a_packet_is_safe_from_caida_R9() -> None:
    """The dealer's last card of packet 1 risks only a limpia by a fresh hand; after the
    hand's last card nobody replies at all (R9, R11)."""
    game = Game.new("pagat-4p", seed="last card")
    dealer = game.dealer
    trail_until(game, lambda g: sum(len(g.hand(s)) for s in range(4)) == 1)
    assert game.turn == dealer
    pos = position_of(game.view(dealer))
    assert (pos.caida_next, pos.next_hand) == (False, 5)
    (card,) = game.hand(dealer)
    trail = Play(dealer, card)
    if game.is_legal(trail):
        exposed = replace(pos, caida_next=True)
        assert appraise(pos, trail) >= appraise(exposed, trail)
    game.apply(next(a for a in game.legal_actions(dealer) if isinstance(a, Play)))
    trail_until(game, lambda g: sum(len(g.hand(s)) for s in range(4)) == 1)
    assert position_of(game.view(game.turn)).next_hand == 0
