"""Level 6's rest of the hand (`engine.bots.rest`, trained by `cuarenta train`) and its race."""

from __future__ import annotations

import json
import random
from collections import Counter

from engine import Game, Phase, Play
from engine.bots import Budget, choose
from engine.bots.belief import LEVEL6, rest_value
from engine.bots.deep import LEVEL5, win_value
from engine.bots.playout import level3_move
from engine.bots.rest import MODEL_PATH, TABLE_CAP, key_of, known, model, rest_chance
from engine.bots.search import (
    candidates_of,
    margins_of,
    points_and_count,
    scores_with_awards,
    search,
)
from engine.bots.train import PROFILES, self_play, train
from engine.rules import resolve_rules
from engine.scoring import count_points


def test_training_is_reproducible_from_its_seed() -> None:
    """The same seed and game count give the same model; another seed other games."""
    assert train(12, "same", ("heads-up",)) == train(12, "same", ("heads-up",))
    assert train(12, "same", ("heads-up",)) != train(12, "other", ("heads-up",))


def test_the_rest_of_a_hand_never_brings_more_cards_than_are_left_R4_R11() -> None:
    """Every noted packet's rest of the hand is of that hand alone: the cards both teams win
    are at most the cards still to play plus those on the table (R4), and no score falls but
    by an R10 award counted due at the note that lapsed as its team reached 30.
    (Heads-up has no claim window: a hand's count and the next hand's deal come with its last
    card, and a note carried into the next hand would count cards twice.)"""
    for profile in PROFILES:
        seen: dict[str, Counter[tuple[int, int, int, int]]] = {}
        rules = resolve_rules(profile)
        for left in range(1, rules.packets_per_hand):
            for table in range(TABLE_CAP + 1):
                seen[f"{left},{table}"] = Counter()
        for index in range(25):
            self_play(profile, f"bounds/{index}", seen)
        assert sum(sum(counts.values()) for counts in seen.values()) > 25
        for key, counts in seen.items():
            left, table = map(int, key.split(","))
            most = 5 * rules.seats * left + (table if table < TABLE_CAP else 40)
            for cards_lead, cards_dealing, points_lead, points_dealing in counts:
                assert cards_lead >= 0
                assert cards_dealing >= 0
                assert cards_lead + cards_dealing <= most, (profile, key)
                assert points_lead >= -10
                assert points_dealing >= -10


def test_the_committed_model_is_the_trainers_and_covers_every_packet() -> None:
    """The model in the repository was written by `cuarenta train` (its seed and size are
    recorded) and knows every mid-hand packet of every profile with up to four table cards."""
    raw = json.loads(MODEL_PATH.read_text(encoding="utf-8"))
    assert raw["seed"] == "rest-1"
    assert raw["games"] == 20000
    for profile in PROFILES:
        for left in range(1, resolve_rules(profile).packets_per_hand):
            for table in range(5):
                assert known(profile, key_of(left, table)), (profile, left, table)
        start = key_of(resolve_rules(profile).packets_per_hand, 0)  # a hand's first packet
        assert not known(profile, start)


def test_the_rest_chance_is_a_chance_that_grows_with_the_score_and_the_pile_R11_R12() -> None:
    key = "1,2"
    assert "1,2" in model()["pagat-4p"]
    chances = [
        rest_chance("pagat-4p", key, own, 20, 10, 10, False, True) for own in range(0, 40, 2)
    ]
    assert all(0.0 <= chance <= 1.0 for chance in chances)
    assert chances == sorted(chances)
    assert chances[0] < chances[-1]
    piles = [rest_chance("pagat-4p", key, 20, 20, pile, 10, False, True) for pile in range(20)]
    assert piles == sorted(piles)
    assert piles[0] < piles[-1]


def _first_packet_end(profile: str) -> Game:
    """A level-3 game just after its second packet is dealt (mid-hand)."""
    game = Game.new(profile, seed="rest-end")
    while game.packet == 0:
        game.apply(level3_move(game))
    return game


def _play_to_the_claims(game: Game) -> None:
    while game.phase in (Phase.PLAY, Phase.ANNOUNCE):
        game.apply(level3_move(game))
    assert game.phase is Phase.CLAIMS


def test_level_6_values_a_packets_end_by_the_rest_of_the_hand_and_a_hands_end_as_level_5() -> None:
    game = _first_packet_end("pagat-4p")
    assert game.phase in (Phase.PLAY, Phase.ANNOUNCE)
    assert known("pagat-4p", key_of(1, len(game._table)))
    for team in (0, 1):
        assert rest_value(game, team) != win_value(game, team)
    _play_to_the_claims(game)  # the hand is over: the count is exact
    for team in (0, 1):
        assert rest_value(game, team) == win_value(game, team)


def test_a_race_stops_playing_out_candidates_clearly_short_of_their_margin() -> None:
    """With `race` the candidates clearly worse than level 3's choice get fewer deals, the
    others as many as without it, on the same deals; the choice stays the one they give."""
    from bench.bots import positions

    raced = 0
    for view, legal in positions("pagat-4p", 40, by_rank=True):
        plays = [a for a in legal if isinstance(a, Play)]
        candidates = candidates_of(view, plays, LEVEL5)
        if len(candidates) < 3:
            continue
        margins = margins_of(view, candidates, LEVEL5)
        plain = search(view, candidates, random.Random(5), Budget(64), LEVEL5, win_value, margins)
        race = search(view, candidates, random.Random(5), Budget(64), LEVEL6, win_value, margins)
        assert race[0] == plain[0]  # the first is never dropped: the same deals, the same values
        for mine, theirs in zip(race, plain, strict=True):
            assert mine == theirs[: len(mine)]
        raced += any(len(values) < len(race[0]) for values in race)
    assert raced >= 3


def test_level_6_decides_under_a_sample_budget_in_every_profile() -> None:
    for profile in PROFILES:
        game = _first_packet_end(profile)
        seat = game.turn
        assert seat is not None
        action = choose(6, game.view(seat), game.legal_actions(seat), random.Random(2), Budget(4))
        assert action in game.legal_actions(seat)


def test_two_awards_due_score_claim_by_claim_in_every_evaluation_R10() -> None:
    """Two R10 awards due to a team at 20: the first takes it to 30, the second then scores
    nothing (checked claim by claim). Level 4's points counted both."""
    game = _first_packet_end("pagat-4p")
    _play_to_the_claims(game)
    game._r10 = [(0, 1), (0, 2)]
    game._scores = [20, 10]
    count = count_points(game.pile_sizes, game.dealer & 1)
    assert scores_with_awards(game) == (30, 10)
    assert points_and_count(game, 0) == 30 - 10 + count[0] - count[1]
    assert win_value(game, 0) == rest_value(game, 0)
