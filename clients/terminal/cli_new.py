"""``cuarenta new [SERVER]``: create a table and print its links (play, watch, host).

The host link is the creator's secret: it seats its holder as host (start the game, add bots).
``--json`` prints the links as one JSON object for scripts.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from clients.session import SessionError
from clients.table import TableLinks, TableRefused, create_table
from clients.terminal.errors import error_text
from clients.terminal.i18n import LANGUAGES, Translator, detect_language
from protocol.errors import ErrorCode

DEFAULT_SERVER = "http://127.0.0.1:8765"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "server",
        nargs="?",
        default=DEFAULT_SERVER,
        help=f"the table server (default {DEFAULT_SERVER})",
    )
    parser.add_argument(
        "--profile",
        default="pagat-4p",
        choices=("pagat-4p", "heads-up", "libre-2p"),
        help="rules profile (R14)",
    )
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a house option of R13, e.g. sequence=manual (repeatable)",
    )
    parser.add_argument(
        "--turn-timer",
        type=int,
        default=0,
        choices=(0, 15, 30, 60),
        help="seconds per decision for people (0: off)",
    )
    parser.add_argument("--json", action="store_true", help="print the links as JSON")
    parser.add_argument(
        "--lang", choices=LANGUAGES, default=None, help="es, en or pt (default: from the locale)"
    )


class BadOption(SessionError):
    """An ``--option`` that is not NAME=VALUE; ``text`` is what was typed."""

    def __init__(self, text: str) -> None:
        super().__init__(f"--option {text!r}: expected NAME=VALUE (R13)")
        self.text = text


def parse_option(text: str) -> tuple[str, str | int | bool]:
    """``name=value`` with R13's value types: true/false, integers, else text."""
    name, sep, raw = text.partition("=")
    if not sep or not name:
        raise BadOption(text)
    value: str | int | bool = raw
    if raw.lower() in ("true", "false"):
        value = raw.lower() == "true"
    elif raw.isdigit():
        value = int(raw)
    return name.strip(), value


def run(args: argparse.Namespace) -> int:
    tr = Translator(args.lang or detect_language())
    try:
        options = dict(parse_option(text) for text in args.option)
        links = asyncio.run(
            create_table(
                args.server, profile=args.profile, options=options, turn_timer=args.turn_timer
            )
        )
    except BadOption as exc:
        print(f"cuarenta new: {tr('err_option_format', text=repr(exc.text))}", file=sys.stderr)
        return 1
    except SessionError as exc:
        detail = error_text(exc, tr, server=args.server)
        if isinstance(exc, TableRefused) and exc.code is ErrorCode.BAD_OPTIONS and args.option:
            detail += f": {', '.join(args.option)}"
        print(f"cuarenta new: {detail}", file=sys.stderr)
        return 1
    print(links_text(links, tr, args.json))
    return 0


def links_text(links: TableLinks, tr: Translator, as_json: bool = False) -> str:
    if as_json:
        return json.dumps(
            {
                "table": links.table,
                "join": str(links.join),
                "watch": str(links.watch),
                "host": str(links.host),
            }
        )
    return "\n".join(
        [
            tr("new_table", table=links.table),
            tr("new_join", link=links.join),
            tr("new_watch", link=links.watch),
            tr("new_host", link=links.host),
        ]
    )
