"""Level 5 values a playout by its chance of winning the game, past the packet (R11, R12)."""

from __future__ import annotations

from engine.bots.deep import expected_chance
from engine.bots.winchance import win_chance


def test_a_team_sure_to_reach_40_with_the_count_has_won_whatever_the_packet_R11_R12() -> None:
    """24 cards won already: the count gives at least 10 (R11), so 34 becomes 44."""
    assert win_chance("pagat-4p", 34, 0, False) < 1.0  # the score alone does not say so
    assert expected_chance("pagat-4p", 34, 0, 24, 0, 16, False, False) == 1.0


def test_cards_won_toward_20_raise_the_chance_R11() -> None:
    chances = [
        expected_chance("heads-up", 20, 20, pile, 10, 30 - pile, True, False)
        for pile in (5, 10, 15, 19)
    ]
    assert chances == sorted(chances)
    assert chances[-1] > chances[0] + 0.05


def test_at_38_the_libre_count_scores_nothing_so_only_a_caida_wins_R14() -> None:
    """libre-2p: at exactly 38 the count scores nothing; elsewhere 30 cards would win it."""
    assert expected_chance("libre-2p", 36, 0, 30, 0, 10, False, True) == 1.0
    assert expected_chance("libre-2p", 38, 0, 30, 0, 10, False, True) < 1.0
