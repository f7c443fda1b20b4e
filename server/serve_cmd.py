"""``cuarenta serve``: run the table server until SIGINT/SIGTERM.

Prints ``listening on http://HOST:PORT/`` as one line on stdout once the port is bound (with
``--port 0`` the port the system picked), so scripts and tests can wait for that line.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys

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
    return 0


async def serve(settings: config.Settings) -> None:
    """Serve until a termination signal, then close every table and connection cleanly."""
    stop = asyncio.get_running_loop().create_future()
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(signum, stop.cancel)
    async with TableServer(settings) as server:
        print(f"listening on {server.url}", flush=True)
        with contextlib.suppress(asyncio.CancelledError):
            await stop
