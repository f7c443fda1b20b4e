"""A turn-based room's filing on the waiting board: its card and due time, written when they
changed since the board last took them (``server.waiting.board``)."""

from __future__ import annotations

import structlog

from server.core.table import Table
from server.store.base import StoreError
from server.waiting.board import WaitingBoard
from server.waiting.card import card_of, due_of

log = structlog.get_logger("server.waiting")


class Filing:
    """What one room last filed; ``file`` writes the table's entry if it changed."""

    def __init__(self, board: WaitingBoard) -> None:
        self.board = board
        self.filed: tuple[bytes | None, float | None] = (None, None)  # as the board has it

    async def file(self, table_id: str, table: Table) -> None:
        """A failed write is logged and tried again at the next call (the room's next round)."""
        entry = (card_of(table), due_of(table))
        if entry == self.filed:
            return
        try:
            await self.board.put(table_id, *entry)
        except StoreError as exc:
            log.warning("the waiting table was not filed; retrying", error=str(exc))
            return
        self.filed = entry
