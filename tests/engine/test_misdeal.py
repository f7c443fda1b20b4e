"""R5 misdeals: referee rulings and irregular packs, with the three penalties."""

from __future__ import annotations

import pytest

from engine import Game, IllegalAction, Misdeal, Phase
from engine.cards import codes
from engine.events import GameOver, HandStarted, MisdealRuled
from tests.engine.helpers import act, game_from, stacked_pack
from tests.engine.test_announce import RONDA_1


def two_hands(penalty: str, **options: object) -> Game:
    packs = [stacked_pack(0, [RONDA_1]), stacked_pack(0, []), stacked_pack(1, [])]
    return game_from(packs, 0, options={"misdeal_penalty": penalty, **options})


def test_misdeal_game_penalty_loses_the_game_for_the_dealers_team_R5() -> None:
    game = two_hands("game")
    events = game.apply(Misdeal())
    assert isinstance(events[0], MisdealRuled)
    assert isinstance(events[-1], GameOver)
    assert game.winner == 1
    assert game.phase is Phase.FINISHED


def test_misdeal_ten_scores_10_to_the_other_team_and_the_deal_passes_left_R5() -> None:
    game = two_hands("ten")
    assert game.scores == (0, 4)  # seat 1's ronda, scored before the ruling, stays
    events = game.apply(Misdeal())
    ruled = events[0]
    assert isinstance(ruled, MisdealRuled)
    assert (ruled.penalty, ruled.points) == ("ten", 10)
    started = next(e for e in events if isinstance(e, HandStarted))
    assert started.dealer == 1
    assert game.dealer == 1
    assert game.scores[1] >= 14
    assert game.table == ()
    assert game.pile_sizes == (0, 0)


def test_misdeal_two_scores_2_and_the_same_dealer_deals_again_R5() -> None:
    game = two_hands("two")
    events = game.apply(Misdeal())
    assert any(isinstance(e, HandStarted) and e.dealer == 0 for e in events)
    assert game.dealer == 0
    assert game.scores[1] >= 6
    assert game.hand_number == 1


def test_a_voided_hand_discards_its_piles_table_and_missed_cards_R5() -> None:
    packet1 = {1: "2C 6C QC QD KC", 2: "3D 7D QH KD KH", 3: "AS 2S 3S 4S QS", 0: "3C 3H AC 2D 5S"}
    packs = [stacked_pack(0, [packet1]), stacked_pack(0, [])]
    game = game_from(packs, 0, options={"misdeal_penalty": "two", "sequence": "manual"})
    for index in range(4):
        act(game, *(f"{seat} {packet1[seat].split()[index]}" for seat in (1, 2, 3, 0)))
    act(game, "1 KC", "2 KH", "3 QS", "0 5S:2C,3D")  # missed cards pending into packet 2
    assert game.missed
    assert game.pile_sizes == (3, 0)
    assert Misdeal() in game.system_actions()
    game.apply(Misdeal())
    assert game.missed == ()
    assert game.pile_sizes == (0, 0)
    assert game.table == ()
    assert game.scores == (0, 2)
    game.check_invariants()


def test_misdeal_only_before_the_first_card_of_a_packet_R5() -> None:
    game = two_hands("two")
    act(game, "1 AC")
    assert Misdeal() not in game.system_actions()
    before = game.fingerprint()
    with pytest.raises(IllegalAction, match="R5"):
        game.apply(Misdeal())
    assert game.fingerprint() == before


def test_misdeal_may_be_ruled_during_manual_announcements_R5_R6() -> None:
    game = two_hands("two", announcements="manual")
    act(game, "1 announce ronda")
    assert Misdeal() in game.system_actions()
    game.apply(Misdeal())
    assert game.scores == (0, 6)
    assert game.phase is Phase.ANNOUNCE


@pytest.mark.parametrize("profile", ["heads-up", "libre-2p"])
def test_two_player_profiles_have_no_referee_R14(profile: str) -> None:
    game = Game.new(profile, seed=1)
    assert game.system_actions() == ()
    with pytest.raises(IllegalAction, match="R14"):
        game.apply(Misdeal())


@pytest.mark.parametrize(
    ("pack", "reason"),
    [
        (codes(range(39)), "39 cards"),
        (codes([*range(39), 0]), "repeats"),
        ([*codes(range(39)), "ZZ"], "not a card"),
    ],
)
def test_an_irregular_pack_is_a_misdeal_by_the_dealer_R5(pack: list[str], reason: str) -> None:
    game = game_from([pack], 2)
    ruled = next(e for e in game.start_events if isinstance(e, MisdealRuled))
    assert reason in ruled.reason
    assert ruled.dealer == 2
    assert game.winner == 1  # penalty game: dealer 2's team 0 loses


def test_an_irregular_pack_with_penalty_ten_is_redealt_from_the_next_pack_R5() -> None:
    game = game_from([codes(range(39)), stacked_pack(1, [])], 0, options={"misdeal_penalty": "ten"})
    assert game.scores[1] >= 10
    assert game.dealer == 1
    assert game.phase is Phase.PLAY
    assert game.hand_number == 1


def test_an_irregular_pack_in_heads_up_uses_the_misdeal_penalty_R5_R14() -> None:
    game = game_from([codes(range(40))[:-1]], 0, "heads-up", {"misdeal_penalty": "two"})
    assert game.scores == (0, 2)
    assert game.phase is Phase.WAITING
