"""In the pocket (issue 42): the engine zip the browser plays from, replayed under Pyodide in Node,
prints what the server's `cuarenta replay` prints, byte for byte, on every committed record and
on vectors made from them (an illegal action, a game cut short, files that are not records).

The zip is built here from the sources as they are now (``clients.pocket.build``), so a stale
artefact can never pass; one Pyodide start serves every record.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from clients import pocket
from tests.engine.helpers import bot_game

ROOT = Path(__file__).resolve().parents[2]
GAMES = ROOT / "tests" / "data" / "games"
HARNESS = ROOT / "clients" / "web" / "offline" / "replay_node.mjs"
PYODIDE = ROOT / "clients" / "web" / "node_modules" / "pyodide"

#: (profile, seed, bot level per seat): fresh games the bots play, for vectors beyond the golden
BOT_GAMES = [
    *(("heads-up", seed, (1 + seed % 4, 4 - seed % 4)) for seed in range(6)),
    *(("libre-2p", seed, (2, 1 + seed % 3)) for seed in range(3)),
    *(("pagat-4p", seed, (1, 2, 1, 2)) for seed in range(2)),
]


def vectors(folder: Path) -> list[Path]:
    """Write the vectors made from the committed records into ``folder``; return all records."""
    committed = sorted(GAMES.glob("*.json"))
    made: list[Path] = []

    def write(name: str, text: str) -> None:
        path = folder / name
        path.write_text(text)
        made.append(path)

    for path in committed:
        record: dict[str, Any] = json.loads(path.read_text())
        if "actions" not in record:
            continue  # an expected result: itself a vector (not a record, exit 2)
        actions = record["actions"]
        plays = [i for i, action in enumerate(actions) if action.get("type") == "play"]
        illegal = json.loads(json.dumps(record))
        illegal["actions"][plays[len(plays) // 2]]["card"] = "QQ"
        write(f"{path.stem}.illegal.json", json.dumps(illegal))
        cut = dict(record, actions=actions[: len(actions) // 3])
        write(f"{path.stem}.cut.json", json.dumps(cut, indent=1))
        write(f"{path.stem}.unknown-option.json", json.dumps(dict(record, options={"x": 1})))
    for profile, seed, levels in BOT_GAMES:
        record = bot_game(profile, {}, seed, levels).record().to_json()
        write(f"bots-{profile}-{seed}.json", json.dumps(record))
    write("not-json.json", "{not json")
    write("no-dealer.json", '{"format": "cuarenta-record/1"}')
    bad = {"format": "cuarenta-record/1", "dealer": 0, "actions": [{"type": "x"}]}
    write("bad-action.json", json.dumps(bad))
    # Nested past any record: CPython 3.11 and Pyodide's 3.14 give up at different depths (and
    # Pyodide's interpreter dies), so `cuarenta replay` refuses such text before parsing it.
    for depth in (65, 1_000, 100_000):
        write(f"nested-{depth}.json", "[" * depth)
    write(
        "nested-in-a-string.json",
        json.dumps(dict(json.loads(committed[0].read_text()), x="[" * 5000)),
    )
    return committed + made


def server_replay(path: Path) -> dict[str, Any]:
    """What `cuarenta replay PATH` prints (the server's command, in its own process)."""
    done = subprocess.run(
        [sys.executable, "-m", "server.cli", "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=ROOT,
    )
    return {"exit": done.returncode, "stdout": done.stdout, "stderr": done.stderr}


@pytest.fixture(scope="module")
def node() -> str:
    found = shutil.which("node")
    if found is None:
        pytest.fail("node is missing: the offline engine's tests need it (apt-get install nodejs)")
    if not (PYODIDE / "package.json").exists():
        pytest.fail("pyodide is missing: make clients/web/node_modules/.installed")
    return found


def test_the_pocket_engine_replays_every_record_as_the_server_does_R15(
    node: str, tmp_path: Path
) -> None:
    zip_path, size = pocket.build(tmp_path / "offline")
    records = vectors(tmp_path)
    done = subprocess.run(
        [node, str(HARNESS), "--json", "--zip", str(zip_path), *map(str, records)],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
        cwd=ROOT,
    )
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert lines, done.stderr
    timing = lines.pop()
    assert timing["records"] == len(records), done.stderr
    by_file = {line.pop("file"): line for line in lines}
    with ThreadPoolExecutor(max_workers=4) as pool:
        expected = dict(zip(map(str, records), pool.map(server_replay, records), strict=True))
    differ = [name for name in expected if by_file.get(name) != expected[name]]
    assert not differ, f"the pocket engine disagrees on {differ}"
    exits = sorted({answer["exit"] for answer in expected.values()})
    assert exits == [0, 1, 2], "the vectors cover a game, an illegal action and a non-record"
    assert done.returncode == 2  # the worst exit of the lot, as the harness promises
    assert done.stderr == ""
    assert 0 < size < 400_000, f"the engine zip is {size} bytes"
    print(
        f"pocket: {len(records)} records agree; Pyodide start {timing['started_ms']} ms;"
        f" replay {timing['replayed_ms']} ms; engine zip {size} bytes"
    )


def test_one_record_prints_exactly_what_cuarenta_replay_prints(node: str, tmp_path: Path) -> None:
    zip_path, _ = pocket.build(tmp_path)
    record = GAMES / "heads-up-bots.json"
    done = subprocess.run(
        [node, str(HARNESS), "--zip", str(zip_path), str(record)],
        capture_output=True,
        timeout=60,
        check=False,
    )
    server = subprocess.run(
        [sys.executable, "-m", "server.cli", "replay", str(record)],
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, server.stdout, b"")
    assert done.stdout == (GAMES / "heads-up-bots.expected.json").read_bytes()


def test_the_engine_zip_is_the_engines_own_sources_and_the_same_bytes_each_time() -> None:
    data = pocket.engine_zip()
    assert data == pocket.engine_zip()
    names = [name for name, _ in pocket.members()]
    assert "engine/core.py" in names
    assert "engine/bots/rest_of_hand.json" in names
    assert "pocket_api.py" in names
    assert not [name for name in names if not name.endswith((".py", ".json"))]
    sources = [
        path
        for path in (ROOT / "engine").rglob("*")
        if path.suffix in (".py", ".json") and "__pycache__" not in path.parts
    ]
    assert len([name for name in names if name.startswith("engine/")]) == len(sources)
