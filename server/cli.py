"""The one `cuarenta` command: a thin dispatcher to the module that owns each subcommand.

Each subcommand lives beside the code it drives (the engine owns `replay`, the clients own
`play` and `bot`, …) and is imported only when chosen, so `cuarenta replay` never loads
websockets or Redis and one broken piece cannot break the other commands. A module exposes::

    def add_arguments(parser: argparse.ArgumentParser) -> None: ...
    def run(args: argparse.Namespace) -> int: ...
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Protocol, cast

#: command -> (owning module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("server.serve_cmd", "host Cuarenta tables over WebSocket (and the web client)"),
    "replay": ("engine.replay_cli", "replay a game record (R15) and print the result as JSON"),
    "new": ("clients.terminal.cli_new", "create a table on a server and print its links"),
    "play": ("clients.terminal.cli_play", "play at a table in the terminal"),
    "watch": ("clients.terminal.cli_watch", "watch a table in the terminal"),
    "bot": ("clients.bot.cli", "join a table over the wire as a bot (or fill K tables with bots)"),
    "tournament": ("bench.tournament", "duplicate tournament between two bot levels"),
    "train": ("engine.bots.train", "learn level 6's rest-of-hand model from self-play"),
    "backup": ("server.backup_cmd", "save everything a club has in Redis to one file"),
    "restore": ("server.backup_cmd", "load a backup file into an empty Redis store"),
    "bench": ("bench.cli", "performance figures: `cuarenta bench --help` lists every benchmark"),
}


class CommandModule(Protocol):
    def add_arguments(self, parser: argparse.ArgumentParser) -> None: ...

    def run(self, args: argparse.Namespace) -> int: ...


def _usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = ["usage: cuarenta <command> [options]", "", "commands:"]
    lines += [f"  {name:<{width}}  {help_}" for name, (_, help_) in COMMANDS.items()]
    lines += ["", "`cuarenta <command> --help` describes a command's options."]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run `cuarenta <command> ...` and return its exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in {"-h", "--help", "help"}:
        print(_usage())
        return 0
    name, rest = args[0], args[1:]
    if name not in COMMANDS:
        print(f"cuarenta: unknown command {name!r}\n\n{_usage()}", file=sys.stderr)
        return 2
    module_name, help_ = COMMANDS[name]
    module = cast(CommandModule, importlib.import_module(module_name))
    parser = argparse.ArgumentParser(prog=f"cuarenta {name}", description=help_)
    module.add_arguments(parser)
    return module.run(parser.parse_args(rest))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
