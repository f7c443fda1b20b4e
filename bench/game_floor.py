"""The game floor: the least a Cuarenta table server does per move, for the server benchmark.

``python -m bench.game_floor --port 0`` prints ``listening on ws://HOST:PORT/`` once bound. It
speaks the part of the protocol the benchmark's load uses (``hello``, ``create_table``,
``join``, ``start``, the game's actions, ``rematch``) with this tree's engine and codec, and per
move does only what any server of the game must: decode and validate the frame
(``protocol.decode_client``), judge it by the rules (``Game.apply``), number and redact its
events (``engine.views.redact``), keep each as a JSON line in memory, and send each seat one
``update`` (``protocol.frames``): the events, the public view with that seat's own hand and the
hand's new history, and its legal list; to a seat whose hello asked for protocol 4, a ``change``
(the events and its legal list, the view left to the client to follow). Nothing else: no store,
lease, lock, clock, presence, listing, metrics, rate limit, seat token or spectator.

Beside ``bench.floor`` (the same websockets server with no game at all) it splits the table
server's cost: the game floor over the floor is what the game itself costs on this stack, the
table server over the game floor what everything a real table adds costs (write before send,
seats, bots, clocks, durability).
"""

from __future__ import annotations

import itertools
import secrets
import sys
from typing import Any

import orjson
from websockets.asyncio.server import ServerConnection, broadcast
from websockets.exceptions import ConnectionClosed

from bench.floor import SEATS, floor_main
from engine.actions import CloseClaims
from engine.errors import EngineError
from engine.events import Event as EngineEvent
from engine.events import GameOver
from engine.game import Game
from engine.phase import Phase
from engine.views import own_hand, redact, redacts, seen_history, view_of
from protocol import PROTOCOL_VERSION, decode_client, frames
from protocol import client_messages as c
from protocol.convert import (
    action_fields,
    action_from_wire,
    card_codes,
    seen_play_fields,
    view_fields,
)
from protocol.errors import ProtocolError
from protocol.frames import KEYS, NONE, pack

PROFILE = "pagat-4p"
_YOU = [frames.you(seat, seat == 0, f"s{seat}", False) for seat in range(SEATS)]


class FloorGame:
    """One table: its seats' connections, the game, the numbered events, what each seat saw."""

    def __init__(self, options: dict[str, Any], seeds: itertools.count[int]) -> None:
        self.options = options
        self.seeds = seeds
        self.seats: list[ServerConnection | None] = [None] * SEATS
        self.versions = [PROTOCOL_VERSION] * SEATS  # the protocol each seat's hello asked for
        self.game: Game | None = None
        self.number = 0  # games dealt
        self.log: list[bytes] = []  # the events as JSON lines: what a store would keep
        self.rematch: set[int] = set()
        self.history: tuple[Game | None, int, int] = (None, -1, 0)  # game, hand, entries sent

    def deal(self) -> None:
        self.number += 1
        self.rematch.clear()
        self.game = Game.new(PROFILE, self.options, next(self.seeds))
        self.publish(self.game.start_events, None, None, stage_changed=True)

    def act(self, seat: int, message: c.GameAction) -> str | None:
        """The seat's move, judged by the engine: None when made, else why not."""
        game = self.game
        if game is None or game.phase is Phase.FINISHED or seat not in game.to_act():
            return "not your turn"
        if message.at is not None and message.at != len(self.log):
            return "stale"
        try:
            events = game.apply(action_from_wire(message, seat))
            if game.phase is Phase.CLAIMS:  # nobody waits on a claim window here (R10)
                events += game.apply(CloseClaims())
        except EngineError as exc:
            return str(exc)
        over = any(isinstance(event, GameOver) for event in events)
        self.publish(events, seat, message.rid, stage_changed=over)
        return None

    def publish(
        self,
        events: tuple[EngineEvent, ...],
        mover: int | None,
        rid: int | None,
        stage_changed: bool,
    ) -> None:
        """Number and keep ``events``, then send every seat its update."""
        game = self.game
        assert game is not None
        first = len(self.log) + 1
        seen: list[list[bytes]] = [[] for _ in range(SEATS)]
        for n, event in enumerate(events, first):
            if redacts(event):  # a deal or a ronda: each seat sees its own form
                forms = [redact(event, seat).to_json() for seat in range(SEATS)]
                self.log.append(orjson.dumps({"n": n, "v": forms}))
                for seat, form in enumerate(forms):
                    seen[seat].append(frames.event(n, pack(form)))
            else:
                form = event.to_json()
                self.log.append(orjson.dumps({"n": n, "a": form}))
                message = frames.event(n, pack(form))
                for each in seen:
                    each.append(message)
        stage = "finished" if game.phase is Phase.FINISHED else "playing"
        info = pack({"stage": stage, "game": self.number}) if stage_changed else NONE
        deciding = game.to_act() if stage == "playing" else ()
        full: tuple[bytes, list[bytes], bytes, bytes] | None = None  # protocol 3's parts
        for seat, ws in enumerate(self.seats):
            if ws is None:
                continue
            legal = frames.NO_LEGAL
            if seat in deciding:
                offered = [action_fields(a) for a in game.legal_actions(seat, by_rank=True)]
                legal = frames.legal(offered)
            answer = rid if seat == mover else None
            told = frames.events(seen[seat])
            if self.versions[seat] >= 4:
                data = frames.change(answer, told, NONE, info, NONE, legal, NONE)
            else:
                if full is None:
                    full = self._public_parts(game, info)
                shared, history, tail, head = full
                hand = own_hand(game, seat)
                codes = None if hand is None else card_codes(hand)
                body = frames.snapshot_body(
                    head, _YOU[seat], frames.view(shared, history, seat, codes), legal
                )
                data = frames.update(answer, told, body, tail)
            broadcast([ws], data)

    def _public_parts(self, game: Game, info: bytes) -> tuple[bytes, list[bytes], bytes, bytes]:
        """Protocol 3's pieces shared by every seat: the public view, the new history
        entries, the snapshot's tail and head."""
        public = view_fields(view_of(game, None, with_history=False), self.options, False)
        del public["viewer"], public["hand"]
        tail = frames.change_tail(info, frames.NO_DEADLINES, 0)
        head = KEYS.last_event + pack(len(self.log))
        return frames.public_view(public), self._new_history(game), tail, head

    def _new_history(self, game: Game) -> list[bytes]:
        """The hand's history entries not sent yet, each encoded."""
        was, hand, sent = self.history
        if was is not game or hand != game.hand_number:
            sent = 0
        entries = seen_history(game, sent)
        self.history = (game, game.hand_number, sent + len(entries))
        return [pack(seen_play_fields(entry)) for entry in entries]


