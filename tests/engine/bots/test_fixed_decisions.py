"""Every bot level decides exactly as before on a committed set of positions (fixed seeds and
samples): a faster engine or playout must not change a single decision.

``fixed_decisions.json`` holds the positions as game records (R15) up to a decision, the seat
to decide, and each level's choice made by the code of the time it was written. Regenerate it
only when a decision is meant to change: ``python -m tests.engine.bots.test_fixed_decisions``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from engine import Game, Phase, Record
from engine.actions import Action
from engine.bots import Budget, choose, levels

DATA = Path(__file__).with_name("fixed_decisions.json")
#: samples a searching level is given (level 5 deals four per sample): small, so the test is quick.
SAMPLES = 6
#: (profile, options): every profile, and the house rules that change play (R8, R13).
VARIANTS: tuple[tuple[str, dict[str, object]], ...] = (
    ("pagat-4p", {}),
    ("pagat-4p", {"sequence": "manual"}),
    ("pagat-4p", {"capture_mandatory": True, "announcements": "manual"}),
    ("heads-up", {}),
    ("libre-2p", {}),
)
PER_VARIANT = 12
STRIDE = 9


def _positions() -> list[dict[str, Any]]:
    """Play level-3 games and keep every `STRIDE`-th decision of a player (any kind)."""
    out: list[dict[str, Any]] = []
    for profile, options in VARIANTS:
        kept = seen = game_index = 0
        while kept < PER_VARIANT:
            seed = f"fixed/{profile}/{game_index}"
            game_index += 1
            game, rng = Game.new(profile, options, seed=seed), random.Random(seed)
            while game.phase is not Phase.FINISHED and kept < PER_VARIANT:
                seats = game.to_act()
                if not seats:
                    game.apply(game.system_actions()[0])
                    continue
                seat = seats[0]
                if seen % STRIDE == 0:
                    record = game.record().to_json()
                    out.append({"record": record, "seat": seat})
                    kept += 1
                seen += 1
                view = game.view(seat)
                action = choose(3, view, game.legal_actions(seat, by_rank=True), rng)
                if action is None:
                    game.apply(game.system_actions()[0])
                else:
                    game.apply(action)
    return out


def decide(position: dict[str, Any], level: int, index: int) -> str | None:
    """Return ``str`` of the level's choice in the position (None: it declines)."""
    game = Game.from_record(Record.from_json(position["record"]))
    seat = position["seat"]
    legal: tuple[Action, ...] = game.legal_actions(seat, by_rank=True)
    budget = Budget(samples=SAMPLES)
    action = choose(level, game.view(seat), legal, random.Random(index), budget)
    return None if action is None else str(action)


def _generate() -> None:
    positions = _positions()
    for index, position in enumerate(positions):
        position["decisions"] = {str(level): decide(position, level, index) for level in levels()}
    DATA.write_text(json.dumps({"samples": SAMPLES, "positions": positions}, indent=0) + "\n")


def _cases() -> list[tuple[int, int]]:
    if not DATA.exists():  # while it is being generated
        return []
    count = len(json.loads(DATA.read_text())["positions"])
    return [(index, level) for index in range(count) for level in levels()]


@pytest.mark.parametrize(("index", "level"), _cases())
def test_every_level_decides_as_before(index: int, level: int) -> None:
    data = json.loads(DATA.read_text())
    position = data["positions"][index]
    assert decide(position, level, index) == position["decisions"][str(level)]


if __name__ == "__main__":
    _generate()
