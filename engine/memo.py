"""One bounded memo for the hot paths: a plain dict of immutable values (a pure function's
results, invisible to callers) that forgets all it holds when it is full, so it stays bounded
with no eviction order to keep. Plain dicts, not a subclass: a dict subclass's ``get`` costs
about two and a half times a dict's, and these lookups are on the engine's and server's hot paths.
"""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")


def keep(memo: dict[K, V], key: K, value: V, limit: int) -> V:
    """Remember ``value`` under ``key`` (first forgetting everything if ``memo`` holds
    ``limit`` entries) and return it; look values up with ``memo.get(key)``."""
    if len(memo) >= limit:
        memo.clear()
    memo[key] = value
    return value
