"""The R10 claim window without dead time: it closes, with the clock's own CloseClaims, as soon as
nothing is left to wait for; the engine's rules and the R15 record stay as they were.

The tables run on the sans-I/O referee with simulated time: every step moves the clock to the
referee's own next wake-up, so a window's length is what the clocks and the bots make it.
"""

from __future__ import annotations

import itertools

import pytest

from engine.actions import CloseClaims
from engine.phase import Phase
from engine.record import Record
from engine.replay import replay
from protocol import client_messages as c
from protocol.errors import ErrorCode
from server.config import Settings
from server.core.referee import Referee, RefereeConfig
from server.errors import Refused
from tests.server.core.drive import handle, tick
from tests.server.core.test_referee import T0, bots_play, host, join, phase_of

CONFIG = Settings(
    grace_s=60, claim_window_s=15, away_turn_s=5
).referee_config()  # default bot delay
assert CONFIG.bot_delay_s > 0


def table(people: dict[int, str], seed: int, config: RefereeConfig = CONFIG) -> Referee:
    """A pagat-4p table (claims by hand, R10's default): ``people`` by seat, bots elsewhere."""
    seeds = itertools.count(seed)
    ref = Referee.create("pagat-4p", {}, 0, config, seeds=lambda: next(seeds))
    host(ref)
    for seat, name in people.items():
        join(ref, name, seat=seat)
    for seat in range(4):
        if seat not in people:
            handle(ref, "host", c.AddBot(seat=seat, level=2), T0)
    handle(ref, "host", c.Start(), T0)
    return ref


def people_act(ref: Referee, people: dict[int, str], now: float) -> bool:
    """Each person whose turn it is makes the caída if there is one, else the first legal play."""
    game = ref.table.game
    assert game is not None
    for seat, conn in people.items():
        if game.phase in (Phase.PLAY, Phase.ANNOUNCE) and game.turn == seat:
            legal = [
                a for a in ref.snapshot(ref.table.viewers[conn]).legal if not isinstance(a, c.Claim)
            ]
            target = game.caida_target
            caida = [
                a
                for a in legal
                if isinstance(a, c.Play)
                and target is not None
                and len(a.take) >= 1
                and a.card[0] == a.take[0][0]
                and a.take[0] == _code(target)
            ]
            handle(ref, conn, (caida or legal)[0], now)
            return True
    return False


def window_clock(ref: Referee) -> float | None:
    """Read the claim clock afresh (the referee changes it behind the type checker's back)."""
    return ref.table.claims_deadline


def _code(card: int) -> str:
    return "A234567JQK"[card >> 2] + "CDHS"[card & 3]


def play_to_the_window(ref: Referee, people: dict[int, str], now: float) -> float:
    """Play (people and bots, each when due) until a claim window is open or the game ended."""
    game = ref.table.game
    assert game is not None
    while game.phase not in (Phase.CLAIMS, Phase.FINISHED):
        if not people_act(ref, people, now) and not bots_play(ref, now):
            wake = ref.next_wakeup()
            assert wake is not None, "the table waits for nobody yet does nothing"
            now = max(now, wake)
            bots_play(ref, now)  # the clock task: a tick, then the bots it found due
    return now


def test_a_hand_where_no_claim_can_score_closes_its_window_at_once_r10() -> None:
    """Hands whose R10 events are none (or only for teams at 30+) never hold anyone up."""
    ref = table(ANA, seed=11)
    game = ref.table.game
    assert game is not None
    now, hands = T0, 0
    while game.phase is not Phase.FINISHED:
        hand = game.hand_number
        if not people_act(ref, ANA, now) and not bots_play(ref, now):
            wake = ref.next_wakeup()
            assert wake is not None
            now = max(now, wake)
            bots_play(ref, now)  # the clock task: a tick, then the bots it found due
        if game.phase is Phase.CLAIMS:
            # Open only while a claim could still add 10 to a team below 30.
            assert any(game.scores[team] < 30 for team, _ in game.r10_open)
            handle(ref, "ana", c.NoClaim(), now)
        if game.hand_number != hand:
            hands += 1
    assert hands >= 1
    opened = [a for a in game.actions if isinstance(a, CloseClaims)]
    assert len(opened) >= hands  # every hand's window was closed by the same system action
    result = replay(Record.from_json(ref.record_for(ref.table.keys["host"]) or {}))
    assert result["status"] == "finished"


