"""The msgpack codec: every message round-trips; every kind of bad frame is refused by name."""

from __future__ import annotations

import contextlib
from typing import get_args

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import (
    PROTOCOL_VERSION,
    ErrorCode,
    FrameError,
    FrameTooLarge,
    MessageError,
    ProtocolError,
    decode_client,
    decode_server,
    encode,
)
from protocol import client_messages as c
from protocol import game_events as g
from protocol import server_messages as s
from protocol import table_events as t
from protocol.codec import MAX_ERROR_CHARS

CLIENT_SAMPLES: list[c.ClientMessage] = [
    c.Hello(rid=1, version=PROTOCOL_VERSION, name="Ana", resume="tbl.secret-token", last_event=7),
    c.Ping(rid=2),
    c.Sync(rid=3),
    c.CreateTable(rid=3, profile="pagat-4p", options={"sequence": "manual"}, turn_timer=30),
    c.Join(rid=4, key="join-key-123", seat=2),
    c.Watch(rid=5, key="watch-key-123"),
    c.Leave(rid=6),
    c.Sit(rid=7, seat=1),
    c.Stand(rid=8),
    c.Swap(rid=9, seat=0, other=1),
    c.AddBot(rid=10, level=2, seat=3),
    c.RemoveBot(rid=11, seat=3),
    c.Kick(rid=12, seat=1),
    c.Lock(rid=13, locked=True),
    c.SetOptions(rid=14, options={"ronda_points": 2}, turn_timer=15),
    c.Start(rid=15),
    c.RuleMisdeal(rid=16),
    c.Rematch(rid=17),
    c.NoClaim(rid=17),
    c.GetRecord(rid=18),
    c.Play(rid=19, card="6S", take=["2C", "4D", "7H", "JC"], at=12),
    c.TakeMissed(rid=20),
    c.Announce(rid=21, call="ronda"),
    c.Claim(rid=22, rank="5"),
    c.Chat(rid=23, text="¡buena caída!"),
]

SEATS = [s.SeatInfo(seat=0, occupant="person", name="Ana", connected=True)]
INFO = s.TableInfo(
    table="t1",
    profile="pagat-4p",
    options={},
    turn_timer=0,
    locked=False,
    stage="lobby",
    game=0,
    seats=SEATS,
    spectators=2,
)
SERVER_SAMPLES: list[s.ServerMessage] = [
    s.Welcome(rid=1, version=PROTOCOL_VERSION, server="cuarenta", connection="c1"),
    s.Ack(rid=2),
    s.Error(rid=3, code=ErrorCode.ILLEGAL_ACTION, message="R7: no basis"),
    s.Pong(rid=4, server_time=1.5),
    s.TableCreated(rid=5, table="t1", join_key="j" * 10, watch_key="w" * 10, host_key="h" * 10),
    s.Seated(rid=6, table="t1", seat=0, token="t1.tok"),
    s.RecordMessage(rid=7, game=1, record={"format": "cuarenta-record/1", "actions": []}),
    s.Snapshot(
        last_event=3,
        you=s.You(role="player", seat=0, name="Ana"),
        info=INFO,
        view=None,
        legal=[c.Play(card="AC", take=[])],
        deadlines=[s.Deadline(kind="turn", seat=0, at=10.0, remaining_ms=30000)],
    ),
    s.Event(n=1, event=t.SeatTaken(seat=0, name="Ana")),
    s.Event(n=2, event=g.Played(seat=0, card="AC", take=[], caida=False, limpia=False, points=0)),
    s.Update(
        rid=8,
        events=[s.Event(n=3, event=t.UnknownEvent(type="from_a_newer_server", seat=1))],
        snapshot=s.SnapshotChange(
            last_event=3, you=s.You(role="spectator", name="Eva"), info=None, view=None
        ),
    ),
    s.Change(
        rid=9,
        events=[s.Event(n=4, event=g.ClaimsClosed())],
        legal=[c.Claim(rank="5")],
        deadlines=[s.Deadline(kind="claims", seat=None, at=12.0, remaining_ms=15000)],
    ),
    s.Presence(seats=SEATS, spectators=1),
    s.Deadlines(deadlines=[]),
    s.ChatLine(channel="players", name="Ana", seat=0, text="hola"),
    s.Goodbye(reason="kicked by the host"),
]


