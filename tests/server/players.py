"""Test players over the wire: seat four people, play random legal moves, check privacy."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

import msgpack

from clients.session import ClientSession, RequestRefused
from engine.actions import action_from_json
from engine.cards import card_code
from engine.events import GameOver, PacketDealt
from engine.game import Game
from engine.record import Record
from protocol import client_messages as c
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.app import TableServer


async def seat_four(
    server: TableServer, keep_frames: bool = True
) -> tuple[list[ClientSession], s.TableCreated]:
    """Ana creates a table and sits with the host key; Beto, Caro, Dani take the join link."""
    host = await ClientSession.connect(server.ws_url, "Ana", keep_frames=keep_frames)
    created = await host.request(c.CreateTable(profile="pagat-4p"))
    assert isinstance(created, s.TableCreated)
    await host.request(c.Join(key=created.host_key))
    sessions = [host]
    for name in ("Beto", "Caro", "Dani"):
        session = await ClientSession.connect(server.ws_url, name, keep_frames=keep_frames)
        await session.request(c.Join(key=created.join_key))
        sessions.append(session)
    return sessions, created


async def watched_bot_table(host: ClientSession, level: int = 1) -> s.TableCreated:
    """``host`` creates a table, watches it with the host key, seats four bots of ``level``
    and starts it."""
    created = await host.request(c.CreateTable())
    assert isinstance(created, s.TableCreated)
    await host.request(c.Watch(key=created.host_key))
    for _ in range(4):
        await host.request(c.AddBot(level=level))
    await host.request(c.Start())
    return created


def seeds_not_won_on_the_deal(profile: str = "pagat-4p") -> Callable[[], int]:
    """Random game seeds, skipping any whose first deal ends the game at once (a cuarenta, R6).

    For tests that need a game to reach a given point of its first hand; a later hand can still
    end the game, so a test waiting past it must also accept a finished game.
    """
    rng = random.Random()

    def seed() -> int:
        while True:
            candidate = rng.getrandbits(32)
            game = Game.new(profile, seed=candidate)
            if not any(isinstance(event, GameOver) for event in game.start_events):
                return candidate

    return seed


async def play_until_finished(
    session: ClientSession, rng: random.Random, stop_after: int | None = None
) -> s.Snapshot:
    """Play a random legal card or announcement on each turn (R6, R7) until the game ends.

    Optional actions (claims, taking missed cards) are left alone: the claim window closes on
    the server's clock. With ``stop_after`` return the first snapshot past that event number.
    """
    while True:
        snap = await session.next_snapshot(wait_s=30)
        if snap.info.stage == "finished" and snap.view is not None:
            return snap
        if stop_after is not None and snap.last_event >= stop_after:
            return snap
        required = [a for a in snap.legal if isinstance(a, c.Play | c.Announce)]
        if required and snap.last_event == session.last_event:
            try:
                await session.act(rng.choice(required))
            except RequestRefused as refused:  # a stand-in moved first: decide again
                if refused.code not in (ErrorCode.STALE, ErrorCode.NOT_YOUR_TURN):
                    raise


def dealt_packets(record: dict[str, Any]) -> dict[tuple[int, int], tuple[tuple[int, ...], ...]]:
    """(hand, packet) -> every seat's dealt cards, from replaying the R15 record (R4)."""
    game = Game.from_record(Record.from_json(record), play_actions=False)
    dealt = {}
    events = list(game.start_events)
    for action in record["actions"]:
        events += game.apply(action_from_json(action))
    for event in events:
        if isinstance(event, PacketDealt):
            dealt[(event.hand, event.packet)] = tuple(tuple(h or ()) for h in event.hands)
    return dealt


def _strings(value: Any) -> Iterator[str]:
    """Every string inside a decoded frame, except the diamond draw's public cards (R3)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        is_draw = value.get("type") == "dealer_drawn"
        for key, item in value.items():
            if key == "draw_cards" or (is_draw and key == "cards"):
                continue
            yield from _strings(item)


def leaked_cards(
    frames: list[bytes], seat: int | None, record: dict[str, Any]
) -> list[tuple[int, str]]:
    """(frame index, card) for every card of another seat's hand a viewer was sent.

    Walks the viewer's frames in order, following hands and packets from the events it saw: a
    card dealt to another seat is secret until it is played (R7) or shown in a cuarenta (R6).
    """
    dealt = dealt_packets(record)
    secret: set[str] = set()
    leaks = []
    for index, frame in enumerate(frames):
        for message in _parts(msgpack.unpackb(frame, raw=False)):
            leaks += [(index, text) for text in _leaks(message, seat, dealt, secret)]
    return leaks


def _parts(message: dict[str, Any]) -> list[dict[str, Any]]:
    """An update frame's events, then its snapshot, each as it would have come alone (a
    protocol 4 change: its events, then the rest of it)."""
    if message.get("type") == "update":
        return [*message["events"], message["snapshot"]]
    if message.get("type") == "change":
        return [*message["events"], {k: v for k, v in message.items() if k != "events"}]
    return [message]


def _leaks(
    message: dict[str, Any],
    seat: int | None,
    dealt: dict[tuple[int, int], tuple[tuple[int, ...], ...]],
    secret: set[str],
) -> list[str]:
    """Follow one message's event (updating ``secret``), then name the secrets it shows."""
    event = message.get("event") if message.get("type") == "event" else None
    if isinstance(event, dict):
        kind = event.get("type")
        if kind == "hand_started":
            secret.clear()
        elif kind == "packet_dealt":
            hands = dealt[(event["hand"], event["packet"])]
            secret |= {
                card_code(card)
                for other, cards in enumerate(hands)
                if other != seat
                for card in cards
            }
            own = event["hands"][seat] if seat is not None else None
            if seat is not None and own is not None:  # the walk follows the real deal (R4)
                assert sorted(own) == sorted(map(card_code, hands[seat]))
        elif kind == "played":
            secret.discard(event["card"])
        elif kind == "announced" and event.get("cards"):
            secret -= set(event["cards"])
    if message.get("type") == "record":
        return []  # the R15 record of a finished game is for its players (R15)
    return [text for text in _strings(message) if text in secret]
