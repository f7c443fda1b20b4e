"""Every bot level: legal in every profile and option set, a function of its seat's view only,
reproducible with a seed, and dutiful outside plays (R6 announcements, R8 missed cards, R10 claims).
"""

from __future__ import annotations

import pickle
import random
from dataclasses import replace
from itertools import count

import pytest

from engine import Announce, Claim, Game, Hidden, Phase, Play, TakeMissed, parse_card
from engine.bots import Budget, choose, levels, stand_ins
from engine.bots.search import (
    LEVEL4,
    candidates_of,
    clearly_better,
    decided,
    margins_of,
    points_and_count,
    search,
)
from tests.engine.bots.conftest import play_hand
from tests.engine.helpers import act, deal, rescored, trail_until
from tests.engine.test_claims import caught
from tests.engine.test_play import WORKED

SETTINGS = [
    ("pagat-4p", {}),
    ("pagat-4p", {"announcements": "manual", "sequence": "manual", "special_claims": "claim"}),
    ("pagat-4p", {"capture_mandatory": True, "special_claims": "auto", "ronda_points": 2}),
    ("pagat-4p", {"special_claims": "off", "misdeal_penalty": "ten"}),
    ("heads-up", {}),
    ("libre-2p", {}),
]


def test_levels_1_to_6_are_registered() -> None:
    assert levels() == (1, 2, 3, 4, 5, 6)


@pytest.mark.parametrize(("profile", "options"), SETTINGS)
@pytest.mark.parametrize("level", [3, 4, 5, 6])
def test_every_action_a_bot_takes_is_legal_R6_R7_R8_R10_R13_R14(
    level: int, profile: str, options: dict[str, object]
) -> None:
    game = Game.new(profile, options, seed=f"legal/{profile}/{level}/{sorted(options.items())}")
    taken = play_hand(game, level, random.Random(level), Budget(samples=2))
    assert taken, "the bots played"


def test_a_decision_depends_only_on_the_seats_view_R1() -> None:
    """Two games whose view for seat 0 is equal but whose hidden cards differ: same decision
    (every level, and every stand-in: the learned policy's features too)."""
    game = Game.new("pagat-4p", seed="view-only")
    trail_until(game, lambda g: g.turn == 0 and len(g.table) >= 3)
    view = game.view(0)
    others = [card for seat in (1, 2, 3) for card in game.hand(seat)]
    stock = list(game._pack[game._deal_pos :])
    pool = others + stock
    random.Random(1).shuffle(pool)
    sizes = [len(game.hand(seat)) for seat in range(4)]
    hands: list[tuple[int, ...]] = [game.hand(0)]
    for seat in (1, 2, 3):
        hands.append(tuple(pool[: sizes[seat]]))
        pool = pool[sizes[seat] :]
    other = Game.from_view(view, Hidden(tuple(hands), tuple(pool)))
    assert other.view(0) == view
    assert [other.hand(s) for s in (1, 2, 3)] != [game.hand(s) for s in (1, 2, 3)]
    for level in (*levels(), *stand_ins()):
        budget = Budget(samples=4)
        first = choose(level, view, game.legal_actions(0), random.Random(5), budget)
        second = choose(level, other.view(0), other.legal_actions(0), random.Random(5), budget)
        assert first == second, f"level {level}"


@pytest.mark.parametrize("level", [3, 4, 5])
def test_a_search_is_reproducible_with_a_seed_and_fixed_samples(level: int) -> None:
    game = Game.new("pagat-4p", seed="reproducible")
    trail_until(game, lambda g: len(g.table) >= 4)
    seat = game.turn
    view, legal = game.view(seat), game.legal_actions(seat)
    picks = {choose(level, view, legal, random.Random(9), Budget(samples=6)) for _ in range(3)}
    assert len(picks) == 1


