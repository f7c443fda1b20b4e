"""Crashes and restarts with the Redis store: nothing acknowledged is ever lost.

Servers run as real ``cuarenta serve`` subprocesses on a private redis-server and are killed
with SIGKILL; people play over real WebSockets with random legal moves. Leases are one second
so takeovers are quick; every wait is for a condition, with a timeout.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from clients.session import ClientSession
from server.store.redis import open_store
from tests.durability.players import (
    assert_record_replays_to,
    contiguous,
    play_all,
    play_until_mid_hand,
    reconnect_all,
    seat_four,
)
from tests.redis_server import RedisServer
from tests.serving import ServerProcess

pytestmark = pytest.mark.redis
LEASE_S = "2"
ROOT = Path(__file__).resolve().parents[2]


def serve_args(redis: RedisServer) -> tuple[str, ...]:
    """Test players act at machine speed: no rate limit (a fast table passes 20 commands/s)."""
    return (
        "--store",
        redis.url,
        "--lease",
        LEASE_S,
        "--claim-window",
        "0.1",
        "--commands-per-s",
        "10000",
        "--away-turn",
        "0",
        "--grace",
        "60",
    )


async def stored_last_event(redis: RedisServer, table_id: str) -> int:
    store = await open_store(redis.url)
    try:
        stored = await store.load(table_id)
        assert stored is not None
        return stored.last_event
    finally:
        await store.close()


async def assert_nothing_lost(
    redis: RedisServer, table_id: str, sessions: list[ClientSession]
) -> None:
    """Invariants 2 and 3 at a game's end: each player saw every event once, in order, and
    the newest event anyone saw is the newest stored."""
    assert all(contiguous(session) for session in sessions), [s.problems for s in sessions]
    assert await stored_last_event(redis, table_id) == max(
        session.last_event for session in sessions
    )


async def test_kill_9_mid_hand_then_restart_resumes_at_the_last_acknowledged_event_r15(
    redis_server: RedisServer,
    server_process: Callable[..., ServerProcess],
) -> None:
    first = server_process(*serve_args(redis_server))
    sessions, created = await seat_four([first.ws_url])
    await play_until_mid_hand(sessions, seed=11, events=30)
    first.kill()

    stored = await stored_last_event(redis_server, created.table)
    seen = [session.last_event for session in sessions]
    assert max(seen) <= stored, "invariant 3: whatever anyone saw was stored first"

    second = server_process(*serve_args(redis_server))
    resumed = await reconnect_all(sessions, second.ws_url)
    for session in resumed:  # each resumes after its own last event, up to the stored one
        assert session.last_event >= stored
        assert contiguous(session), session.problems
    finals = await play_all(resumed, seed=23)
    assert all(contiguous(session) for session in resumed)
    await assert_record_replays_to(resumed[0], finals)
    for session in resumed:
        await session.close()


async def test_two_processes_share_a_table_and_one_takes_over_when_the_owner_dies(
    redis_server: RedisServer,
    server_process: Callable[..., ServerProcess],
) -> None:
    """Invariant 4: players on either process; the owner is killed; the other takes over."""
    owner = server_process(*serve_args(redis_server))
    other = server_process(*serve_args(redis_server))

    sessions, _ = await seat_four([owner.ws_url, other.ws_url])  # seats 0, 2 on the owner
    finals = await play_all(sessions, seed=5)
    await assert_record_replays_to(sessions[1], finals)
    assert all(contiguous(session) for session in sessions)
    for session in sessions:
        await session.close()

    sessions, created = await seat_four([owner.ws_url, other.ws_url])
    await play_until_mid_hand(sessions, seed=7, events=30)
    owner.kill()
    # The people on the dead process reconnect to the living one; the others stay connected.
    for seat in (0, 2):
        await sessions[seat].close()
        sessions[seat] = await sessions[seat].reconnect(other.ws_url, f"seat-{seat}")
    finals = await play_all(sessions, seed=9)
    await assert_nothing_lost(redis_server, created.table, sessions)
    await assert_record_replays_to(sessions[3], finals)
    for session in sessions:
        await session.close()


async def test_sigterm_hands_tables_over_and_closes_connections_with_1001(
    redis_server: RedisServer,
    server_process: Callable[..., ServerProcess],
) -> None:
    """Graceful shutdown: commands in flight finish, tables move, clients are told to go."""
    leaving = server_process(*serve_args(redis_server))
    staying = server_process(*serve_args(redis_server))
    sessions, created = await seat_four([leaving.ws_url, staying.ws_url])
    await play_until_mid_hand(sessions, seed=13, events=20)

    assert leaving.stop() == 0  # SIGTERM
    for seat in (0, 2):
        await sessions[seat].closed.wait()
        assert sessions[seat].ws.close_code == 1001, "going away: reconnect elsewhere"
        await sessions[seat].close()
        sessions[seat] = await sessions[seat].reconnect(staying.ws_url, f"seat-{seat}")
    finals = await play_all(sessions, seed=17)
    await assert_nothing_lost(redis_server, created.table, sessions)
    await assert_record_replays_to(sessions[1], finals)
    for session in sessions:
        await session.close()


async def test_three_processes_the_owner_dies_the_other_two_agree_on_one_new_owner(
    redis_server: RedisServer,
    server_process: Callable[..., ServerProcess],
) -> None:
    """Invariant 4 with 3 processes: both survivors race for the lapsed lease, one wins, the
    other relays to it; the dead process's players rejoin on either and nobody misses a thing."""
    owner, second, third = (server_process(*serve_args(redis_server)) for _ in range(3))
    sessions, created = await seat_four([owner.ws_url, second.ws_url, third.ws_url])
    await play_until_mid_hand(sessions, seed=19, events=25)  # seats 0, 3 on the owner
    owner.kill()
    for seat, survivor in ((0, second), (3, third)):
        await sessions[seat].close()
        sessions[seat] = await sessions[seat].reconnect(survivor.ws_url, f"seat-{seat}")
    finals = await play_all(sessions, seed=21)
    await assert_nothing_lost(redis_server, created.table, sessions)
    store = await open_store(redis_server.url)
    try:
        assert await store.lease_owner(created.table) is not None, "one survivor owns it"
    finally:
        await store.close()
    await assert_record_replays_to(sessions[2], finals)
    for session in sessions:
        await session.close()


