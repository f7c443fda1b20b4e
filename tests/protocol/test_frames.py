"""The hot path's frames (``protocol.frames``) are the protocol's messages, byte for value."""

from __future__ import annotations

import itertools
from typing import Any

import msgpack

from protocol import client_messages as c
from protocol import encode, frames
from protocol import server_messages as s
from protocol.frames import KEYS, NONE, pack
from server.config import Settings
from server.core.referee import Referee
from tests.server.core.drive import attach, bot_act, bots_due, handle

T0 = 1_000_000.0


def snapshot_in_play() -> s.Snapshot:
    """A seated player's snapshot mid-hand, with its legal actions, history and a deadline."""
    seeds = itertools.count(3)
    ref = Referee.create("pagat-4p", {}, 15, Settings().referee_config(), seeds=lambda: next(seeds))
    attach(ref, "ana", "Ana", c.Join(key=ref.table.keys["host"], seat=0), "host", T0)
    for seat in (1, 2, 3):
        handle(ref, "ana", c.AddBot(level=1, seat=seat), T0)
    handle(ref, "ana", c.Start(), T0)
    while (snapshot := ref.snapshot(ref.table.viewers["ana"])).view is None or not snapshot.legal:
        for request in bots_due(ref, T0 + 60):
            bot_act(ref, request, request.legal[0], T0)
    return snapshot


def parts(snapshot: s.Snapshot) -> dict[str, Any]:
    """The pieces a server encodes once: the snapshot's fields in their JSON forms."""
    return snapshot.model_dump(mode="json")


def same_message(data: bytes, model: s.ServerMessage) -> bool:
    return bool(msgpack.unpackb(data) == msgpack.unpackb(encode(model)))


def test_a_whole_snapshot_and_an_update_are_the_models_messages() -> None:
    snapshot = snapshot_in_play()
    fields = parts(snapshot)
    view = fields["view"]
    public = {k: v for k, v in view.items() if k not in ("viewer", "hand", "history")}
    history = [pack(entry) for entry in view["history"]]
    body = frames.snapshot_body(
        KEYS.last_event + pack(snapshot.last_event),
        frames.you(snapshot.you.seat, snapshot.you.host, snapshot.you.name, snapshot.you.can_sit),
        frames.view(frames.public_view(public), history, view["viewer"], view["hand"]),
        frames.legal(fields["legal"]),
    )
    info, deadlines = pack(fields["info"]), frames.deadlines(fields["deadlines"])
    assert snapshot.deadlines, "the player's turn clock runs"
    assert same_message(frames.snapshot(body, info, deadlines), snapshot)
    event = s.Event(n=snapshot.last_event, event={"type": "claims_closed"})
    event_frame = frames.event(event.n, pack(event.model_dump(mode="json")["event"]))
    assert same_message(event_frame, event)
    kept = {k: v for k, v in fields.items() if k != "chat"}  # whole snapshots only
    change = s.SnapshotChange.model_validate({**kept, "info": None, "history_from": 0})
    update = s.Update(rid=7, events=[event], snapshot=change)
    tail = frames.change_tail(NONE, deadlines, 0)
    assert same_message(frames.update(7, frames.events([event_frame]), body, tail), update)


def test_a_change_is_the_models_message() -> None:
    """Protocol 4: the events, then what they cannot tell, each left out as null."""
    snapshot = snapshot_in_play()
    fields = parts(snapshot)
    event = s.Event(n=snapshot.last_event, event={"type": "claims_closed"})
    events = frames.events([frames.event(event.n, pack({"type": "claims_closed"}))])
    you = frames.you(snapshot.you.seat, snapshot.you.host, snapshot.you.name, snapshot.you.can_sit)
    legal, deadlines = frames.legal(fields["legal"]), pack(fields["deadlines"])
    told = frames.change(None, events, NONE, NONE, NONE, legal, deadlines)
    assert same_message(
        told, s.Change(events=[event], legal=snapshot.legal, deadlines=snapshot.deadlines)
    )
    whole = frames.change(5, events, you, pack(fields["info"]), NONE, frames.NO_LEGAL, NONE)
    assert same_message(
        whole, s.Change(rid=5, events=[event], you=snapshot.you, info=snapshot.info)
    )
