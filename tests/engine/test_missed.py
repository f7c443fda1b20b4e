"""R8 missed sequence cards (sequence = manual): who may take them, and for how long."""

from __future__ import annotations

import pytest

from engine import Game, IllegalAction, Phase
from engine.events import HandCounted, MissedTaken, Played
from tests.engine.helpers import act, cards, deal
from tests.engine.test_play import WORKED

MANUAL = {"sequence": "manual"}


def test_a_short_sequence_leaves_missed_cards_for_the_other_team_R8() -> None:
    game = deal(0, WORKED, options=MANUAL)
    act(game, "1 2C", "2 4D", "3 7H", "0 JC")
    (played,) = act(game, "1 6S:2C,4D")
    assert isinstance(played, Played)
    assert set(played.missed) == cards("7H JC")
    assert game.missed == played.missed
    assert game.to_act() == (0, 2)
    assert game.view(1).missed_takers == (0, 2)
    with pytest.raises(IllegalAction, match=r"R8.*other team"):
        act(game, "3 take-missed")
    (taken,) = act(game, "0 take-missed")
    assert isinstance(taken, MissedTaken)
    assert set(taken.cards) == cards("7H JC")
    # not a turn, and no caída or limpia although the table is now empty
    assert game.table == ()
    assert game.scores == (0, 0)
    assert game.pile_sizes == (2, 3)
    assert game.turn == 2


def doubled_sevens() -> Game:
    """Table 2C 4D 7H 7C KH JC (7H laid before 7C); seat 3 to play 6S."""
    game = deal(0, {1: "2C KH", 2: "4D JC", 3: "7H 6S", 0: "7C"}, options=MANUAL)
    act(game, "1 2C", "2 4D", "3 7H", "0 7C", "1 KH", "2 JC")
    return game


def test_each_choice_of_a_doubled_sequence_rank_is_its_own_capture_R7_R8() -> None:
    options = [str(a) for a in doubled_sevens().legal_actions() if str(a).startswith("3 6S:")]
    assert options == [  # colex order: compared by the highest card taken first
        "3 6S:2C,4D",
        "3 6S:2C,4D,7C",
        "3 6S:2C,4D,7H",
        "3 6S:2C,4D,7C,JC",
        "3 6S:2C,4D,7H,JC",
    ]


def test_the_missed_card_of_a_doubled_rank_is_the_one_longer_on_the_table_R8() -> None:
    game = doubled_sevens()
    (played,) = act(game, "3 6S:2C,4D")
    assert isinstance(played, Played)
    assert set(played.missed) == cards("7H JC")


def test_the_chance_ends_when_the_next_card_is_played_R8() -> None:
    game = deal(0, WORKED, options=MANUAL)
    act(game, "1 2C", "2 4D", "3 7H", "0 JC", "1 6S:2C,4D", "2 AH")
    assert game.missed == ()
    assert cards("7H JC") <= set(game.table)
    with pytest.raises(IllegalAction, match="R8"):
        act(game, "0 take-missed")


def test_the_chance_survives_the_end_of_a_packet_R8() -> None:
    packet1 = {1: "2C 6C QC QD KC", 2: "3D 7D QH KD KH", 3: "AS 2S 3S 4S QS", 0: "3C 3H AC 2D 5S"}
    game = deal(0, packet1, options=MANUAL)
    for index in range(4):
        act(game, *(f"{seat} {packet1[seat].split()[index]}" for seat in (1, 2, 3, 0)))
    act(game, "1 KC", "2 KH", "3 QS")
    (played, *_) = act(game, "0 5S:2C,3D")  # the dealer's last card of the packet
    assert isinstance(played, Played)
    assert set(played.missed) == cards("6C 7D")
    assert game.packet == 1
    assert game.turn == 1
    assert game.to_act() == (1, 3)
    (taken,) = act(game, "3 take-missed")
    assert isinstance(taken, MissedTaken)
    assert game.pile_sizes == (3, 2)


PACKET_1 = {1: "AC 2C 3C 4C 5C", 2: "AD 2D 3D 4D 5D", 3: "AH 2H 3H 4H 5H", 0: "AS 2S 3S 4S KS"}
PACKET_2 = {1: "6C 7C JC QC KC", 2: "6D 7D JD QD KD", 3: "6H 7H JH QH KH", 0: "6S 7S JS QS 5S"}


def last_card_misses(options: dict[str, object]) -> tuple[Game, Played]:
    """Trail 39 cards; the dealer's 40th (5S) takes 2C+3C and misses the run 6 7 J Q K."""
    game = deal(0, PACKET_1, PACKET_2, options={**MANUAL, **options})
    for packet in (PACKET_1, PACKET_2):
        for index in range(5):
            for seat in (1, 2, 3, 0):
                if not (packet is PACKET_2 and index == 4 and seat == 0):
                    act(game, f"{seat} {packet[seat].split()[index]}")
    played = act(game, "0 5S:2C,3C")[0]
    assert isinstance(played, Played)
    return game, played


def test_after_the_40th_card_the_chance_lasts_through_the_claim_window_R8_R10() -> None:
    game, played = last_card_misses({})
    assert set(played.missed) == cards("6C 7C JC QC KS")  # the oldest of each rank
    assert game.phase is Phase.CLAIMS
    assert game.missed == played.missed
    assert {1, 3} <= set(game.to_act())
    act(game, "1 take-missed")
    counted = next(e for e in act(game, "close-claims") if isinstance(e, HandCounted))
    assert counted.piles == (3, 5)


def test_missed_cards_not_taken_in_the_window_are_discarded_with_the_table_R8_R11() -> None:
    game, _ = last_card_misses({})
    counted = next(e for e in act(game, "close-claims") if isinstance(e, HandCounted))
    assert counted.piles == (3, 0)
    assert game.missed == ()


def test_without_a_claim_window_the_count_follows_at_once_R8_R11() -> None:
    game, played = last_card_misses({"special_claims": "off"})
    assert played.missed
    assert game.missed == ()
    assert game.counted_hands == ((0, (3, 0)),)
    assert game.phase is Phase.WAITING  # the record holds no second pack


def test_libre_2p_manual_sequence_has_no_forfeiture_R14_R8() -> None:
    game = deal(0, {1: "2C KC 6S AH 3H", 0: "4D 7H QS QD 5C"}, profile="libre-2p")
    act(game, "1 2C", "0 4D", "1 KC", "0 7H")
    assert "1 6S:2C,4D" in [str(a) for a in game.legal_actions()]  # manual: a prefix
    (played,) = act(game, "1 6S:2C,4D")
    assert isinstance(played, Played)
    assert played.missed == ()
    assert game.missed == ()
    assert set(game.table) == cards("KC 7H")
    assert game.to_act() == (0,)
