"""A move no replica holds is nobody's to see: a ``WAIT`` timeout is an unknown outcome.

With ``--store redis+sentinel://…`` a commit is acknowledged once a replica holds it (issue 32).
Here the replica is stopped (SIGSTOP) while a person moves: the primary stores the move, the
``WAIT`` after it times out, and the fence that would settle it cannot reach a replica either.
The mover hears that the outcome is not known (as past ``--resolve``), and no viewer, the mover
included, is sent the move's event while no replica holds it (invariant 3, write before send,
with the replica as the write). Once the replica runs again, the room rebuilds from the store and
everyone is sent the move, which the replica now holds.
"""

from __future__ import annotations

import signal
from collections.abc import Callable

import pytest

from bench.recording import a_move, caught_up, close_all, seat_table, wait_for
from clients.session import RequestRefused
from protocol import server_messages as s
from server.store import open_store
from server.store.redis import table_key
from tests.sentinel import SentinelServers, redis_sentinel
from tests.serving import ServerProcess

pytestmark = pytest.mark.redis
__all__ = ["redis_sentinel"]  # the fixture, used by name below


def _signal(redis_sentinel: SentinelServers, signum: signal.Signals) -> None:
    process = redis_sentinel.replica.process
    assert process is not None
    process.send_signal(signum)


async def test_a_move_no_replica_holds_is_unknown_to_its_mover_and_shown_to_nobody(
    redis_sentinel: SentinelServers, server_process: Callable[..., ServerProcess]
) -> None:
    url = redis_sentinel.url("?wait_timeout=0.3")
    server = server_process(
        "--store", url, "--store-timeout", "1", "--resolve", "1", "--commands-per-s", "10000",
    )  # fmt: skip
    table = await seat_table([server.ws_url], [server.ws_url])
    store = await open_store(url)
    try:
        last = await caught_up(store, table)
        mover, action = a_move(table)
        assert mover.session.last_event == last
        _signal(redis_sentinel, signal.SIGSTOP)
        try:
            with pytest.raises(RequestRefused) as refused:
                await mover.session.request(action.model_copy(update={"at": last}), wait_s=30)
            assert refused.value.code == "storage_unavailable"
            assert "not known yet" in str(refused.value), refused.value
            # the primary holds the move; no viewer has been sent it
            primary = await store.load(table.table_id)
            assert primary is not None
            assert primary.last_event > last
            sent = {person.name: person.session.last_event for person in table.people}
            assert sent == dict.fromkeys(sent, last), sent
        finally:
            _signal(redis_sentinel, signal.SIGCONT)
        stored = await store.load(table.table_id)
        assert stored is not None

        async def everyone_sent_the_move() -> bool:
            return all(p.session.last_event >= stored.last_event for p in table.people)

        await wait_for(everyone_sent_the_move, 20, "the rebuilt room to send the move")
        meta = table_key(table.table_id, "meta")
        on_replica = redis_sentinel.cli(redis_sentinel.replica.port, "hget", meta, "last_event")
        assert int(on_replica) >= stored.last_event
        events = [m for m in mover.session.stream if isinstance(m, s.Event) and m.n == last + 1]
        assert len(events) == 1, events
        await close_all([table])
    finally:
        await store.close()
