"""Durability fixtures: a failing test's sessions are closed, not left to a later test's GC."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest

from clients.session import ClientSession


@pytest.fixture(autouse=True)
async def close_sessions(monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[None]:
    """Close every client session the test opened, however it ended.

    These tests talk to server subprocesses that the fixtures kill after the test's event loop
    has stopped, so a session a failed assertion skipped past would keep its socket until the
    garbage collector finds it, during another test, which would then fail for it (unclosed
    socket, with warnings as errors).
    """
    opened: list[ClientSession] = []
    setup = ClientSession.__init__

    def tracked(self: ClientSession, *args: Any, **kwargs: Any) -> None:
        setup(self, *args, **kwargs)
        opened.append(self)

    monkeypatch.setattr(ClientSession, "__init__", tracked)
    yield
    for session in opened:
        await session.close()
