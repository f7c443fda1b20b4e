"""Encode each outgoing message once, however many connections it goes to.

Two kinds of outgoing message exist. Most are frozen models, encoded here once per object
(``SharedFrames``: a change sends the same presence or event object to several viewers). The
per-change ``update`` and ``snapshot`` frames are the hot path: ``server.core.publishing`` assembles
them as bytes from pieces each encoded once per change (the public view, the table info, each
event form) and hands them over as a ``Built`` message. A msgpack map is a header followed by
its keys and values, so concatenating pre-encoded values yields exactly the bytes of the map.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from struct import pack as struct_pack
from typing import Any, Final

import msgpack

from protocol import decode_server, encode
from protocol import server_messages as s

RECENT: Final = 512
"""Messages remembered: far more than one change sends to one table's viewers."""

_packer = msgpack.Packer(use_bin_type=True)


def pack(value: Any) -> bytes:
    """One msgpack value, exactly as ``protocol.encode`` would write it inside a message."""
    data: bytes = _packer.pack(value)
    return data


def map_header(size: int) -> bytes:
    if size < 16:
        return bytes((0x80 | size,))
    return b"\xde" + struct_pack(">H", size)


def array_of(items: Sequence[bytes]) -> bytes:
    """A msgpack array of pre-encoded items."""
    size = len(items)
    head = bytes((0x90 | size,)) if size < 16 else b"\xdc" + struct_pack(">H", size)
    return head + b"".join(items)


class Keys:
    """Pre-encoded map keys: ``KEYS.type`` is ``pack("type")``."""

    def __getattr__(self, name: str) -> bytes:
        data = pack(name)
        setattr(self, name, data)
        return data


KEYS: Final = Keys()


@dataclass(frozen=True, slots=True)
class Built:
    """A server message already encoded, with its header: what the shell and the relay need to
    know without decoding it (its type, the last event number it carries, None for none).
    ``model()`` reads it back (tests, debugging)."""

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