def _types(union: object) -> set[str]:
    """Message types defined by the table protocol itself (feature modules such as
    ``protocol.ladder`` test their own messages)."""
    return {
        m.model_fields["type"].default
        for m in get_args(get_args(union)[0])
        if m.__module__ in {c.__name__, s.__name__}
    }


def test_samples_cover_every_message_type() -> None:
    assert {m.type for m in CLIENT_SAMPLES} == _types(c.ClientMessage)
    assert {m.type for m in SERVER_SAMPLES} == _types(s.ServerMessage)


@pytest.mark.parametrize("message", CLIENT_SAMPLES, ids=lambda m: m.type)
def test_every_client_message_round_trips(message: c.ClientMessage) -> None:
    assert decode_client(encode(message)) == message


@pytest.mark.parametrize("message", SERVER_SAMPLES, ids=lambda m: m.type)
def test_every_server_message_round_trips(message: s.ServerMessage) -> None:
    assert decode_server(encode(message)) == message


def test_card_codes_in_lower_case_are_read_and_written_upper_case_r2() -> None:
    frame = msgpack.packb({"type": "play", "rid": 1, "card": "6s", "take": ["2c", "jd"]})
    play = decode_client(frame)
    assert isinstance(play, c.Play)
    assert (play.card, play.take) == ("6S", ["2C", "JD"])


def test_messages_are_frozen_values() -> None:
    with pytest.raises(ValueError, match="frozen"):
        CLIENT_SAMPLES[0].rid = 9


@pytest.mark.parametrize(
    ("frame", "error", "code"),
    [
        (b"\xc1", FrameError, ErrorCode.BAD_FRAME),  # never valid msgpack
        (msgpack.packb({"type": "ping"}) + b"\x00", FrameError, ErrorCode.BAD_FRAME),
        (b"\x92" + b"\x91" * 20 + b"\x90", FrameError, ErrorCode.BAD_FRAME),  # too deep
        (msgpack.packb(list(range(100))), FrameError, ErrorCode.BAD_FRAME),  # list too long
        (msgpack.packb({"type": "chat", "text": "x" * 2000}), FrameError, ErrorCode.BAD_FRAME),
        (msgpack.packb({"type": "ping", "b": b"raw"}), FrameError, ErrorCode.BAD_FRAME),
        (msgpack.packb({1: 2}), FrameError, ErrorCode.BAD_FRAME),  # non-string map key
        (msgpack.packb([1, 2]), FrameError, ErrorCode.BAD_FRAME),  # an array is no message
        (msgpack.packb(7), FrameError, ErrorCode.BAD_FRAME),  # nor is a scalar
        (b"\xc4" + b"\x00" * 9000, FrameTooLarge, ErrorCode.FRAME_TOO_LARGE),
    ],
    ids=[
        "not-msgpack",
        "trailing-bytes",
        "too-deep",
        "long-list",
        "long-string",
        "binary",
        "int-key",
        "top-level-array",
        "top-level-int",
        "oversize",
    ],
)
def test_bad_frames_are_refused_with_a_frame_error(
    frame: bytes, error: type[ProtocolError], code: ErrorCode
) -> None:
    with pytest.raises(error) as caught:
        decode_client(frame)
    assert caught.value.code is code


def test_text_frames_are_refused() -> None:
    with pytest.raises(FrameError, match="binary"):
        decode_client("{}")


