"""Encode each outgoing message once, however many connections it goes to.

A table's change sends the same message object to several viewers (an event nobody's view
redacts differently, a presence update): the referee shares those objects (``table_view``),
and this cache turns the sharing into one msgpack encoding. It is keyed by object identity and
holds the recent messages themselves, so an id can never be reused while its entry lives;
messages are frozen models, so the bytes cannot go stale.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Final

from protocol import encode
from protocol import server_messages as s

RECENT: Final = 512
"""Messages remembered: far more than one change sends to one table's viewers."""


class SharedFrames:
    """An identity-keyed cache of recent encodings (one per process; the loop is one thread)."""

    __slots__ = ("_recent", "size")

    def __init__(self, size: int = RECENT) -> None:
        self.size = size
        self._recent: OrderedDict[int, tuple[s.ServerMessage, bytes]] = OrderedDict()

    def encode(self, message: s.ServerMessage) -> bytes:
        """Return ``encode(message)``, computed once per message object."""
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
