"""A server killed with SIGKILL takes its bot and review workers with it (Linux).

A worker of a process pool waits on its queue for the next task; when its server is killed it
would wait for ever, each one a whole Python holding its memory. Run as a real process tree.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="PR_SET_PDEATHSIG is Linux's")

SERVER = textwrap.dedent(
    """
    import asyncio, os, sys
    from engine.game import Game
    from engine.views import view_of
    from server.bots import BotRunner

    async def main() -> None:
        runner = BotRunner(workers=2)
        game = Game.new("pagat-4p", {}, 7)
        seat = game.to_act()[0]
        view, legal = view_of(game, seat), tuple(game.legal_actions(seat))
        await runner.decide(4, view, legal, 1)  # the bots' pool is up
        try:  # the review worker is up once it has refused a record that is none
            await runner.review(b'{"format": "not a record"}')
        except Exception:
            pass
        assert runner._reviews is not None
        workers = [*runner._started()._processes, *runner._reviews._processes]
        print(" ".join(map(str, workers)), flush=True)
        await asyncio.sleep(3600)  # killed by the test

    asyncio.run(main())
    """
)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def test_the_workers_end_when_their_server_is_killed() -> None:
    workers: list[int] = []
    with subprocess.Popen(
        [sys.executable, "-c", SERVER], stdout=subprocess.PIPE, text=True, start_new_session=True
    ) as server:
        try:
            assert server.stdout is not None
            workers += [int(pid) for pid in server.stdout.readline().split()]
            assert len(workers) >= 2  # one of each pool at least
            assert all(_alive(pid) for pid in workers)
            server.send_signal(signal.SIGKILL)
            server.wait(timeout=10)
            deadline = time.monotonic() + 15
            while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
                time.sleep(0.05)  # a bounded poll: the kernel signals them as the server dies
            assert not [pid for pid in workers if _alive(pid)]
        finally:
            for pid in workers:
                if _alive(pid):
                    os.kill(pid, signal.SIGKILL)
            if server.poll() is None:
                server.kill()
