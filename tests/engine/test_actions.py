"""Action text and record forms (R15) round-trip; bad shapes and values are told apart."""

from __future__ import annotations

import pytest

from engine import (
    Action,
    Announce,
    Claim,
    CloseClaims,
    IllegalAction,
    InvalidRecord,
    Misdeal,
    Play,
    TakeMissed,
    action_from_json,
    parse_action,
    parse_card,
)

ACTIONS = [
    Play(0, parse_card("6S"), frozenset(map(parse_card, ["2C", "4D", "7H", "JC"]))),
    Play(1, parse_card("3D")),
    TakeMissed(1),
    Announce(0, "ronda"),
    Claim(2, "5"),
    CloseClaims(),
    Misdeal(),
]


@pytest.mark.parametrize("action", ACTIONS, ids=str)
def test_text_and_record_forms_round_trip_R15(action: Action) -> None:
    assert parse_action(str(action)) == action
    assert action_from_json(action.to_json()) == action
    assert eval(repr(action), {"parse_action": parse_action}) == action


def test_the_r15_example_actions_read_as_documented_R15() -> None:
    play = action_from_json(
        {"type": "play", "seat": 0, "card": "6s", "take": ["2C", "4D", "7H", "JC"]}
    )
    assert str(play) == "0 6S:2C,4D,7H,JC"
    assert play.to_json() == {
        "type": "play",
        "seat": 0,
        "card": "6S",
        "take": ["2C", "4D", "7H", "JC"],
    }


@pytest.mark.parametrize(
    "obj",
    [
        {"type": "dance", "seat": 0},
        {"seat": 0},
        {"type": "play", "seat": 0, "card": "6S"},
        {"type": "claim", "seat": 0},
        {"type": "announce", "call": "ronda"},
        "play",
    ],
)
def test_unknown_types_and_missing_fields_make_an_invalid_record_R15(obj: object) -> None:
    with pytest.raises(InvalidRecord, match="R15"):
        action_from_json(obj)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("obj", "rule"),
    [
        ({"type": "play", "seat": 0, "card": "ZZ", "take": []}, "R2"),
        ({"type": "play", "seat": "0", "card": "6S", "take": []}, "R1"),
        ({"type": "play", "seat": 0, "card": "6S", "take": "2C"}, "R15"),
        ({"type": "play", "seat": 0, "card": "6S", "take": ["2C", "2c"]}, "R7"),
        ({"type": "announce", "seat": 0, "call": "tres"}, "R6"),
        ({"type": "claim", "seat": 0, "rank": "8"}, "R2"),
    ],
)
def test_bad_values_are_illegal_actions_not_invalid_records_R15(obj: object, rule: str) -> None:
    with pytest.raises(IllegalAction, match=rule):
        action_from_json(obj)  # type: ignore[arg-type]


def test_play_of_a_non_card_never_matches_a_capture_mask_R7() -> None:
    assert Play(0, 3, frozenset({-1})).mask == -1
