"""What ``cuarenta play`` and ``cuarenta watch`` share: their options and how they start.

The link is opened before the screen appears, so a bad link, a full table or a server that is
not there is one plain line on stderr and exit code 1, not a broken screen.
"""

from __future__ import annotations

import argparse
import asyncio
import sys

from clients.links import TableLink
from clients.reconnect import LastingSession
from clients.session import SessionError
from clients.terminal.app import TableApp
from clients.terminal.errors import error_text
from clients.terminal.i18n import LANGUAGES, Translator, detect_language


def add_common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("link", metavar="LINK", help="the table link (http://HOST:PORT/t/KEY)")
    parser.add_argument("--name", default="guest", help="the name shown at the table")
    parser.add_argument(
        "--lang", choices=LANGUAGES, default=None, help="es, en or pt (default: from the locale)"
    )


def run_table(args: argparse.Namespace, command: str, watch: bool) -> int:
    """Open the link, then run the screen until the player quits."""
    tr = Translator(args.lang or detect_language())
    try:
        link = TableLink.parse(args.link)
        place = LastingSession(link, args.name, watch=watch, seat=getattr(args, "seat", None))
        return asyncio.run(_run(place, tr))
    except SessionError as exc:
        print(f"cuarenta {command}: {error_text(exc, tr, link=args.link)}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


async def _run(place: LastingSession, tr: Translator) -> int:
    await place.open()
    app = TableApp(place, tr)
    try:
        code = await app.run_async()
    finally:
        await place.close()
    if app.lost is not None:
        raise SessionError(app.lost)
    return code or 0
