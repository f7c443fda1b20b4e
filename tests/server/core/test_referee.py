"""The sans-I/O room core: commands and the time in, events and messages out; no sockets."""

from __future__ import annotations

import itertools
import json
import random

import pytest

from engine.actions import Play
from engine.phase import Phase
from protocol import client_messages as c
from protocol import server_messages as s
from protocol import table_events as t
from protocol.base import TurnTimer
from protocol.errors import ErrorCode
from server.bots import decide
from server.config import Settings
from server.core.referee import Outcome, Referee, RefereeConfig
from server.errors import Refused
from tests.server.core.drive import attach, bot_act, bots_due, detach, handle, resume, tick

T0 = 1_000_000.0
CONFIG = Settings(grace_s=60, claim_window_s=15, bot_delay_s=0.0, away_turn_s=5).referee_config()


def new_table(turn_timer: TurnTimer = 0, config: RefereeConfig = CONFIG) -> Referee:
    seeds = itertools.count(7)
    return Referee.create("pagat-4p", {}, turn_timer, config, seeds=lambda: next(seeds))


def host(ref: Referee, conn: str = "host", seat: int | None = None) -> Outcome:
    if seat is None:
        return attach(ref, conn, "Host", c.Watch(key=ref.table.keys["host"]), "host", T0)
    return attach(ref, conn, "Host", c.Join(key=ref.table.keys["host"], seat=seat), "host", T0)


def join(ref: Referee, conn: str, seat: int | None = None, now: float = T0) -> Outcome:
    return attach(
        ref, conn, conn.title(), c.Join(key=ref.table.keys["join"], seat=seat), "join", now
    )


def messages_to(out: Outcome, conn: str) -> list[s.ServerMessage]:
    return [message for to, message in out.sent() if to == conn]


def occupant(ref: Referee, seat: int) -> str:
    """Read a seat afresh (the referee changes it behind the type checker's back)."""
    return ref.table.seats[seat].occupant


def phase_of(ref: Referee) -> Phase:
    assert ref.table.game is not None
    return ref.table.game.phase


def bots_play(ref: Referee, now: float, limit: int | None = None) -> int:
    """Tick at ``now`` and let every bot it finds due act, until none is; return the moves."""
    moves = 0
    while (limit is None or moves < limit) and (requests := bots_due(ref, now)):
        for request in requests:
            action = decide(request.level, request.view, request.legal, request.seed, 1.0)
            bot_act(ref, request, action, now)
            moves += 1
    return moves


def test_people_take_the_first_free_seat_or_the_one_they_choose_r1() -> None:
    ref = new_table()
    seated = messages_to(join(ref, "ana"), "ana")
    assert isinstance(seated[1], s.Seated)
    assert seated[1].seat == 0
    join(ref, "beto", seat=2)
    assert isinstance(messages_to(join(ref, "caro"), "caro")[1], s.Seated)
    assert [seat.name for seat in ref.table.seats] == ["Ana", "Caro", "Beto", None]
    with pytest.raises(Refused) as taken:
        join(ref, "dani", seat=2)
    assert taken.value.code is ErrorCode.SEAT_TAKEN


def test_a_newcomer_gets_the_state_first_then_every_event_r2() -> None:
    ref = new_table()
    join(ref, "ana")
    out = join(ref, "beto")
    kinds = [type(message).__name__ for message in messages_to(out, "beto")]
    assert kinds == ["Snapshot", "Seated", "Event", "Snapshot"]
    first, event = messages_to(out, "beto")[0], messages_to(out, "beto")[2]
    assert isinstance(first, s.Snapshot)
    assert isinstance(event, s.Event)
    assert event.n == first.last_event + 1


def test_the_watch_link_cannot_sit_and_a_locked_table_lets_only_the_host_in() -> None:
    ref = new_table()
    with pytest.raises(Refused) as watch:
        attach(ref, "eva", "Eva", c.Join(key=ref.table.keys["watch"]), "watch", T0)
    assert watch.value.code is ErrorCode.FORBIDDEN
    host(ref)
    handle(ref, "host", c.Lock(locked=True), T0)
    with pytest.raises(Refused) as locked:
        join(ref, "ana")
    assert locked.value.code is ErrorCode.TABLE_LOCKED
    handle(ref, "host", c.Sit(seat=3), T0)
    assert ref.table.seats[3].name == "Host"


