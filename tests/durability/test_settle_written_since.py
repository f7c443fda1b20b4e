"""An unanswered commit whose table was written past it meanwhile is unknown, not "not stored".

A room settles a commit it got no answer for by ``fence`` and ``load``: its version and the
last commit's id say whether it was stored. Seen in the 30-minute chaos run (lossy Redis links,
a settle lasting 13 s): another process took the table over while the room waited, loaded the
table WITH the move and wrote on; the stored version was then past ``expected + 1``, the last
commit id another's, and the room told the mover "nothing was changed" of a move that was
stored (invariant 9). Here the commit is stored, its answer is lost, and another owner takes
the lease and writes once before the room settles: the mover must hear the outcome is unknown.
"""

from __future__ import annotations

from typing import Any

import pytest

from bench.recording import a_move, caught_up, seat_table
from clients.session import RequestRefused
from server.store.base import CommitUncertain, Lease
from server.store.redis import RedisStore, open_store, table_key
from tests.redis_server import RedisServer
from tests.serving import StartServer

pytestmark = pytest.mark.redis


class TakenOverAfterCommit(RedisStore):
    """The Redis store, except that once armed, a commit is stored, its answer lost, and another
    process takes the table's lease and writes on before the writer hears anything."""

    armed = False

    async def _run_commit(self, keys: list[str], args: list[Any]) -> Any:
        result = await super()._run_commit(keys, args)
        if not self.armed or int(result[0]) < 0:
            return result
        self.armed = False
        table_id = keys[0].split("{t:", 1)[1].split("}", 1)[0]
        await self.client.delete(table_key(table_id, "lease"))  # it lapsed meanwhile
        token = await self._take(table_id, "another-process", 30.0, fresh=True)
        assert token
        stored = await self.load(table_id)
        assert stored is not None
        await super().commit(
            table_id, stored.version, stored.state, [], lease=Lease("another-process", token)
        )
        raise CommitUncertain("storage unavailable: a move's commit was not answered (cut)")


async def test_a_commit_written_past_while_it_was_settled_is_unknown_to_its_mover(
    redis_server: RedisServer, start_server: StartServer
) -> None:
    store = TakenOverAfterCommit((await open_store(redis_server.url)).client)
    async with start_server(store=store, resolve_s=5.0) as server:
        table = await seat_table([server.ws_url])
        last = await caught_up(store, table)
        mover, action = a_move(table)
        store.armed = True
        with pytest.raises(RequestRefused) as refused:
            await mover.session.request(action.model_copy(update={"at": last}), wait_s=30)
        after = await store.load(table.table_id)
        assert after is not None
        assert after.last_event > last  # the move was stored
        assert refused.value.code == "storage_unavailable"
        assert "not known yet" in str(refused.value), refused.value
        for person in table.people:
            await person.session.close()
