"""A wire bot decides on exactly the view the server's bot would have (invariant 1).

Property: for games reached by random legal play, the engine view of any seat, sent through
``protocol.convert.view_to_wire`` and rebuilt by ``view_from_wire``, is the same view; this
hand's rondas included (R6: who announced, never the rank).
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game import Game
from engine.views import view_of
from protocol import server_messages as s
from protocol.convert import action_to_wire, legal_from_wire, view_from_wire, view_to_wire


def _play_randomly(seed: int, steps: int, options: dict[str, object]) -> Game:
    rng = random.Random(seed)
    game = Game.new("pagat-4p", options, seed)
    for _ in range(steps):
        seats = game.to_act()
        if not seats:
            break
        game.apply(rng.choice(game.legal_actions(rng.choice(seats))))
    return game


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 90),
    options=st.sampled_from([{}, {"sequence": "manual", "announcements": "manual"}]),
)
def test_a_seat_view_survives_the_wire_unchanged(
    seed: int, steps: int, options: dict[str, object]
) -> None:
    game = _play_randomly(seed, steps, options)
    for seat in (*range(4), None):
        view = view_of(game, seat)
        wire = s.GameView.model_validate(view_to_wire(view, options).model_dump(mode="json"))
        rebuilt = view_from_wire(wire)
        assert rebuilt == view


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 40))
def test_the_legal_list_maps_back_to_the_engine_actions_in_order(seed: int, steps: int) -> None:
    game = _play_randomly(seed, steps, {})
    for seat in game.to_act():
        legal = game.legal_actions(seat)
        assert legal_from_wire([action_to_wire(a) for a in legal], seat) == legal
