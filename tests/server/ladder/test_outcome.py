"""A chica's outcome read from its table's log, as the store keeps it (R14, R12)."""

from __future__ import annotations

from typing import Any

from server.ladder.outcome import ChicaOutcome, chica_outcome


def public(kind: str, **fields: Any) -> dict[str, Any]:
    return {"a": {"type": kind, **fields}}


def played(seat: int) -> dict[str, Any]:
    return public("played", seat=seat, card="5C", take=[], caida=False, limpia=False, points=0)


def game_over(winner: int | str, scores: list[int]) -> dict[str, Any]:
    return public("game_over", winner=winner, scores=scores, reason="target")


START = [
    public("seat_taken", seat=1, name="Bot 1", bot_level=1),
    public("game_started", game=1, names=["Ana", "Bot 1"]),
]


def test_an_unfinished_game_has_no_outcome() -> None:
    assert chica_outcome([*START, played(0), played(1)], seat=0) is None


def test_r12_the_first_to_40_wins_and_the_margin_is_the_score_difference() -> None:
    log = [*START, played(0), played(1), game_over(0, [42, 30])]
    assert chica_outcome(log, seat=0) == ChicaOutcome("won", 12, (42, 30), False)
    assert chica_outcome(log, seat=1) == ChicaOutcome("lost", -12, (42, 30), False)


def test_r6_a_cuarenta_won_from_behind_is_a_win_by_a_margin_of_0() -> None:
    log = [*START, public("game_over", winner=0, scores=[10, 30], reason="cuarenta")]
    assert chica_outcome(log, seat=0) == ChicaOutcome("won", 0, (10, 30), False)
    assert chica_outcome(log, seat=1) == ChicaOutcome("lost", 20, (10, 30), False)


def test_r14_a_heads_up_draw_is_a_draw_for_the_person() -> None:
    log = [*START, game_over("draw", [10, 10])]
    assert chica_outcome(log, seat=0) == ChicaOutcome("draw", 0, (10, 10), False)


def test_only_the_first_game_counts_a_rematch_is_outside_the_ladder() -> None:
    log = [
        *START,
        game_over(1, [20, 40]),
        public("game_started", game=2, names=[]),
        game_over(0, [40, 0]),
    ]
    outcome = chica_outcome(log, seat=0)
    assert outcome is not None
    assert outcome.result == "lost"


def test_a_card_a_stand_in_played_for_the_person_marks_the_outcome_assisted() -> None:
    away = public("stand_in", seat=0, active=True, reason="disconnected")
    back = public("stand_in", seat=0, active=False, reason="returned")
    helped = [*START, away, played(0), back, played(1), game_over(0, [40, 2])]
    assert chica_outcome(helped, seat=0) == ChicaOutcome("won", 38, (40, 2), True)
    away_on_the_bots_turn = [*START, away, played(1), back, played(0), game_over(0, [40, 2])]
    outcome = chica_outcome(away_on_the_bots_turn, seat=0)
    assert outcome is not None
    assert not outcome.assisted


def test_per_seat_forms_are_read_as_the_person_saw_them() -> None:
    dealt = {
        "v": [
            {"type": "packet_dealt", "hands": [["AC"], None]},
            {"type": "packet_dealt", "hands": [None, ["2C"]]},
            {"type": "packet_dealt", "hands": [None, None]},
        ]
    }
    assert chica_outcome([*START, dealt, game_over(1, [0, 40])], seat=0) is not None
