"""A client that follows events holds exactly the view a snapshot gives (protocol 4).

Property: for random games of every profile and option (misdeals, claims and missed-cards
takes included), every seat and a spectator, starting from the snapshot's view at a random
point of the game (a resume) and applying each event as that viewer is sent it
(``engine.views.redact``, the one redaction path), the followed view equals the server's view
after every action, to the byte. The view's changes that follow the rules are the ones each
event stands for: the deal and misdeals (R4, R5), ronda announced (R6), plays, captures and
missed cards taken (R7, R8), the points of play (R9), claims (R10) and the hand's count (R11).
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game import Game
from engine.views import redact, view_of
from protocol import server_messages as s
from protocol.codec import encode
from protocol.convert import view_to_wire
from protocol.follow import FollowError, follow, follow_event
from protocol.game_events import game_event
from protocol.table_events import GameStarted
from tests.strategies import random_games, random_step


def _wire(game: Game, seat: int | None) -> s.GameView:
    return view_to_wire(view_of(game, seat), dict(game.options))


def _bytes(view: s.GameView) -> bytes:
    return encode(s.Snapshot(last_event=0, you=_YOU, info=_INFO, view=view))


_YOU = s.You(role="spectator", name="x")
_INFO = s.TableInfo(
    table="t",
    profile="pagat-4p",
    options={},
    turn_timer=0,
    locked=False,
    stage="playing",
    game=1,
    seats=[],
    spectators=0,
)


@settings(max_examples=60, deadline=None)
@given(game_rng=random_games(), resume_at=st.integers(0, 150))
def test_following_the_events_from_any_resume_gives_the_snapshot_view_r4_to_r11(
    game_rng: tuple[Game, random.Random], resume_at: int
) -> None:
    game, rng = game_rng
    viewers = (*range(game.rules.seats), None)
    followed: dict[int | None, s.GameView] | None = None
    for step in range(2000):
        if step == resume_at:
            followed = {seat: _wire(game, seat) for seat in viewers}  # the resume's snapshot
        if game.phase.value == "finished":
            break
        events = game.apply(random_step(game, rng))
        if followed is None:
            continue
        for seat in viewers:
            view = followed[seat]
            for event in events:
                view = follow(view, game_event(redact(event, seat).to_json()))
            assert view == _wire(game, seat), f"seat {seat} after {events}"
            assert _bytes(view) == _bytes(_wire(game, seat))
            followed[seat] = view
    assert game.phase.value == "finished"


@settings(max_examples=20, deadline=None)
@given(game_rng=random_games())
def test_a_new_game_is_followed_from_its_start_event(
    game_rng: tuple[Game, random.Random],
) -> None:
    """The game's start events, after ``game_started``, build the first view from nothing."""
    game, _ = game_rng
    info = _INFO.model_copy(update={"profile": game.rules.profile, "options": dict(game.options)})
    for seat in (*range(game.rules.seats), None):
        view = follow_event(None, GameStarted(game=1, names=[]), info, seat)
        for event in game.start_events:
            view = follow_event(view, game_event(redact(event, seat).to_json()), info, seat)
        assert view == _wire(game, seat)


def test_a_card_that_is_not_on_the_table_asks_for_a_snapshot() -> None:
    game = Game.new("pagat-4p", {}, 7)
    view = _wire(game, None)
    with pytest.raises(FollowError):
        follow(
            view,
            game_event(
                {
                    "type": "played",
                    "seat": game.turn,
                    "card": "KS",
                    "take": ["KH"],
                    "caida": False,
                    "limpia": False,
                    "points": 0,
                }
            ),
        )
