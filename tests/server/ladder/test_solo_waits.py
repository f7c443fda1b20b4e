"""A solo ladder chica waits for its one person: no bot ever acts for them (R14, invariant 5).

The sans-I/O referee is driven with the server's own clock mechanisms — a ``Tick`` (and the bot
decisions its outcome carries) and ``next_wakeup`` at a given time — so hours and days pass
without a sleep: the person leaves
mid-hand, every deadline the server knows (the away turn, the grace, a turn timer) goes by,
the table is rebuilt from its stored state as after a restart, and nothing is played for them.
"""

from __future__ import annotations

import itertools
import json

from engine.actions import Action, Play, action_from_json
from protocol import server_messages as s
from protocol.convert import action_to_wire
from server.bots import decide
from server.config import Settings
from server.core.chica import BOT_SEAT, PERSON_SEAT
from server.core.commands import DealChica
from server.core.referee import Referee
from server.ladder.outcome import chica_outcome
from tests.server.core.drive import bot_act, detach, handle, resume, tick

T0 = 1_000_000.0
DAY = 24 * 3600.0
CONFIG = Settings(grace_s=60, claim_window_s=15, bot_delay_s=0.0, away_turn_s=5).referee_config()
LATER = (CONFIG.away_turn_s + 1, CONFIG.grace_s + 1, 3600.0, DAY, 7 * DAY)
"""Times after a departure: past the away turn, past the grace, an hour, a day, a week."""


def solo_table(seed: int) -> tuple[Referee, str]:
    seeds = itertools.count(seed)
    ref = Referee.create("heads-up", {}, 0, CONFIG, seeds=lambda: next(seeds))
    dealt = ref.apply(DealChica("Ana", 1), T0).reserved
    assert dealt is not None
    return ref, dealt.token


def restarted(ref: Referee, now: float) -> Referee:
    """The table as a server restart rebuilds it: from its stored state and log alone."""
    return Referee.from_state(ref.to_state(), list(ref.table.log), CONFIG, now)


def greedy(actions: tuple[Action, ...]) -> Action:
    plays = [action for action in actions if isinstance(action, Play)]
    return max(plays, key=lambda play: (len(play.take), -play.card)) if plays else actions[0]


def let_the_clocks_run(ref: Referee, now: float) -> int:
    """Everything the server's clock task would do at ``now``: tick, then every due bot.

    Returns how many bot moves were made; each must be the bot's own seat's.
    """
    moves = 0
    requests = tick(ref, now).bots
    while requests:
        for request in requests:
            assert request.seat == BOT_SEAT, "a bot was asked to decide for the person"
            action = decide(request.level, request.view, request.legal, request.seed, 1.0)
            bot_act(ref, request, action, now)
            moves += 1
        requests = tick(ref, now).bots
    return moves


def logged(ref: Referee) -> list[dict[str, object]]:
    """The table's log as the person's seat sees it."""
    out = []
    for line in ref.table.log:
        entry = json.loads(line)
        out.append(entry["a"] if "a" in entry else entry["v"][PERSON_SEAT])
    return out


def test_r14_nothing_is_played_for_the_person_while_they_are_away_for_days() -> None:
    ref, token = solo_table(4242)
    resume(ref, "ana-1", "Ana", token, 0, 1, T0)
    let_the_clocks_run(ref, T0)  # the bot, if it leads
    game = ref.table.game
    assert game is not None
    handle(ref, "ana-1", action_to_wire(greedy(game.legal_actions(PERSON_SEAT))), T0 + 1)
    let_the_clocks_run(ref, T0 + 1)
    assert PERSON_SEAT in game.to_act(), "the bot answered: the person's turn again"
    hand, events = game.hand(PERSON_SEAT), ref.table.last_event
    detach(ref, "ana-1", T0 + 2)  # the tab is closed in the middle of the hand

    for after in LATER:
        assert let_the_clocks_run(ref, T0 + 2 + after) == 0
        assert ref.next_wakeup() is None, "the clock has nothing to do while the person is away"
    ref = restarted(ref, T0 + 2 + DAY)  # a server restart on the stored state
    for after in LATER:
        assert let_the_clocks_run(ref, T0 + 2 + DAY + after) == 0
        assert ref.next_wakeup() is None
    game = ref.table.game
    assert game is not None
    assert (game.hand(PERSON_SEAT), ref.table.last_event) == (hand, events)
    assert not ref.table.seats[PERSON_SEAT].open, "nobody else may take the person's seat"

    back = resume(ref, "ana-2", "Ana", token, events, 2, T0 + 30 * DAY)
    assert ref.table.last_event == events, "coming back logs nothing (no 'is back' line)"
    snaps = [m for to, m in back.sent() if to == "ana-2" and isinstance(m, s.Snapshot)]
    assert snaps
    assert snaps[-1].legal, "the person's turn waited for them"
    assert not any(event.get("type") == "stand_in" for event in logged(ref))
    assert not snaps[-1].you.host, "the ladder hosts the table, not the person"


def test_r14_a_chica_left_after_every_move_is_decided_only_by_the_persons_own_plays() -> None:
    ref, token = solo_table(777)
    now, played = T0, []
    for visit in itertools.count():
        conn = f"ana-{visit}"
        resume(ref, conn, "Ana", token, ref.table.last_event, visit, now)
        let_the_clocks_run(ref, now)
        game = ref.table.game
        assert game is not None
        if ref.table.stage == "finished":
            break
        action = greedy(game.legal_actions(PERSON_SEAT))
        handle(ref, conn, action_to_wire(action), now)
        played.append(action)
        let_the_clocks_run(ref, now)
        detach(ref, conn, now)
        now += DAY  # away a whole day after every move: every deadline passes
        assert let_the_clocks_run(ref, now) == 0
        if visit % 5 == 4:
            ref = restarted(ref, now)
        assert visit < 200

    record = ref.table.finished_record
    assert record is not None
    persons = [action_from_json(a) for a in record["actions"] if a["seat"] == PERSON_SEAT]
    assert persons == played, "every card of the person's seat is one the person chose"
    outcome = chica_outcome([json.loads(line) for line in ref.table.log], PERSON_SEAT)
    assert outcome is not None
    assert not outcome.assisted
    assert not any(event.get("type") == "stand_in" for event in logged(ref))
