"""R15 game records: writing, reading, replaying, and what makes a record invalid."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest

from engine import Game, IllegalAction, InvalidRecord, Phase, Record, replay
from tests.engine import helpers
from tests.engine.helpers import stacked_pack
from tests.engine.test_announce import RONDA_1


def bot_game(profile: str, seed: int, **options: object) -> Game:
    """A complete game between level-2 bots (captures, claims and takes included)."""
    return helpers.bot_game(profile, options, seed)


def without_rng(fingerprint: tuple[Any, ...]) -> tuple[Any, ...]:
    return fingerprint[:2] + fingerprint[3:]


@pytest.mark.parametrize(
    ("profile", "options"),
    [
        ("pagat-4p", {}),
        ("pagat-4p", {"sequence": "manual", "announcements": "manual", "ronda_points": 2}),
        ("pagat-4p", {"special_claims": "auto", "capture_mandatory": True}),
        ("heads-up", {}),
        ("libre-2p", {"direction": "counterclockwise"}),
    ],
)
def test_replaying_a_written_record_reproduces_the_game_exactly_R15(
    profile: str, options: dict[str, object]
) -> None:
    game = bot_game(profile, 4, **options)
    text = json.dumps(game.record().to_json())
    record = Record.from_json(json.loads(text))
    again = Game.from_record(record)
    assert without_rng(again.fingerprint()) == without_rng(game.fingerprint())
    result = replay(record)
    assert result["status"] == "finished"
    assert result["winner"] == game.winner
    assert len(result["trace"]) == len(game.actions)
    assert result["trace"][-1] == list(game.scores)


def test_a_record_holds_only_the_options_given_and_both_dealer_and_draw_R15() -> None:
    obj = Game.new("pagat-4p", {"sequence": "manual"}, seed=2).record().to_json()
    assert obj["options"] == {"sequence": "manual"}
    assert obj["format"] == "cuarenta-record/1"
    assert obj["dealer"] == Record.from_json({**obj, "dealer": None}).first_dealer
    assert len(obj["packs"]) == 1
    assert sorted(obj["packs"][0]) == sorted(set(obj["packs"][0]))


def base(**fields: object) -> dict[str, object]:
    obj: dict[str, object] = {
        "format": "cuarenta-record/1",
        "dealer": 0,
        "packs": [],
        "actions": [],
    }
    obj.update(fields)
    return obj


@pytest.mark.parametrize(
    "obj",
    [
        [],
        "record",
        base(format="cuarenta-record/2"),
        {k: v for k, v in base().items() if k != "format"},
        base(profile="pagat-6p"),
        base(options={"colour": "red"}),
        base(options={"ronda_points": 3}),
        base(options=["sequence"]),
        base(profile="heads-up", options={"sequence": "manual"}),
        base(dealer=None),
        base(dealer=4),
        base(dealer=True),
        base(draw={"start": 1, "cards": ["5C", "KS", "2D"]}),  # draw says dealer 3
        base(dealer=None, draw={"start": 1, "cards": ["5C", "2D", "KS"]}),  # not first diamond
        base(dealer=None, draw={"start": 1, "cards": ["5C", "ZZ"]}),
        base(packs="AC"),
        base(packs=[["AC", 3]]),
        base(actions={"type": "misdeal"}),
        base(actions=[{"type": "dance"}]),
        base(actions=[{"type": "play", "seat": 0, "card": "AC"}]),
    ],
)
def test_invalid_records_are_refused_R15(obj: object) -> None:
    with pytest.raises(InvalidRecord):
        Record.from_json(obj)


def test_the_r15_example_header_reads_with_draw_and_dealer_agreeing_R15_R3() -> None:
    record = Record.from_json(
        base(
            dealer=3, draw={"start": 1, "cards": ["5C", "KS", "2D"]}, options={"sequence": "manual"}
        )
    )
    assert record.first_dealer == 3
    assert record.profile == "pagat-4p"


def test_scores_of_a_record_without_actions_include_the_first_rondas_R15() -> None:
    result = replay(Record.from_json(base(packs=[stacked_pack(0, [RONDA_1])])))
    assert result == {
        "status": "in_progress",
        "winner": None,
        "scores": [0, 4],
        "trace": [],
        "hands": [],
        "error": None,
    }


def test_a_record_whose_packs_run_out_waits_and_any_further_action_is_an_error_R15() -> None:
    game = bot_game("pagat-4p", 9)
    obj = game.record().to_json()
    hand_end = next(
        index for index, action in enumerate(obj["actions"]) if action["type"] == "close_claims"
    )
    obj["packs"] = obj["packs"][:1]
    obj["actions"] = obj["actions"][: hand_end + 2]
    result = replay(Record.from_json(obj))
    assert result["status"] == "error"
    assert result["error"]["index"] == hand_end + 1
    assert "R15" in result["error"]["message"]
    assert len(result["hands"]) == 1
    obj["actions"] = obj["actions"][: hand_end + 1]
    result = replay(Record.from_json(obj))
    assert result["status"] == "in_progress"
    assert result["error"] is None
    assert Game.from_record(Record.from_json(obj)).phase is Phase.WAITING


def test_an_illegal_action_stops_the_replay_with_its_index_and_rule_R15() -> None:
    obj = Game.new(seed=5).record().to_json()
    seat = (obj["dealer"] + 2) % 4  # not the player to lead
    obj["actions"] = [{"type": "play", "seat": seat, "card": "AC", "take": []}]
    result = replay(Record.from_json(obj))
    assert result["status"] == "error"
    assert result["winner"] is None
    assert result["error"]["index"] == 0
    assert result["error"]["message"].startswith("R7")
    assert result["trace"] == []


@pytest.mark.parametrize(
    ("action", "rule"),
    [
        ({"type": "play", "seat": 7, "card": "AC", "take": []}, "R1"),
        ({"type": "play", "seat": 0, "card": "XX", "take": []}, "R2"),
        ({"type": "claim", "seat": 0, "rank": "5"}, "R10"),
        ({"type": "announce", "seat": 0, "call": "ronda"}, "R6"),
    ],
)
def test_bad_seats_codes_and_forbidden_moves_are_illegal_actions_R15(
    action: dict[str, object], rule: str
) -> None:
    obj = Game.new(seed=5).record().to_json()
    obj["actions"] = [action]
    result = replay(Record.from_json(obj))
    assert result["status"] == "error"
    assert result["error"]["message"].startswith(rule)


def test_an_action_after_the_end_is_an_error_but_the_winner_is_reported_R15() -> None:
    game = bot_game("heads-up", 3)
    obj = game.record().to_json()
    obj["actions"].append({"type": "play", "seat": 0, "card": "AC", "take": []})
    result = replay(Record.from_json(obj))
    assert result["status"] == "error"
    assert result["winner"] == game.winner
    assert result["error"]["index"] == len(game.actions)
    assert "R12" in result["error"]["message"]
    assert len(result["hands"]) == len(game.counted_hands) >= 1


@pytest.mark.parametrize("bad", [1, 7, 30])
def test_an_illegal_action_in_a_record_is_named_by_its_position_R15(bad: int) -> None:
    """``IllegalAction.index`` is the position of the first illegal action, counted from 0."""
    record = bot_game("pagat-4p", 5).record()
    actions = list(record.actions)
    actions[bad] = actions[bad - 1]  # the same action twice: the card has left the hand
    with pytest.raises(IllegalAction) as refused:
        Game.from_record(dataclasses.replace(record, actions=tuple(actions)))
    assert refused.value.index == bad
