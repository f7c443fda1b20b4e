"""R7 captures and trails, R9 caída, limpia, the 38 rule and the end at 40."""

from __future__ import annotations

import pytest

from engine import Game, IllegalAction, Phase, parse_action
from engine.events import GameOver, HandCounted, Played
from tests.engine.helpers import act, deal, rescored

WORKED = {
    1: "2C 6S 3H 5H KH",
    2: "4D AH 3S 5S KS",
    3: "7H 2H 4H QH QS",
    0: "JC 6H 2S 4S JS",
}


def worked_example(**options: object) -> Game:
    """R7's worked example: the table 2C 4D 7H JC, seat 1 to play holding 6S."""
    game = deal(0, WORKED, options=options)
    act(game, "1 2C", "2 4D", "3 7H", "0 JC")
    return game


def captures_with(game: Game, code: str) -> list[str]:
    return [str(a) for a in game.legal_actions() if str(a).split()[1].startswith(code)]


def test_worked_example_6s_takes_2c_4d_then_7h_jc_and_scores_a_limpia_R7_R9() -> None:
    game = worked_example()
    (played,) = [e for e in act(game, "1 6S:2C,4D,7H,JC") if isinstance(e, Played)]
    assert played.limpia
    assert not played.caida
    assert played.points == 2
    assert game.table == ()
    assert game.scores == (0, 2)
    assert game.pile_sizes == (0, 5)


def test_worked_example_lists_only_the_longest_capture_with_sequence_auto_R7_R8() -> None:
    assert captures_with(worked_example(), "6S") == ["1 6S", "1 6S:2C,4D,7H,JC"]


def test_worked_example_lists_every_prefix_with_sequence_manual_R8() -> None:
    assert captures_with(worked_example(sequence="manual"), "6S") == [
        "1 6S",
        "1 6S:2C,4D",
        "1 6S:2C,4D,7H",
        "1 6S:2C,4D,7H,JC",
    ]


@pytest.mark.parametrize(
    ("action", "rule", "words"),
    [
        ("1 6S:7H,JC", "R7", "sequence alone"),
        ("1 6S:2C,4D,7H", "R8", "longest"),
        ("1 6S:2C,4D,JC", "R7", "unbroken"),
        ("1 6S:2C", "R7", "sum basis"),
        ("1 6S:AH", "R7", "not on the table"),
        ("1 7S", "R7", "not in seat 1's hand"),
        ("2 4S", "R7", "seat 1's turn"),
        ("1 announce pass", "R6", "nothing can be announced"),
        ("2 take-missed", "R8", "no missed cards"),
        ("1 claim 5", "R10", "claim window"),
        ("close-claims", "R10", "no claim window"),
    ],
)
def test_illegal_actions_name_the_rule_and_change_nothing_R7(
    action: str, rule: str, words: str
) -> None:
    game = worked_example()
    before = game.fingerprint()
    with pytest.raises(IllegalAction, match=rule) as caught:
        game.apply(parse_action(action))
    assert words in str(caught.value)
    assert game.fingerprint() == before


def test_a_match_basis_takes_exactly_one_card_of_the_rank_never_two_R7() -> None:
    game = deal(0, {1: "5C AH 2H 3H 4H", 2: "5D AS 2S 3S 4S", 3: "KC QH JH 7H 6H", 0: "5S"})
    act(game, "1 5C", "2 5D", "3 KC")
    assert captures_with(game, "5S") == ["0 5S", "0 5S:5C", "0 5S:5D"]
    with pytest.raises(IllegalAction, match=r"R7.*never two"):
        act(game, "0 5S:5C,5D")


def test_figures_capture_only_by_match_and_then_take_their_sequence_R7() -> None:
    game = deal(0, {1: "JC AH 2H 3H 4H", 2: "QD AS 2S 3S 4S", 3: "KC 5H 6H 7H 5C", 0: "JS"})
    act(game, "1 JC", "2 QD", "3 KC")
    assert captures_with(game, "JS") == ["0 JS", "0 JS:JC,QD,KC"]


def test_a_sum_group_may_hold_equal_ranks_R7() -> None:
    game = deal(0, {1: "2C JH QH KH 7H", 2: "2D JS QS KS 7S", 3: "KC 5H 6H 5S 6S", 0: "4C"})
    act(game, "1 2C", "2 2D", "3 KC")
    assert captures_with(game, "4C") == ["0 4C", "0 4C:2C,2D"]


