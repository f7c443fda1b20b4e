"""R11 the card count, R12 the end of a hand and of the game, R14's count variants."""

from __future__ import annotations

import pytest

from engine import Game, Phase
from engine.events import GameOver, HandCounted, HandStarted
from engine.scoring import count_points
from tests.engine.helpers import deal, game_from, rescored, stacked_pack, trail_until


@pytest.mark.parametrize(
    ("piles", "dealer_team", "points"),
    [
        ((20, 20), 0, (0, 6)),  # 20-20: only the non-dealing team scores 6
        ((20, 20), 1, (6, 0)),
        ((20, 18), 1, (6, 0)),
        ((21, 19), 0, (8, 0)),
        ((22, 18), 0, (8, 0)),
        ((23, 17), 0, (10, 0)),
        ((24, 10), 0, (10, 0)),
        ((25, 15), 1, (12, 0)),
        ((14, 26), 0, (0, 12)),
        ((40, 0), 0, (26, 0)),
        ((19, 18), 0, (2, 0)),  # both below 20: the larger pile scores 2
        ((3, 5), 0, (0, 2)),
        ((15, 15), 0, (0, 2)),  # equal piles: the 2 go to the non-dealing team
        ((15, 15), 1, (2, 0)),
        ((0, 0), 0, (0, 2)),
    ],
)
def test_the_card_count_R11(
    piles: tuple[int, int], dealer_team: int, points: tuple[int, int]
) -> None:
    assert count_points(piles, dealer_team) == points


def all_trails(game: Game) -> list[object]:
    return list(trail_until(game, lambda g: g.phase not in (Phase.PLAY, Phase.ANNOUNCE)))


def test_a_hand_ends_with_the_count_and_the_deal_passes_left_R11_R12() -> None:
    packs = [stacked_pack(3, []), stacked_pack(0, [])]
    game = game_from(packs, 3, options={"special_claims": "off"})
    events = all_trails(game)  # both hands, then it waits for a third pack
    assert game.counted_hands[0] == (3, (0, 0))  # every card trailed: nobody captured
    counted = next(e for e in events if isinstance(e, HandCounted))
    assert counted.points == (2, 0)  # equal piles: 2 to the non-dealers (dealer 3, team 1)
    started = [e for e in events if isinstance(e, HandStarted)]
    assert started[0].dealer == 0
    assert started[0].hand == 1


def test_table_cards_left_at_the_end_belong_to_nobody_R11() -> None:
    game = deal(0, {}, options={"special_claims": "off"})
    all_trails(game)
    assert game.counted_hands == ((0, (0, 0)),)
    assert game.table == ()
    assert game.phase is Phase.WAITING  # no second pack in this record (R15)


def test_the_count_scores_at_38_in_pagat_4p_and_can_win_R11_R12() -> None:
    game = rescored(deal(0, {}, options={"special_claims": "off"}), (0, 38))
    events = all_trails(game)
    assert game.scores == (0, 40)
    assert game.winner == 1
    assert isinstance(events[-1], GameOver)


def test_the_count_scores_at_38_in_heads_up_R14() -> None:
    game = rescored(deal(0, {}, profile="heads-up"), (0, 38))
    all_trails(game)
    assert game.winner == 1
    assert game.scores[1] >= 40


def test_libre_2p_at_38_scores_no_count_R14() -> None:
    game = rescored(deal(0, {}, profile="libre-2p"), (0, 38))
    events = all_trails(game)
    counted = next(e for e in events if isinstance(e, HandCounted))
    assert counted.points == (0, 0)
    assert game.scores == (0, 38)
    assert game.counted_hands == ((0, (0, 0)),)  # the hand still reached its count (R15)


def test_two_player_hands_are_four_packets_and_the_non_dealer_leads_R14() -> None:
    game = deal(1, {}, profile="libre-2p")
    assert game.turn == 0
    assert len(game.hand(0)) == len(game.hand(1)) == 5
    packets: set[int] = set()

    def note(game: Game) -> bool:
        if game.phase is Phase.PLAY:
            packets.add(game.packet)
            return False
        return True

    trail_until(game, note)
    assert packets == {0, 1, 2, 3}


def test_a_new_game_plays_hands_until_a_winner_and_scores_are_even_R12() -> None:
    game = Game.new(seed=3)
    all_trails(game)
    while game.phase is not Phase.FINISHED:
        if game.phase is Phase.CLAIMS:
            game.apply(game.system_actions()[0])
        all_trails(game)
    assert game.winner in (0, 1)
    assert max(game.scores) >= 40
    assert all(score % 2 == 0 for score in game.scores)
