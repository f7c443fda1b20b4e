"""Golden games (R15): records written by the engine, their replay output pinned.

The first hand of ``pagat-4p-bots.json`` was checked by hand against the rules (the diamond
draw gives dealer 2; every caída, limpia and sum; the count 19-16 with 5 cards left on the
table scores 2 to team 0). Regenerate with ``python -m tests.engine.test_golden`` only after a
deliberate rule change, and say so in the commit.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine import Record, replay
from tests.engine.helpers import bot_game

GAMES = Path(__file__).parent.parent / "data" / "games"

MANUAL = {"announcements": "manual", "sequence": "manual"}

#: name -> (profile, options, seed, bot level per seat): complete bot games, seeds chosen so
#: that between them they hold a valid claim, an automatic award and a missed-cards take.
GOLDEN: dict[str, tuple[str, dict[str, Any], int, tuple[int, ...]]] = {
    "pagat-4p-bots": ("pagat-4p", {}, 21, (2, 2, 2, 2)),
    "pagat-4p-claim": ("pagat-4p", {}, 4, (2, 2, 2, 2)),
    "pagat-4p-manual": ("pagat-4p", MANUAL, 0, (1, 2, 1, 2)),
    "pagat-4p-auto-awards": (
        "pagat-4p",
        {"special_claims": "auto", "ronda_points": 2},
        4,
        (2,) * 4,
    ),
    "heads-up-bots": ("heads-up", {}, 3, (2, 2)),
    "libre-2p-bots": ("libre-2p", {}, 4, (2, 1)),
}


def regenerate() -> None:
    """Write every golden record and its replay output."""
    for name, spec in GOLDEN.items():
        record = bot_game(*spec).record().to_json()
        (GAMES / f"{name}.json").write_text(json.dumps(record, indent=1) + "\n")
        expected = replay(Record.from_json(record))
        (GAMES / f"{name}.expected.json").write_text(json.dumps(expected) + "\n")


@pytest.mark.parametrize("name", sorted(GOLDEN))
def test_golden_records_replay_to_their_pinned_result_R15(name: str) -> None:
    record = json.loads((GAMES / f"{name}.json").read_text())
    expected = json.loads((GAMES / f"{name}.expected.json").read_text())
    assert replay(Record.from_json(record)) == expected
    assert expected["status"] == "finished"


def test_the_hand_checked_by_hand_R3_R7_R9_R11() -> None:
    expected = json.loads((GAMES / "pagat-4p-bots.expected.json").read_text())
    assert expected["hands"][0] == {"dealer": 2, "piles": [19, 16]}
    assert expected["hands"][1]["dealer"] == 3  # the deal passes left (R3)
    record = json.loads((GAMES / "pagat-4p-bots.json").read_text())
    assert record["draw"] == {"start": 1, "cards": ["KH", "AS", "4C", "6S", "2H", "5D"]}
    first_hand_end = [a["type"] for a in record["actions"]].index("close_claims")
    assert expected["trace"][first_hand_end - 1] == [12, 6]  # before the count
    assert expected["trace"][first_hand_end] == [14, 6]  # 19-16: the larger pile scores 2


def test_the_golden_games_cover_claims_missed_cards_and_manual_announcements_R6_R8_R10() -> None:
    kinds = {
        name: [a["type"] for a in json.loads((GAMES / f"{name}.json").read_text())["actions"]]
        for name in GOLDEN
    }
    assert "claim" in kinds["pagat-4p-claim"]
    assert {"take_missed", "announce"} <= set(kinds["pagat-4p-manual"])


if __name__ == "__main__":
    regenerate()
