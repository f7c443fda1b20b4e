"""The one rebuild of a table from the store alone: its stored state and its event log."""

from __future__ import annotations

from collections.abc import Callable

from server.core.referee import Referee, RefereeConfig
from server.store.base import Store, StoredTable


async def rebuild(
    store: Store,
    table_id: str,
    config: RefereeConfig,
    now: float,
    seeds: Callable[[], int] | None = None,
) -> tuple[Referee, StoredTable] | None:
    """The one rebuild of a table from the store alone (state and event log); None: no table.

    A load, a takeover, a reload after a failed commit and a record read from another process's
    table all come through here.
    """
    stored = await store.load(table_id)
    if stored is None:
        return None
    events = await store.events_after(table_id, 0)
    log = [event.data for event in events]
    return Referee.from_state(stored.state, log, config, now, seeds), stored
