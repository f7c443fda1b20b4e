"""The server benchmark's errors, one tree::

    LoadBenchError                 anything that stops `cuarenta bench server`
    ├── StatsError (ValueError)    a figure asked of numbers that cannot give it
    ├── TargetError                a server under test would not start or died
    └── LoadError                  a load process failed to seat, play or report

Each message names what was measured and why it could not be.
"""

from __future__ import annotations


class LoadBenchError(Exception):
    """Base of the server benchmark's errors."""


class StatsError(LoadBenchError, ValueError):
    """A statistic of an empty or meaningless sample (no deliveries, a zero floor)."""


class TargetError(LoadBenchError):
    """The table server or the floor server did not start, or exited during a run."""


class LoadError(LoadBenchError):
    """A load process could not connect, seat its tables, or report its figures."""
