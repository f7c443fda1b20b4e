"""``cuarenta backup FILE`` and ``cuarenta restore FILE``: a club's whole Redis in one file.

The store is ``--store`` (default ``CUARENTA_STORE``), the URL the server runs with. What is in
the file, and how consistent it is while servers keep playing: ``server.store.backup``; the
file's layout and versions: ``server.store.formats``. Either command prints one line on
success, and on a refusal one line on stderr with exit code 1, having written nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path

from server.store import backup, formats
from server.store.base import StoreError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """One module for both commands: the parser's name (``cuarenta restore``) says which."""
    parser.set_defaults(command="restore" if parser.prog.endswith("restore") else "backup")
    parser.add_argument("file", type=Path, help="the backup file (gzip'd msgpack)")
    parser.add_argument(
        "--store",
        default=os.environ.get("CUARENTA_STORE", "memory"),
        help="the Redis the club's server uses: redis://HOST:PORT/DB, redis+cluster://… or "
        "redis+sentinel://… (env CUARENTA_STORE; default %(default)s)",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="restore: overwrite the keys of a target that already holds a club's data",
    )


def run(args: argparse.Namespace) -> int:
    command = str(args.command)
    try:
        line = asyncio.run(_restore(args) if command == "restore" else _backup(args))
    except StoreError as exc:
        print(f"cuarenta {command}: {exc}", file=sys.stderr)
        return 1
    print(line)
    return 0


async def _backup(args: argparse.Namespace) -> str:
    path: Path = args.file
    async with backup.connected(args.store) as client:
        head, entries = await backup.dump(client)
    try:
        formats.write_backup(path, head, entries)
    except OSError as exc:
        raise StoreError(f"could not write {path}: {exc}") from None
    return f"backed up {head['keys']} keys to {path} (data format {head['data_format']})"


async def _restore(args: argparse.Namespace) -> str:
    path: Path = args.file
    saved = formats.read_backup(path)  # refuses a newer or cut file before connecting
    async with backup.connected(args.store) as client:
        count = await backup.restore(client, saved, force=bool(args.force))
    return f"restored {count} keys from {path} (written {saved.header['written_at']})"
