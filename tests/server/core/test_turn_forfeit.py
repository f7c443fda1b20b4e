"""A turn-based table whose rule is ``forfeit`` (issue 41): each team's missed deadlines are
counted in a row, a person of the team deciding starts the count again, and the team's second
missed deadline in a row ends the game: the other team wins by forfeit (docs/rules.md,
"Turn-based tables"). On the referee's own clock: days pass in a call."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from engine.phase import Phase
from engine.record import Record
from engine.replay import replay
from protocol import client_messages as c
from protocol import server_messages as s
from protocol import table_events as t
from protocol.base import MoveDeadline, OnDeadline
from protocol.convert import action_to_wire
from protocol.errors import ErrorCode
from protocol.follow import follow_event
from server.bots import decide
from server.config import Settings
from server.core import turns
from server.core.commands import Attach
from server.core.referee import Outcome, Referee
from server.core.table import Pace
from server.errors import Refused
from server.people import MemoryPlayerStore, Players
from server.people.games import finished_game
from server.store.base import joined
from tests.server.core.drive import bot_act, detach, handle, tick

T0 = 1_000_000.0
DAY: MoveDeadline = 86400
CONFIG = Settings(grace_s=60, claim_window_s=15, bot_delay_s=0.5, away_turn_s=5).referee_config()
NAMES = ("Ana", "Beto", "Caro", "Dani")


def table_of(
    people: tuple[str, ...] = NAMES,
    rule: OnDeadline = "forfeit",
    profile: str = "pagat-4p",
    options: dict[str, Any] | None = None,
    seed: int = 5,
    players: tuple[str, ...] | None = None,
) -> Referee:
    """A one-day table with a person in every seat (``people[i]`` in seat i), all at the
    table, dealt at T0."""
    seeds = itertools.count(seed)
    ref = Referee.create(
        profile, options or {}, 0, CONFIG, seeds=lambda: next(seeds), pace=Pace(DAY, rule)
    )
    key = ref.table.keys["join"]
    ref.apply(Attach("host", "Host", c.Watch(key=ref.table.keys["host"]), "host", None), T0)
    for seat, name in enumerate(people):
        player = players[seat] if players else f"p{name}{name}{name}"
        join = c.Join(key=key, seat=seat)
        ref.apply(Attach(name, name, join, "join", None, player), T0)
    handle(ref, "host", c.Start(), T0)
    game = ref.table.game
    assert game is not None
    assert game.phase in (Phase.PLAY, Phase.ANNOUNCE)
    return ref


def awaited(ref: Referee) -> int:
    game = ref.table.game
    assert game is not None
    assert ref.table.in_game
    assert game.phase in (Phase.PLAY, Phase.ANNOUNCE)
    assert game.turn is not None
    return game.turn


def miss(ref: Referee) -> tuple[int, Outcome]:
    """Let the awaited person's deadline pass: the stand-in plays their decision."""
    seat = awaited(ref)
    at = ref.table.decision_since + DAY
    assert tick(ref, at - 1).bots == []  # not a second early
    due = tick(ref, at).bots
    assert [request.seat for request in due] == [seat]
    request = due[0]
    action = decide(request.level, request.view, request.legal, request.seed, 1.0)
    return seat, bot_act(ref, request, action, at)


def move(ref: Referee) -> int:
    """The awaited person decides, an hour into the deadline, from their own connection."""
    seat = awaited(ref)
    game = ref.table.game
    assert game is not None
    wire = action_to_wire(game.legal_actions(seat)[0])
    request = wire.model_copy(update={"at": ref.table.last_event})
    handle(ref, NAMES[seat], request, ref.table.decision_since + 3600)
    return seat


def team(seat: int) -> int:
    return seat & 1  # R1: seats 0 and 2, 1 and 3 (R14: team = seat)


def sent_to(out: Outcome, conn: str) -> list[s.ServerMessage]:
    return [message for to, message in out.sent() if to == conn]


