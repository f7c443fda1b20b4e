"""What the browser's Pyodide calls: `cuarenta replay` as text, and a solo chica (issue 42).

Packed into the engine zip as the top-level module ``pocket_api`` (``clients.pocket``); it
imports the engine only, so it runs unchanged under CPython (where the tests call it too) and
under Pyodide. Every function takes and returns plain JSON text, the one shape that crosses
between the worker's JavaScript and Python without proxies to free.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json

from engine import replay_cli


def replay_output(path: str) -> str:
    """Run `cuarenta replay PATH` and return its exit code, standard output and error as JSON."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = replay_cli.run(argparse.Namespace(file=path))
    return json.dumps({"exit": code, "stdout": out.getvalue(), "stderr": err.getvalue()})
