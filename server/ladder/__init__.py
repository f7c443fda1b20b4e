"""The solo streak ladder of the ``heads-up`` profile (R14), served beside the tables.

- ``rules``: the ladder as pure values (levels, the saved score, a run's transitions).
- ``outcome``: how a chica ended, read from its table's event log.
- ``names``: the check a public leaderboard name must pass.
- ``chica``: lay out one chica on a fresh two-seat table.
- ``store`` / ``redis_store``: runs and the leaderboard, in memory or in Redis.
- ``service``: the ``Ladder`` that answers the protocol's ladder requests.
"""

from server.ladder.rules import LadderRun, level_for, saved_score
from server.ladder.service import Ladder
from server.ladder.store import LadderStore, MemoryLadderStore
from server.store.base import Store


def ladder_store_for(tables: Store) -> LadderStore:
    """Keep the ladder where the tables are: Redis beside a ``RedisStore``, else memory."""
    from server.store.redis import RedisStore

    if isinstance(tables, RedisStore):
        from server.ladder.redis_store import RedisLadderStore

        return RedisLadderStore(tables.client)
    return MemoryLadderStore()


__all__ = [
    "Ladder",
    "LadderRun",
    "LadderStore",
    "MemoryLadderStore",
    "ladder_store_for",
    "level_for",
    "saved_score",
]
