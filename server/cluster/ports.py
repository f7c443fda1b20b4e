"""What the cluster's parts need of the rest of the server and of each other: nothing else of
the lobby or the connections is reachable from ``server.cluster``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from protocol import server_messages as s
from server.frames import Built
from server.store.base import StoreError

if TYPE_CHECKING:
    from server.cluster.membership import Membership
    from server.cluster.relay import Relay
    from server.cluster.remote import RemoteRoom
    from server.placement import Placement
    from server.room import Room
    from server.store.redis import RedisStore


class Tables(Protocol):
    """The registry of the tables this process has loaded."""

    @property
    def owner(self) -> str:
        """This process's name as a lease owner."""
        ...

    @property
    def placement(self) -> Placement[Room | RemoteRoom]:
        """Which table each of this process's connections is at."""
        ...

    @property
    def rooms(self) -> Mapping[str, Room]:
        """The tables this process owns and has loaded."""
        ...

    def loaded(self, table_id: str) -> Room | None:
        """The table if this process owns it and has it loaded."""
        ...

    def forget(self, room: Room) -> None:
        """Drop a table this process no longer owns from the registry."""
        ...

    async def room(self, table_id: str) -> Room | RemoteRoom | None:
        """The table, loaded (or relayed) if needed; None if it does not exist."""
        ...

    async def load(self, table_id: str, token: int | None = None) -> Room | None:
        """Rebuild the table from the store here (its lease is held here with ``token``)."""
        ...


class Local(Protocol):
    """One of this process's connections."""

    def push(self, message: s.ServerMessage | Built) -> None: ...


class Hub(Protocol):
    """What a ``RemoteRoom`` needs of its process's ``Cluster``."""

    process: str
    lease_s: float
    closing: bool
    store: RedisStore
    lobby: Tables
    relay: Relay
    connections: Mapping[str, Local]
    members: Membership  # the live processes and each table's place
    remotes: dict[str, RemoteRoom]  # tables owned elsewhere that this process relays
    relayed: dict[str, RemoteRoom]  # this process's connections at those tables

    async def wait_for_lapse(self, table_id: str) -> None: ...

    def handed_over(self, table_id: str, room: Room | RemoteRoom, exc: StoreError) -> bool: ...

    def _spawn(self, work: Any, what: str) -> None: ...