@pytest.mark.parametrize("level", [4, 5, 6])
def test_a_search_stops_at_its_deadline(level: int) -> None:
    """Under a deadline (the server's way) the search stops at the playout that passes it."""
    ticks = count()
    game = Game.new("pagat-4p", seed="deadline")
    trail_until(game, lambda g: len(g.table) >= 4)
    seat = game.turn
    budget = Budget(deadline=3.0, clock=lambda: float(next(ticks)))
    action = choose(level, game.view(seat), game.legal_actions(seat), random.Random(1), budget)
    assert action in game.legal_actions(seat)
    assert next(ticks) <= 6, "the clock is read once per playout, past the deadline never"


def test_bots_and_their_budget_pickle_for_a_process_pool() -> None:
    assert pickle.loads(pickle.dumps(choose)) is choose
    assert pickle.loads(pickle.dumps(Budget(samples=3))) == Budget(samples=3)


@pytest.mark.parametrize("level", [3, 4, 5])
def test_a_bot_claims_its_ronda_caida_award_and_nothing_else_R10(level: int) -> None:
    game = caught()  # seat 2 caught seat 1's ronda 5 by caída: team 0 holds an R10 event
    trail_until(game, lambda g: g.phase is Phase.CLAIMS)
    budget = Budget(samples=2)
    claim = choose(level, game.view(2), game.legal_actions(2), random.Random(0), budget)
    assert claim == Claim(2, "5")
    game.apply(claim)
    assert choose(level, game.view(0), game.legal_actions(0), random.Random(0), budget) is None
    assert choose(level, game.view(1), game.legal_actions(1), random.Random(0), budget) is None


@pytest.mark.parametrize("level", [3, 4, 5])
def test_a_bot_takes_missed_cards_when_its_team_may_R8(level: int) -> None:
    game = deal(0, WORKED, options={"sequence": "manual"})
    act(game, "1 2C", "2 4D", "3 7H", "0 JC", "1 6S:2C,4D")  # leaves 7H and JC missed
    for seat in (2, 0):  # not seat 2's turn, yet it may take them
        action = choose(level, game.view(seat), game.legal_actions(seat), random.Random(0))
        assert action == TakeMissed(seat)
    assert choose(level, game.view(3), game.legal_actions(3), random.Random(0)) is None


@pytest.mark.parametrize("level", [3, 4, 5])
def test_a_bot_announces_a_scoring_ronda_in_manual_mode_R6(level: int) -> None:
    game = deal(0, {1: "5C 5D 5H AC KC"}, options={"announcements": "manual"})
    action = choose(level, game.view(1), game.legal_actions(1), random.Random(0))
    assert action == Announce(1, "ronda")
    game.apply(action)
    action = choose(level, game.view(2), game.legal_actions(2), random.Random(0))
    assert action == Announce(2, "pass")


def test_a_bot_keeps_a_ronda_to_itself_when_it_cannot_score_R6() -> None:
    """At 30 or more a ronda scores nothing (R6): announcing would only inform the others."""
    game = rescored(deal(0, {1: "5C 5D 5H AC KC"}, options={"announcements": "manual"}), (0, 30))
    action = choose(3, game.view(1), game.legal_actions(1), random.Random(0))
    assert action == Announce(1, "pass")


def test_every_play_decision_of_a_search_level_is_a_play() -> None:
    game = Game.new("pagat-4p", seed="plays")
    seat = game.turn
    action = choose(
        4, game.view(seat), game.legal_actions(seat), random.Random(0), Budget(samples=2)
    )
    assert isinstance(action, Play)


def test_a_search_stops_early_once_every_candidate_is_decided() -> None:
    """Adaptive samples: gains far from their margins decide; one near its margin does not."""
    first = [0.0, 1.0, 0.0, 1.0] * 3
    clear = [value + 3.0 for value in first]  # +3 on every deal: clearly above a 0.5 margin
    worse = [value - 3.0 for value in first]
    near = [value + (0.6 if index % 2 else 0.4) for index, value in enumerate(first)]
    noisy = [value + (4.0 if index % 2 else -3.0) for index, value in enumerate(first)]
    assert decided([first, clear, worse], [0.0, 0.5, 0.5], LEVEL4)
    assert not decided([first, clear, noisy], [0.0, 0.5, 0.5], LEVEL4)
    assert not decided([first, near], [0.0, 0.5], LEVEL4)  # a gain of 0.5 on a margin of 0.5


