"""The replay viewer's positions: a finished game's record (R15) replayed through the engine.

The viewer (``/replay``) never re-implements the rules in JavaScript: it asks this module, which
applies the record's actions with ``engine.Game`` exactly as the server did, and sends back
every position (all hands face up: the game is over) with the events each action caused. A
record comes either from the store (``/replayed/<table>/<game>?key=…``, the same credentials as
``/record``) or from a file the visitor dropped on the page, sent in the query as
``?record=<base64url of the raw-deflated JSON>`` (websockets' HTTP side speaks only GET, and a
request line is at most 8 KB; a record of a whole game deflates to 2-4 KB). Anything that is not
a readable record, or inflates past ``MAX_RECORD_BYTES``, is refused with a clear reason.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from typing import Any

from engine.actions import action_from_json
from engine.cards import card_code
from engine.errors import EngineError, IllegalAction
from engine.events import Event
from engine.game import Game
from engine.record import Record
from engine.replay import replay
from server.errors import ServerError

MAX_RECORD_BYTES = 64 * 1024
"""The largest record (JSON) accepted: a long game's record is about 11 KB."""
BASE64URL = re.compile(r"[A-Za-z0-9_-]*={0,2}")


class BadRecord(ServerError, ValueError):
    """A record the viewer cannot replay; the message says why, for a 400 answer."""


def inflate(packed: str) -> Any:
    """The record JSON inside a ``?record=`` value (base64url of raw deflate), size-bounded."""
    if not BASE64URL.fullmatch(packed):  # the decoder would skip stray characters silently
        raise BadRecord("the record is not base64url (only A-Z, a-z, 0-9, '-' and '_')")
    try:
        data = base64.urlsafe_b64decode(packed + "=" * (-len(packed) % 4))
        inflater = zlib.decompressobj(-zlib.MAX_WBITS)
        text = inflater.decompress(data, MAX_RECORD_BYTES + 1)
    except (binascii.Error, ValueError, zlib.error) as exc:
        raise BadRecord(f"the record is not base64url of deflated JSON ({exc})") from None
    if len(text) > MAX_RECORD_BYTES or inflater.unconsumed_tail:
        raise BadRecord(f"the record is larger than {MAX_RECORD_BYTES} bytes")
    if not inflater.eof:
        raise BadRecord("the record is not base64url of deflated JSON (the deflate stream is cut)")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise BadRecord(f"the record is not JSON ({exc})") from None


def positions(obj: Any) -> dict[str, Any]:
    """Every position of the recorded game, with the events and the action that led to it.

    ``steps[0]`` is the position after the automatic start (draw, deal, announcements);
    ``steps[i]`` the one after action ``i - 1``. ``result`` is ``engine.replay.replay``'s
    object, the same ``cuarenta replay`` prints, so the viewer's final score is the engine's.
    """
    try:
        record = Record.from_json(obj)
        game = Game.from_record(record, play_actions=False)
        steps = [_position(game, None, game.start_events)]
        try:
            for action, events in game.apply_record(record.actions):
                steps.append(_position(game, str(action), events))
        except IllegalAction as exc:
            index = len(steps) - 1  # the action after the last position
            # an action that cannot even be read raises again here: not a readable record
            action = action_from_json(record.actions[index])
            raise BadRecord(f"action {index} ({action}) is illegal: {exc}") from None
    except (EngineError, KeyError, TypeError, ValueError) as exc:
        if isinstance(exc, BadRecord):
            raise
        raise BadRecord(f"not a readable game record (R15): {exc}") from None
    return {
        "profile": record.profile,
        "seats": game.rules.seats,
        "steps": steps,
        "result": replay(record),
    }


def _position(game: Game, action: str | None, events: tuple[Event, ...]) -> dict[str, Any]:
    seats = game.rules.seats
    return {
        "action": action,
        "events": [event.to_json() for event in events],
        "hands": [[card_code(card) for card in game.hand(seat)] for seat in range(seats)],
        "table": [card_code(card) for card in game.table],
        "scores": list(game.scores),
        "piles": list(game.pile_sizes),
        "turn": game.turn,
        "dealer": game.dealer,
        "hand": game.hand_number,
        "packet": game.packet,
        "phase": str(game.phase),
        "winner": game.winner,
    }