class GameFloor:
    """Tables by key; one connection plays one seat."""

    def __init__(self) -> None:
        self.by_key: dict[str, FloorGame] = {}
        self.seeds = itertools.count(1)

    async def handler(self, ws: ServerConnection) -> None:
        table: FloorGame | None = None
        seat, version = -1, PROTOCOL_VERSION
        try:
            async for frame in ws:
                try:
                    message = decode_client(frame)
                except ProtocolError as exc:
                    _answer(
                        ws, {"type": "error", "rid": None, "code": "invalid", "message": str(exc)}
                    )
                    continue
                if isinstance(message, c.Hello):
                    version = message.version
                table, seat = self._handle(ws, message, table, seat, version)
        except ConnectionClosed:
            pass
        finally:
            if table is not None and 0 <= seat < SEATS:
                table.seats[seat] = None

    def _handle(
        self,
        ws: ServerConnection,
        message: c.ClientMessage,
        table: FloorGame | None,
        seat: int,
        version: int,
    ) -> tuple[FloorGame | None, int]:
        rid = message.rid
        if isinstance(message, c.Hello):
            _answer(ws, {"type": "welcome", "rid": rid, "version": message.version})
        elif isinstance(message, c.CreateTable):
            created = FloorGame(dict(message.options), self.seeds)
            host, join = secrets.token_urlsafe(12), secrets.token_urlsafe(12)
            self.by_key[host] = self.by_key[join] = created
            _answer(ws, {"type": "table_created", "rid": rid, "host_key": host, "join_key": join})
        elif isinstance(message, c.Join):
            table, seat = self.by_key.get(message.key), message.seat or 0
            if table is None:
                _answer(ws, {"type": "error", "rid": rid, "code": "not_found", "message": "?"})
            else:
                table.seats[seat], table.versions[seat] = ws, version
                _answer(ws, {"type": "seated", "rid": rid, "seat": seat})
        elif table is not None and isinstance(message, c.Start):
            table.deal()
        elif table is not None and isinstance(message, c.Rematch):
            _answer(ws, {"type": "ack", "rid": rid})
            table.rematch.add(seat)
            if len(table.rematch) == SEATS:
                table.deal()
        elif table is not None and isinstance(message, c.GameAction):
            refused = table.act(seat, message)
            if refused is not None:
                _answer(ws, {"type": "error", "rid": rid, "code": "illegal", "message": refused})
        else:
            _answer(ws, {"type": "error", "rid": rid, "code": "unknown", "message": "not here"})
        return table, seat


def _answer(ws: ServerConnection, fields: dict[str, Any]) -> None:
    broadcast([ws], pack(fields))


def main(argv: list[str] | None = None) -> int:
    return floor_main(lambda: GameFloor().handler, "python -m bench.game_floor", __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
