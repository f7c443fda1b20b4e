"""The wire bot decides on exactly the view the server's bot would have (invariant 1).

Property: for games reached by random legal play, the engine view of any seat, sent through
``protocol.convert`` and rebuilt by ``clients.bot.wire_view``, is the same view.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from clients.bot.wire_view import legal_from_wire, rondas_seen, view_from_wire
from engine.events import HandStarted
from engine.game import Game
from engine.views import view_of
from protocol import server_messages as s
from protocol.convert import action_to_wire, view_to_wire


def _play_randomly(seed: int, steps: int, options: dict[str, object]) -> tuple[Game, list[s.Event]]:
    rng = random.Random(seed)
    game = Game.new("pagat-4p", options, seed)
    events = [s.Event(n=i + 1, event=e.to_json()) for i, e in enumerate(game.start_events)]
    for _ in range(steps):
        seats = game.to_act()
        if not seats:
            break
        legal = game.legal_actions(rng.choice(seats))
        for event in game.apply(rng.choice(legal)):
            events.append(s.Event(n=len(events) + 1, event=event.to_json()))
    return game, events


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 90),
       options=st.sampled_from([{}, {"sequence": "manual", "announcements": "manual"}]))
def test_a_seat_view_survives_the_wire_unchanged(seed: int, steps: int,
                                                 options: dict[str, object]) -> None:
    game, events = _play_randomly(seed, steps, options)
    for seat in (*range(4), None):
        view = view_of(game, seat)
        wire = s.GameView.model_validate(view_to_wire(view, options).model_dump(mode="json"))
        rebuilt = view_from_wire(wire, rondas_seen(events))
        assert rebuilt == view


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 40))
def test_the_legal_list_maps_back_to_the_engine_actions_in_order(seed: int, steps: int) -> None:
    game, _ = _play_randomly(seed, steps, {})
    for seat in game.to_act():
        legal = game.legal_actions(seat)
        assert legal_from_wire([action_to_wire(a) for a in legal], seat) == legal


def test_rondas_are_read_from_the_latest_hand_only_r6() -> None:
    hand = [
        s.Event(n=1, event=HandStarted(0, 3).to_json()),
        s.Event(n=2, event={"type": "packet_dealt", "hand": 0, "packet": 1, "dealer": 3,
                            "hands": [None] * 4}),
        s.Event(n=3, event={"type": "announced", "seat": 2, "call": "ronda", "rank": None,
                            "points": 4, "cards": []}),
    ]
    assert rondas_seen(hand) == ((1, 2),)
    assert rondas_seen([*hand, s.Event(n=4, event=HandStarted(1, 0).to_json())]) == ()
