"""The web client's pure modules (captures, seats, tallies, events, log text) under node."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from protocol import PROTOCOL_VERSION

HERE = Path(__file__).parent
CONNECTION_JS = HERE.parents[1] / "clients" / "web" / "js" / "connection.js"


def test_client_modules_pass_their_node_unit_tests() -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: the web client's tests need it (apt-get install nodejs)")
    result = subprocess.run(
        [node, "--test", "--test-reporter=spec", str(HERE / "js" / "client.test.mjs")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_browser_client_speaks_the_servers_protocol_version() -> None:
    found = re.search(r"export const PROTOCOL_VERSION = (\d+);", CONNECTION_JS.read_text())
    assert found is not None
    assert int(found.group(1)) == PROTOCOL_VERSION