async def test_a_resume_in_flight_to_a_frozen_owner_is_seated_once_when_its_process_takes_over(
    redis_server: RedisServer,
    server_process: Callable[..., ServerProcess],
) -> None:
    """Invariant 2 across a takeover that meets a request on its way: the owner freezes
    (SIGSTOP: still subscribed, never answering), two of its players resume through the other
    process, whose forwarded resumes wait for an answer; meanwhile the lease lapses and that
    process takes the table over. Its players at the table are seated again by the takeover;
    the two on their way only by their own resume, from their own last event, once."""
    owner = server_process(*serve_args(redis_server))
    other = server_process(*serve_args(redis_server))
    sessions, created = await seat_four([owner.ws_url, other.ws_url])  # seats 0, 2 on the owner
    await play_until_mid_hand(sessions, seed=41, events=25)
    owner.freeze()
    resumed = await asyncio.gather(
        *(sessions[seat].reconnect(other.ws_url, f"seat-{seat}", wait_s=60) for seat in (0, 2))
    )
    owner.kill()  # now the old sockets close at once (a frozen peer holds a close for 10 s)
    for seat, session in zip((0, 2), resumed, strict=True):
        await sessions[seat].close()
        sessions[seat] = session
    finals = await play_all(sessions, seed=43)
    await assert_nothing_lost(redis_server, created.table, sessions)
    await assert_record_replays_to(sessions[1], finals)
    for session in sessions:
        await session.close()


FROZEN_PLAYERS = """
import asyncio, sys
from tests.durability.players import play_until_mid_hand, seat_four
async def main() -> None:
    sessions, _ = await seat_four(sys.argv[1:])
    await play_until_mid_hand(sessions, seed=29, events=20)
    print("mid-hand", flush=True)
    await asyncio.Event().wait()
asyncio.run(main())
"""


def test_sigterm_ends_promptly_with_relayed_players_that_stopped_answering(
    redis_server: RedisServer,
    server_process: Callable[..., ServerProcess],
) -> None:
    """A graceful shutdown is bounded even when its clients (frozen: SIGSTOP) never finish the
    close handshake and their table is owned by another process (their detach is forwarded)."""
    owner = server_process(*serve_args(redis_server))
    leaving = server_process(*serve_args(redis_server))
    players = subprocess.Popen(
        [sys.executable, "-c", FROZEN_PLAYERS, owner.ws_url, leaving.ws_url],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert players.stdout is not None
        line = players.stdout.readline()  # blocks until the players are mid-hand
        assert line.strip() == "mid-hand"
        players.send_signal(signal.SIGSTOP)
        started = time.monotonic()
        assert leaving.stop() == 0  # SIGTERM
        assert time.monotonic() - started < 15, "the shutdown waits are bounded (5 s each)"
    finally:
        players.kill()
        players.wait()
        if players.stdout is not None:
            players.stdout.close()
