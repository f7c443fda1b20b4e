"""The ground every other test stands on: the private Redis and the `cuarenta` command."""

from __future__ import annotations

import subprocess
import sys

import redis

from tests.redis_server import RedisServer


def test_private_redis_keeps_data_across_a_crash_through_its_append_only_file(
    redis_server: RedisServer,
) -> None:
    assert redis_server.port != 6379, "tests must never use the machine's shared Redis"
    client = redis.Redis.from_url(redis_server.url)
    client.set("table:{abc}:version", 7)
    client.close()

    redis_server.kill()
    redis_server.start()

    client = redis.Redis.from_url(redis_server.url)
    assert client.get("table:{abc}:version") == b"7"
    client.close()


def test_cuarenta_help_lists_every_subcommand() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "server.cli", "--help"], capture_output=True, text=True, check=True
    )
    for command in ("serve", "replay", "play", "watch", "new", "bot", "tournament", "bench"):
        assert f"  {command} " in result.stdout


def test_unknown_cuarenta_command_exits_2_naming_it() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "server.cli", "dance"], capture_output=True, text=True
    )
    assert result.returncode == 2
    assert "unknown command 'dance'" in result.stderr
