"""Stopping background tasks without letting one of them hold up a shutdown.

A task blocked in a client library (a Redis read, say) may take a while to honour its
cancellation, or on Python 3.11 swallow it inside `asyncio.wait_for` (the inner read finished
in the same instant): such a task runs on as if never cancelled. ``cancel_and_wait`` therefore
cancels again every ``RECANCEL_S`` until the task ends or the bound passes, and tasks that loop
also check a closing flag of their own (``Room``). A shutdown waits at most `STOP_WAIT_S` and
then goes on (what is left dies with the loop; its writes are fenced off by then).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from typing import Any

STOP_WAIT_S = 0.5
RECANCEL_S = 0.02


async def cancel_and_wait(
    tasks: Iterable[asyncio.Task[Any] | None], timeout_s: float = STOP_WAIT_S
) -> None:
    """Cancel ``tasks`` (all at once) and wait at most ``timeout_s`` for them to end."""
    pending = {task for task in tasks if task is not None and not task.done()}
    deadline = time.monotonic() + timeout_s
    while pending:
        for task in pending:
            task.cancel()  # again: a cancellation swallowed by wait_for must not stick
        left = deadline - time.monotonic()
        if left <= 0:
            return
        _, pending = await asyncio.wait(pending, timeout=min(RECANCEL_S, left))