def test_a_teams_second_missed_deadline_in_a_row_ends_the_game_by_forfeit() -> None:
    ref = table_of()
    first, out = miss(ref)
    assert ref.table.missed[team(first)] == 1
    assert ref.table.in_game  # one missed deadline: the stand-in played it, the game goes on
    assert ref.info().missed[team(first)] == 1  # everyone can see the team is one from losing
    move(ref)  # the other team decides
    before = {conn: ref.snapshot(ref.table.viewers[conn]) for conn in NAMES}
    second, out = miss(ref)  # the partner of the first: the team's second in a row
    loser = team(first)
    assert team(second) == loser
    table = ref.table
    assert (table.stage, table.ended) == ("finished", {"by": "forfeit", "team": loser})
    game = table.game
    assert game is not None
    # the stand-in played the second deadline first, and that card is the record's last action
    assert game.record().actions[-1]["seat"] == second
    for conn in NAMES:  # both teams' people are told, and their views say it
        told = [m for m in sent_to(out, conn) if isinstance(m, s.Event)]
        forfeits = [m.event for m in told if isinstance(m.event, t.Forfeited)]
        assert [(f.team, f.winner) for f in forfeits] == [(loser, 1 - loser)]
        snap = ref.snapshot(table.viewers[conn])
        assert snap.view is not None
        assert (snap.view.phase, snap.view.winner, snap.legal) == ("finished", 1 - loser, [])
        assert snap.info.ended == s.Ended(by="forfeit", team=loser)
        assert snap.info.stage == "finished"
        view = before[conn].view  # protocol 4: a client follows the events to the same view
        for message in told:
            view = follow_event(view, message.event, snap.info, table.viewers[conn].seat)
        assert view == snap.view
    assert ref.deadlines(table.decision_since + 10 * DAY) == []  # nothing more is due
    with pytest.raises(Refused) as refused:
        move_at_finished(ref, second)
    assert refused.value.code == ErrorCode.WRONG_PHASE
    # R15: the record is the actions played and replays to a game in progress
    assert table.finished_record is not None
    assert replay(Record.from_json(table.finished_record))["status"] == "in_progress"
    assert out.record is not None  # kept with the commit, as a finished game's record is
    again = Referee.from_state(ref.to_state(), list(table.log), CONFIG, T0 + 9 * DAY)
    assert (again.table.stage, again.table.ended) == ("finished", table.ended)
    assert again.info().ended == s.Ended(by="forfeit", team=loser)


def move_at_finished(ref: Referee, seat: int) -> None:
    handle(ref, NAMES[seat], c.Play(rid=9, card="AS", take=[]), T0 + 10 * DAY)


def test_counts_are_each_teams_and_its_people_deciding_starts_them_again() -> None:
    ref = table_of()
    a, _ = miss(ref)
    b, _ = miss(ref)  # A then B: each team one, nobody loses
    assert team(a) != team(b)
    assert sorted(ref.table.missed) == [1, 1]
    partner = move(ref)  # A's partner decides: A's count starts again, B's stays
    assert team(partner) == team(a)
    assert ref.table.missed[team(a)] == 0
    assert ref.table.missed[team(b)] == 1
    move(ref)  # and B's partner
    assert ref.table.missed == [0, 0]
    again, _ = miss(ref)  # A misses again: once in a row, the game goes on
    assert team(again) == team(a)
    assert ref.table.in_game
    assert ref.table.missed[team(a)] == 1


def test_a_side_one_missed_deadline_from_forfeiting_is_warned_in_its_next_turn_notice() -> None:
    ref = table_of()
    first, _ = miss(ref)
    other = awaited(ref)
    assert team(other) != team(first)
    assert turns.warning(ref.table, other) == ""  # the side that missed nothing
    partner = (first + 2) % 4
    detach(ref, NAMES[partner], ref.table.decision_since)  # the partner's tab closes
    game = ref.table.game
    assert game is not None
    wire = action_to_wire(game.legal_actions(other)[0])
    out = handle(ref, NAMES[other], wire.model_copy(update={"at": ref.table.last_event}), T0 + 1)
    assert awaited(ref) == partner  # the first's side is awaited, away: told with a warning
    assert [(n.kind, n.player_id, n.warning) for n in out.notices] == [
        ("your_turn", f"p{NAMES[partner] * 3}", "forfeit_next")
    ]
    assert turns.notice(ref.table, "deadline_near", partner).warning == "forfeit_next"
    name = NAMES[partner]  # back, from another device: her player key takes the seat back
    ref.apply(
        Attach(name, name, c.Join(key=ref.table.keys["join"]), "join", None, f"p{name * 3}"), T0 + 2
    )
    move(ref)  # the partner decides: the side's count starts again, and so does its warning
    assert ref.table.missed[team(first)] == 0
    assert [turns.warning(ref.table, seat) for seat in range(4)] == ["", "", "", ""]


