"""Sampled deals respect what the public record proves (R4 sizes, R6 announcements, R7/R13)."""

from __future__ import annotations

import random

from engine.bots.sampling import Evidence, evidence_of, sample_hidden
from tests.engine.helpers import act, deal, trail_until


def _counts(cards: tuple[int, ...]) -> list[int]:
    return [sum(1 for card in cards if card >> 2 == rank) for rank in range(10)]


def test_samples_deal_exactly_the_unseen_cards_in_the_right_sizes_R4() -> None:
    game = deal(0, {1: "5C 6D 7H AC KC"})
    trail_until(game, lambda g: len(g.table) == 2)
    view = game.view(3)
    evidence = evidence_of(view)
    rng = random.Random(0)
    for _ in range(20):
        hidden = sample_hidden(view, evidence, rng)
        assert hidden.hands[3] == view.hand
        assert [len(hand) for hand in hidden.hands] == list(view.hand_sizes)
        assert len(hidden.stock) == view.undealt
        dealt = [c for seat in (0, 1, 2) for c in hidden.hands[seat]] + list(hidden.stock)
        assert sorted(dealt) == sorted(view.unseen())


def test_an_announced_ronda_is_in_every_sample_and_silence_means_none_R6() -> None:
    game = deal(0, {2: "5C 5D 5H AC KC"})  # seat 2's ronda is announced at once (auto)
    view = game.view(1)
    assert view.ronda_announced == (2,)
    evidence = evidence_of(view)
    rng = random.Random(1)
    for _ in range(30):
        hidden = sample_hidden(view, evidence, rng)
        assert 3 in _counts(hidden.hands[2])
        for seat in (0, 3):  # below 30 and silent under automatic announcements: no ronda
            assert 3 not in _counts(hidden.hands[seat])
            assert 4 not in _counts(hidden.hands[seat])  # and no cuarenta: the game goes on


def test_a_seat_that_trailed_under_mandatory_capture_holds_no_card_that_could_capture_R7() -> None:
    game = deal(1, {0: "KC 2C 3C 4C 5C", 1: "QC 2D 3D 4D 5D"}, profile="heads-up")
    act(game, "0 KC", "1 QC")  # seat 1 trailed while a K would have had to take KC
    view = game.view(0)
    evidence = evidence_of(view)
    assert 9 in evidence.forbidden[1]  # K
    rng = random.Random(2)
    for _ in range(30):
        hidden = sample_hidden(view, evidence, rng)
        assert _counts(hidden.hands[1])[9] == 0


def test_level_5_believes_a_seat_that_let_a_caida_go_lacks_that_rank_R9() -> None:
    game = deal(0, {1: "5C 6D 7H AC KC", 2: "QH 2S 3S 4S JS"})
    act(game, "1 5C", "2 QH")  # seat 2 did not catch the 5C
    view = game.view(3)
    assert evidence_of(view).declined[2] == frozenset()
    believed = evidence_of(view, declined=True)
    assert believed.declined[2] == frozenset({4})  # rank 5

    def fives_dealt_to_seat_2(evidence: Evidence, seed: int) -> int:
        rng = random.Random(seed)
        hands = [sample_hidden(view, evidence, rng).hands[2] for _ in range(60)]
        return sum(1 for hand in hands if _counts(hand)[4])

    assert fives_dealt_to_seat_2(believed, 3) < fives_dealt_to_seat_2(evidence_of(view), 3) / 2


def test_level_5_believes_a_seat_that_trailed_could_not_capture_R7() -> None:
    """Capture is optional here, yet players capture when they can: trailing says something."""
    game = deal(
        0, {0: "5D 6C QD 4D JD", 1: "2C 6D 7H AC KC", 2: "KD 6S 7S 4S JS", 3: "AH 6H 7C 4H JH"}
    )
    act(game, "1 2C", "2 KD", "3 AH", "0 5D")
    # seat 0 trailed on 2C KD AH: a 3 (2 + A, R7) could have captured
    view = game.view(1)
    assert evidence_of(view).forbidden[0] == frozenset()  # not a fact: capture is optional
    believed = evidence_of(view, declined=True)
    assert 2 in believed.declined[0]

    def threes_dealt_to_seat_0(evidence: Evidence) -> int:
        rng = random.Random(4)
        hands = [sample_hidden(view, evidence, rng).hands[0] for _ in range(60)]
        return sum(1 for hand in hands if _counts(hand)[2])

    assert threes_dealt_to_seat_0(believed) < threes_dealt_to_seat_0(evidence_of(view)) / 2


def test_the_samplers_shuffle_draws_exactly_as_random_shuffle() -> None:
    from engine.bots.sampling import shuffle

    for seed in range(50):
        for size in (0, 1, 2, 7, 23, 40):
            mine, theirs = list(range(size)), list(range(size))
            ours, reference = random.Random(seed), random.Random(seed)
            shuffle(mine, ours)
            reference.shuffle(theirs)
            assert mine == theirs
            assert ours.random() == reference.random()  # the same draws were consumed
