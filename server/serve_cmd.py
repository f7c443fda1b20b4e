"""``cuarenta serve``: run the table server until SIGINT/SIGTERM.

Prints ``listening on http://HOST:PORT/`` as one line on stdout once the port is bound (with
``--port 0`` the port the system picked), so scripts and tests can wait for that line; then one
line per club (``--clubs``): its page and the host link that opens its results export.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import gc
import signal
import sys
import time

from server import config, logs
from server.app import TableServer
from server.store.base import StoreUnavailable


def add_arguments(parser: argparse.ArgumentParser) -> None:
    config.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    settings = config.from_args(args)
    logs.configure(settings.log_format, settings.log_level)
    try:
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(serve(settings))
    except StoreUnavailable as exc:  # e.g. Redis unreachable at start: say so and exit
        print(f"cuarenta serve: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
        # One clear line, not a traceback: the newcomer's next step is another port.
        print(f"port {settings.port} is in use: make run PORT={settings.port + 1}", file=sys.stderr)
        return 1
    return 0


async def serve(settings: config.Settings) -> None:
    """Serve until a termination signal, then close every table and connection cleanly."""
    stop = asyncio.get_running_loop().create_future()
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(signum, stop.cancel)
    offset = settings.clock_offset_s
    clock = (lambda: time.time() + offset) if offset else time.time
    async with TableServer(settings, clock=clock) as server:
        settle_garbage_collector()
        print(f"listening on {server.url}", flush=True)
        for club in settings.clubs:  # the club's page, and the host link that guards its export
            host = await server.club_host_key(club)
            print(f"club {club}: {server.url}c/{club} host link {server.url}t/{host}", flush=True)
        with contextlib.suppress(asyncio.CancelledError):
            await stop


def settle_garbage_collector() -> None:
    """Keep the collector's pauses short, for the loop must not stall (invariant 6).

    A full collection walks every live container; what exists once the server has started
    (modules, classes, settings) lives as long as the process, so it is frozen out of every
    later walk. Most of a command's garbage dies young: a larger first generation collects it
    less often, and fewer short-lived objects are promoted into the long-lived generations.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG_GENERATION, 10, 10)


YOUNG_GENERATION = 10_000
"""Allocations between young collections (CPython's default is 700)."""
