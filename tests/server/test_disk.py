"""A laptop's disk nearly full: ``/readyz`` says so before Redis stops writing (issue 43).

Low (below 5 % or 1 GiB, whichever is larger): still 200, with ``disk: low`` and the free bytes.
Full (below 1 % or 200 MiB): 503, so a proxy sends new tables elsewhere. A Redis that refuses writes
after a failed save: 503 ``store: not writing``. ``/healthz`` (liveness) stays 200 throughout. The
disk is a stand-in reading (``DiskProbe``) on a fake clock: no disk is filled.
"""

from __future__ import annotations

import asyncio
import shutil
import threading
from pathlib import Path

import pytest

from server.disk import GIB, MIB, DiskLimits, DiskProbe, Usage, refuses_writes
from server.store.redis import open_store
from tests.durability.test_redis_store import until
from tests.redis_server import RedisServer
from tests.server.test_edge_http import get_line, raw_request
from tests.serving import StartServer

TOTAL = 500 * GIB  # a laptop's disk: 5 % is 25 GiB, 1 % is 5 GiB


class FakeDisk:
    """A disk whose free space the test sets, read on a clock the test moves."""

    def __init__(self, free: int) -> None:
        self.free = free
        self.now = 0.0
        self.folders: list[str] = []

    def reading(self, folder: str) -> Usage:
        self.folders.append(folder)
        return Usage(TOTAL, self.free)

    def probe(self) -> DiskProbe:
        return DiskProbe(self.reading, keep_s=5.0, clock=lambda: self.now)


async def ready(port: int) -> tuple[int, list[str]]:
    status, _, body = await raw_request(port, get_line(b"/readyz"))
    return status, body.decode().splitlines()


def test_low_and_full_are_the_larger_of_a_share_and_a_size() -> None:
    limits = DiskLimits()
    assert limits.state(TOTAL, 30 * GIB) == "ok"
    assert limits.state(TOTAL, 20 * GIB) == "low"  # below 5 % although far above 1 GiB
    assert limits.state(TOTAL, 4 * GIB) == "full"  # below 1 %
    small = 10 * GIB  # 5 % is 512 MiB, 1 % about 102 MiB: the sizes are larger
    assert limits.state(small, 2 * GIB) == "ok"
    assert limits.state(small, 900 * MIB) == "low"
    assert limits.state(small, 150 * MIB) == "full"


def test_redis_refuses_writes_as_redis_7_decides() -> None:
    aof = {"aof_enabled": "1", "aof_last_write_status": "err"}
    assert refuses_writes(aof) == (False, "aof_last_write_status:err")
    assert refuses_writes({**aof, "aof_enabled": "0"}) == (True, "")
    rdb = {"rdb_last_bgsave_status": "err", "save": "3600 1", "stop-writes-on-bgsave-error": "yes"}
    assert refuses_writes(rdb) == (False, "rdb_last_bgsave_status:err")
    assert refuses_writes({**rdb, "save": ""}) == (True, "")  # no save points: writes go on
    assert refuses_writes({**rdb, "stop-writes-on-bgsave-error": "no"}) == (True, "")


async def test_readyz_says_low_while_serving_and_503_when_full(
    start_server: StartServer, tmp_path: Path
) -> None:
    disk = FakeDisk(free=100 * GIB)
    async with start_server(disk=disk.probe(), disk_dir=str(tmp_path)) as server:
        port = server.port
        assert await ready(port) == (200, ["ready"])
        assert disk.folders == [str(tmp_path)]

        disk.free = 10 * GIB
        assert await ready(port) == (200, ["ready"])  # the reading is kept a few seconds
        disk.now += 5.0
        assert await ready(port) == (200, ["ready", "disk: low", f"disk_free_bytes: {10 * GIB}"])

        disk.free = 3 * GIB
        disk.now += 5.0
        full = ["not ready: writes would fail", "disk: full", f"disk_free_bytes: {3 * GIB}"]
        assert await ready(port) == (503, full)
        assert (await raw_request(port, get_line(b"/healthz")))[0] == 200  # alive all the same
        assert len(disk.folders) == 3  # one reading each time it was due, no more

        disk.free = 40 * GIB  # space freed: ready again
        disk.now += 5.0
        assert await ready(port) == (200, ["ready"])