def test_only_the_host_starts_and_only_with_every_seat_filled() -> None:
    ref = new_table()
    host(ref)
    join(ref, "ana")
    with pytest.raises(Refused) as not_host:
        handle(ref, "ana", c.Start(), T0)
    assert not_host.value.code is ErrorCode.FORBIDDEN
    with pytest.raises(Refused) as empty:
        handle(ref, "host", c.Start(), T0)
    assert empty.value.code is ErrorCode.WRONG_PHASE
    for level in (1, 2, 2):
        handle(ref, "host", c.AddBot(level=level), T0)
    handle(ref, "host", c.Start(), T0)
    assert ref.table.stage == "playing"
    assert ref.table.game is not None


def _one_person_three_bots(turn_timer: TurnTimer = 0, config: RefereeConfig = CONFIG) -> Referee:
    ref = new_table(turn_timer, config)
    host(ref)
    join(ref, "ana", seat=0)
    for _ in range(3):
        handle(ref, "host", c.AddBot(level=2), T0)
    handle(ref, "host", c.Start(), T0)
    return ref


def _until_anas_turn(ref: Referee, now: float) -> None:
    while ref.table.game is not None and ref.table.game.turn != 0:
        assert bots_play(ref, now) > 0


def test_a_person_past_the_turn_timer_is_played_for_by_the_stand_in() -> None:
    ref = _one_person_three_bots(turn_timer=15)
    _until_anas_turn(ref, T0)
    since = ref.table.decision_since
    assert [d.kind for d in ref.deadlines()] == ["turn"]
    assert ref.deadlines(since + 10)[0].remaining_ms == 5000, "a countdown from server time"
    assert bots_due(ref, since + 14.9) == []
    assert ref.next_wakeup() == since + 15
    (request,) = bots_due(ref, since + 15)
    assert request.seat == 0
    before = ref.table.last_event
    bot_act(ref, request, request.legal[0], since + 15)
    assert ref.table.last_event > before
    assert not ref.table.seats[0].stand_in, "a timeout stands in for one decision only"


def test_an_absent_persons_turn_waits_briefly_then_the_stand_in_plays_r7() -> None:
    ref = _one_person_three_bots()
    _until_anas_turn(ref, T0)
    out = detach(ref, "ana", T0 + 1)
    assert ref.table.seats[0].stand_in
    stand_in = t.StandIn(seat=0, active=True, reason="disconnected")
    assert any(isinstance(m, s.Event) and m.event == stand_in for _, m in out.sent())
    assert bots_due(ref, T0 + 5.9) == []
    (request,) = bots_due(ref, T0 + 6)
    assert request.seat == 0
    assert request.level == CONFIG.stand_in_level
    assert request.stand_in  # the runner's learned stand-in may play it (server.bots)


def test_a_returning_player_gets_exactly_the_missed_events_then_a_snapshot_r2() -> None:
    ref = _one_person_three_bots()
    token = ref.table.seats[0].token
    assert token is not None
    seen = ref.table.last_event
    detach(ref, "ana", T0)
    bots_play(ref, T0 + 10, limit=6)
    assert ref.table.last_event > seen + 1
    out = resume(ref, "ana2", "Ana", token, seen, 9, T0 + 10)
    sent = messages_to(out, "ana2")
    assert isinstance(sent[0], s.Seated)
    assert sent[0].rid == 9
    numbers = [m.n for m in sent if isinstance(m, s.Event)]
    assert numbers == list(range(seen + 1, ref.table.last_event + 1))
    assert isinstance(sent[-1], s.Snapshot)
    assert sent[-1].last_event == ref.table.last_event
    assert not ref.table.seats[0].stand_in


