"""Work a table change shares between viewers and commits, without changing what anyone sees.

Every viewer's update is assembled from pieces encoded once per change (``server.core.publishing``):
the bytes must be exactly the protocol's messages, public events one form for everyone, a
redacted deal one form per seat (invariant 1, R6). The stored state splices in
the actions and the finished record serialised once (``server.core.storage``), and reads back as
the same data (R15).
"""

from __future__ import annotations

import json
import tracemalloc
from typing import Any

import msgpack

from engine.views import view_of
from protocol import client_messages as c
from protocol import encode
from protocol import server_messages as s
from protocol.convert import view_fields
from server.config import Settings
from server.core.referee import Outcome, Referee
from server.core.storage import compact
from server.frames import Built
from tests.server.core.drive import attach, handle

T0 = 1_000_000.0


def seated() -> tuple[Referee, list[str], Outcome]:
    ref = Referee.create(
        "pagat-4p",
        {"special_claims": "auto"},
        0,
        Settings(bot_delay_s=0.0).referee_config(),
        seeds=lambda: 5,
    )
    conns = [f"p{seat}" for seat in range(4)]
    attach(ref, conns[0], "P0", c.Join(key=ref.table.keys["host"], seat=0), "host", T0)
    for each in range(1, 4):
        attach(
            ref, conns[each], f"P{each}", c.Join(key=ref.table.keys["join"], seat=each), "join", T0
        )
    attach(ref, "w1", "W1", c.Watch(key=ref.table.keys["watch"]), "watch", T0)
    return ref, conns, handle(ref, conns[0], c.Start(), T0)


def events_by_conn(out: Outcome) -> dict[str, list[s.Event]]:
    got: dict[str, list[s.Event]] = {}
    for conn, message in out.sent():
        if isinstance(message, s.Event):
            got.setdefault(conn, []).append(message)
    return got


def form(message: s.Event) -> dict[str, Any]:
    """An event's wire form (engine events arrive as dicts, table events as models)."""
    event = message.event
    return event if isinstance(event, dict) else event.model_dump(mode="json")


def play_on(ref: Referee, out: Outcome, plays: int) -> Outcome:
    """Take the most cards offered, ``plays`` times (rematching when a game ends)."""
    for _ in range(plays):
        found = [(conn, m) for conn, m in out.sent() if isinstance(m, s.Snapshot) and m.legal]
        if not found:
            for conn in (f"p{seat}" for seat in range(4)):
                out = handle(ref, conn, c.Rematch(), T0)
            continue
        conn, snapshot = found[0]
        greedy = max(snapshot.legal, key=lambda action: len(getattr(action, "take", ())))
        out = handle(ref, conn, greedy.model_copy(update={"at": ref.table.last_event}), T0)
    return out


def test_a_deal_is_sent_per_viewer_and_public_events_in_one_form_R6() -> None:
    ref, conns, out = seated()
    got = events_by_conn(out)
    deals = {conn: next(e for e in got[conn] if form(e)["type"] == "packet_dealt") for conn in got}
    for seat, conn in enumerate(conns):  # each seat sees its own five cards only (invariant 1)
        hands = form(deals[conn])["hands"]
        assert isinstance(hands, list)
        assert [h is not None for h in hands] == [i == seat for i in range(4)]
    assert not any(form(deals["w1"])["hands"]), "the spectator sees no hand"
    out = play_on(ref, out, 1)
    got = events_by_conn(out)
    played = [got[conn][0] for conn in [*conns, "w1"]]
    assert all(message == played[0] for message in played)  # one public form for everyone


def test_built_frames_are_exactly_the_protocols_messages() -> None:
    """The hand-assembled update and snapshot bytes decode to what encoding the models gives,
    and the snapshots they stand for are each viewer's own view, as the engine has it."""
    ref, _, out = seated()
    for _ in range(130):  # over three hands: the history restarts with each (R12)
        for conn, message in out.messages:
            if isinstance(message, Built):
                model = message.model()
                assert msgpack.unpackb(message.data) == msgpack.unpackb(encode(model)), conn
                assert isinstance(model, s.Update | s.Snapshot)
        for _, snapshot in out.sent():
            if isinstance(snapshot, s.Snapshot):
                assert snapshot.last_event == ref.table.last_event
                assert ref.table.game is not None
                assert snapshot.view is not None
                seen = view_fields(view_of(ref.table.game, snapshot.you.seat), ref.table.options)
                assert snapshot.view.model_dump(mode="json") == seen
                assert snapshot.info == ref.info()
        out = play_on(ref, out, 1)