def test_level_3s_caida_is_declined_only_for_a_clear_point_more_R9() -> None:
    """A search keeps level 3's caída over a play it rates only a little better (R9): the
    margin to decline a scoring play is `decline` points above the usual override."""
    game = deal(0, {1: "QC AH 2H 3H 4H", 2: "QD 5S 6S 7S JS"})
    act(game, "1 QC")
    view = game.view(2)
    plays = [a for a in game.legal_actions(2, by_rank=True) if isinstance(a, Play)]
    caida = Play(2, parse_card("QD"), frozenset({parse_card("QC")}))
    trail = Play(2, parse_card("5S"))
    assert caida in plays
    assert trail in plays
    margins = margins_of(view, [caida, trail], LEVEL4)
    assert margins == [0.0, LEVEL4.override + LEVEL4.decline]
    steady = [1.0, 2.0] * 10  # the trail gains 1 point on every deal: above override only
    values = [steady, [value + LEVEL4.override + 0.5 for value in steady]]
    assert clearly_better(values, LEVEL4, margins) == 0
    values = [steady, [value + LEVEL4.override + LEVEL4.decline + 0.5 for value in steady]]
    assert clearly_better(values, LEVEL4, margins) == 1
    assert clearly_better([[], []], LEVEL4, margins) == 0  # no deal at all: level 3's choice


def test_declining_level_3s_caida_may_need_more_standard_errors_than_another_override() -> None:
    """With ``decline_confidence`` a candidate that would decline level 3's caída or limpia
    (its margin holds `decline`) clears that many standard errors; the others ``confidence``."""
    settings = replace(LEVEL4, confidence=1.0, decline_confidence=2.0)
    first = [0.0, 1.0, 0.0, 1.0] * 3
    spread = [value + (5.1 if index % 2 else -1.9) for index, value in enumerate(first)]
    # a gain of 1.6 with a standard error of about 1.05: beyond one error, not two
    assert clearly_better([first, spread], settings, [0.0, 0.5]) == 1
    decline = LEVEL4.override + LEVEL4.decline  # 1.5: declining level 3's caída
    assert clearly_better([first, spread], settings, [0.0, decline]) == 0
    assert (
        clearly_better([first, spread], replace(settings, decline_confidence=None), [0.0, decline])
        == 1
    )
    assert settings.confidence_for(0.5) == 1.0
    assert settings.confidence_for(LEVEL4.override + LEVEL4.decline) == 2.0
    assert LEVEL4.confidence_for(LEVEL4.override + LEVEL4.decline) == LEVEL4.confidence


def test_a_served_search_plays_its_least_deals_before_it_may_stop() -> None:
    """Under a deadline alone (the server) a search settles nothing before `served_least`
    deals; at fixed samples it plays just those samples, as before."""
    game = Game.new("pagat-4p", seed="served")
    trail_until(game, lambda g: len(g.table) >= 4)
    seat = game.turn
    view = game.view(seat)
    plays = [a for a in game.legal_actions(seat) if isinstance(a, Play)]
    candidates = candidates_of(view, plays, LEVEL4)
    assert len(candidates) > 1
    margins = margins_of(view, candidates, LEVEL4)

    def dealt(budget: Budget) -> int:
        rng = random.Random(3)
        return len(search(view, candidates, rng, budget, LEVEL4, points_and_count, margins)[0])

    timeless = Budget(deadline=1.0, clock=lambda: 0.0)  # a deadline never reached
    assert LEVEL4.served_least <= dealt(timeless) <= LEVEL4.max_samples
    assert dealt(Budget(samples=6)) == 6