def test_never_two_bases_a_match_or_a_sum_but_not_both_R7() -> None:
    game = deal(0, {1: "5C JH QH KH 7H", 2: "2D JS QS KS 7S", 3: "3C 6C 6H 4S 6S", 0: "5S"})
    act(game, "1 5C", "2 2D", "3 3C")
    assert captures_with(game, "5S") == ["0 5S", "0 5S:2D,3C", "0 5S:5C"]
    with pytest.raises(IllegalAction, match=r"R7.*two bases"):
        act(game, "0 5S:2D,3C,5C")


def test_figures_are_never_part_of_a_sum_R7() -> None:
    game = deal(0, {1: "JC 2H 3H 4H 5H", 2: "AD 2S 3S 4S 5S", 3: "KC 6H 7H 6S 7S", 0: "7C"})
    act(game, "1 JC", "2 AD", "3 KC")
    assert captures_with(game, "7C") == ["0 7C"]


def test_the_sequence_starts_above_the_played_card_not_above_the_basis_R7() -> None:
    game = deal(0, {1: "2C 5H JH QH KH", 2: "3D JS QS KS 7S", 3: "4C", 0: "6C"})
    act(game, "1 2C", "2 3D", "3 4C", "0 6C")
    assert captures_with(game, "5H") == ["1 5H", "1 5H:2C,3D,6C"]


def test_caida_is_a_match_of_the_card_just_trailed_R9() -> None:
    game = deal(
        0, {1: "KH 3H AC 2C 4C", 2: "2S 3S 5D 6D 7D", 3: "5C AH 7S QS QD", 0: "AD 6C 6S JD JH"}
    )
    act(game, "1 KH", "2 2S", "3 5C", "0 AD", "1 3H")
    (played,) = act(game, "2 3S:3H")
    assert isinstance(played, Played)
    assert played.caida
    assert not played.limpia
    assert played.points == 2
    assert game.scores == (2, 0)


def test_caida_that_empties_the_table_scores_4_R9() -> None:
    game = deal(0, {1: "3H AC 2C 4C KH", 2: "3S 5D 6D 7D 2S"})
    act(game, "1 3H")
    (played,) = act(game, "2 3S:3H")
    assert isinstance(played, Played)
    assert played.caida
    assert played.limpia
    assert played.points == 4


def test_taking_the_trailed_card_by_sum_is_not_a_caida_R9() -> None:
    game = deal(0, {1: "KH 3H AC 2C 4C", 2: "QS 5S 6D 7D 6H", 3: "2S", 0: "5C"})
    act(game, "1 KH", "2 QS", "3 2S", "0 5C", "1 3H")
    (played,) = act(game, "2 5S:2S,3H")
    assert isinstance(played, Played)
    assert not played.caida
    assert played.points == 0


def test_taking_the_trailed_card_in_a_sequence_is_not_a_caida_R9() -> None:
    game = deal(0, {1: "KH 4H AC 2C 5C", 2: "QS 3S 6D 7D 6H", 3: "3D", 0: "AD"})
    act(game, "1 KH", "2 QS", "3 3D", "0 AD", "1 4H")
    # 3S matches 3D (trailed two plays ago) and runs on to 4H (just trailed): no caída
    (played,) = act(game, "2 3S:3D,4H")
    assert isinstance(played, Played)
    assert not played.caida
    assert played.points == 0


def test_the_first_play_of_a_packet_is_never_a_caida_R9() -> None:
    packet1 = {1: "AC 2C 3C 4C 5C", 2: "AD 2D 3D 4D 5D", 3: "AH 2H 3H 4H 5H", 0: "AS 2S 3S 4S KS"}
    packet2 = {1: "KC 6C 7C JC QC"}
    game = deal(0, packet1, packet2)
    for rank in "A2345":
        act(game, f"1 {rank}C", f"2 {rank}D", f"3 {rank}H", f"0 {'K' if rank == '5' else rank}S")
    assert game.packet == 1
    assert game.caida_target is None
    (played,) = act(game, "1 KC:KS")
    assert isinstance(played, Played)
    assert not played.caida
    assert played.points == 0


