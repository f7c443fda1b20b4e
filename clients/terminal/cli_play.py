"""``cuarenta play LINK``: sit at a table in the terminal (reconnects and resumes by itself)."""

from __future__ import annotations

import argparse

from clients.terminal.launch import add_common, run_table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_common(parser)
    parser.add_argument("--seat", type=int, default=None, help="the seat to take (default: free)")


def run(args: argparse.Namespace) -> int:
    return run_table(args, "play", watch=False)
