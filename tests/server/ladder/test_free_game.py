"""The free game (R14 libre-2p): "N starts a new game", also while one is under way.

The host sitting alone against a bot may give the game up for a fresh one (nobody else's game
is lost); with another person at the table, or in another profile, a game under way is never
restarted.
"""

from __future__ import annotations

import itertools

import pytest

from engine.actions import Play
from protocol import client_messages as c
from protocol import server_messages as s
from protocol import table_events as t
from protocol.convert import action_to_wire
from protocol.errors import ErrorCode
from server.config import Settings
from server.core.referee import Referee
from server.errors import Refused
from tests.server.core.drive import attach, bot_act, bots_due, handle

T0 = 1_000_000.0
CONFIG = Settings(bot_delay_s=0.0).referee_config()


def table(profile: str, people: int) -> Referee:
    seeds = itertools.count(31)
    ref = Referee.create(profile, {}, 0, CONFIG, seeds=lambda: next(seeds))
    attach(ref, "host", "Ana", c.Join(key=ref.table.keys["host"], seat=0), "host", T0)
    if people == 2:
        attach(ref, "beto", "Beto", c.Join(key=ref.table.keys["join"], seat=1), "join", T0)
    else:
        handle(ref, "host", c.AddBot(level=1, seat=1), T0)
    handle(ref, "host", c.Start(), T0)
    return ref


def play_a_card(ref: Referee) -> None:
    """Whoever is to play trails or captures something, so the game is under way."""
    game = ref.table.game
    assert game is not None
    seat = game.turn
    assert seat is not None
    conn = "host" if seat == 0 else "beto"
    if conn == "beto" and "beto" not in ref.table.viewers:
        request = bots_due(ref, T0)[0]
        bot_act(ref, request, request.legal[0], T0)
        return
    action = next(a for a in game.legal_actions(seat) if isinstance(a, Play))
    handle(ref, conn, action_to_wire(action), T0)


def test_r14_libre_2p_the_host_alone_against_a_bot_starts_a_new_game_mid_game() -> None:
    ref = table("libre-2p", people=1)
    play_a_card(ref)
    play_a_card(ref)
    first = ref.table.game
    out = handle(ref, "host", c.Start(), T0 + 1)
    assert ref.table.game is not first
    assert (ref.table.game_no, ref.table.stage) == (2, "playing")
    started = [
        m for _, m in out.sent() if isinstance(m, s.Event) and isinstance(m.event, t.GameStarted)
    ]
    assert started, "everyone is told a new game began"
    assert first is not None
    assert ref.table.game is not None
    assert ref.table.game.record().to_json()["actions"] == [], "the new game has no card played yet"


@pytest.mark.parametrize(("profile", "people"), [("libre-2p", 2), ("heads-up", 1)])
def test_a_game_under_way_is_not_restarted_with_another_person_or_in_another_profile(
    profile: str, people: int
) -> None:
    ref = table(profile, people)
    play_a_card(ref)
    with pytest.raises(Refused) as refused:
        handle(ref, "host", c.Start(), T0 + 1)
    assert refused.value.code is ErrorCode.WRONG_PHASE
    assert ref.table.game_no == 1