@pytest.mark.parametrize(
    ("value", "code", "words"),
    [
        ({"type": "dance", "rid": 4}, ErrorCode.UNKNOWN_TYPE, "unknown message type 'dance'"),
        ({"rid": 4}, ErrorCode.UNKNOWN_TYPE, "unknown message type None"),
        ({"type": "play", "rid": 4, "card": "8S"}, ErrorCode.INVALID_MESSAGE, "card"),
        ({"type": "play", "rid": 4, "card": "AC", "cheat": 1}, ErrorCode.INVALID_MESSAGE, "cheat"),
        ({"type": "sit", "rid": 4, "seat": 4}, ErrorCode.INVALID_MESSAGE, "seat"),
        ({"type": "join", "rid": 4}, ErrorCode.INVALID_MESSAGE, "key"),
        ({"type": ["play"], "rid": 4}, ErrorCode.UNKNOWN_TYPE, "unknown message type ['play']"),
        ({"type": {"a": 1}, "rid": 4}, ErrorCode.UNKNOWN_TYPE, "unknown message type {'a': 1}"),
        ({"type": "x" * 300, "rid": 4}, ErrorCode.UNKNOWN_TYPE, "unknown message type 'xxx"),
    ],
)
def test_invalid_messages_name_the_problem_and_the_request(
    value: object, code: ErrorCode, words: str
) -> None:
    with pytest.raises(MessageError) as caught:
        decode_client(msgpack.packb(value))
    assert caught.value.code is code
    assert words in caught.value.message
    assert caught.value.rid == 4
    assert len(caught.value.message) <= MAX_ERROR_CHARS  # fits the error message's own bound


@pytest.mark.parametrize("rid", ["7", 7.0, True, -1, 2**31])
def test_a_request_id_is_never_coerced(rid: object) -> None:
    with pytest.raises(MessageError) as caught:
        decode_client(msgpack.packb({"type": "ping", "rid": rid}))
    assert caught.value.code is ErrorCode.INVALID_MESSAGE
    assert "rid" in caught.value.message
    assert caught.value.rid is None


@settings(max_examples=100)
@given(st.binary(max_size=64))
def test_arbitrary_bytes_only_ever_raise_protocol_errors(frame: bytes) -> None:
    with contextlib.suppress(ProtocolError):
        decode_client(frame)


def test_an_update_stands_for_its_ack_events_and_snapshot_in_order() -> None:
    (update,) = [m for m in SERVER_SAMPLES if isinstance(m, s.Update)]
    (before,) = [m for m in SERVER_SAMPLES if isinstance(m, s.Snapshot)]
    assert [m.type for m in update.unfold(before)] == ["ack", "event", "snapshot"]
    assert update.unfold(before)[0] == s.Ack(rid=8)
    unasked = update.model_copy(update={"rid": None})
    assert [m.type for m in unasked.unfold(before)] == ["event", "snapshot"]


def test_an_update_keeps_the_previous_snapshots_info_unless_it_sends_its_own() -> None:
    (update,) = [m for m in SERVER_SAMPLES if isinstance(m, s.Update)]
    (before,) = [m for m in SERVER_SAMPLES if isinstance(m, s.Snapshot)]
    snapshot = update.unfold(before)[-1]
    assert isinstance(snapshot, s.Snapshot)
    assert snapshot.info == before.info
    assert (snapshot.last_event, snapshot.you, snapshot.legal) == (3, update.snapshot.you, [])
    changed = INFO.model_copy(update={"stage": "playing"})
    told = update.model_copy(
        update={"snapshot": update.snapshot.model_copy(update={"info": changed})}
    )
    assert told.unfold(before)[-1] == snapshot.model_copy(update={"info": changed})
    assert told.unfold(None)[-1] == snapshot.model_copy(update={"info": changed})


def test_an_update_that_needs_a_previous_snapshot_is_refused_without_one() -> None:
    (update,) = [m for m in SERVER_SAMPLES if isinstance(m, s.Update)]
    (before,) = [m for m in SERVER_SAMPLES if isinstance(m, s.Snapshot)]
    with pytest.raises(ProtocolError, match="table info"):
        update.unfold(None)
    continued = update.model_copy(
        update={"snapshot": update.snapshot.model_copy(update={"history_from": 2})}
    )
    with pytest.raises(ProtocolError, match="history of 2 entries"):
        continued.unfold(before)  # ``before`` has no game view, let alone two entries