def test_grace_frees_a_lobby_seat_and_opens_a_game_seat_to_newcomers() -> None:
    lobby = new_table()
    join(lobby, "ana")
    host(lobby, "eva")
    out = detach(lobby, "ana", T0)
    (clocks,) = [m for m in messages_to(out, "eva") if isinstance(m, s.Deadlines)]
    assert [(d.kind, d.seat, d.at) for d in clocks.deadlines] == [("grace", 0, T0 + 60)]
    assert lobby.next_wakeup() == T0 + 60
    tick(lobby, T0 + 59)
    assert occupant(lobby, 0) == "person"
    tick(lobby, T0 + 60)
    assert occupant(lobby, 0) == "empty"

    game = _one_person_three_bots()
    old_token = game.table.seats[0].token
    assert old_token is not None
    detach(game, "ana", T0)
    with pytest.raises(Refused):
        join(game, "beto", now=T0 + 1)  # still Ana's
    tick(game, T0 + 60)
    assert game.table.seats[0].open
    join(game, "beto", now=T0 + 61)
    assert game.table.seats[0].name == "Beto"
    with pytest.raises(Refused) as gone:
        resume(game, "ana2", "Ana", old_token, None, 1, T0 + 62)
    assert gone.value.code is ErrorCode.BAD_TOKEN


def test_a_table_of_bots_never_waits_on_the_claim_clock_r10() -> None:
    ref = new_table()
    host(ref)
    for _ in range(4):
        handle(ref, "host", c.AddBot(level=2), T0)
    handle(ref, "host", c.Start(), T0)
    while ref.table.stage == "playing":
        assert bots_play(ref, T0) > 0, "an all-bot game never stalls at T0"
    assert ref.table.game is not None
    assert ref.table.game.phase is Phase.FINISHED


def test_the_table_rebuilds_from_its_stored_state_and_log_alone() -> None:
    ref = _one_person_three_bots(turn_timer=30)
    bots_play(ref, T0)
    rebuilt = Referee.from_state(ref.to_state(), list(ref.table.log), CONFIG, T0 + 5)
    original, again = json.loads(ref.to_state()), json.loads(rebuilt.to_state())
    assert again["seats"][0]["away_since"] == T0 + 5, "after a restart the person is away"
    for state in (original, again):
        state["seats"][0]["away_since"] = None
        state["seats"][0]["stand_in"] = False
    assert again == original
    assert rebuilt.table.log == ref.table.log
    assert rebuilt.publisher.forms == ref.publisher.forms, (
        "the wire forms are rebuilt from the stored log"
    )
    assert rebuilt.table.game is not None
    assert ref.table.game is not None
    assert str(rebuilt.table.game) == str(ref.table.game)
    assert ("grace", 0) in [(d.kind, d.seat) for d in rebuilt.deadlines()]


def test_players_chat_to_the_table_and_spectators_among_themselves_rate_limited() -> None:
    ref = new_table()
    join(ref, "ana")
    host(ref, "eva")
    assert ref.info().spectators == 1, "the number of spectators is public"
    out = handle(ref, "ana", c.Chat(text="¡hola!"), T0)
    assert {to for to, m in out.sent() if isinstance(m, s.ChatLine)} == {"ana", "eva"}
    out = handle(ref, "eva", c.Chat(text="psst"), T0)
    assert {to for to, m in out.sent() if isinstance(m, s.ChatLine)} == {"eva"}
    for _ in range(4):
        handle(ref, "ana", c.Chat(text="spam"), T0)
    with pytest.raises(Refused) as limited:
        handle(ref, "ana", c.Chat(text="spam"), T0)
    assert limited.value.code is ErrorCode.RATE_LIMITED
    handle(ref, "ana", c.Chat(text="later"), T0 + 60)


def test_the_record_is_for_players_and_the_host_once_the_game_is_over_r15() -> None:
    ref = new_table()
    host(ref)
    attach(ref, "eva", "Eva", c.Watch(key=ref.table.keys["watch"]), "watch", T0)
    for _ in range(4):
        handle(ref, "host", c.AddBot(level=1), T0)
    handle(ref, "host", c.Start(), T0)
    with pytest.raises(Refused) as early:
        handle(ref, "host", c.GetRecord(), T0)
    assert early.value.code is ErrorCode.RECORD_UNAVAILABLE
    while ref.table.stage == "playing":
        bots_play(ref, T0)
    (answer,) = messages_to(handle(ref, "host", c.GetRecord(rid=5), T0), "host")
    assert isinstance(answer, s.RecordMessage)
    assert answer.record["format"] == "cuarenta-record/1"
    with pytest.raises(Refused) as spectator:
        handle(ref, "eva", c.GetRecord(), T0)
    assert spectator.value.code is ErrorCode.FORBIDDEN
    assert ref.record_for(ref.table.keys["host"]) == answer.record
    assert ref.record_for(ref.table.keys["watch"]) is None


