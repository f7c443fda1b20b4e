"""The fault suite: a stalled or lost Redis never splits a table, never hides a move,
and a stopping process hands over at once.

Each test plays tables through one fault with clients that record every message they receive
(``bench.recording``) and asserts, per connection: no gap, no duplicate, no view going
backwards, every refused move absent from the stored log and every acknowledged one present, and
what every viewer was sent equal to the stored log. Redis is the test's own redis-server
(stalled with SIGSTOP/SIGCONT, or killed and restarted from its append-only file); servers run
in this process or as ``cuarenta serve`` subprocesses. Leases and command timeouts are short so
each fault passes in seconds; every wait polls a condition against a deadline.
"""

from __future__ import annotations

import asyncio
import signal
import time
from collections.abc import Callable

import pytest

from bench.log_audit import check_table
from bench.recording import Table, close_all, play_table, seat_table, wait_for
from clients.session import ClientSession
from server.store.base import Lease, LeaseLost, Store, StoreUnavailable, VersionConflict
from server.store.memory import MemoryStore
from server.store.redis import RedisStore, open_store
from tests.redis_server import RedisServer
from tests.server.players import watched_bot_table
from tests.serving import ServerProcess, StartServer

pytestmark = pytest.mark.redis


def stall(redis: RedisServer) -> None:
    assert redis.process is not None
    redis.process.send_signal(signal.SIGSTOP)


def resume(redis: RedisServer) -> None:
    assert redis.process is not None
    redis.process.send_signal(signal.SIGCONT)


async def stored_last(store: Store, table_id: str, within_s: float = 30.0) -> int:
    """The table's last stored event, read again while the store times out: the test's own
    reads share the server's short command timeout, and a Redis just resumed on a loaded
    machine may take longer than it to answer (that is the fault, not what is checked)."""
    deadline = time.monotonic() + within_s
    while True:
        try:
            stored = await store.load(table_id)
            break
        except StoreUnavailable:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)  # a retry period while the store is away
    assert stored is not None
    return stored.last_event


async def play_through(
    tables: list[Table], fault: Callable[[], object], seed: int, timeout_s: float = 120
) -> None:
    """Everyone plays; ``fault`` (a coroutine function) runs meanwhile; the games go on to
    their end after it."""
    halt = asyncio.Event()
    games = [
        asyncio.create_task(play_table(table, seed + 100 * i, halt))
        for i, table in enumerate(tables)
    ]
    try:
        await fault()  # type: ignore[misc]
        try:
            async with asyncio.timeout(timeout_s):
                await asyncio.gather(*games)
        except TimeoutError:
            raise AssertionError(f"the games did not end: {describe(tables)}") from None
    finally:
        halt.set()
        await asyncio.gather(*games, return_exceptions=True)


async def under_way(store: Store, tables: list[Table], since: list[int] | None = None) -> None:
    """Wait until every table is 20 events past ``since`` (or its game is over: a dealt
    cuarenta can end one at once), so that the fault meets play in full swing."""
    before = since or [0] * len(tables)

    async def moving() -> bool:
        for table, start in zip(tables, before, strict=True):
            snap = table.players[0].session.snapshot
            over = snap is not None and snap.info.stage == "finished"
            if not over and await stored_last(store, table.table_id) <= start + 20:
                return False
        return True

    try:
        await wait_for(moving, 60, "play to be under way")
    except AssertionError as exc:
        raise AssertionError(f"{exc}: {describe(tables)}") from None


def describe(tables: list[Table]) -> str:
    """Where each connection stands (for a game that did not end)."""
    lines = []
    for table in tables:
        for person in table.people:
            session, snap = person.session, person.session.snapshot
            view = snap.view if snap is not None else None
            lines.append(
                f"{table.table_id} {person.name} ({session.connection_id}):"
                f" at {session.last_event}, closed {session.closed.is_set()},"
                f" stage {snap.info.stage if snap else None}, turn"
                f" {view.turn if view else None}, legal {len(snap.legal) if snap else 0},"
                f" last move {person.moves[-1] if person.moves else None}"
            )
    return "\n".join(lines)


# ---------------------------------------------------------------------- the store's own fence
@pytest.fixture(params=["memory", "redis"])
async def any_store(request: pytest.FixtureRequest, redis_server: RedisServer) -> Store:
    if request.param == "memory":
        return MemoryStore()
    return await open_store(redis_server.url)


