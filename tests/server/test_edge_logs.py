"""The JSON log is one JSON object per line, exceptions included, whoever logs them.

Run in a child process: configuring logging is process-wide (the other tests keep theirs).
"""

from __future__ import annotations

import json
import subprocess
import sys

LOGS_AN_EXCEPTION = """
import logging, structlog
from server import logs
logs.configure("json", "info")
seat_token = "secret-seat-token-123"
try:
    raise RuntimeError("commit failed")
except RuntimeError:
    structlog.get_logger("server.room").exception("commit failed; the table will be reloaded")
    logging.getLogger("websockets.server").error("opening handshake failed", exc_info=True)
logging.getLogger("websockets.server").info("connection open")  # below WARNING: dropped
"""


def test_exceptions_are_one_structured_field_and_never_show_locals() -> None:
    done = subprocess.run(
        [sys.executable, "-c", LOGS_AN_EXCEPTION], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    assert [r["event"] for r in records] == [
        "commit failed; the table will be reloaded",
        "opening handshake failed",
    ]
    for record in records:
        (exception,) = record["exception"]
        assert exception["exc_type"] == "RuntimeError"
        assert exception["exc_value"] == "commit failed"
    assert records[1]["logger"] == "websockets.server"
    assert "secret-seat-token-123" not in done.stderr  # no frame's locals
