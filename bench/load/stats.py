"""The figures the server benchmark reports: percentiles, latency summaries, ratios to the floor.

Pure functions over plain numbers, so the arithmetic behind every printed figure is tested on
its own (``tests/bench/test_load_stats.py``) rather than trusted from a noisy run.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from bench.load.errors import StatsError


def percentile(samples: Sequence[float], q: float) -> float:
    """The nearest-rank ``q``-th percentile (0 < q <= 100) of ``samples``.

    Nearest rank, not interpolation: the p99 is always a latency some delivery really had, and
    with fewer than 100 samples it is the maximum, never an optimistic blend of two values.
    """
    if not samples:
        raise StatsError("a percentile of no samples is undefined")
    if not 0 < q <= 100:
        raise StatsError(f"percentile rank {q} is outside (0, 100]")
    ordered = sorted(samples)
    rank = math.ceil(q / 100 * len(ordered))
    return ordered[rank - 1]


def ratio(value: float, floor: float) -> float:
    """``value`` as a fraction of the floor's figure (the floor is the denominator)."""
    if floor <= 0:
        raise StatsError(f"the floor's figure must be positive to compare against, got {floor}")
    return value / floor


def rate(count: int, seconds: float) -> float:
    """Events per second over a measurement window."""
    if seconds <= 0:
        raise StatsError(f"a measurement window must last a positive time, got {seconds}")
    return count / seconds


@dataclass(frozen=True, slots=True)
class Latency:
    """A latency distribution in milliseconds: what the report prints for deliveries and lag."""

    count: int
    p50_ms: float
    p99_ms: float
    max_ms: float

    @classmethod
    def of_seconds(cls, samples: Sequence[float]) -> Latency:
        """Summarise samples given in seconds (an empty list gives zeros and count 0)."""
        if not samples:
            return cls(0, 0.0, 0.0, 0.0)
        return cls(
            count=len(samples),
            p50_ms=percentile(samples, 50) * 1000,
            p99_ms=percentile(samples, 99) * 1000,
            max_ms=max(samples) * 1000,
        )


def merged(parts: Iterable[Sequence[float]]) -> list[float]:
    """All samples of several load processes as one population (percentiles do not average)."""
    return [sample for part in parts for sample in part]


def per_unit(before_bytes: int, after_bytes: int, units: int) -> float:
    """Bytes each unit (a connection, a table) added to a process's RSS."""
    if units <= 0:
        raise StatsError(f"memory per unit needs a positive number of units, got {units}")
    return (after_bytes - before_bytes) / units
