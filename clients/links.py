"""Table links: ``http(s)://HOST:PORT/t/KEY``, the one thing a person passes on to be seated.

A link names a server and a key: the join key seats its holder, the watch key lets them look
on, the host key does both and manages the table (ARCHITECTURE "Identity without accounts").
The web client serves the same ``/t/<key>`` path, so a link opens in a browser or in
``cuarenta play``/``watch``/``bot`` alike.

>>> link = TableLink.parse("http://127.0.0.1:8765/t/AbCdEfGh12")
>>> link.key, link.ws_url
('AbCdEfGh12', 'ws://127.0.0.1:8765/ws')
>>> str(link)
'http://127.0.0.1:8765/t/AbCdEfGh12'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import quote, unquote, urlsplit

from clients.session import SessionError

#: the wire's ``Key`` shape (protocol.base): 8-80 characters of ``[A-Za-z0-9_.~-]``
KEY_PATTERN = re.compile(r"^[\w.~-]{8,80}$", re.ASCII)
LINK_PATH = "/t/"


class LinkError(SessionError):
    """Text that is not a table link (or not a server address)."""


def server_root(url: str) -> str:
    """Return ``scheme://host:port`` of a server address given as http(s):// or ws(s)://.

    >>> server_root("ws://127.0.0.1:8765/ws")
    'http://127.0.0.1:8765'
    """
    parts = urlsplit(url.strip())
    schemes = {"http": "http", "https": "https", "ws": "http", "wss": "https"}
    if parts.scheme not in schemes or not parts.netloc:
        raise LinkError(f"{url!r} is not a server address (expected http://HOST:PORT)")
    return f"{schemes[parts.scheme]}://{parts.netloc}"


def socket_url(server: str) -> str:
    """The WebSocket endpoint of a server root (``http://h:p`` -> ``ws://h:p/ws``)."""
    root = server_root(server)
    return root.replace("http", "ws", 1) + "/ws"


@dataclass(frozen=True, slots=True)
class TableLink:
    """A server root plus a table key."""

    server: str
    key: str

    @classmethod
    def parse(cls, text: str) -> TableLink:
        """Read ``http(s)://HOST:PORT/t/KEY``; raise `LinkError` saying what is wrong."""
        parts = urlsplit(text.strip())
        root = server_root(text)
        if not parts.path.startswith(LINK_PATH):
            raise LinkError(f"{text!r} is not a table link: expected {root}/t/<key>")
        key = unquote(parts.path.removeprefix(LINK_PATH).rstrip("/"))
        if not KEY_PATTERN.match(key):
            raise LinkError(f"{text!r} is not a table link: the key {key!r} is malformed")
        return cls(root, key)

    @classmethod
    def of(cls, server: str, key: str) -> TableLink:
        """The link to ``key`` on ``server`` (any form `server_root` accepts)."""
        return cls(server_root(server), key)

    @property
    def ws_url(self) -> str:
        return socket_url(self.server)

    def __str__(self) -> str:
        return f"{self.server}{LINK_PATH}{quote(self.key, safe='')}"
