"""Viewers told the same change share one encoded frame, and each still gets what is its own.

A protocol 4 change is the same bytes for every spectator and, when its events are public, for
every seat that is not to act: it is encoded once (``server.core.pieces``). What must not be
shared: a seat's legal list (only the seat to act gets one, R7), a redacted deal (each seat
sees its own cards, R6; invariant 1) and the answer to one viewer's own request.
"""

from __future__ import annotations

from collections import defaultdict

from pydantic import TypeAdapter

from protocol import client_messages as c
from protocol import server_messages as s
from protocol.convert import action_fields
from server.config import Settings
from server.core.commands import Attach, Request
from server.core.referee import Outcome, Referee
from server.frames import Built
from server.store.base import KeyRole

T0 = 1_000_000.0
MESSAGE: TypeAdapter[c.ClientMessage] = TypeAdapter(c.ClientMessage)
SEATS = [f"p{seat}" for seat in range(4)]
WATCHERS = ["w1", "w2"]


def table() -> tuple[Referee, Outcome]:
    ref = Referee.create(
        "pagat-4p",
        {"special_claims": "auto"},
        0,
        Settings(bot_delay_s=0.0).referee_config(),
        seeds=lambda: 11,
    )
    for seat, conn in enumerate(SEATS):
        role: KeyRole = "host" if seat == 0 else "join"
        join = c.Join(key=ref.table.keys[role], seat=seat)
        ref.apply(Attach(conn, conn.upper(), join, role, version=4), T0)
    for conn in WATCHERS:
        watch = c.Watch(key=ref.table.keys["watch"])
        ref.apply(Attach(conn, conn.upper(), watch, "watch", version=4), T0)
    return ref, ref.apply(Request(SEATS[0], c.Start(rid=1)), T0)


def frames_of(out: Outcome) -> dict[str, Built]:
    got = {conn: message for conn, message in out.messages if isinstance(message, Built)}
    assert all(message.type == "update" for message in got.values())
    return got


def change(frame: Built) -> s.Change:
    message = frame.model()
    assert isinstance(message, s.Change)
    return message


def test_spectators_and_seats_not_to_act_share_one_frame_of_a_public_play() -> None:
    ref, _ = table()
    shared = 0
    for rid in range(10, 30):  # plays, each the first legal one of the seat to act
        game = ref.table.game
        assert game is not None
        assert ref.table.in_game
        seat = min(game.to_act())
        pick = action_fields(game.legal_actions(seat, by_rank=True)[0])
        message = MESSAGE.validate_python({**pick, "rid": rid, "at": ref.table.last_event})
        sent = frames_of(ref.apply(Request(SEATS[seat], message), T0 + rid))
        changes = {conn: change(frame) for conn, frame in sent.items()}
        assert sent["w1"] is sent["w2"]
        to_act = set(game.to_act()) if ref.table.in_game else set()
        for index, conn in enumerate(SEATS):
            assert bool(changes[conn].legal) == (index in to_act)  # R7: only who must decide
        assert changes[SEATS[seat]].rid == rid  # the answer is the asker's own
        assert all(changes[conn].rid is None for conn in sent if conn != SEATS[seat])
        if all(changes[conn].events == changes["w1"].events for conn in SEATS):  # public
            quiet = [sent[conn] for i, conn in enumerate(SEATS) if i != seat and i not in to_act]
            assert all(frame is sent["w1"] for frame in quiet)
            shared += len(quiet)
        by_frame: dict[int, set[str]] = defaultdict(set)
        for conn, frame in sent.items():
            by_frame[id(frame)].add(conn)
        for conns in by_frame.values():  # one frame, one content: the same events for all
            assert len({repr(changes[conn].events) for conn in conns}) == 1
    assert shared  # the games' plays were public, and some seat was not to act


def test_a_deal_is_never_shared_between_seats_r6() -> None:
    _, started = table()
    sent = frames_of(started)
    hands = [
        [
            e.event
            for e in change(sent[conn]).events
            if getattr(e.event, "type", "") == "packet_dealt"
        ]
        for conn in SEATS
    ]
    assert all(hands)
    assert len({id(sent[conn]) for conn in SEATS}) == len(SEATS)
    assert sent["w1"] is sent["w2"]
    assert len({repr(hand) for hand in hands}) == len(SEATS)  # each seat its own cards
