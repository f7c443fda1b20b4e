"""One bounded memo for the hot paths: a dict of immutable values that forgets all it holds
when it is full (a pure function's results, invisible to callers; no eviction order to keep)."""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Memo(dict[K, V]):
    """``memo.get(key)`` to look up; ``memo.keep(key, value)`` to remember (and return) a value."""

    __slots__ = ("limit",)

    def __init__(self, limit: int) -> None:
        super().__init__()
        self.limit = limit

    def keep(self, key: K, value: V) -> V:
        if len(self) >= self.limit:
            self.clear()
        self[key] = value
        return value
