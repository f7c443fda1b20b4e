"""Every engine event, as every viewer is sent it, reads into its typed model and back."""

from __future__ import annotations

import random
from collections import Counter
from typing import get_args

import msgpack
import pytest

from engine import events
from engine.actions import Misdeal
from engine.game import Game
from engine.phase import Phase
from engine.views import redact
from protocol import decode_server, encode
from protocol import game_events as g
from protocol import server_messages as s
from protocol import table_events as t
from protocol.errors import ProtocolError

KINDS = {member.model_fields["type"].default for member in get_args(get_args(g.GameEvent)[0])}


def played_events(profile: str, options: dict[str, object], seed: int) -> list[object]:
    """A random game's events (random legal actions; a misdeal ruled now and then, R5)."""
    game = Game.new(profile, options, seed)
    rng = random.Random(seed)
    events = list(game.start_events)
    while game.phase is not Phase.FINISHED:
        if Misdeal() in game.system_actions() and rng.random() < 0.2:
            events += game.apply(Misdeal())
            continue
        actions = game.legal_actions() or game.system_actions()
        events += game.apply(rng.choice(actions))
    return events


VARIANTS = [
    ("pagat-4p", {}),
    ("pagat-4p", {"special_claims": "auto", "announcements": "manual"}),
    ("pagat-4p", {"sequence": "manual"}),
    ("heads-up", {}),
    ("libre-2p", {}),
]


def test_every_engine_event_reads_into_its_model_for_every_viewer() -> None:
    seen: Counter[str] = Counter()
    for profile, options in VARIANTS:
        for seed in range(3):
            seats = Game.new(profile, options, seed).rules.seats
            for event in played_events(profile, options, seed):
                for viewer in (*range(seats), None):
                    fields = redact(event, viewer).to_json()  # type: ignore[arg-type]
                    model = s.Event(n=1, event=fields).event
                    assert g.is_game_event(model), fields
                    # the same keys in the same order: a decoded event encodes to the same bytes
                    assert list(model.model_dump(mode="json").items()) == list(fields.items())
                    seen[fields["type"]] += 1
    # a ronda-caída award (R10) is rare in random play: it is read on its own below
    assert seen.keys() == KINDS - {"awarded"}
    award = events.Awarded(team=1, rank="7", points=10).to_json()
    assert g.game_event(award).model_dump(mode="json") == award


def test_the_models_cover_every_engine_event_type() -> None:
    engine_kinds = {
        cls.TYPE
        for cls in vars(events).values()
        if isinstance(cls, type) and getattr(cls, "TYPE", "") and cls.__module__ == events.__name__
    }
    assert engine_kinds == KINDS


def test_protocol_md_shows_an_example_of_every_event_that_reads_into_its_model() -> None:
    from protocol.doc import _examples

    examples = _examples()
    table_kinds = {m.model_fields["type"].default for m in get_args(get_args(t.TableEvent)[0])}
    assert examples.keys() == KINDS | table_kinds
    for kind, example in examples.items():
        model = s.Event(n=1, event=example).event
        assert g.is_game_event(model) if kind in KINDS else t.is_table_event(model), kind


def test_an_event_of_a_type_this_version_does_not_know_is_read_kept_and_skippable() -> None:
    """A newer server's event reaches an older client as an `UnknownEvent`, its fields intact."""
    wire = encode(s.Event(n=4, event=t.UnknownEvent(type="deal_shown", seat=2, cards=["AC"])))
    message = decode_server(wire)
    assert isinstance(message, s.Event)
    assert isinstance(message.event, t.UnknownEvent)
    assert message.event.model_dump() == {"type": "deal_shown", "seat": 2, "cards": ["AC"]}
    assert not g.is_game_event(message.event)
    assert not t.is_table_event(message.event)
    assert encode(message) == wire


def test_a_known_event_with_the_wrong_fields_is_refused_not_taken_for_an_unknown_one() -> None:
    broken = msgpack.packb({"type": "event", "n": 4, "event": {"type": "played", "seat": 0}})
    with pytest.raises(ProtocolError, match="played"):
        decode_server(broken)
