"""`cuarenta replay FILE|-`: print the R15 result object of a game record.

Exit codes (R15): 0 finished or in progress, 1 an illegal action (status "error"),
2 not a valid record (one line on stderr naming the problem).

A record is JSON four levels deep; text nested deeper than `MAX_DEPTH` is refused before it is
parsed, so the answer never depends on the interpreter's recursion limits (CPython 3.11 and
the browser's Pyodide, on Python 3.14, give up at different depths, and Pyodide's interpreter
dies rather than raise).
"""

from __future__ import annotations

import argparse
import json
import sys

from engine.errors import InvalidRecord
from engine.record import Record
from engine.replay import replay

MAX_DEPTH = 64


def nesting(text: str) -> int:
    """Return how deep the arrays and objects of JSON ``text`` nest (strings skipped)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the command's arguments."""
    parser.add_argument("file", help="a cuarenta-record/1 JSON file, or - for standard input")


def run(args: argparse.Namespace) -> int:
    """Replay the record and print the result; return the R15 exit code."""
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as handle:
                text = handle.read()
    except (OSError, UnicodeDecodeError) as error:
        print(f"cuarenta replay: cannot read {args.file}: {error}", file=sys.stderr)
        return 2
    if nesting(text) > MAX_DEPTH:
        print(
            f"cuarenta replay: not a valid record: nested deeper than {MAX_DEPTH}", file=sys.stderr
        )
        return 2
    try:
        obj = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as error:
        print(f"cuarenta replay: not JSON: {error}", file=sys.stderr)
        return 2
    try:
        record = Record.from_json(obj)
    except InvalidRecord as error:
        print(f"cuarenta replay: not a valid record: {error}", file=sys.stderr)
        return 2
    result = replay(record)
    print(json.dumps(result))
    return 1 if result["status"] == "error" else 0
