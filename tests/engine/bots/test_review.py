"""Reviewing a finished game: each play judged at what its seat knew (R9 caída, R15 record).

``coach-gifted-caida.json`` is a level-3 game with one play planted: seat 2 trails 5C onto
AH (action 1), where three fives and four sixes are unseen: seat 3 catches it with 5H, a
caída (R9), while a trail of QC was level 5's play.
"""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest

from engine import Game, Play, Record, card_code, parse_card
from engine.bots.hint import PlayValue
from engine.bots.review import (
    ACCURACY_SCALE,
    REVIEW_BUDGET,
    Review,
    Step,
    grade_of,
    judge,
    review,
    summarize,
)
from engine.bots.sampling import evidence_of, sample_hidden
from engine.events import Played

GAMES = Path(__file__).parents[2] / "data" / "games"
BLUNDER_AT = 1


def _record() -> Record:
    return Record.from_json(json.loads((GAMES / "coach-gifted-caida.json").read_text()))


def _first_plays(record: Record, count: int) -> Record:
    return Record(
        record.profile,
        record.options,
        record.dealer,
        record.draw,
        record.packs,
        record.actions[:count],
    )


@pytest.fixture(scope="module")
def reviewed() -> Review:
    return review(_first_plays(_record(), 8))


def test_the_planted_trail_gifts_the_next_seat_a_caida_r9() -> None:
    """The record really shows what the review is to judge: the trailed 5C caught by match."""
    game = Game.from_record(_first_plays(_record(), BLUNDER_AT + 1))
    events = game.apply(Play(3, parse_card("5H"), frozenset({parse_card("5C")})))
    played = [event for event in events if isinstance(event, Played)]
    assert played[0].caida
    assert _record().actions[BLUNDER_AT + 1] == {
        "type": "play",
        "seat": 3,
        "card": "5H",
        "take": ["5C"],
    }


def test_a_card_gifted_to_the_opponents_caida_is_a_blunder_r9(reviewed: Review) -> None:
    step = next(step for step in reviewed.steps if step.index == BLUNDER_AT)
    assert step.seat == 2
    assert card_code(step.played.play.card) == "5C"
    assert step.grade == "blunder"
    assert step.charged >= 3.0
    assert step.best.play != step.played.play
    assert step.best.value - step.played.value == pytest.approx(step.loss)


def test_the_better_play_is_marked_good_when_played_instead(reviewed: Review) -> None:
    """Replaying the position with the recommended play: the same judgement, now good."""
    best = next(step for step in reviewed.steps if step.index == BLUNDER_AT).best.play
    record = _first_plays(_record(), BLUNDER_AT)
    line = Record(
        record.profile,
        record.options,
        record.dealer,
        record.draw,
        record.packs,
        (*record.actions, best.to_json()),
    )
    step = review(line).steps[-1]
    assert step.index == BLUNDER_AT
    assert step.grade == "good"
    assert step.loss == 0.0


def test_the_caida_itself_is_good_and_forced_plays_are_not_judged(reviewed: Review) -> None:
    caida = next(step for step in reviewed.steps if step.index == BLUNDER_AT + 1)
    assert caida.played.caida
    assert caida.grade == "good"
    for step in reviewed.steps:
        assert step.grade in ("forced", "good", "inaccuracy", "mistake", "blunder")


def test_the_same_record_gets_the_same_review(reviewed: Review) -> None:
    again = review(_first_plays(_record(), 8))
    assert again == reviewed
    assert json.dumps(again.to_json()) == json.dumps(reviewed.to_json())


def test_a_review_is_json_with_every_play_and_every_seat(reviewed: Review) -> None:
    out = json.loads(json.dumps(reviewed.to_json()))
    assert out["format"] == "cuarenta-review/1"
    assert [step["index"] for step in out["steps"]] == list(range(8))
    assert [seat["seat"] for seat in out["seats"]] == [0, 1, 2, 3]
    assert out["seats"][2]["grades"]["blunder"] >= 1


def test_a_judgement_never_reads_a_hidden_card_of_another_seat() -> None:
    """The judge receives the seat's view only; re-dealing the cards it cannot see,
    consistently with that view, leaves the judgement unchanged at a fixed seed."""
    record = _record()
    game = Game.from_record(_first_plays(record, BLUNDER_AT))
    view, legal = game.view(2), game.legal_actions(2)
    made = Play(2, parse_card("5C"))
    expected = judge(view, legal, made, REVIEW_BUDGET, 0)
    assert expected.grade == "blunder"
    evidence = evidence_of(view, declined=True)
    for redeal in range(3):
        other = Game.from_view(view, sample_hidden(view, evidence, random.Random(redeal)))
        assert any(other.hand(s) != game.hand(s) for s in (0, 1, 3))
        assert other.view(2) == view
        assert judge(other.view(2), other.legal_actions(2), made, REVIEW_BUDGET, 0) == expected


@pytest.mark.parametrize(
    ("loss", "grade"),
    [
        (0.0, "good"),
        (0.49, "good"),
        (0.5, "inaccuracy"),
        (1.49, "inaccuracy"),
        (1.5, "mistake"),
        (2.99, "mistake"),
        (3.0, "blunder"),
        (9.0, "blunder"),
    ],
)
def test_grades_follow_the_documented_thresholds(loss: float, grade: str) -> None:
    assert grade_of(loss) == grade


def test_accuracy_is_the_mean_of_exp_minus_the_charged_loss_over_the_scale() -> None:
    """A play is charged its loss less one standard error: noise alone costs no accuracy."""
    play = PlayValue(Play(0, 0), False, False, 0, 0.0)
    steps = [
        Step(0, 0, 0, 0, play, play, 0.0, 0.0, "good", 8),
        Step(1, 0, 0, 0, play, play, 2.5, 0.5, "mistake", 8),
        Step(2, 0, 0, 0, play, play, 0.3, 0.4, "good", 8),
        Step(3, 0, 0, 0, play, play, 0.0, 0.0, "forced", 0),
    ]
    seat = summarize(0, steps)
    assert seat.judged == 3
    assert seat.accuracy == pytest.approx(100 * (2 + math.exp(-2.0 / ACCURACY_SCALE)) / 3)
    assert seat.mean_loss == pytest.approx(2.8 / 3)
    assert dict(seat.grades) == {"good": 2, "inaccuracy": 0, "mistake": 1, "blunder": 0}
    assert summarize(1, steps).accuracy is None


def test_a_two_player_record_is_reviewed_too_r14() -> None:
    record = Record.from_json(json.loads((GAMES / "heads-up-bots.json").read_text()))
    steps = review(_first_plays(record, 6)).steps
    assert [step.seat for step in steps] == [
        action["seat"] for action in record.actions[:6] if action["type"] == "play"
    ]