def test_a_client_following_updates_always_holds_its_whole_snapshot() -> None:
    """Updates leave out the unchanged info and the history the viewer holds (protocol 3): a
    client that applies each to its previous snapshot has, after every change, exactly the
    whole snapshot the table would send it afresh, through hands, games and a newcomer."""
    ref, conns, out = seated()
    held: dict[str, s.Snapshot] = {}
    whole_bytes = change_bytes = 0

    def follow(out: Outcome) -> None:
        nonlocal whole_bytes, change_bytes
        for conn, message in out.messages:
            model = message.model() if isinstance(message, Built) else message
            if isinstance(model, s.Snapshot):
                held[conn] = model
            elif isinstance(model, s.Update):
                held[conn] = model.unfold(held.get(conn))[-1]
                viewer = ref.table.viewers[conn]
                assert held[conn] == ref.snapshot(viewer), conn
                assert isinstance(message, Built)
                change_bytes += len(message.data)
                whole_bytes += len(
                    encode(
                        s.Update(
                            events=model.events,
                            snapshot=s.SnapshotChange(
                                **ref.snapshot(viewer).model_dump(exclude={"type", "chat"})
                            ),
                        )
                    )
                )

    follow(out)
    for step in range(400):
        if step == 200:  # a newcomer watches mid-game: the next update is whole for everyone
            follow(attach(ref, "w2", "W2", c.Watch(key=ref.table.keys["watch"]), "watch", T0))
        found = [(conn, m) for conn, m in out.sent() if isinstance(m, s.Snapshot) and m.legal]
        if not found:
            for conn in conns:
                out = handle(ref, conn, c.Rematch(), T0)
                follow(out)
            continue
        conn, snapshot = found[0]
        greedy = max(snapshot.legal, key=lambda action: len(getattr(action, "take", ())))
        out = handle(ref, conn, greedy.model_copy(update={"at": ref.table.last_event}), T0)
        follow(out)
    assert ref.table.game_no >= 2, "the updates followed a rematch"
    assert change_bytes < 0.6 * whole_bytes, "the updates leave out what the viewers hold"


def test_wire_view_fields_are_the_models_json_form_R15() -> None:
    ref, _, out = seated()
    play_on(ref, out, 30)
    assert ref.table.game is not None
    for viewer in (0, 1, None):
        fields = view_fields(view_of(ref.table.game, viewer), ref.table.options)
        assert s.GameView.model_validate(fields).model_dump(mode="json") == fields


def test_the_stored_state_holds_every_action_and_the_finished_record_R15() -> None:
    ref, _, out = seated()
    for _ in range(8):
        out = play_on(ref, out, 60)
        stored = json.loads(ref.to_state())
        assert ref.table.game is not None
        assert stored["actions"] == [action.to_json() for action in ref.table.game.actions]
        assert stored["finished_record"] == ref.table.finished_record
        assert stored["last_event"] == ref.table.last_event
    assert ref.table.game_no >= 2, "a rematch happened: the cached text followed the new game"
    again = Referee.from_state(ref.to_state(), list(ref.table.log), ref.table.config, T0)
    assert again.table.game is not None
    assert ref.table.game is not None
    assert again.table.game.actions == ref.table.game.actions
    assert again.table.finished_record == ref.table.finished_record


def test_stored_json_texts_hold_no_more_memory_than_their_bytes() -> None:
    """Every event's log line and every action's text is kept for the table's lifetime: each
    must cost its own size, not the JSON writer's 4 KB working buffer (memory per table)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [compact({"a": {"type": "played", "seat": n % 4}}) for n in range(1000)]
        used = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert used < 1000 * (len(kept[0]) + 120)