async def test_a_commit_from_a_process_whose_lease_was_taken_is_refused_by_the_store(
    any_store: Store,
) -> None:
    """Invariant 9 in the store itself: the lease check is in the commit's atomic step."""
    store = any_store
    try:
        await store.create_table("t1", b"s0", {})
        first = await store.acquire_lease("t1", "proc-a", 0.2)
        assert first >= 1
        assert await store.acquire_lease("t1", "proc-a", 0.2) == first, "a renewal keeps it"
        await store.commit("t1", 0, b"s1", [b"e1"], lease=Lease("proc-a", first))

        async def lapsed() -> bool:
            return bool(await store.acquire_lease("t1", "proc-b", 30))

        await wait_for(lapsed, 5, "proc-a's lease to lapse and proc-b to take it")
        second = await store.acquire_lease("t1", "proc-b", 30)
        assert second > first, "a takeover's token is larger"
        with pytest.raises(LeaseLost):  # the old owner, at the right version: still refused
            await store.commit("t1", 1, b"stale", [b"stale"], lease=Lease("proc-a", first))
        with pytest.raises(LeaseLost):  # the old token of a process holding a new one
            await store.commit("t1", 1, b"stale", [b"stale"], lease=Lease("proc-b", first))
        stored = await store.load("t1")
        assert stored is not None
        assert (stored.version, stored.last_event) == (1, 1)
        assert [event.data for event in await store.events_after("t1", 0)] == [b"e1"]
        await store.commit("t1", 1, b"s2", [b"e2"], lease=Lease("proc-b", second), commit_id="c2")
        stored = await store.load("t1")
        assert stored is not None
        assert (stored.version, stored.commit_id) == (2, "c2")
        # ``fence``: the holder takes a new token; a commit with its previous one is refused
        third = await store.fence("t1", "proc-b", 30)
        assert third > second
        with pytest.raises(LeaseLost):
            await store.commit("t1", 2, b"s3", [b"e3"], lease=Lease("proc-b", second))
        with pytest.raises(VersionConflict):  # the lease is right, the version is not
            await store.commit("t1", 1, b"s3", [b"e3"], lease=Lease("proc-b", third))
        assert not await store.fence("t1", "proc-a", 30), "another owner holds it"
        await store.release_leases(["t1"], "proc-b")
        with pytest.raises(LeaseLost):  # released: nobody's commit passes until it is taken
            await store.commit("t1", 2, b"s3", [b"e3"], lease=Lease("proc-b", third))
        assert await store.acquire_lease("t1", "proc-a", 30) > third
    finally:
        await store.close()


# ---------------------------------------------------------------------- Redis stalled
async def test_redis_stalled_past_the_command_timeout_hides_no_move_and_splits_no_view(
    redis_server: RedisServer, start_server: StartServer
) -> None:
    """Fault 1: SIGSTOP past the command timeout, twice (shorter and longer than the lease).

    The commit in flight times out; Redis later runs the queued script (or refuses it: the
    lease lapsed, or the room's fence came first). Either way the mover hears the truth only
    once it is settled, and every viewer goes on from the last event it was sent.
    """
    store = await open_store(redis_server.url, timeout_s=0.5)  # the command timeout
    settings = {"claim_window_s": 0.1, "lease_s": 3.0, "resolve_s": 20}
    try:
        async with start_server(store=store, **settings) as server:
            urls = [server.ws_url]
            tables = [await seat_table(urls, urls) for _ in range(3)]

            async def fault() -> None:
                for stalled_s in (2.0, 4.0):  # inside the lease, then past it
                    before = [await stored_last(store, table.table_id) for table in tables]
                    await under_way(store, tables, before)
                    stall(redis_server)
                    try:
                        await asyncio.sleep(stalled_s)  # the fault's length, not a sync
                    finally:
                        resume(redis_server)

            await play_through(tables, fault, seed=51)
            counts = [await check_table(store, table) for table in tables]
            await close_all(tables)
    finally:
        resume(redis_server)
        await store.close()
    print("stall counts", counts)
    assert sum(count["acked"] for count in counts) > 0, counts


# ---------------------------------------------------------------------- two processes
def serve_args(redis: RedisServer, *more: str) -> tuple[str, ...]:
    return (
        "--store",
        redis.url,
        "--lease",
        "2",
        "--store-timeout",
        "0.5",
        "--resolve",  # longer than the outage: every unanswered commit is settled
        "10",
        "--claim-window",
        "0.1",
        "--commands-per-s",
        "10000",
        "--away-turn",  # no stand-in plays for a person during a handover: every move is theirs
        "30",
        "--grace",
        "60",
        "--log-level",
        "warning",
        *more,
    )


async def test_redis_down_longer_than_the_lease_with_two_processes(
    redis_server: RedisServer, server_process: Callable[..., ServerProcess]
) -> None:
    """Fault 2: Redis killed for twice the lease and restarted from its append-only file.

    Both processes lose it; when it returns the peer may take lapsed tables over while their
    owner still has them loaded. The fence refuses the old owner's commits; it hands its
    connections (players and relayed spectators) to the new owner, each resumed by events.
    """
    one = server_process(*serve_args(redis_server))
    two = server_process(*serve_args(redis_server))
    urls = [one.ws_url, two.ws_url]
    tables = [
        await seat_table(urls, [one.ws_url, two.ws_url]),
        await seat_table(urls[::-1], [two.ws_url, one.ws_url]),
    ]
    store = await open_store(redis_server.url)

    async def fault() -> None:
        await under_way(store, tables)
        redis_server.kill()
        await asyncio.sleep(4.0)  # the outage lasts twice the lease: the fault, not a sync
        redis_server.start()

    try:
        await play_through(tables, fault, seed=61, timeout_s=60)
        for table in tables:
            await check_table(store, table)
        await close_all(tables)
    finally:
        await store.close()


