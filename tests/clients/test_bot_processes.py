"""`cuarenta bot` as real processes: four of them fill a table and play a game to the end, and
the table's record replays to the same result with `cuarenta replay` (R15)."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Callable

import pytest

from server.cli import main
from tests.serving import ServerProcess

RUN_S = 120


def cuarenta(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "server.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=RUN_S,
        check=False,
    )


def test_four_bot_processes_play_a_game_that_replays_to_the_same_result_r15(
    server_process: Callable[..., ServerProcess],
) -> None:
    server = server_process("--claim-window", "0.05")
    made = cuarenta("new", server.url, "--json")
    assert made.returncode == 0, made.stderr
    links = json.loads(made.stdout)
    bots = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "server.cli",
                "bot",
                link,
                "--level",
                str(level),
                "--json",
                "--seed",
                str(i),
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i, (link, level) in enumerate(
            [(links["host"], 2), (links["join"], 1), (links["join"], 2), (links["join"], 1)]
        )
    ]
    outcomes = []
    for bot in bots:
        out, err = bot.communicate(timeout=RUN_S)
        assert bot.returncode == 0, err
        outcomes.append(json.loads(out))
    assert sorted(o["seat"] for o in outcomes) == [0, 1, 2, 3]
    assert {o["table"] for o in outcomes} == {links["table"]}
    assert all(o["refused"] == [] for o in outcomes)
    final = outcomes[0]
    assert all((o["scores"], o["winner"]) == (final["scores"], final["winner"]) for o in outcomes)

    url = f"{server.url.rstrip('/')}/record/{links['table']}?key={links['host'].split('/t/')[1]}"
    with urllib.request.urlopen(url, timeout=RUN_S) as answer:
        record = answer.read().decode()
    replayed = cuarenta("replay", "-", stdin=record)
    assert replayed.returncode == 0, replayed.stderr
    result = json.loads(replayed.stdout)
    assert result["status"] == "finished"
    assert result["scores"] == final["scores"]
    assert result["winner"] == final["winner"]


def test_a_fleet_fills_a_new_table_with_wire_bots_and_plays_a_rematch_r12(
    server_process: Callable[..., ServerProcess],
    capsys: pytest.CaptureFixture[str],
) -> None:
    server = server_process("--claim-window", "0.05")
    assert main(["bot", server.url, "--tables", "1", "--games", "2", "--json"]) == 0
    fleet = json.loads(capsys.readouterr().out)
    assert len(fleet["tables"]) == 1
    for table in fleet["tables"]:
        assert table["games"] == 2
        assert table["winner"] in (0, 1)
        assert table["actions"] > 0
    assert fleet["actions"] == sum(table["actions"] for table in fleet["tables"])
