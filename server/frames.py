"""Encode each outgoing message once, however many connections it goes to.

Two kinds of outgoing message exist. Most are frozen models, encoded here once per object
(``SharedFrames``: a change sends the same presence or ack object to several viewers). The
per-change ``update``, ``snapshot`` and ``event`` frames are the hot path:
``server.core.publishing`` has them assembled (``protocol.frames``) from pieces each encoded once
per change and hands them over as a ``Built`` message, bytes with their header, which the relay
to other processes reads without decoding them (``server.cluster``).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Final, NamedTuple

from engine.memo import keep
from protocol import decode_server, encode, frames
from protocol import server_messages as s

RECENT: Final = 512
"""Messages remembered: far more than one change sends to one table's viewers."""


class Built(NamedTuple):
    """A server message already encoded, with its header: what the shell and the relay need to
    know without decoding it (its type, the last event number it carries, None for none).
    ``model()`` reads it back (tests, debugging). A named tuple: four are built per move."""

    data: bytes
    type: str
    last_event: int | None

    def model(self) -> s.ServerMessage:
        return decode_server(self.data)


def built(message: s.ServerMessage | Built) -> Built:
    """The message as its bytes and header (a model is encoded once, by ``FRAMES``)."""
    if isinstance(message, Built):
        return message
    number = (
        message.n
        if isinstance(message, s.Event)
        else message.last_event
        if isinstance(message, s.Snapshot)
        else message.snapshot.last_event
        if isinstance(message, s.Update)
        else None
    )
    return Built(FRAMES.encode(message), message.type, number)


def last_event_of(message: s.ServerMessage | Built) -> int | None:
    """The last event number a message brings its viewer to (None: it carries none)."""
    if isinstance(message, Built):
        return message.last_event
    if isinstance(message, s.Event):
        return message.n
    if isinstance(message, s.Snapshot):
        return message.last_event
    if isinstance(message, s.Update):
        return message.snapshot.last_event
    return None


class SharedFrames:
    """An identity-keyed cache of recent encodings (one per process; the loop is one thread).

    It holds the recent messages themselves, so an id can never be reused while its entry lives;
    messages are frozen models, so the bytes cannot go stale.
    """

    __slots__ = ("_recent", "size")

    def __init__(self, size: int = RECENT) -> None:
        self.size = size
        self._recent: OrderedDict[int, tuple[s.ServerMessage, bytes]] = OrderedDict()

    def encode(self, message: s.ServerMessage | Built) -> bytes:
        """Return ``encode(message)``, computed once per message object."""
        if isinstance(message, Built):
            return message.data
        key = id(message)
        hit = self._recent.get(key)
        if hit is not None and hit[0] is message:
            return hit[1]
        data = encode(message)
        self._recent[key] = (message, data)
        if len(self._recent) > self.size:
            self._recent.popitem(last=False)
        return data


FRAMES: Final = SharedFrames()


_YOU: dict[tuple[int | None, bool, str, bool], bytes] = {}
_YOU_LIMIT = 4096


def frames_you(seat: int | None, host: bool, name: str, can_sit: bool) -> bytes:
    """A viewer's ``You``, encoded once per seat, host flag, name and right to sit (a bounded
    cache: every update carries one, and protocol 4 compares them)."""
    key = (seat, host, name, can_sit)
    data = _YOU.get(key)
    if data is None:
        data = keep(_YOU, key, frames.you(seat, host, name, can_sit), _YOU_LIMIT)
    return data
