"""The floor: a raw websockets broadcast server with no game logic, for the server benchmark.

``python -m bench.floor --port 0`` prints ``listening on ws://HOST:PORT/`` once bound. Four
clients connect to ``/<table>/<seat>``; when the fourth seat of a table arrives every seat gets
``READY``; from then on every frame a seat sends is broadcast, unchanged, to the table's four
seats: one frame in, four copies out per table round. It runs on the same websockets library,
settings and event-loop lag probe as the table server, so the gap between the two is the cost
of the game server's own work (decoding, the referee, snapshots, the store), not of the stack.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import signal
import sys
from collections.abc import Awaitable, Callable

from websockets.asyncio.server import ServerConnection, broadcast, serve
from websockets.exceptions import ConnectionClosed

from bench.load.lag import report_lag

SEATS = 4
READY = b"ready"
MAX_FRAME_BYTES = 8 * 1024


class FloorTables:
    """Connections by table; a table broadcasts once all its seats are present."""

    def __init__(self) -> None:
        self.tables: dict[str, list[ServerConnection | None]] = {}

    async def handler(self, ws: ServerConnection) -> None:
        table, seat = _table_and_seat(ws.request.path if ws.request else "")
        if table is None:
            await ws.close(1008, "connect to /<table>/<seat 0-3>")
            return
        seats = self.tables.setdefault(table, [None] * SEATS)
        seats[seat] = ws
        present = [each for each in seats if each is not None]
        if len(present) == SEATS:
            broadcast(present, READY)
        try:
            async for frame in ws:
                broadcast([each for each in seats if each is not None], frame)
        except ConnectionClosed:
            pass
        finally:
            seats[seat] = None
            if all(each is None for each in seats):
                self.tables.pop(table, None)


def _table_and_seat(path: str) -> tuple[str | None, int]:
    parts = path.strip("/").split("/")
    if len(parts) != 2 or parts[1] not in {str(seat) for seat in range(SEATS)}:
        return None, 0
    return parts[0], int(parts[1])


Handler = Callable[[ServerConnection], Awaitable[None]]


async def serve_floor(handler: Handler, host: str, port: int) -> None:
    """Serve ``handler`` until SIGINT/SIGTERM, with the same connection settings as
    ``server.app`` (the floor's, and ``bench.game_floor``'s)."""
    stop = asyncio.get_running_loop().create_future()
    for signum in (signal.SIGINT, signal.SIGTERM):
        asyncio.get_running_loop().add_signal_handler(signum, stop.cancel)
    probe = asyncio.create_task(report_lag())
    async with serve(
        handler, host, port, max_size=MAX_FRAME_BYTES, max_queue=16, compression=None
    ) as server:
        bound = next(iter(server.sockets)).getsockname()
        print(f"listening on ws://{bound[0]}:{bound[1]}/", flush=True)
        with contextlib.suppress(asyncio.CancelledError):
            await stop
    probe.cancel()


def floor_main(
    handler: Callable[[], Handler], prog: str, doc: str | None, argv: list[str] | None
) -> int:
    """The command line of a floor: ``--host``, ``--port``, then serve a fresh ``handler()``."""
    parser = argparse.ArgumentParser(prog=prog, description=doc)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve_floor(handler(), args.host, args.port))
    return 0


def main(argv: list[str] | None = None) -> int:
    return floor_main(lambda: FloorTables().handler, "python -m bench.floor", __doc__, argv)


if __name__ == "__main__":
    sys.exit(main())
