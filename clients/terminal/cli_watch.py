"""``cuarenta watch LINK``: look on at a table in the terminal (public information only)."""

from __future__ import annotations

import argparse

from clients.terminal.launch import add_common, run_table


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_common(parser)


def run(args: argparse.Namespace) -> int:
    return run_table(args, "watch", watch=True)
