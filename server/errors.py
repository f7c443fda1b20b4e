"""The server's errors: one tree, rooted in ``ServerError``.

::

    ServerError (Exception)
    ├── Refused          a request the table will not carry out; ``code`` goes on the wire
    └── RelayError       (server.cluster.relay) the relay between processes failed
        └── PeerGone     the process a request was forwarded to stopped answering

The store's errors are their own tree (``server.store.base.StoreError``): the store is a
contract of its own, kept by the memory and the Redis stores; the wire's are
``protocol.errors.ProtocolError``; the engine's ``engine.errors.EngineError``.

A ``Refused`` never changes any state: the referee checks everything before it changes anything.
"""

from __future__ import annotations

from protocol.errors import ErrorCode


class ServerError(Exception):
    """Base of every error the server raises on purpose."""


class Refused(ServerError):
    """Refuse a request with a stable ``code`` and a message naming the rule or the reason."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
