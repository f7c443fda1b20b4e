"""What ``cuarenta restore`` and a server opening a store refuse, writing nothing: a backup of a
newer version or data format, a file cut short, a target that already holds a club, a memory
store; and a store whose data format is newer than the server knows."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from redis import Redis

from server.app import TableServer
from server.cli import main
from server.store import formats
from server.store.formats import FORMAT_KEY, Entry, StoreFormatTooNew, header, write_backup
from tests.redis_server import RedisServer
from tests.serving import TEST_SETTINGS

pytestmark = pytest.mark.redis
ROOT = Path(__file__).resolve().parents[3]


def contents(url: str) -> dict[bytes, bytes]:
    """Every string key of the Redis at ``url`` and its value."""
    with Redis.from_url(url) as client:
        return {name: client.get(name) for name in client.scan_iter()}


def one_key_backup(path: Path, **overrides: object) -> Path:
    """A backup holding one string key (dumped by a real Redis), its header changed."""
    with Redis.from_url(path.parent.joinpath("url").read_text()) as client:
        client.set("cuarenta:ladder:run:x", b"saved")
        payload = client.dump("cuarenta:ladder:run:x")
        client.delete("cuarenta:ladder:run:x")
    assert isinstance(payload, bytes)
    entries = [Entry(b"cuarenta:ladder:run:x", -1, payload)]
    write_backup(path, {**header(1, 1, "7"), **overrides}, entries)
    return path


@pytest.fixture
def scratch(redis_server: RedisServer, tmp_path: Path) -> Path:
    """A folder whose ``url`` file names a scratch Redis (to dump a key with)."""
    (tmp_path / "url").write_text(redis_server.url)
    return tmp_path


def restore(path: Path, url: str, *more: str) -> int:
    return main(["restore", str(path), "--store", url, *more])


@pytest.mark.parametrize(
    ("overrides", "said"),
    [
        ({"version": 2}, "backup version 2 is newer than this cuarenta reads (1)"),
        ({"data_format": 2}, "the backup holds data format 2, newer than this cuarenta's 1"),
        ({"keys": 5}, "holds 1 of the 5 keys its header counts"),
        ({"format": "something-else"}, "not a cuarenta backup"),
    ],
)
def test_a_backup_this_cuarenta_cannot_read_whole_is_refused_and_nothing_is_written(
    scratch: Path,
    target_redis: RedisServer,
    capsys: pytest.CaptureFixture[str],
    overrides: dict[str, object],
    said: str,
) -> None:
    path = one_key_backup(scratch / "club.backup", **overrides)
    assert restore(path, target_redis.url) == 1
    assert said in capsys.readouterr().err
    assert contents(target_redis.url) == {}
    assert restore(one_key_backup(scratch / "good.backup"), target_redis.url) == 0  # the same key
    assert contents(target_redis.url) == {b"cuarenta:ladder:run:x": b"saved"}


def test_a_target_holding_a_club_is_refused_unless_forced(
    scratch: Path, target_redis: RedisServer, capsys: pytest.CaptureFixture[str]
) -> None:
    path = one_key_backup(scratch / "club.backup")
    with Redis.from_url(target_redis.url) as client:
        client.set("cuarenta:ladder:run:x", b"theirs")
        client.set("cuarenta:playerkey:abc", b"someone")
    assert restore(path, target_redis.url) == 1
    assert "already holds 2 cuarenta key(s)" in capsys.readouterr().err
    assert contents(target_redis.url)[b"cuarenta:ladder:run:x"] == b"theirs"
    assert restore(path, target_redis.url, "--force") == 0
    assert contents(target_redis.url) == {
        b"cuarenta:ladder:run:x": b"saved",
        b"cuarenta:playerkey:abc": b"someone",  # --force overwrites; it deletes nothing
    }


def test_a_target_a_server_has_only_opened_is_empty(
    scratch: Path, target_redis: RedisServer
) -> None:
    with Redis.from_url(target_redis.url) as client:
        client.set(FORMAT_KEY, b"1")
    assert restore(one_key_backup(scratch / "club.backup"), target_redis.url) == 0
    assert contents(target_redis.url)[b"cuarenta:ladder:run:x"] == b"saved"


def test_the_memory_store_has_nothing_to_back_up(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["backup", str(tmp_path / "x"), "--store", "memory"]) == 1
    assert "the memory store keeps nothing outside its process" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


async def test_a_server_writes_the_data_format_into_an_empty_store(
    redis_server: RedisServer,
) -> None:
    server = TableServer(replace(TEST_SETTINGS, store=redis_server.url))
    await server.start()
    await server.close()
    assert contents(redis_server.url).get(FORMAT_KEY.encode()) == str(formats.DATA_FORMAT).encode()


async def test_a_server_refuses_a_store_of_a_newer_data_format_and_writes_nothing(
    redis_server: RedisServer,
) -> None:
    newer = str(formats.DATA_FORMAT + 1).encode()
    with Redis.from_url(redis_server.url) as client:
        client.set(FORMAT_KEY, newer)
    server = TableServer(replace(TEST_SETTINGS, store=redis_server.url, clubs=("quito",)))
    with pytest.raises(StoreFormatTooNew, match="newer than this server's"):
        await server.start()
    assert contents(redis_server.url) == {FORMAT_KEY.encode(): newer}


def test_cuarenta_serve_on_a_newer_store_says_so_in_one_line(redis_server: RedisServer) -> None:
    with Redis.from_url(redis_server.url) as client:
        client.set(FORMAT_KEY, b"99")
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "serve", "--port", "0", "--store", redis_server.url],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 1
    assert "data format 99, newer than this server's 1" in done.stderr
    assert contents(redis_server.url) == {FORMAT_KEY.encode(): b"99"}