async def test_readyz_without_a_folder_or_a_readable_disk_is_ready(
    start_server: StartServer, tmp_path: Path
) -> None:
    def broken(folder: str) -> Usage:
        raise FileNotFoundError(folder)

    async with start_server(disk=DiskProbe(broken, keep_s=0.0), disk_dir=str(tmp_path)) as server:
        assert await ready(server.port) == (200, ["ready"])
    async with start_server() as server:  # the memory store names no folder
        assert await ready(server.port) == (200, ["ready"])


@pytest.mark.redis
async def test_redis_folder_is_watched_and_a_failed_save_is_503_not_writing(
    start_server: StartServer, tmp_path: Path
) -> None:
    folder = tmp_path / "redis"
    folder.mkdir()
    redis = RedisServer(folder, extra_args=["--save", "3600 1"])  # save points: a failed save
    redis.start_anew()  # stops writes (stop-writes-on-bgsave-error, Redis's default)
    disk = FakeDisk(free=10 * GIB)
    try:
        store = await open_store(redis.url)
        async with start_server(store=store, disk=disk.probe()) as server:
            assert await ready(server.port) == (
                200,
                ["ready", "disk: low", f"disk_free_bytes: {10 * GIB}"],
            )
            assert disk.folders == [str(folder)]  # Redis's own folder (CONFIG GET dir)

            shutil.rmtree(folder)  # its folder gone (as a disk that fails): the next save fails
            await store.client.bgsave()

            async def refused() -> bool:
                disk.now += 5.0
                return (await ready(server.port))[1][-1].startswith("store: not writing")

            await until(refused, 10.0)  # the save runs in Redis's child process: no event
            assert await ready(server.port) == (
                503,
                [
                    "not ready: writes would fail",
                    "disk: low",
                    f"disk_free_bytes: {10 * GIB}",
                    "store: not writing (rdb_last_bgsave_status:err)",
                ],
            )
            with pytest.raises(Exception, match="MISCONF"):  # and Redis does refuse writes
                await store.client.set("cuarenta:probe", "1")
            assert (await raw_request(server.port, get_line(b"/healthz")))[0] == 200
    finally:
        redis.kill()


async def test_the_disk_is_read_off_the_event_loop(
    start_server: StartServer, tmp_path: Path
) -> None:
    """A slow disk (a spun-down drive, a stuck network mount) holds up /readyz, nothing else."""
    disk = FakeDisk(free=100 * GIB)
    reading, let_go = threading.Event(), threading.Event()

    def slow(folder: str) -> Usage:
        reading.set()
        let_go.wait(timeout=10.0)
        return disk.reading(folder)

    async with start_server(disk=DiskProbe(slow, keep_s=0.0), disk_dir=str(tmp_path)) as server:
        asked = asyncio.create_task(ready(server.port))
        await asyncio.to_thread(reading.wait, 10.0)
        assert (await raw_request(server.port, get_line(b"/healthz")))[0] == 200  # meanwhile
        assert not asked.done()
        let_go.set()
        assert await asked == (200, ["ready"])


@pytest.mark.redis
async def test_a_redis_that_refuses_config_leaves_the_disk_unknown_and_serves(
    start_server: StartServer, tmp_path: Path
) -> None:
    folder = tmp_path / "redis"
    folder.mkdir()
    redis = RedisServer(folder, extra_args=["--rename-command", "CONFIG", ""])
    redis.start_anew()
    disk = FakeDisk(free=1 * MIB)  # would be full, if the folder were known
    try:
        store = await open_store(redis.url)
        async with start_server(store=store, disk=disk.probe()) as server:
            assert await ready(server.port) == (200, ["ready"])
            assert disk.folders == []  # no folder to read
    finally:
        redis.kill()
