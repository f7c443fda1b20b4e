"""Replay a game record (R15) into the result object `cuarenta replay` prints."""

from __future__ import annotations

from typing import Any

from engine.errors import IllegalAction
from engine.game import Game
from engine.phase import Phase
from engine.record import Record


def replay(record: Record) -> dict[str, Any]:
    """Apply the record's actions in order; stop at the first illegal one (R15).

    ``trace[i]`` is the score after action ``i`` and the automatic steps that followed it;
    ``hands`` has one entry per hand that reached its count (R11).
    """
    game = Game.from_record(record, play_actions=False)
    trace: list[list[int]] = []
    error: dict[str, Any] | None = None
    try:
        for _step in game.apply_record(record.actions):
            trace.append(list(game.scores))
    except IllegalAction as problem:
        error = {"index": problem.index, "message": str(problem)}
    finished = game.phase is Phase.FINISHED
    status = "error" if error is not None else "finished" if finished else "in_progress"
    return {
        "status": status,
        "winner": game.winner if finished else None,
        "scores": list(game.scores),
        "trace": trace,
        "hands": [{"dealer": dealer, "piles": list(piles)} for dealer, piles in game.counted_hands],
        "error": error,
    }
