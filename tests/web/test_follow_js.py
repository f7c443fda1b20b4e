"""The browser follows protocol 4's changes to exactly the views the server holds.

Seeded games of every profile are played through the referee on protocol 4 (the
``viewer_bytes`` benchmark's run: a seated person, a spectator, bots); each viewer's frames,
each change with the view the server held for that viewer right after it, go to node, where
``connection.js`` unfolds them (following each event with ``follow.js``) and every followed
view must equal the server's: the same check as ``tests/protocol/test_follow.py`` makes of
``protocol.follow``, for the port.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import msgpack
import pytest

from bench.viewer_bytes import VIEWERS, Run

HERE = Path(__file__).parent

GAMES = [
    (1, "pagat-4p", {}),
    (2, "pagat-4p", {"announcements": "manual", "sequence": "manual"}),
    (3, "pagat-4p", {"special_claims": "auto", "misdeal_penalty": "two"}),
    (4, "heads-up", {}),
    (5, "libre-2p", {}),
]


def test_the_browser_follows_every_change_to_the_servers_view(tmp_path: Path) -> None:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is missing: the web client's tests need it (apt-get install nodejs)")
    recorded = []
    for seed, profile, options in GAMES:
        run = Run(seed, 4, profile, options, keep=True)
        run.play()
        assert run.kept is not None
        for viewer in VIEWERS:
            recorded.append([[msgpack.unpackb(data), truth] for data, truth in run.kept[viewer]])
    path = tmp_path / "frames.json"
    path.write_text(json.dumps(recorded))
    result = subprocess.run(
        [node, str(HERE / "js" / "follow-check.mjs"), str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert int(result.stdout.split()[-1]) > 1000
