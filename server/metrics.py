"""Prometheus metrics for ``/metrics``, in a registry per server (tests run several servers).

The two counted on every command (messages handled, their latency) are plain counters
(``Tallies``) folded into Prometheus's forms only when ``/metrics`` is read: a labelled
counter's and a histogram's updates take a lock and a few calls each, on every move, for a
page read once in a while. The loop is one thread, so plain integers are exact.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterator
from dataclasses import dataclass, field

from prometheus_client import CollectorRegistry, Counter, Gauge, generate_latest
from prometheus_client.core import CounterMetricFamily, HistogramMetricFamily, Metric

#: the command latency histogram's upper bounds, in seconds
LATENCY_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0)


class Tallies:
    """The per-command metrics as plain counts; a collector of the registry (``collect``)."""

    def __init__(self) -> None:
        self.commands: dict[tuple[str, str], int] = {}  # (type, outcome): handled
        self.latency = [0] * (len(LATENCY_BUCKETS) + 1)  # per bucket, the last one +Inf
        self.latency_sum = 0.0

    def collect(self) -> Iterator[Metric]:
        commands = CounterMetricFamily(
            "cuarenta_commands", "Client messages handled", labels=["type", "outcome"]
        )
        for labels, count in self.commands.items():
            commands.add_metric(labels, count)
        yield commands
        buckets, total = [], 0
        for bound, count in zip((*LATENCY_BUCKETS, math.inf), self.latency, strict=True):
            total += count
            buckets.append(("+Inf" if bound == math.inf else str(bound), float(total)))
        yield HistogramMetricFamily(
            "cuarenta_command_latency_seconds",
            "From a message's arrival to its effects queued for every viewer",
            buckets=buckets,
            sum_value=self.latency_sum,
        )


@dataclass
class Metrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        r = self.registry
        self.tables = Gauge("cuarenta_tables", "Tables loaded in this process", registry=r)
        self.games = Gauge("cuarenta_games_in_progress", "Tables with a game running", registry=r)
        self.connections = Gauge("cuarenta_connections", "Open WebSocket connections", registry=r)
        self.tallies = Tallies()
        r.register(self.tallies)
        self.loop_lag = Gauge(
            "cuarenta_event_loop_lag_seconds",
            "Last measured event-loop scheduling lag",
            registry=r,
        )
        self.bot_moves = Counter(
            "cuarenta_bot_moves",
            "Bot decisions: the level asked, the policy that ran",
            ["level", "ran"],
            registry=r,
        )
        self.dropped = Counter(
            "cuarenta_slow_clients_dropped",
            "Connections dropped for leaving too much sent data unread",
            registry=r,
        )

        self.refused = Counter(
            "cuarenta_limit_refusals",
            "Connections or requests refused by a limit: origin (HTTP 403), "
            "connections_per_address (close 1008), hello_deadline (close 1008), "
            "tables_per_minute and commands_per_second (error rate_limited)",
            ["limit"],
            registry=r,
        )
        self.http_refused = Counter(
            "cuarenta_http_refusals",
            "HTTP requests refused before any route: malformed (400), method (405), "
            "request line (414) or headers (431) too large",
            ["status"],
            registry=r,
        )

    def command(self, type_: str, outcome: str) -> None:
        """Count one handled client message."""
        commands, key = self.tallies.commands, (type_, outcome)
        commands[key] = commands.get(key, 0) + 1

    def command_latency(self, seconds: float) -> None:
        """Count one command's latency (``cuarenta_command_latency_seconds``)."""
        tallies = self.tallies
        tallies.latency[bisect.bisect_left(LATENCY_BUCKETS, seconds)] += 1
        tallies.latency_sum += seconds

    def render(self) -> bytes:
        data: bytes = generate_latest(self.registry)
        return data
