"""Which table each of this process's connections is at: one registry, owned by the lobby.

A connection is at one table at most: the room it joined or watched (``Room``), or the same
table owned by another process (``RemoteRoom``). It changes in three ways only, each a method
here: a connection **attaches** (join, watch, resume), the table **moves** under it (this
process took the table over, or handed it to another and relays it now), or it **detaches**
(it left, was sent away, or closed). A move or a detach names the table it expects the
connection at, so a late change never undoes a newer one.
"""

from __future__ import annotations

from typing import Generic, TypeVar

Place = TypeVar("Place")  # a table as the lobby serves it: ``Room | RemoteRoom``


class Placement(Generic[Place]):
    """Connection id -> the table it is at."""

    __slots__ = ("_at",)

    def __init__(self) -> None:
        self._at: dict[str, Place] = {}

    def at(self, conn: str) -> Place | None:
        return self._at.get(conn)

    def attach(self, conn: str, room: Place) -> None:
        self._at[conn] = room

    def move(self, conn: str, old: Place, new: Place) -> None:
        """The table the connection is at (``old``) is now reached through ``new``."""
        if self._at.get(conn) is old:
            self._at[conn] = new

    def detach(self, conn: str, room: Place | None = None) -> Place | None:
        """The connection leaves its table (only if it is at ``room``, when given); returns the
        table it left."""
        current = self._at.get(conn)
        if current is None or (room is not None and current is not room):
            return None
        del self._at[conn]
        return current
