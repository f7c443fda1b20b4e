"""Prometheus metrics for ``/metrics``, in a registry per server (tests run several servers)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest


@dataclass
class Metrics:
    registry: CollectorRegistry = field(default_factory=CollectorRegistry)

    def __post_init__(self) -> None:
        r = self.registry
        self.tables = Gauge("cuarenta_tables", "Tables loaded in this process", registry=r)
        self.games = Gauge("cuarenta_games_in_progress", "Tables with a game running", registry=r)
        self.connections = Gauge("cuarenta_connections", "Open WebSocket connections", registry=r)
        self.commands = Counter(
            "cuarenta_commands", "Client messages handled", ["type", "outcome"], registry=r
        )
        self._commands: dict[tuple[str, str], Any] = {}
        self.command_latency = Histogram(
            "cuarenta_command_latency_seconds",
            "From a message's arrival to its effects queued for every viewer",
            buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0),
            registry=r,
        )
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
        """Count one handled client message (its labelled child looked up once per pair: a
        ``labels()`` call costs more than the increment)."""
        child = self._commands.get((type_, outcome))
        if child is None:
            child = self._commands[(type_, outcome)] = self.commands.labels(
                type=type_, outcome=outcome
            )
        child.inc()

    def render(self) -> bytes:
        data: bytes = generate_latest(self.registry)
        return data
