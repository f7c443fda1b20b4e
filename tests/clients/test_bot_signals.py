"""`cuarenta bot --tables K` stops at Ctrl-C: at once, with exit status 130, also while its bots
are reconnecting to a server that died (they keep trying until then: a dead server is no
reason for a seated bot to give its seat up)."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable

import pytest

from tests.serving import ServerProcess

STOP_S = 10.0  # a stopped fleet closes its sockets and exits well within this
READY_S = 60.0
GIVE_UP_S = 3.0  # a bot that gave up on a dead server would have exited by then


def gauge(server: ServerProcess, name: str) -> int:
    with urllib.request.urlopen(server.url + "metrics", timeout=5) as answer:
        text = answer.read().decode()
    found = re.search(rf"^{name} (\S+)$", text, re.MULTILINE)
    return int(float(found.group(1))) if found else 0


def wait_for_a_game_in_play(server: ServerProcess) -> None:
    """Poll the server's gauge until the bots' game has started (bounded).

    A started game means every bot's seat request was answered (the host starts only once all
    four sat down): a server killed earlier would catch a bot mid-way through sitting down,
    which has no seat to keep trying for.
    """
    deadline = time.monotonic() + READY_S
    while gauge(server, "cuarenta_games_in_progress") < 1:
        assert time.monotonic() < deadline, "the bots never started their game"
        time.sleep(0.05)  # polling a gauge: the bot process says nothing until it ends


def fleet(server: ServerProcess) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "server.cli", "bot", server.url, "--tables", "1", "--pace", "0.1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def interrupted(bots: subprocess.Popen[str]) -> tuple[int, str]:
    bots.send_signal(signal.SIGINT)
    try:
        _, err = bots.communicate(timeout=STOP_S)
    except subprocess.TimeoutExpired:
        bots.kill()
        bots.communicate()
        raise AssertionError(f"the bots ignored SIGINT for {STOP_S} s") from None
    return bots.returncode, err


def test_ctrl_c_stops_a_playing_fleet_with_status_130(
    server_process: Callable[..., ServerProcess],
) -> None:
    server = server_process()
    bots = fleet(server)
    wait_for_a_game_in_play(server)
    code, err = interrupted(bots)
    assert code == 130, err
    assert "stopped (SIGINT)" in err
    assert "Traceback" not in err


def test_a_fleet_whose_server_died_keeps_trying_and_still_stops_at_ctrl_c(
    server_process: Callable[..., ServerProcess],
) -> None:
    server = server_process()
    bots = fleet(server)
    wait_for_a_game_in_play(server)
    server.kill()  # kill -9: every bot's connection drops, mid-request for some
    try:
        bots.wait(timeout=GIVE_UP_S)
    except subprocess.TimeoutExpired:
        pass  # still trying: it does not give its seat up
    else:
        _, err = bots.communicate()
        pytest.fail(f"the fleet gave up on a dead server (status {bots.returncode}): {err}")
    code, err = interrupted(bots)
    assert code == 130, err
    assert "Traceback" not in err
