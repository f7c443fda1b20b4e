"""A second private redis-server: the empty target a backup is restored into."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.redis_server import RedisServer


@pytest.fixture
def target_redis(tmp_path: Path) -> Iterator[RedisServer]:
    server = RedisServer(tmp_path / "target")
    server.directory.mkdir()
    server.start_anew()
    try:
        yield server
    finally:
        server.stop()
