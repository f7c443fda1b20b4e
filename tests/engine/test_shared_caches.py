"""The engine's process-wide capture cache is bounded small: a server playing game after game
for days must not grow towards hundreds of MiB (the soak; R7 plays)."""

from __future__ import annotations

import itertools
import tracemalloc

from engine import legal

MAX_CACHE_MIB = 32


def test_the_shared_capture_plays_stay_within_a_few_tens_of_mib() -> None:
    for plays in legal._CAPTURE_PLAYS:
        plays.clear()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        seat, card = 1, 6  # a 7 (R2) capturing sums of the cards on the table (R7)
        masks = (sum(1 << c for c in combo) for combo in itertools.combinations(range(40), 3))
        for mask in itertools.islice(masks, 4 * legal._CAPTURE_PLAYS_LIMIT):
            legal._play(seat, card, mask)
        one_dict = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
        for plays in legal._CAPTURE_PLAYS:
            plays.clear()
    assert max(len(plays) for plays in legal._CAPTURE_PLAYS) <= legal._CAPTURE_PLAYS_LIMIT
    # one full dict, times every (seat, card) dict: the ceiling of the whole cache
    ceiling = one_dict * len(legal._CAPTURE_PLAYS)
    assert ceiling < MAX_CACHE_MIB * 2**20, f"{ceiling / 2**20:.0f} MiB"
