"""Where tables live between commands: the ``Store`` protocol and its implementations."""

from server.store.base import (
    KeyRef,
    LeaseHeld,
    Store,
    StoredEvent,
    StoredTable,
    StoreError,
    TableExists,
    TableNotFound,
    VersionConflict,
)
from server.store.memory import MemoryStore

__all__ = [
    "KeyRef",
    "LeaseHeld",
    "MemoryStore",
    "Store",
    "StoreError",
    "StoredEvent",
    "StoredTable",
    "TableExists",
    "TableNotFound",
    "VersionConflict",
]
