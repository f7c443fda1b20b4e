"""Where a hint may be asked (sans-I/O): a casual or solo table whose host has not switched
hints off; never a rated table nor a club night's (its rounds are a tournament's), whatever the
host says. The switch is the host's alone, kept with the table, and every viewer is told."""

from __future__ import annotations

import json

import pytest

from protocol import client_messages as c
from protocol.coach import SetHints
from protocol.errors import ErrorCode
from server.config import Settings
from server.core.coaching import NOT_HERE, SWITCHED_OFF, hint_ask
from server.core.referee import Referee
from server.core.storage import from_state
from server.errors import Refused
from tests.server.core.drive import attach, handle

T0 = 100.0


def started(casual: bool, club: str | None = None) -> Referee:
    """Ana hosts and sits at a heads-up table against a level-1 bot; the game is on."""
    ref = Referee.create(
        "heads-up", {}, 0, Settings().referee_config(), seeds=lambda: 11, club=club, casual=casual
    )
    attach(ref, "ana", "Ana", c.Join(key=ref.table.keys["host"], seat=0), "host", T0)
    attach(ref, "beto", "Beto", c.Join(key=ref.table.keys["join"], seat=1), "join", T0)
    handle(ref, "ana", c.Start(), T0)
    return ref


def refusal(ref: Referee, conn: str) -> Refused:
    with pytest.raises(Refused) as refused:
        hint_ask(ref.table, conn)
    return refused.value


def the_mover(ref: Referee) -> str:
    """The seat to play now, by its connection (a hint is for one's own turn)."""
    game = ref.table.game
    assert game is not None
    return "ana" if game.legal_actions(0) else "beto"


def test_a_rated_table_and_a_club_nights_give_no_hint_whatever_the_host_says() -> None:
    for ref in (started(casual=False), started(casual=True, club="club-loja")):
        handle(ref, "ana", SetHints(hints=True), T0 + 1)
        refused = refusal(ref, the_mover(ref))
        assert (refused.code, refused.message) == (ErrorCode.FORBIDDEN, NOT_HERE)
        assert not ref.info().hints


def test_the_host_switches_hints_off_and_on_during_the_game_and_everyone_is_told() -> None:
    ref = started(casual=True)
    mover = the_mover(ref)
    assert ref.info().hints
    assert hint_ask(ref.table, mover).seat == (0 if mover == "ana" else 1)
    off = handle(ref, "ana", SetHints(hints=False), T0 + 1)
    told = [json.loads(entry) for entry in off.entries]  # each by its audience: "a", all
    assert told == [{"a": {"type": "hints_changed", "hints": False}}]
    refused = refusal(ref, mover)
    assert (refused.code, refused.message) == (ErrorCode.FORBIDDEN, SWITCHED_OFF)
    assert not ref.info().hints  # shown to the players with the table
    handle(ref, "ana", SetHints(hints=True), T0 + 2)
    assert hint_ask(ref.table, mover).table == ref.table_id


def test_only_the_host_switches_hints_and_the_switch_is_stored() -> None:
    ref = started(casual=True)
    with pytest.raises(Refused) as refused:
        handle(ref, "beto", SetHints(hints=False), T0 + 1)
    assert refused.value.code is ErrorCode.FORBIDDEN
    assert ref.table.hints
    handle(ref, "ana", SetHints(hints=False), T0 + 2)
    rebuilt = from_state(ref.to_state(), list(ref.table.log), ref.table.config, T0 + 3)
    assert not rebuilt.hints