def test_limpia_at_38_scores_nothing_but_the_cards_are_captured_R9() -> None:
    game = rescored(worked_example(), (0, 38))
    (played,) = act(game, "1 6S:2C,4D,7H,JC")
    assert isinstance(played, Played)
    assert played.limpia
    assert played.points == 0
    assert game.scores == (0, 38)
    assert game.pile_sizes == (0, 5)


def test_a_caida_at_38_still_scores_and_wins_R9() -> None:
    game = deal(
        0, {1: "KH 3H AC 2C 4C", 2: "2S 3S 5D 6D 7D", 3: "5C AH 7S QS QD", 0: "AD 6C 6S JD JH"}
    )
    act(game, "1 KH", "2 2S", "3 5C", "0 AD", "1 3H")
    game = rescored(game, (38, 0))
    events = act(game, "2 3S:3H")
    assert game.scores == (40, 0)
    assert game.winner == 0
    assert game.phase is Phase.FINISHED
    assert isinstance(events[-1], GameOver)


def test_from_36_a_caida_with_limpia_scores_4_and_wins_R9() -> None:
    game = rescored(deal(0, {1: "3H AC 2C 4C KH", 2: "3S 5D 6D 7D 2S"}), (36, 0))
    act(game, "1 3H", "2 3S:3H")
    assert game.scores == (40, 0)
    assert game.winner == 0


def test_the_game_stops_the_moment_a_team_reaches_40_R9_R12() -> None:
    # the 40th point comes with the hand's last card: no count follows, no further card
    game = rescored(deal(0, {1: "3H AC 2C 4C KH", 2: "3S 5D 6D 7D 2S"}), (36, 0))
    events = act(game, "1 3H", "2 3S:3H")
    assert not any(isinstance(e, HandCounted) for e in events)
    assert game.legal_actions() == ()
    assert game.to_act() == ()
    with pytest.raises(IllegalAction, match="R12"):
        act(game, "3 " + "QS")


def test_capture_mandatory_forbids_trailing_a_card_that_can_capture_R13() -> None:
    game = deal(0, WORKED, options={"capture_mandatory": True})
    act(game, "1 2C", "2 4D", "3 7H", "0 JC")
    assert captures_with(game, "6S") == ["1 6S:2C,4D,7H,JC"]
    assert "1 3H" in [str(a) for a in game.legal_actions()]  # a card that cannot capture
    with pytest.raises(IllegalAction, match="mandatory"):
        act(game, "1 6S")


def test_a_trail_that_could_have_captured_is_not_a_miss_R8() -> None:
    game = worked_example(sequence="manual")
    act(game, "1 6S")
    assert game.missed == ()
    assert len(game.table) == 5


@pytest.mark.parametrize("profile", ["heads-up", "libre-2p"])
def test_two_player_profiles_score_no_limpia_at_38_R14(profile: str) -> None:
    game = rescored(deal(0, {1: "2H 6S KC QC JC", 0: "4C 7D KD QD JD"}, profile=profile), (0, 38))
    (played,) = act(game, "1 2H", "0 4C", "1 6S:2H,4C")[2:]
    assert isinstance(played, Played)
    assert played.limpia
    assert played.points == 0
    assert game.scores == (0, 38)


@pytest.mark.parametrize("profile", ["heads-up", "libre-2p"])
def test_two_player_profiles_score_a_caida_at_38_and_it_wins_R14(profile: str) -> None:
    game = rescored(deal(0, {1: "2H 4H KC QC JC", 0: "4C 7D KD QD JD"}, profile=profile), (0, 38))
    act(game, "1 2H", "0 4C", "1 4H:4C")
    assert game.scores == (0, 40)
    assert game.winner == 1


def test_direction_only_changes_the_layout_not_the_play_R1_R13() -> None:
    clockwise = Game.new("pagat-4p", seed=9)
    counter = Game.new("pagat-4p", {"direction": "counterclockwise"}, seed=9)
    for _ in range(30):
        assert counter.legal_actions() == clockwise.legal_actions()
        action = clockwise.legal_actions()[-1]
        assert counter.apply(action) == clockwise.apply(action)
    assert counter.scores == clockwise.scores


@pytest.mark.parametrize("thing", [None, "1 6S", ("play", 1)])
def test_something_that_is_not_an_action_is_refused_R15(thing: object) -> None:
    game = worked_example()
    with pytest.raises(IllegalAction, match="R15"):
        game.apply(thing)  # type: ignore[arg-type]
