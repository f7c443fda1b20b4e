"""A club night's competition without a server: Swiss rounds, groups then a knock-out.

The night is a frozen value changed by pure functions (``server.clubs``); every test keeps it
through ``to_dict``/JSON/``from_dict`` between steps, as the store will.
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Callable
from typing import TypeVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from server.clubs import knockout, swiss
from server.clubs.tournament import HOUSE, Match, Pair, Round, TournamentError

N = TypeVar("N", swiss.SwissNight, knockout.GroupsNight)


def kept(night: N, load: Callable[[dict[str, object]], N]) -> N:
    """The night as the store will give it back."""
    again = load(json.loads(json.dumps(night.to_dict())))
    assert again == night
    return again


def pairs(count: int, start: int = 1) -> tuple[Pair, ...]:
    return tuple(
        Pair(f"p{i}", (f"A{i}", f"B{i}")) if i % 3 else Pair(f"p{i}", (f"A{i}",), bot_level=3)
        for i in range(start, start + count)
    )


def play(round_: Round, rng: random.Random, draws: bool) -> list[tuple[int, int, int]]:
    """A random final score per game not done: (table, score a, score b); 40 wins (R15)."""
    out = []
    for match in round_.matches:
        if match.done:
            continue
        loser = rng.randrange(0, 40, 2)
        a, b = (40, loser) if rng.random() < 0.5 else (loser, 40)
        if draws and rng.random() < 0.1:
            a = b = 38
        out.append((match.table, a, b))
    return out


def pairings_of(round_: Round) -> set[frozenset[str]]:
    return {frozenset((m.a, m.b)) for m in round_.matches}


def test_a_swiss_night_of_six_pairs_never_repeats_and_ranks_as_the_results_say() -> None:
    rng = random.Random(40)
    night = swiss.start(pairs(6), planned=3)
    games: list[tuple[str, str, int, int]] = []
    for _ in range(3):
        night = kept(swiss.pair_next(night), swiss.SwissNight.from_dict)
        with pytest.raises(TournamentError, match="is not done"):
            swiss.pair_next(night)
        for table, a, b in play(night.rounds[-1], rng, draws=True):
            match = night.rounds[-1].matches[table - 1]
            games.append((match.a, match.b, a, b))
            night = kept(swiss.record(night, table, a, b), swiss.SwissNight.from_dict)
    assert night.finished
    met = [frozenset((a, b)) for a, b, _, _ in games]
    assert len(met) == len(set(met)) == 9, "six pairs, three rounds: nine different games"
    assert HOUSE not in {p for game in met for p in game}

    points = {p.id: [0, 0, 0] for p in night.pairs}  # match points, for, against
    for one, two, score_one, score_two in games:
        for me, mine, theirs in ((one, score_one, score_two), (two, score_two, score_one)):
            points[me][0] += 2 if mine > theirs else 1 if mine == theirs else 0
            points[me][1] += mine
            points[me][2] += theirs
    ranked = night.standings()
    assert {s.pair: [s.match_points, s.points_for, s.points_against] for s in ranked} == points
    keys = [(s.match_points, s.difference) for s in ranked]
    assert keys == sorted(keys, reverse=True)
    for upper, lower in itertools.pairwise(ranked):
        if (upper.match_points, upper.difference) == (lower.match_points, lower.difference):
            head = [g for g in games if {g[0], g[1]} == {upper.pair, lower.pair}]
            for first, _, score_one, score_two in head:  # head-to-head: upper did not lose it
                assert (score_one - score_two) * (1 if first == upper.pair else -1) >= 0


def test_an_odd_count_plays_the_house_pair_and_nobody_plays_it_twice_while_avoidable() -> None:
    rng = random.Random(7)
    night = swiss.start(pairs(5), planned=5)
    housed = []
    for _ in range(5):
        night = swiss.pair_next(night)
        [bye] = [m.a for m in night.rounds[-1].matches if m.b == HOUSE]
        housed.append(bye)
        for table, a, b in play(night.rounds[-1], rng, draws=False):
            night = swiss.record(night, table, a, b)
    assert sorted(housed) == [p.id for p in night.pairs]
    assert len(night.standings()) == 5, "the house pair is never ranked"


def test_a_withdrawn_pair_is_paired_no_more_and_a_late_one_joins_with_zero_points() -> None:
    rng = random.Random(3)
    night = swiss.pair_next(swiss.start(pairs(4), planned=3))
    night = swiss.enter(night, Pair("late", ("Rosa", "Juan")))
    quitter = night.rounds[0].matches[0].a
    night = swiss.withdraw(night, quitter)
    assert night.rounds[0].matches[0].winner == night.rounds[0].matches[0].b  # a walkover
    for table, a, b in play(night.rounds[0], rng, draws=False):
        night = swiss.record(night, table, a, b)
    night = kept(swiss.pair_next(night), swiss.SwissNight.from_dict)
    second = {p for m in night.rounds[1].matches for p in (m.a, m.b)}
    assert quitter not in second
    assert "late" in second
    assert HOUSE not in second, "three old pairs and the late one: two games"
    [late] = [s for s in night.standings() if s.pair == "late"]
    assert (late.played, late.match_points) == (0, 0)


def test_a_result_is_refused_when_it_cannot_be() -> None:
    night = swiss.pair_next(swiss.start(pairs(4), planned=1))
    with pytest.raises(TournamentError, match="has no table 9"):
        swiss.record(night, 9, 40, 20)
    night = swiss.record(night, 1, 40, 20)
    with pytest.raises(TournamentError, match="already recorded"):
        swiss.record(night, 1, 40, 30)
    with pytest.raises(TournamentError, match="two members, or fewer and a bot level"):
        Pair("solo", ("Ana",))


def test_eight_pairs_play_groups_then_a_knockout_with_repechage_to_one_winner() -> None:
    rng = random.Random(96)
    night = knockout.start(pairs(8))
    assert [len(group) for group in night.groups] == [4, 4]
    assert night.groups[0][:2] == ("p1", "p4"), "snake seeding: seeds 1 and 4 share a group"
    stages = []
    while night.champion is None:
        night = kept(knockout.pair_next(night), knockout.GroupsNight.from_dict)
        stages.append(night.rounds[-1].stage)
        for table, a, b in play(night.rounds[-1], rng, draws=stages[-1] == "group"):
            night = kept(knockout.record(night, table, a, b), knockout.GroupsNight.from_dict)
    assert stages == ["group"] * 3 + ["repechage", "main", "main"]
    for group in night.groups:
        for pair in group:
            assert sum(m.has(pair) for r in night.rounds[:3] for m in r.matches) == 3
    winners = {knockout.group_table(night, group)[0].pair for group in night.groups}
    repechage = night.rounds[3]
    assert len(repechage.matches) == 2, "two places for the runners-up and thirds"
    semis = night.rounds[4]
    assert {p for m in semis.matches for p in (m.a, m.b)} == winners | {
        m.winner for m in repechage.matches
    }
    final = night.rounds[5].matches[0]
    assert night.champion == final.winner
    with pytest.raises(TournamentError, match="the night is over"):
        knockout.pair_next(night)


def test_a_knockout_game_needs_a_winner_and_groups_need_fours() -> None:
    with pytest.raises(TournamentError, match="add 2 pair"):
        knockout.start(pairs(6))
    night = knockout.start(pairs(4))
    for _ in range(3):
        night = knockout.pair_next(night)
        for match in night.rounds[-1].matches:
            night = knockout.record(night, match.table, 40, 10)
    night = knockout.pair_next(night)  # one group: its winner and one repechage survivor
    assert night.rounds[-1].stage == "repechage"
    with pytest.raises(TournamentError, match="needs a winner"):
        knockout.record(night, 1, 30, 30)


def test_a_withdrawn_pair_gives_walkovers_in_the_groups() -> None:
    night = knockout.withdraw(knockout.start(pairs(8)), "p1")
    night = knockout.pair_next(night)
    [game] = [m for m in night.rounds[0].matches if m.has("p1")]
    assert game.done
    assert game.winner != "p1"


# --- Swiss pairing properties ---------------------------------------------------------------


def zero_repeat_exists(active: list[str], seen: set[frozenset[str]]) -> bool:
    """Brute force, independent of ``swiss``: any round without a repeat (a bye vs the house)."""
    if not active:
        return True
    if len(active) % 2:
        return any(
            frozenset((bye, HOUSE)) not in seen
            and zero_repeat_exists([p for p in active if p != bye], seen)
            for bye in active
        )
    first, rest = active[0], active[1:]
    return any(
        frozenset((first, other)) not in seen
        and zero_repeat_exists([p for p in rest if p != other], seen)
        for other in rest
    )


@settings(max_examples=60, deadline=None)
@given(
    count=st.integers(min_value=2, max_value=9),
    rounds=st.integers(min_value=1, max_value=7),
    seed=st.integers(min_value=0, max_value=2**32),
    changes=st.lists(st.tuples(st.integers(0, 6), st.booleans()), max_size=4),
)
def test_swiss_pairs_every_active_pair_once_and_repeats_only_when_unavoidable(
    count: int, rounds: int, seed: int, changes: list[tuple[int, bool]]
) -> None:
    rng = random.Random(seed)
    night = swiss.start(pairs(count), planned=rounds)
    late = 100
    for number in range(1, rounds + 1):
        for when, leaves in changes:
            if when == number:
                ids = [p.id for p in night.pairs if p.withdrawn is None]
                if leaves and len(ids) > 1:
                    night = swiss.withdraw(night, rng.choice(ids))
                elif not leaves:
                    night, late = swiss.enter(night, Pair(f"p{late}", ("X", "Y"))), late + 1
        seen = {frozenset((m.a, m.b)) for m in night.matches}
        night = swiss.pair_next(night)
        active = [p.id for p in night.pairs if p.active_in(number)]
        games = night.rounds[-1].matches
        paired = [p for m in games for p in (m.a, m.b) if p != HOUSE]
        assert sorted(paired) == sorted(active)
        repeats = sum(frozenset((m.a, m.b)) in seen for m in games)
        if zero_repeat_exists(active, seen):
            assert repeats == 0, (active, seen, games)
        for table, a, b in play(night.rounds[-1], rng, draws=True):
            night = swiss.record(night, table, a, b)


def test_a_round_of_matches_survives_json() -> None:
    round_ = Round(2, "swiss", (Match(1, "p1", "p2", 40, 12), Match(2, "p3", HOUSE, forfeit="p3")))
    assert Round.from_dict(json.loads(json.dumps(round_.to_dict()))) == round_


@pytest.mark.parametrize(("count", "stages"), [(12, 3), (96, 3)])
def test_quitos_shape_any_multiple_of_four_plays_to_one_winner_despite_withdrawals(
    count: int, stages: int
) -> None:
    """96 pairs: 24 groups; 24 winners and 8 repechage survivors make a main draw of 32."""
    rng = random.Random(count)
    night = knockout.start(pairs(count))
    while night.champion is None:
        night = knockout.pair_next(night)
        if len(night.rounds) in (2, 5):
            playing = [m.a for m in night.rounds[-1].matches if not m.done]
            night = knockout.withdraw(night, rng.choice(playing))
        for table, a, b in play(night.rounds[-1], rng, draws=night.rounds[-1].stage == "group"):
            night = knockout.record(night, table, a, b)
    kinds = [r.stage for r in night.rounds]
    assert kinds.count("repechage") == stages
    main = [r for r in night.rounds if r.stage == "main"]
    assert len(main) == (len(night.groups) - 1).bit_length()
    assert not night.withdrawn(night.champion)
    assert kept(night, knockout.GroupsNight.from_dict) == night
