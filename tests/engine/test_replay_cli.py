"""`cuarenta replay FILE|-` (R15): the output object and the exit codes."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from engine import replay_cli

GAMES = Path(__file__).parent.parent / "data" / "games"


def run(path: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    parser = argparse.ArgumentParser()
    replay_cli.add_arguments(parser)
    code = replay_cli.run(parser.parse_args([path]))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_finished_game_prints_one_json_object_and_exits_0_R15(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, err = run(str(GAMES / "heads-up-bots.json"), capsys)
    assert code == 0
    assert err == ""
    assert out.count("\n") == 1
    result = json.loads(out)
    assert list(result) == ["status", "winner", "scores", "trace", "hands", "error"]
    assert result == json.loads((GAMES / "heads-up-bots.expected.json").read_text())


def test_an_illegal_action_exits_1_with_status_error_R15(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = json.loads((GAMES / "libre-2p-bots.json").read_text())
    record["actions"][3]["card"] = "QQ"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    code, out, _ = run(str(path), capsys)
    result = json.loads(out)
    assert code == 1
    assert result["status"] == "error"
    assert result["error"]["index"] == 3
    assert result["error"]["message"].startswith("R2")
    assert len(result["trace"]) == 3


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{not json", "not JSON"),
        ('{"format": "cuarenta-record/9", "dealer": 0}', "format"),
        ('{"format": "cuarenta-record/1"}', "dealer or a draw"),
        ('{"format": "cuarenta-record/1", "dealer": 0, "options": {"x": 1}}', "unknown option"),
        ('{"format": "cuarenta-record/1", "dealer": 0, "actions": [{"type": "x"}]}', "type"),
    ],
)
def test_a_file_that_is_not_a_valid_record_exits_2_with_one_line_R15(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, words: str
) -> None:
    path = tmp_path / "record.json"
    path.write_text(text)
    code, out, err = run(str(path), capsys)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1
    assert words in err


@pytest.mark.parametrize("depth", [65, 1_000, 100_000])
def test_text_nested_past_any_record_exits_2_before_it_is_parsed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], depth: int
) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * depth + "]" * depth)
    code, out, err = run(str(path), capsys)
    assert (code, out) == (2, "")
    assert (
        err == f"cuarenta replay: not a valid record: nested deeper than {replay_cli.MAX_DEPTH}\n"
    )


def test_brackets_inside_strings_are_not_nesting() -> None:
    assert replay_cli.nesting('{"a": ["[[[\\"{{", 1]}') == 2
    assert replay_cli.nesting("[" * 64 + "]" * 64) == replay_cli.MAX_DEPTH


def test_a_missing_file_exits_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(str(tmp_path / "nowhere.json"), capsys)
    assert code == 2
    assert "cannot read" in err


def test_cuarenta_replay_reads_standard_input_R15() -> None:
    record = (GAMES / "pagat-4p-bots.json").read_text()
    result = subprocess.run(
        [sys.executable, "-m", "server.cli", "replay", "-"],
        input=record,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == json.loads(
        (GAMES / "pagat-4p-bots.expected.json").read_text()
    )
