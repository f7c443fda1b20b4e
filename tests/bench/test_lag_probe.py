"""The server bench's probe: loop lag and the collector's pauses, read back from its lines."""

from __future__ import annotations

import gc

from bench.load.lag import GcPauses, parse_gc, parse_line


def test_a_full_collection_is_recorded_with_its_generation_and_taken_once() -> None:
    pauses = GcPauses()
    gc.callbacks.append(pauses)
    try:
        gc.collect(2)
    finally:
        gc.callbacks.remove(pauses)
    taken = pauses.take()
    assert [generation for _, generation, _ in taken] == [2]
    assert taken[0][2] >= 0.0
    assert pauses.take() == []


def test_probe_lines_are_told_apart_from_the_servers_own() -> None:
    assert parse_line("lag [[12.5,0.001]]\n") == [(12.5, 0.001)]
    assert parse_gc("lag [[12.5,0.001]]\n") == []
    assert parse_gc("gc [[12.5,2,0.03],[13.0,0,0.0005]]\n") == [(12.5, 2, 0.03), (13.0, 0, 0.0005)]
    # a gc line is a probe line (the bench skips it while it waits for the listening line)
    assert parse_line("gc [[12.5,2,0.03]]\n") == []
    assert parse_line("listening on http://127.0.0.1:8000/\n") is None
