"""People who come back across tables: a player key, a public id, games, friends, a rating.

- ``model``: the values (``Player``, ``GameSummary``, ``Relations``…) and name cleaning.
- ``rating``: openskill's Plackett-Luce for teams of one or two; bots' fixed ratings.
- ``store`` / ``redis_store``: the ``PlayerStore`` contract, in memory or in Redis.
- ``service``: ``Players``, what the server calls on ``hello`` and when a game finishes.
- ``presence``: who is online, and at which table.

The data layer above holds no socket and no table (an import contract); beside it, the server's
side: ``routes`` (``People``: the requests about people, for one connection) and ``games`` (the
recorder that turns each finished game into records, ratings and a review).

Wiring it in: ``players = Players(player_store_for(tables))``; on ``hello`` with a
``player_key``, ``await players.enter(key, name)`` and keep the ``Player.id`` on the connection
(never the key); when a game ends, ``await players.record_game(FinishedGame(...))``.
"""

from server.people.model import GameSummary, Player, Rating, Relations, Seat
from server.people.service import FinishedGame, Players
from server.people.store import MemoryPlayerStore, PlayerStore
from server.store.base import Store


def player_store_for(tables: Store) -> PlayerStore:
    """Keep the players where the tables are: Redis beside a ``RedisStore``, else memory."""
    from server.store.redis import RedisStore

    if isinstance(tables, RedisStore):
        from server.people.redis_store import RedisPlayerStore

        return RedisPlayerStore(tables.cluster or tables.client)
    return MemoryPlayerStore()


__all__ = [
    "FinishedGame",
    "GameSummary",
    "MemoryPlayerStore",
    "Player",
    "PlayerStore",
    "Players",
    "Rating",
    "Relations",
    "Seat",
    "player_store_for",
]
