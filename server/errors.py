"""The server's errors: one tree, rooted in ``ServerError``.

::

    ServerError (Exception)
    ├── Refused          a request the table will not carry out; ``code`` goes on the wire
    ├── HttpRefusal      (server.http_edge) an HTTP request refused before any route saw it:
    │                    its status goes on the wire
    ├── BadRecord        (server.replay_positions; also a ValueError) a game record the
    │                    replay viewer cannot read: a 400 answer says why
    └── RelayError       (server.cluster.relay) the relay between processes failed
        └── PeerGone     the process a request was forwarded to stopped answering

The store's errors are their own tree (``server.store.base.StoreError``): the store is a
contract of its own, kept by the memory and the Redis stores; the wire's are
``protocol.errors.ProtocolError``; the engine's ``engine.errors.EngineError``.

A ``Refused`` never changes any state: the referee checks everything before it changes anything.
"""

from __future__ import annotations

from protocol.errors import ErrorCode
from server.store.base import CommitUncertain, StoreError


class ServerError(Exception):
    """Base of every error the server raises on purpose."""


class Refused(ServerError):
    """Refuse a request with a stable ``code`` and a message naming the rule or the reason."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def storage_refusal(exc: StoreError) -> Refused:
    """What a client is told when the store failed: what happened to its command and what to
    do, never the storage's host, port or driver text (that stays in the log).

    An uncertain commit the room could not settle (``CommitUncertain``) may yet be stored: the
    client hears so, and sees the move among the table's events if it was.
    """
    if isinstance(exc, CommitUncertain):
        text = "storage unavailable: whether your move was stored is not known yet; the table "
        text += "shows it once the storage answers"
    else:
        text = "storage unavailable: nothing was changed, try again in a moment"
    return Refused(ErrorCode.STORAGE_UNAVAILABLE, text)


NOT_NOW = frozenset({ErrorCode.STORAGE_UNAVAILABLE, ErrorCode.INTERNAL})
"""Refusals that say "not now" (the store, the table moving), not what the referee judged."""


def not_now(exc: Refused | StoreError) -> bool:
    """A failure that is not the referee's judgement: the store or the table's move."""
    return isinstance(exc, StoreError) or exc.code in NOT_NOW
