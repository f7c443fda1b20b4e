"""The per-command metrics, counted as plain integers, read on ``/metrics`` as Prometheus's.

An operator's dashboards read ``cuarenta_commands_total`` and the latency histogram: folding
the counts only when the page is read must give what Prometheus's own counter and histogram
would (cumulative buckets, an upper bound counting what equals it, ``_count`` and ``_sum``).
"""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from server.metrics import Metrics


def samples(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    text = metrics.render().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def test_commands_are_counted_by_type_and_outcome() -> None:
    metrics = Metrics()
    for _ in range(3):
        metrics.command("play", "ok")
    metrics.command("play", "refused")
    got = samples(metrics)
    assert got[("cuarenta_commands_total", (("outcome", "ok"), ("type", "play")))] == 3
    assert got[("cuarenta_commands_total", (("outcome", "refused"), ("type", "play")))] == 1


def test_latency_buckets_are_cumulative_and_a_bound_counts_what_equals_it() -> None:
    metrics = Metrics()
    for seconds in (0.0002, 0.001, 0.003, 2.0):
        metrics.command_latency(seconds)
    got = samples(metrics)

    def bucket(le: str) -> float:
        return got[("cuarenta_command_latency_seconds_bucket", (("le", le),))]

    assert bucket("0.0005") == 1
    assert bucket("0.001") == 2  # 0.001 itself is within its bound
    assert bucket("0.005") == 3
    assert bucket("1.0") == 3
    assert bucket("+Inf") == 4
    assert got[("cuarenta_command_latency_seconds_count", ())] == 4
    assert abs(got[("cuarenta_command_latency_seconds_sum", ())] - 2.0042) < 1e-9


def test_each_server_counts_its_own() -> None:
    first, second = Metrics(), Metrics()
    first.command("ping", "ok")
    assert ("cuarenta_commands_total", (("outcome", "ok"), ("type", "ping"))) not in samples(second)