def test_a_rematch_starts_with_the_same_seats_when_every_person_asks() -> None:
    ref = new_table()
    host(ref)
    join(ref, "ana")
    join(ref, "beto")
    handle(ref, "host", c.AddBot(level=1), T0)
    handle(ref, "host", c.AddBot(level=1), T0)
    handle(ref, "host", c.Start(), T0)
    rng = random.Random(1)
    now = T0
    while ref.table.stage == "playing":
        for conn in ("ana", "beto"):
            legal = ref.snapshot(ref.table.viewers[conn]).legal
            plays = [a for a in legal if isinstance(a, c.Play | c.Announce)]
            if plays:
                handle(ref, conn, rng.choice(plays), now)
        bots_play(ref, now)
        if ref.table.claims_deadline is not None:  # nobody claims: the clock closes the window
            now = ref.table.claims_deadline
            bots_play(ref, now)
    names = [seat.name for seat in ref.table.seats]
    handle(ref, "ana", c.Rematch(), now)
    assert ref.table.stage == "finished"
    handle(ref, "beto", c.Rematch(), now)
    assert ref.table.stage == "playing"
    assert ref.table.game_no == 2
    assert [seat.name for seat in ref.table.seats] == names


def test_the_host_kicks_a_person_out_of_a_lobby_seat() -> None:
    ref = new_table()
    host(ref)
    join(ref, "ana")
    out = handle(ref, "host", c.Kick(seat=0), T0)
    assert isinstance(messages_to(out, "ana")[0], s.Goodbye)
    assert "ana" in out.detached
    assert ref.table.seats[0].occupant == "empty"
    with pytest.raises(Refused):
        handle(ref, "ana", c.Chat(text="hey"), T0)


def test_a_tick_asks_each_due_bot_once_and_its_outcome_carries_the_requests() -> None:
    ref = new_table()
    host(ref)
    for _ in range(4):
        handle(ref, "host", c.AddBot(level=1), T0)
    handle(ref, "host", c.Start(), T0)
    assert ref.table.game is not None
    (request,) = tick(ref, T0).bots
    assert request.seat == ref.table.game.turn
    assert request.at == ref.table.last_event
    assert tick(ref, T0).bots == [], "asked once per table state, while the bot thinks"
    bot_act(ref, request, request.legal[0], T0)
    assert [asked.seat for asked in tick(ref, T0).bots] == [ref.table.game.turn]


def test_an_illegal_bot_answer_is_noted_and_its_first_legal_action_played() -> None:
    """The table never stalls on a bad bot: the answer is replaced, and the shell is told."""
    ref = new_table()
    host(ref)
    for _ in range(4):
        handle(ref, "host", c.AddBot(level=1), T0)
    handle(ref, "host", c.Start(), T0)
    (request,) = bots_due(ref, T0)
    game = ref.table.game
    assert game is not None
    assert request.view.hand is not None
    foreign = next(card for card in range(40) if card not in request.view.hand)
    illegal = Play(request.seat, foreign)
    out = bot_act(ref, request, illegal, T0)
    assert game.actions[-1] == request.legal[0], "the first action the bot was offered"
    assert ref.table.last_event > request.at
    (note,) = out.notes
    assert note.fields["seat"] == request.seat
    assert note.fields["action"] == str(illegal)
    assert note.fields["played"] == str(request.legal[0])


def test_every_outcome_carries_the_tables_public_summary() -> None:
    """The listing reads this summary, never the live table (server.listing)."""
    seeds = itertools.count(7)
    ref = Referee.create("pagat-4p", {}, 0, CONFIG, seeds=lambda: next(seeds), public=True)
    assert ref.summary().public
    join(ref, "ana")
    out = attach(ref, "eva", "Eva", c.Watch(key=ref.table.keys["watch"]), "watch", T0)
    summary = out.summary
    assert summary is not None
    assert (summary.table_id, summary.public, summary.spectators) == (ref.table_id, True, 1)
    assert [seat.name for seat in summary.seats] == ["Ana", None, None, None]
    assert (summary.stage, summary.game_no, summary.scores) == ("lobby", 0, (0, 0))
    assert summary.watch == ref.table.keys["watch"]
    handle(ref, "ana", c.Stand(), T0)
    assert [seat.name for seat in summary.seats] == ["Ana", None, None, None], "a frozen value"
