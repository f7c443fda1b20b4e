"""Stopping background tasks without letting one of them hold up a shutdown.

A task blocked in a client library (a Redis read, say) may take a while to honour its
cancellation, or on Python 3.11 swallow it inside `asyncio.wait_for`; a server that is closing
waits a bounded time for its tasks and then goes on (they die with the loop).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any

STOP_WAIT_S = 2.0


async def cancel_and_wait(tasks: Iterable[asyncio.Task[Any] | None]) -> None:
    """Cancel ``tasks`` and wait at most `STOP_WAIT_S` seconds for them to end."""
    pending = {task for task in tasks if task is not None and not task.done()}
    for task in pending:
        task.cancel()
    if pending:
        await asyncio.wait(pending, timeout=STOP_WAIT_S)
