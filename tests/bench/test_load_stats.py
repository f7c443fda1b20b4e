"""The arithmetic behind `cuarenta bench server`'s figures: percentiles, ratios, rounds.

Fast and unmarked (it runs in `make test`): a benchmark whose p99 or ratio were computed wrong
would report a server as meeting its targets when it does not.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bench.load.errors import StatsError
from bench.load.stats import Latency, merged, per_unit, percentile, rate, ratio
from bench.load.tables import Recorder, TableLoad, greedy
from bench.server import parse_ramp


def test_p99_of_one_to_a_thousand_is_the_990th_value() -> None:
    assert percentile(list(range(1, 1001)), 99) == 990


def test_p99_is_a_value_a_delivery_really_had_never_an_interpolation() -> None:
    assert percentile([0.010, 0.020], 99) == 0.020
    assert percentile([0.010, 0.020], 50) == 0.010


def test_p99_of_fewer_than_a_hundred_samples_is_their_maximum() -> None:
    samples = [float(x) for x in range(99)]
    assert percentile(samples, 99) == 98.0


@settings(max_examples=60)
@given(st.lists(st.floats(0, 10, allow_nan=False), min_size=1, max_size=300))
def test_at_least_99_percent_of_samples_are_at_or_below_the_p99(samples: list[float]) -> None:
    p99 = percentile(samples, 99)
    assert p99 in samples
    assert sum(1 for x in samples if x <= p99) >= 0.99 * len(samples)
    assert sum(1 for x in samples if x < p99) < 0.99 * len(samples)


def test_percentiles_of_several_load_processes_are_taken_over_all_samples_together() -> None:
    fast, slow = [0.001] * 98, [0.100, 0.100]
    assert percentile(merged([fast, slow]), 99) == 0.100  # not an average of two p99s


def test_a_percentile_of_nothing_or_outside_0_100_is_refused() -> None:
    with pytest.raises(StatsError, match="no samples"):
        percentile([], 99)
    with pytest.raises(StatsError, match="outside"):
        percentile([1.0], 0)


def test_latency_summary_is_in_milliseconds() -> None:
    summary = Latency.of_seconds([0.001 * n for n in range(1, 101)])
    assert summary.count == 100
    assert summary.p50_ms == pytest.approx(50.0)
    assert summary.p99_ms == pytest.approx(99.0)
    assert summary.max_ms == pytest.approx(100.0)
    assert Latency.of_seconds([]) == Latency(0, 0.0, 0.0, 0.0)


def test_ratio_to_the_floor_puts_the_floor_in_the_denominator() -> None:
    assert ratio(1000, 3000) == pytest.approx(1 / 3)
    assert ratio(500, 250) == 2.0
    with pytest.raises(StatsError, match="floor"):
        ratio(10, 0)


def test_rates_and_memory_per_unit() -> None:
    assert rate(600, 6.0) == 100.0
    assert per_unit(10_000_000, 10_000_000 + 13 * 1024 * 8000, 8000) == 13 * 1024
    with pytest.raises(StatsError):
        rate(1, 0)
    with pytest.raises(StatsError):
        per_unit(0, 1, 0)


def test_a_round_counts_once_all_four_seats_have_it_and_each_copy_is_one_latency() -> None:
    recorder = Recorder()
    recorder.open_window(0.0, float("inf"))
    table = TableLoad(0, recorder)
    sent: list[tuple[int, int]] = []
    table.start(0.0, 0.0)
    table.turn(1, 8, lambda seat, at: sent.append((seat, at)))
    assert sent == [(1, 8)]
    table.turn(1, 8, lambda seat, at: sent.append((seat, at)))  # the same position: once only
    assert sent == [(1, 8)]
    sent_at = table.pending[8][0]
    for seat in range(3):
        table.delivered(seat, 9, sent_at + 0.005)
    assert recorder.rounds == 0
    assert len(recorder.latencies) == 3
    table.delivered(3, 9, sent_at + 0.005)
    table.delivered(3, 9, sent_at + 0.009)  # a second snapshot of the same position: no credit
    assert recorder.rounds == 1
    assert list(recorder.latencies) == pytest.approx([0.005] * 4)
    assert table.pending == {}


def test_ramp_steps_must_ascend() -> None:
    assert parse_ramp("500,1000,2000") == [500, 1000, 2000]
    with pytest.raises(StatsError, match="ascending"):
        parse_ramp("1000,500")
    with pytest.raises(StatsError, match="table counts"):
        parse_ramp("lots")


def test_load_seats_capture_the_most_cards_they_legally_can_r7() -> None:
    legal = [
        {"type": "play", "card": "2C", "take": []},
        {"type": "play", "card": "5D", "take": ["5H"]},
        {"type": "play", "card": "6S", "take": ["2D", "4H", "7C"]},
        {"type": "play", "card": "6H", "take": ["2D", "4H", "7C"]},
    ]
    assert greedy(legal) == legal[2]
    assert greedy([{"type": "announce", "call": "pass"}]) == {"type": "announce", "call": "pass"}
