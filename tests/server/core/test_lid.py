"""A laptop's lid closed for ten minutes: every process stopped, then continued. On wake many
deadlines are far past; the tables go on, and no seat gets more than one stand-in decision for
the stale time: after one decision the next one is counted from the wake (``decision_since``).

The loop here is the room's (``Room._clock_loop``) on a fake clock: wake at the earliest
deadline of any table, tick that table, answer its bots at the time now; each step costs a
millisecond. Ten minutes pass between two steps with nothing run, as under SIGSTOP.
"""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field
from typing import Final

from protocol import client_messages as c
from server.bots import decide
from server.config import Settings
from server.core.referee import Referee
from tests.server.core.drive import attach, bot_act, handle, tick

T0 = 1_000_000.0
LID_S = 600.0
TURN_S: Final = 15
STEP_S = 1e-3
CONFIG = Settings(grace_s=60, claim_window_s=5, bot_delay_s=0.5, away_turn_s=5).referee_config()


@dataclass
class Live:
    """A table as its room holds it, with the decisions its stand-ins made for people."""

    ref: Referee
    people: set[int]
    stand_ins: list[tuple[int, float]] = field(default_factory=list)  # (seat, when)


def live_table(n: int, people: tuple[int, ...]) -> Live:
    """A pagat-4p table with connected people in ``people`` (who never act: their turn clocks
    run out) and bots in the other seats, started at ``T0``."""
    seeds = itertools.count(100 * n)
    ref = Referee.create("pagat-4p", {}, TURN_S, CONFIG, seeds=lambda: next(seeds))
    attach(ref, "host", "Host", c.Watch(key=ref.table.keys["host"]), "host", T0)
    for seat in range(4):
        if seat in people:
            join = c.Join(key=ref.table.keys["join"], seat=seat)
            attach(ref, f"p{seat}", f"P{seat}", join, "join", T0)
        else:
            handle(ref, "host", c.AddBot(level=1, seat=seat), T0)
    handle(ref, "host", c.Start(), T0)
    return Live(ref, set(people))


def run_until(tables: list[Live], now: float, end: float) -> float:
    """Run every table's clocks from ``now`` until ``end`` as the room's loop would; the time
    after."""
    while True:
        wakes = [(w, i) for i, t in enumerate(tables) if (w := t.ref.next_wakeup()) is not None]
        if not wakes:
            return now
        wake, index = min(wakes)
        if wake > end:
            return now
        now = max(now, wake) + STEP_S
        live = tables[index]
        for request in tick(live.ref, now).bots:
            now += STEP_S
            if request.seat in live.people:
                live.stand_ins.append((request.seat, now))
            action = decide(request.level, request.view, request.legal, request.seed, 1.0)
            bot_act(live.ref, request, action, now)


def test_ten_minutes_stopped_gives_each_seat_at_most_one_stand_in_decision_and_tables_go_on() -> (
    None
):
    tables = [
        live_table(n, people)
        for n, people in enumerate([(0, 2), (0, 1), (0,), (0, 1, 2, 3), (1, 3), (2,)])
    ]
    before = run_until(tables, T0, T0 + 40)  # people's turns have run out already: stand-ins
    assert all(t.ref.table.stage == "playing" for t in tables)
    earlier = [len(t.stand_ins) for t in tables]
    events_before = [t.ref.table.last_event for t in tables]

    wake = before + LID_S  # nothing ran meanwhile: every deadline is ten minutes past
    assert all((w := t.ref.next_wakeup()) is not None and w < wake - LID_S / 2 for t in tables)
    run_until(tables, wake, wake + TURN_S - 1)

    per_seat = Counter(
        (n, seat)
        for n, t in enumerate(tables)
        for seat, at in t.stand_ins[earlier[n] :]
        if at >= wake
    )
    assert per_seat, "some person's turn was past on wake: its stand-in decided"
    assert max(per_seat.values()) == 1, f"a storm of stand-ins on wake: {per_seat}"
    for n, t in enumerate(tables):
        assert t.ref.table.last_event > events_before[n], f"table {n} stopped after the wake"
    # and the wake is not the end: the next person's turn is counted from it, and runs out
    later = run_until(tables, wake + TURN_S - 1, wake + 3 * TURN_S)
    assert later > wake + TURN_S
    assert sum(len(t.stand_ins) for t in tables) > sum(earlier) + len(per_seat)
