"""``cuarenta play LINK``: sit at a table in the terminal (reconnects and resumes by itself)."""

from __future__ import annotations

import argparse

from clients.terminal.launch import add_common, run_table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_common(parser)
    parser.add_argument(
        "--seat",
        type=int,
        default=None,
        choices=range(1, 5),
        metavar="N",
        help="the seat to take, numbered from 1 as on screen (default: free)",
    )


def run(args: argparse.Namespace) -> int:
    if args.seat is not None:
        args.seat -= 1  # the wire counts seats from 0
    return run_table(args, "play", watch=False)