def test_a_stand_in_table_warns_nobody_of_a_forfeit() -> None:
    ref = table_of(rule="stand_in")
    miss(ref)
    assert [turns.warning(ref.table, seat) for seat in range(4)] == ["", "", "", ""]


def test_a_two_player_seat_is_its_team_and_the_others_miss_does_not_break_its_row() -> None:
    ref = table_of(("Ana", "Beto"), profile="libre-2p", seed=3)
    a, _ = miss(ref)
    b, _ = miss(ref)  # the other missed too: nobody of A's team decided meanwhile
    assert (ref.table.missed, ref.table.in_game) == ([1, 1], True)
    again, _ = miss(ref)  # R14: team = seat; A's second own deadline in a row
    assert again == a != b
    assert ref.table.ended == {"by": "forfeit", "team": a}


def test_the_count_survives_a_restart_it_is_in_the_stored_table() -> None:
    ref = table_of()
    snapshot, delta = ref.stored_form()  # as stored at the start
    assert not delta
    first, _ = miss(ref)
    tail = [ref.stored_form()[0]]  # the commit after the missed deadline: a delta
    move(ref)
    tail.append(ref.stored_form()[0])
    table = ref.table
    state = joined(snapshot, tail)  # what the store loads after a restart
    rebuilt = Referee.from_state(state, list(table.log), CONFIG, table.decision_since)
    assert rebuilt.table.missed == table.missed
    assert rebuilt.table.missed[team(first)] == 1
    for conn in NAMES:  # everyone comes back to the rebuilt table
        player = f"p{conn}{conn}{conn}"
        rebuilt.apply(Attach(conn, conn, c.Join(key=table.keys["join"]), "join", None, player), 1.0)
    second, _ = miss(rebuilt)
    assert team(second) == team(first)
    assert rebuilt.table.ended == {"by": "forfeit", "team": team(first)}


def test_the_stand_in_rule_plays_every_missed_deadline_and_never_forfeits() -> None:
    ref = table_of(rule="stand_in")
    for _ in range(6):  # every seat's deadlines pass, one after another
        miss(ref)
    assert ref.table.in_game
    assert (ref.table.missed, ref.table.ended) == ([0, 0], None)


def test_a_manual_announcement_the_stand_in_makes_at_its_deadline_does_not_count_R6() -> None:
    ref = table_of(options={"announcements": "manual"})
    game = ref.table.game
    assert game is not None
    phases = []
    for _ in range(4):  # every seat's announcement deadline passes
        phases.append(game.phase)
        miss(ref)
    assert phases == [Phase.ANNOUNCE] * 4
    assert game.phase is Phase.PLAY
    assert ref.table.missed == [0, 0]  # an announcement lapsing is not a missed deadline
    first, _ = miss(ref)  # the first card is
    assert ref.table.missed[team(first)] == 1


async def test_a_forfeited_game_is_won_by_the_other_team_in_ratings_and_history() -> None:
    players = Players(MemoryPlayerStore())
    ids = tuple([(await players.enter(name[0] * 43, name)).id for name in NAMES])
    ref = table_of(players=ids)
    first, _ = miss(ref)
    move(ref)
    miss(ref)
    loser = team(first)
    finished = finished_game(ref.table, T0 + 3 * DAY)
    assert finished is not None
    assert finished.winner == 1 - loser
    changes = await players.record_game(finished)
    for seat, player in enumerate(ids):
        history = await players.store.history(player, 0, 1)
        won = team(seat) != loser
        assert history[0].result == ("won" if won else "lost")
        change = changes[player]
        assert change is not None
        assert (change > 0) == won


def test_forfeit_is_refused_for_a_live_table_and_nothing_is_made() -> None:
    with pytest.raises(Refused) as refused:
        Referee.create("pagat-4p", {}, 30, CONFIG, pace=Pace(0, "forfeit"))
    assert refused.value.code == ErrorCode.BAD_OPTIONS
    assert "turn-based" in refused.value.message
