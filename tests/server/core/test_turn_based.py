"""A turn-based table (``move_deadline``) waits for its people: nobody stands in for an absent
person until the deadline passes, no grace runs out, a reminder comes an hour before, and the
people it waits for are told (docs/rules.md "Turn-based tables")."""

from __future__ import annotations

import itertools

import pytest

from engine.phase import Phase
from protocol import client_messages as c
from protocol import table_events as t
from server.bots import decide
from server.config import Settings
from server.core.clocks import REMIND_BEFORE_S
from server.core.commands import Attach
from server.core.referee import Outcome, Referee
from server.core.table import Pace
from tests.server.core.drive import bot_act, detach, handle, tick

T0 = 1_000_000.0
DAY = 86400
CONFIG = Settings(grace_s=60, claim_window_s=15, bot_delay_s=0.5, away_turn_s=5).referee_config()
ANA, BETO = "pAnaAnaAna", "pBetoBetoBeto"


def events_of(out: Outcome) -> list[object]:
    return [message for _, message in out.sent()]


def turn_based(seed: int = 5, deadline: int = DAY) -> Referee:
    """Ana (seat 0) and Beto (seat 2), known people, with bots between them; dealt at T0."""
    seeds = itertools.count(seed)
    ref = Referee.create(
        "pagat-4p", {}, 0, CONFIG, seeds=lambda: next(seeds), pace=Pace(deadline, "stand_in")
    )
    key = ref.table.keys["join"]
    ref.apply(Attach("host", "Host", c.Watch(key=ref.table.keys["host"]), "host", None), T0)
    for conn, seat, player in (("ana", 0, ANA), ("beto", 2, BETO)):
        join = c.Join(key=key, seat=seat)
        ref.apply(Attach(conn, conn.title(), join, "join", None, player), T0)
    for seat in (1, 3):
        handle(ref, "host", c.AddBot(level=1, seat=seat), T0)
    handle(ref, "host", c.Start(), T0)
    return ref


def play_bots(ref: Referee, now: float) -> None:
    """Let every bot decision due at ``now`` be made, until a person is awaited."""
    for _ in range(200):
        requests = tick(ref, now).bots
        if not requests:
            return
        for request in requests:
            action = decide(request.level, request.view, request.legal, request.seed, 1.0)
            bot_act(ref, request, action, now)


def awaited_seat(ref: Referee) -> int:
    game = ref.table.game
    assert game is not None
    assert game.phase in (Phase.PLAY, Phase.ANNOUNCE)
    return game.turn


def test_an_absent_person_keeps_the_seat_with_no_stand_in_and_no_grace_invariant_5() -> None:
    ref = turn_based()
    out = detach(ref, "ana", T0 + 1)
    assert not any(isinstance(each, t.StandIn) for each in events_of(out))
    seat = ref.table.seats[0]
    assert (seat.occupant, seat.stand_in, seat.open) == ("person", False, False)
    kinds = {clock.kind for clock in ref.deadlines(T0 + 1)}
    assert "grace" not in kinds
    tick(ref, T0 + 10 * DAY)  # however long she is away, the seat stays hers
    assert ref.table.seats[0].occupant == "person"
    assert not ref.table.seats[0].open


def test_the_stand_in_plays_one_turn_at_the_deadline_and_not_before() -> None:
    ref = turn_based()
    detach(ref, "ana", T0)
    detach(ref, "beto", T0)
    play_bots(ref, T0)
    seat = awaited_seat(ref)
    assert seat in (0, 2)
    since = ref.table.decision_since
    turn = [d for d in ref.deadlines(since) if d.kind == "turn"]
    assert [(d.seat, d.at) for d in turn] == [(seat, since + DAY)]
    assert tick(ref, since + DAY - 1).bots == []  # a second early: nothing happens
    due = tick(ref, since + DAY).bots
    assert [(request.seat, request.level) for request in due] == [(seat, CONFIG.stand_in_level)]
    request = due[0]
    action = decide(request.level, request.view, request.legal, request.seed, 1.0)
    bot_act(ref, request, action, since + DAY)
    game = ref.table.game
    assert game is not None
    assert game.record().actions[-1]["seat"] == seat  # the stand-in's move, for that seat
    assert ref.table.seats[seat].occupant == "person"  # one turn: the seat is still theirs
    assert not ref.table.seats[seat].stand_in


def test_the_person_awaited_is_told_once_and_reminded_an_hour_before() -> None:
    ref = turn_based()
    detach(ref, "ana", T0)
    detach(ref, "beto", T0)
    notices = []
    for _ in range(200):  # the bots play until a person's turn: that outcome tells them
        requests = tick(ref, T0).bots
        if not requests:
            break
        for request in requests:
            action = decide(request.level, request.view, request.legal, request.seed, 1.0)
            notices += bot_act(ref, request, action, T0).notices
    seat = awaited_seat(ref)
    player = ANA if seat == 0 else BETO
    told = [notice for notice in notices if notice.kind == "your_turn"]
    assert [(n.player_id, n.room_id) for n in told] == [(player, ref.table_id)]
    notice = told[0]
    assert notice.url == f"/me?open={ref.table_id}"
    assert all(key not in repr(notice) for key in ref.table.keys.values())  # no link key
    assert notice.deadline == ref.table.decision_since + DAY
    assert tick(ref, T0 + 60).notices == []  # the same decision: not told again
    since = ref.table.decision_since
    assert tick(ref, since + DAY - REMIND_BEFORE_S - 1).notices == []
    near = tick(ref, since + DAY - REMIND_BEFORE_S).notices
    assert [(n.kind, n.player_id) for n in near] == [("deadline_near", player)]
    assert tick(ref, since + DAY - 60).notices == []  # once per decision


def test_a_person_at_the_table_is_not_sent_a_notice() -> None:
    ref = turn_based()
    notices = []
    for _ in range(200):
        requests = tick(ref, T0).bots
        if not requests:
            break
        for request in requests:
            action = decide(request.level, request.view, request.legal, request.seed, 1.0)
            notices += bot_act(ref, request, action, T0).notices
    assert notices == []  # both are connected: the page itself shows whose turn it is


def test_the_pace_survives_the_store_and_a_rebuild_stands_nobody_in() -> None:
    ref = turn_based(deadline=3600)
    detach(ref, "ana", T0)
    detach(ref, "beto", T0)
    play_bots(ref, T0)  # until a person's decision is awaited
    again = Referee.from_state(ref.to_state(), list(ref.table.log), CONFIG, T0 + 5)
    table = again.table
    assert (table.move_deadline, table.on_deadline) == (3600, "stand_in")
    assert not any(seat.stand_in for seat in table.seats if seat.occupant == "person")
    assert "grace" not in {clock.kind for clock in again.deadlines(T0 + 5)}
    # a one-hour deadline has no "deadline near": the "your turn" is that already
    assert again.next_wakeup() == pytest.approx(again.table.decision_since + 3600)
