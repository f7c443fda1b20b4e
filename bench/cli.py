"""`cuarenta bench engine|bots|server|store|soak|scaling|all`: run the module that measures it.

Each benchmark is a module ``bench.<what>`` exposing ``add_arguments(parser)`` and
``run(args) -> int``; it is imported only when chosen, so a benchmark that needs Redis or a
browser never loads for ``cuarenta bench engine``. ``all`` runs every benchmark present, in
`ORDER`, passing each the options it understands.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
from types import ModuleType

#: the benchmarks ``all`` runs, in order (modules that do not exist yet are skipped).
ORDER = ("engine", "bots", "server", "store")
#: benchmarks run only by name (minutes long): ``cuarenta bench soak``.
BY_NAME = ("soak", "scaling", "ceiling")


def _module(what: str) -> ModuleType | None:
    name = f"bench.{what}"
    if not what.isidentifier() or importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare ``what`` and pass every further argument to that benchmark."""
    parser.add_argument("what", help=f"one of {', '.join(ORDER + BY_NAME)}, or all")
    parser.add_argument("options", nargs=argparse.REMAINDER, help="the benchmark's own options")


def _run_one(what: str, module: ModuleType, options: list[str], strict: bool) -> int:
    parser = argparse.ArgumentParser(prog=f"cuarenta bench {what}")
    module.add_arguments(parser)
    if strict:
        return int(module.run(parser.parse_args(options)))
    known, _ = parser.parse_known_args(options)
    return int(module.run(known))


def run(args: argparse.Namespace) -> int:
    """Run the chosen benchmark(s); the exit code is the first failure's, else 0."""
    if args.what != "all":
        module = _module(args.what)
        if module is None:
            known = ", ".join(ORDER + BY_NAME)
            print(f"cuarenta bench: no benchmark {args.what!r} (known: {known}, all)")
            return 2
        return _run_one(args.what, module, args.options, strict=True)
    worst = 0
    for what in ORDER:
        module = _module(what)
        if module is not None:
            worst = worst or _run_one(what, module, args.options, strict=False)
    return worst
