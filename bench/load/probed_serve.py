"""``python -m bench.load.probed_serve [cuarenta serve flags]``: the table server plus a lag probe.

Exactly ``cuarenta serve`` (same flags, same ``server.serve_cmd.serve`` coroutine, same signals),
with ``bench.load.lag`` running beside it on the same event loop. ``--profile FILE`` also profiles
the run (cProfile, in CPU time) and writes it to FILE on SIGUSR2: where a slow server's time goes.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import signal
import sys
import time
from pathlib import Path

from bench.load.lag import report_lag
from server import config, logs, serve_cmd


async def _serve_with_probe(settings: config.Settings, profile: Path | None) -> None:
    if profile is not None:
        profiler = cProfile.Profile(time.process_time)  # CPU time: other processes don't count
        asyncio.get_running_loop().add_signal_handler(signal.SIGUSR2, _dump, profiler, profile)
        profiler.enable()
    probe = asyncio.create_task(report_lag())
    try:
        await serve_cmd.serve(settings)
    finally:
        probe.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await probe


def _dump(profiler: cProfile.Profile, path: Path) -> None:
    """Stop profiling and write the figures (the benchmark then stops the server)."""
    profiler.disable()
    temporary = path.with_suffix(".partial")
    profiler.dump_stats(temporary)
    temporary.replace(path)  # the file appears complete or not at all


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.load.probed_serve")
    serve_cmd.add_arguments(parser)
    parser.add_argument(
        "--profile",
        type=Path,
        default=None,
        help="profile the run; SIGUSR2 writes the figures to this file",
    )
    args = parser.parse_args(argv)
    settings = config.from_args(args)
    logs.configure(settings.log_format, settings.log_level)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve_with_probe(settings, args.profile))
    return 0


if __name__ == "__main__":
    sys.exit(main())
