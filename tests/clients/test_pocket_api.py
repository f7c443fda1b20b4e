"""The pocket's solo chicas under CPython (issue 42): the same ``pocket_api`` the browser's
Pyodide runs, so what the worker answers is pinned here fast; the browser tests play it there.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clients import pocket_api


def played(state: dict[str, Any], bot_moves: int) -> dict[str, Any]:
    """Play the person's first legal action and the bot's until ``bot_moves`` or the end."""
    moved = 0
    while not state["finished"] and moved < bot_moves:
        if state["to_move"] == "person":
            state = json.loads(pocket_api.solo_play(json.dumps(state["legal"][0])))
        else:
            moved += state["to_move"] == "bot"
            state = json.loads(pocket_api.solo_step())
    return state


def replayed(record: dict[str, Any], tmp_path: Path) -> dict[str, Any]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    answer = json.loads(pocket_api.replay_output(str(path)))
    assert answer["exit"] == 0, answer["stderr"]
    result: dict[str, Any] = json.loads(answer["stdout"])
    return result


def test_the_free_game_is_libre_2p_and_is_played_to_its_end_R14(tmp_path: Path) -> None:
    state = played(json.loads(pocket_api.solo_new(11, 2, "libre-2p")), 10_000)
    assert (state["profile"], state["level"], state["finished"]) == ("libre-2p", 2, True)
    assert state["winner"] in (0, 1)  # R12: libre-2p has no draw
    result = replayed(state["record"], tmp_path)
    assert (result["status"], result["scores"]) == ("finished", state["scores"])


def test_the_ladder_stays_heads_up_R14() -> None:
    assert json.loads(pocket_api.solo_new(11, 1))["profile"] == "heads-up"


def test_a_pocket_chica_on_a_profile_outside_R14s_two_is_refused() -> None:
    with pytest.raises(ValueError, match="R14"):
        pocket_api.solo_new(1, 1, "pagat-4p")


def test_level_5_plays_the_free_game_searching_longer_than_level_4_R14(tmp_path: Path) -> None:
    """Level 5's search is given a deadline in the pocket, as level 4's (the server's share)."""
    assert pocket_api.SEARCH_S[5] > pocket_api.SEARCH_S[4]
    state = played(json.loads(pocket_api.solo_new(5, 5, "libre-2p")), 3)
    assert state["level"] == 5
    assert sum(a["type"] == "play" and a["seat"] == 1 for a in state["record"]["actions"]) >= 3
    assert replayed(state["record"], tmp_path)["status"] in ("in_progress", "finished")