async def test_kill_9_of_the_owner_loses_nothing_and_repeats_nothing(
    redis_server: RedisServer, server_process: Callable[..., ServerProcess]
) -> None:
    """Fault 3: the owner of the tables is killed; its people reconnect to the other process
    (resuming after their own last event); the other process's people and relayed spectators
    stay, and are resumed by the takeover from the last event each was sent."""
    owner = server_process(*serve_args(redis_server))
    other = server_process(*serve_args(redis_server))
    tables = [await seat_table([owner.ws_url, other.ws_url], [other.ws_url]) for _ in range(2)]
    store = await open_store(redis_server.url)

    async def fault() -> None:
        await under_way(store, tables)
        owner.kill()
        for table in tables:
            for person in table.people:
                if person.session.closed.is_set() or person.seat in (0, 2):
                    await person.session.closed.wait()
                    if person.seat is None:
                        await person.rewatch(other.ws_url, table.keys.watch_key)
                    else:
                        await person.reconnect(other.ws_url)

    try:
        await play_through(tables, fault, seed=71)
        for table in tables:
            await check_table(store, table)
        await close_all(tables)
    finally:
        await store.close()


async def test_sigterm_with_busy_tables_hands_every_table_over_at_once(
    redis_server: RedisServer, server_process: Callable[..., ServerProcess]
) -> None:
    """Fault 4: SIGTERM of the owner mid-game: it stops writing, releases every lease, closes
    its connections with 1001; they reconnect to the other process, which took over at once."""
    leaving = server_process(*serve_args(redis_server))
    staying = server_process(*serve_args(redis_server))
    tables = [
        await seat_table([leaving.ws_url, staying.ws_url], [staying.ws_url]) for _ in range(2)
    ]
    store = await open_store(redis_server.url)

    async def fault() -> None:
        await under_way(store, tables)
        assert leaving.stop() == 0  # SIGTERM, and the process has exited
        for table in tables:
            for person in table.people:
                if person.seat in (0, 2):
                    await person.session.closed.wait()
                    assert person.session.ws.close_code == 1001
                    await person.reconnect(staying.ws_url)

    try:
        await play_through(tables, fault, seed=81)
        for table in tables:
            await check_table(store, table)
        await close_all(tables)
    finally:
        await store.close()


# ---------------------------------------------------------------------- a prompt stop
STOP_BOUND_S = 3.0
"""Well inside the 10 s a container stop grants before SIGKILL, with room for a machine whose two
cores the suite itself keeps busy (1.78 s was seen under load 15; about 0.3 s when quiet)."""


async def test_sigterm_with_100_busy_tables_exits_and_releases_every_lease_within_the_bound(
    redis_server: RedisServer, server_process: Callable[..., ServerProcess]
) -> None:
    """100 all-bot tables playing at machine speed; SIGTERM; the process has exited and every
    lease is released (not lapsed: the lease is 30 s) within ``STOP_BOUND_S``."""
    redis = redis_server
    server = server_process(
        "--store", redis.url, "--lease", "30", "--claim-window", "0.1", "--log-level", "warning"
    )
    store = await open_store(redis.url)
    try:

        async def create(count: int) -> list[str]:
            ids = []
            async with await ClientSession.connect(server.ws_url, "Referee") as host:
                for _ in range(count):
                    ids.append((await watched_bot_table(host)).table)
            return ids

        ids = [
            table_id
            for part in await asyncio.gather(*(create(10) for _ in range(10)))
            for table_id in part
        ]
        assert len(ids) == 100

        async def busy() -> bool:  # most tables moved since they started
            return sum([await stored_last(store, t) > 10 for t in ids]) >= 90

        await wait_for(busy, 60, "the tables to be playing")
        assert server.process is not None
        process = server.process
        started = time.monotonic()
        process.terminate()
        while process.poll() is None:
            assert time.monotonic() - started < 20, "the server did not exit"
            await asyncio.sleep(0.01)  # polling the process's exit, timed
        exited = time.monotonic() - started
        assert process.returncode == 0
        assert isinstance(store, RedisStore)
        holders = [await store.lease_owner(table_id) for table_id in ids]
        assert holders == [None] * 100, "every lease was released, none left to lapse"
        assert exited < STOP_BOUND_S, f"SIGTERM to exit took {exited:.2f} s"
        print(f"SIGTERM with 100 busy tables: exited, every lease released, in {exited:.2f} s")
    finally:
        await store.close()
