"""Turn-based tables while they wait: their due times and cards (``board``, ``card``), the
watch that wakes them when a deadline comes (``watch``), and who is told (``server.notices``).

``Waiting`` is what a lobby and each of its rooms are given at construction: the board and
the notices' sender.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from server.notices import NoNotices, Notices
from server.waiting.board import MemoryWaiting, RedisWaiting, WaitingBoard, waiting_for
from server.waiting.card import card_of, due_of

__all__ = [
    "MemoryWaiting",
    "RedisWaiting",
    "Waiting",
    "WaitingBoard",
    "card_of",
    "due_of",
    "waiting_for",
]


@dataclass(frozen=True, slots=True)
class Waiting:
    """Where a turn-based table files itself between moves, and how its people are told."""

    board: WaitingBoard = field(default_factory=MemoryWaiting)
    notices: Notices = field(default_factory=NoNotices)