ANA = {0: "ana"}
PARTNERS = {0: "ana", 2: "beto"}  # team 0 (R1); the bots of team 1 decline at once


def find_open_window(people: dict[int, str]) -> tuple[Referee, float]:
    """A seeded table whose first claim window waits for its people (their team can score)."""
    for seed in range(400):
        ref = table(people, seed)
        now = play_to_the_window(ref, people, T0)
        game = ref.table.game
        assert game is not None
        bots_play(ref, now)  # the bots decide at once, whatever the bot delay
        if game.phase is Phase.CLAIMS:
            return ref, now
    pytest.fail("no seed in 0..399 gave a claim window that could score")


@pytest.mark.timeout(120)
def test_a_window_with_two_people_who_pass_closes_as_soon_as_both_passed_r10() -> None:
    ref, now = find_open_window(PARTNERS)
    game = ref.table.game
    assert game is not None
    assert ref.table.claims_deadline is not None
    assert now < ref.table.claims_deadline  # long before the clock
    handle(ref, "ana", c.NoClaim(), now)
    assert phase_of(ref) is Phase.CLAIMS  # beto may still claim
    handle(ref, "beto", c.NoClaim(), now)
    assert phase_of(ref) is not Phase.CLAIMS
    assert window_clock(ref) is None
    assert sum(isinstance(a, CloseClaims) for a in game.actions) == 1  # the clock's own action
    with pytest.raises(Refused) as late:
        handle(ref, "ana", c.NoClaim(), now)
    assert late.value.code is ErrorCode.WRONG_PHASE


@pytest.mark.timeout(120)
def test_a_wrong_claim_still_ends_that_teams_claiming_r10() -> None:
    ref, now = find_open_window(PARTNERS)
    game = ref.table.game
    assert game is not None
    team_events = {rank for team, rank in game.r10_open if team == 0}
    wrong = next(r for r in range(10) if r not in team_events)
    handle(ref, "ana", c.Claim(rank="A234567JQK"[wrong]), now)
    assert not any(team == 0 for team, _ in game.r10_open)  # R10: team 0 claims no more
    with pytest.raises(Refused) as again:
        handle(ref, "ana", c.Claim(rank="A234567JQK"[wrong]), now)
    assert again.value.code in (ErrorCode.NOT_YOUR_TURN, ErrorCode.ILLEGAL_ACTION)


@pytest.mark.timeout(120)
@pytest.mark.parametrize("seed", [3, 5, 8])
def test_one_person_and_three_bots_wait_at_most_two_seconds_per_window_r10(seed: int) -> None:
    """At the default bot delay, a person who passes at once costs a hand at most 2 s of window."""
    ref = table(ANA, seed=seed)
    game = ref.table.game
    assert game is not None
    now, window_time = T0, dict[int, float]()
    while game.phase is not Phase.FINISHED:
        hand, before, was_open = game.hand_number, now, game.phase is Phase.CLAIMS
        if game.phase is Phase.CLAIMS and 0 not in ref.table.claims_done:
            handle(ref, "ana", c.NoClaim(), now)  # the person passes as soon as it opens
        elif not people_act(ref, ANA, now) and not bots_play(ref, now):
            wake = ref.next_wakeup()
            assert wake is not None
            now = max(now, wake)
            bots_play(ref, now)  # the clock task: a tick, then the bots it found due
        if was_open:
            window_time[hand] = window_time.get(hand, 0.0) + now - before
    windows = sum(isinstance(a, CloseClaims) for a in game.actions)
    assert windows == len(game.counted_hands) >= 1  # every counted hand had its window
    assert all(w <= 2.0 for w in window_time.values()), window_time


@pytest.mark.timeout(120)
def test_a_window_its_people_leave_unanswered_closes_on_its_clock_r10() -> None:
    """(Moved from test_referee.py: a window that waits for people still ends on the clock.)"""
    ref, _now = find_open_window(PARTNERS)
    deadline = ref.table.claims_deadline
    assert deadline is not None
    assert deadline == pytest.approx(ref.table.decision_since + 15, abs=0.02)
    assert "claims" in [d.kind for d in ref.deadlines()]
    tick(ref, deadline - 0.01)
    assert phase_of(ref) is Phase.CLAIMS
    tick(ref, deadline)
    assert phase_of(ref) in (Phase.PLAY, Phase.ANNOUNCE, Phase.FINISHED)
    assert ref.table.claims_deadline is None
