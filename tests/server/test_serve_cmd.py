"""``cuarenta serve``: flags and CUARENTA_* variables, the listening line, a clean SIGTERM."""

from __future__ import annotations

import argparse
import socket
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from clients.session import ClientSession
from protocol import client_messages as c
from protocol import server_messages as s
from server import config
from tests.serving import ServerProcess


def test_flags_override_environment_which_overrides_defaults() -> None:
    parser = argparse.ArgumentParser()
    config.add_arguments(
        parser,
        env={
            "CUARENTA_GRACE": "5",
            "CUARENTA_PORT": "9000",
            "CUARENTA_CLUBS": "la-esquina-del-40,otro-club-xx",
        },
    )
    settings = config.from_args(parser.parse_args(["--port", "0", "--claim-window", "2.5"]))
    assert (settings.port, settings.grace_s, settings.claim_window_s) == (0, 5.0, 2.5)
    assert settings.clubs == ("la-esquina-del-40", "otro-club-xx")
    assert settings.store == "memory"
    assert isinstance(settings.web_root, Path)


def test_a_review_searched_on_no_deals_is_refused_in_one_line() -> None:
    parser = argparse.ArgumentParser()
    config.add_arguments(parser, env={})
    assert config.from_args(parser.parse_args([])).review_samples == 8
    assert config.from_args(parser.parse_args(["--review-samples", "2"])).review_samples == 2
    refused = "cuarenta serve: --review-samples must be 1 or more, not 0"
    with pytest.raises(SystemExit, match=refused):
        config.from_args(parser.parse_args(["--review-samples", "0"]))


async def test_serve_prints_its_address_serves_a_game_and_stops_cleanly(
    server_process: Callable[..., ServerProcess],
) -> None:
    process = server_process("--claim-window", "0.1", env={"CUARENTA_GRACE": "1"})
    assert process.url.startswith("http://127.0.0.1:")
    async with await ClientSession.connect(process.ws_url, "Ana") as ana:
        created = await ana.request(c.CreateTable())
        assert isinstance(created, s.TableCreated)
        assert len(created.join_key) >= 16, "at least 96 random bits"
        assert len({created.join_key, created.watch_key, created.host_key}) == 3
    assert process.stop() == 0


def test_a_busy_port_is_one_clear_line_not_a_traceback() -> None:
    """A newcomer whose port is taken reads what to do next."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "server.cli",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--log-level",
                "warning",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert done.returncode == 1
    assert done.stderr.strip() == f"port {port} is in use: make run PORT={port + 1}"
    assert "Traceback" not in done.stderr
