"""Fuzzing a real server: generated frames and mutated real client messages (invariant 7).

Each frame goes from a seated player's connection at a started table while a second table of
four people keeps playing on the same server (``fuzz_arena``). Every frame must be answered with
a typed error, a valid answer or a 1008/1009 close; never 1011 or ``internal``; a refused frame
leaves the table's stored state byte-for-byte as it was; the playing table's players keep
getting answers and events, numbered without a gap.

The bounded test runs in `make test` (derandomized, no example database: the same frames every
run). `make fuzz` runs the ``fuzz`` test for ``FUZZ_SECONDS`` (default 120) with fresh seeds.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import PROTOCOL_VERSION, encode
from protocol import client_messages as c
from protocol import ladder as ladder_messages
from protocol.codec import CLIENT_LIMITS
from server import logs
from tests.server.fuzz_arena import Arena

RANKS = "A234567JQK"
CARDS = [rank + suit for rank in RANKS for suit in "CDHS"]
FAKE_KEY = "not-a-real-key-0000"
CLIENT_TYPES = sorted(
    {
        "hello",
        "ping",
        "create",
        "join",
        "watch",
        "leave",
        "sit",
        "stand",
        "swap",
        "add_bot",
        "remove_bot",
        "kick",
        "lock",
        "set_options",
        "start",
        "misdeal",
        "rematch",
        "no_claim",
        "get_record",
        "play",
        "take_missed",
        "announce",
        "claim",
        "chat",
        "ladder_open",
        "ladder_play",
        "ladder_new",
        "ladder_name",
        "ladder_board",
    }
)
FUZZ_SECONDS = float(os.environ.get("FUZZ_SECONDS", "120"))
EXAMPLES = 150  # `make test`: about five seconds on a quiet 2-core machine
pytestmark = pytest.mark.filterwarnings(
    # The server's thread (websockets, the room's lease timer) uses the global `random` while
    # Hypothesis draws in this one; no strategy here does.
    "ignore:Do not use the `random` module inside strategies"
)

# ------------------------------------------------------------------------- strategies
ints = st.integers(min_value=-(2**63), max_value=2**64 - 1)  # all msgpack can carry
small_text = st.text(max_size=12)
garbage_text = st.one_of(
    st.text(max_size=40),
    st.text(st.characters(codec="utf-8"), min_size=250, max_size=600),  # past the bounds
    st.sampled_from(["\x00", "\u202e", "<script>", "x" * 300, "\ufeff", "🂡" * 90, ""]),
)
scalars = st.one_of(
    st.none(), st.booleans(), ints, st.floats(), garbage_text, st.binary(max_size=16)
)
junk: st.SearchStrategy[Any] = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=6),
        st.dictionaries(st.one_of(small_text, ints), inner, max_size=5),
    ),
    max_leaves=12,
)


def _nested(value: Any, depth: int) -> Any:
    for level in range(depth):
        value = [value] if level % 2 else {"k": value}
    return value


deep_junk = st.builds(_nested, scalars, st.integers(min_value=5, max_value=40))


def real_messages() -> st.SearchStrategy[c.ClientMessage | Any]:
    """Valid client messages as a client would send them (``protocol.client_messages``).

    Not ``leave`` or ``create`` unmutated: those would take the fuzzer off its seat, which is
    the fuzzer's choice of target, not a refusal. Mutations may still reach them.
    """
    card = st.sampled_from(CARDS)
    seat = st.integers(min_value=0, max_value=3)
    rid = st.integers(min_value=0, max_value=2**31 - 1)
    return st.one_of(
        st.builds(c.Ping, rid=rid),
        st.builds(c.Hello, rid=rid, version=st.just(PROTOCOL_VERSION), name=st.just("Fuzz")),
        st.builds(c.Join, rid=rid, key=st.just(FAKE_KEY), seat=st.none() | seat),
        st.builds(c.Watch, rid=rid, key=st.just(FAKE_KEY)),
        st.builds(c.Sit, rid=rid, seat=seat),
        st.builds(c.Stand, rid=rid),
        st.builds(c.Swap, rid=rid, seat=seat, other=seat),
        st.builds(c.AddBot, rid=rid, level=st.integers(1, 6), seat=st.none() | seat),
        st.builds(c.RemoveBot, rid=rid, seat=seat),
        st.builds(c.Kick, rid=rid, seat=seat),
        st.builds(c.Lock, rid=rid, locked=st.booleans()),
        st.builds(c.SetOptions, rid=rid),
        st.builds(c.Start, rid=rid),
        st.builds(c.RuleMisdeal, rid=rid),
        st.builds(c.Rematch, rid=rid),
        st.builds(c.NoClaim, rid=rid),
        st.builds(c.GetRecord, rid=rid),
        st.builds(
            c.Play,
            rid=rid,
            card=card,
            take=st.lists(card, max_size=4),
            at=st.none() | st.integers(0, 10**6),
        ),
        st.builds(c.TakeMissed, rid=rid),
        st.builds(c.Announce, rid=rid, call=st.sampled_from(["ronda", "cuarenta", "pass"])),
        st.builds(c.Claim, rid=rid, rank=st.sampled_from(list(RANKS))),
        st.builds(c.Chat, rid=rid, text=st.just("hola")),
        st.builds(ladder_messages.LadderPlay, rid=rid, token=st.just(FAKE_KEY)),
        st.builds(ladder_messages.LadderBoardRequest, rid=rid),
    )


@st.composite
def mutated_values(draw: st.DrawFn) -> dict[Any, Any]:
    """A real message's fields, then a few of: a field replaced by junk (wrong type, huge or
    negative number, unicode garbage, nested junk), removed, added, or the type swapped."""
    value: dict[Any, Any] = draw(real_messages()).model_dump(mode="json")
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        how = draw(st.sampled_from(["replace", "remove", "add", "retype", "deep"]))
        keys = sorted(value, key=str)
        if how == "replace" and keys:
            value[draw(st.sampled_from(keys))] = draw(junk)
        elif how == "remove" and keys:
            del value[draw(st.sampled_from(keys))]
        elif how == "add":
            value[draw(small_text)] = draw(junk)
        elif how == "retype":
            value["type"] = draw(st.sampled_from(CLIENT_TYPES) | junk)
        elif how == "deep" and keys:
            value[draw(st.sampled_from(keys))] = draw(deep_junk)
    return value


@st.composite
def byte_mutations(draw: st.DrawFn, frame: bytes) -> bytes:
    """Truncated, overwritten or extended bytes of a real frame."""
    how = draw(st.sampled_from(["truncate", "flip", "append", "repeat"]))
    if how == "truncate":
        return frame[: draw(st.integers(0, max(0, len(frame) - 1)))]
    if how == "flip":
        at = draw(st.integers(0, len(frame) - 1))
        return frame[:at] + bytes([draw(st.integers(0, 255))]) + frame[at + 1 :]
    if how == "append":
        return frame + draw(st.binary(min_size=1, max_size=8))
    return frame * draw(st.integers(2, 3))


def _rid_of(value: Any) -> int | None:
    """The rid the server can read back from a frame (as ``protocol.codec`` reads it)."""
    if not isinstance(value, dict):
        return None
    rid = value.get("rid", 0)  # a message without one has the default rid 0
    ok = isinstance(rid, int) and not isinstance(rid, bool) and 0 <= rid < 2**31
    return rid if ok else None


def _unpacked(frame: bytes) -> Any:
    try:
        return msgpack.unpackb(frame, raw=False, strict_map_key=False)
    except Exception:  # not one msgpack value: the server closes, there is no rid
        return None


def _packed(value: Any) -> tuple[bytes, int | None]:
    return msgpack.packb(value, use_bin_type=True), _rid_of(value)


@st.composite
def frames(draw: st.DrawFn) -> tuple[bytes | str, int | None]:
    """One frame and the rid an answer to it would carry (None: an error or a close)."""
    kind = draw(st.sampled_from(["real", *["mutated"] * 4, "bytes", "junk", "raw", "text", "big"]))
    if kind == "real":
        message = draw(real_messages())
        return encode(message), message.rid
    if kind == "mutated":
        return _packed(draw(mutated_values()))
    if kind == "bytes":
        frame, _ = _packed(draw(mutated_values()))
        mutated = draw(byte_mutations(frame))
        return mutated, _rid_of(_unpacked(mutated))  # a cut frame may still be a message
    if kind == "junk":
        return _packed(draw(junk))
    if kind == "raw":
        raw = draw(st.binary(max_size=64))
        return raw, _rid_of(_unpacked(raw))
    if kind == "text":
        return draw(st.text(max_size=64)), None
    size = CLIENT_LIMITS.max_frame_bytes + draw(st.integers(1, 4096))
    return b"\x80" * size, None


# ------------------------------------------------------------------------- the arena
@pytest.fixture(scope="module")
def arena() -> Iterator[Arena]:
    opened = Arena().open()
    yield opened
    events = opened.playing.events()
    opened.close()
    assert events > 0


def _fuzz(arena: Arena, examples: int, derandomize: bool) -> None:
    @settings(
        max_examples=examples,
        derandomize=derandomize,
        database=None,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
        print_blob=True,
    )
    @given(frames())
    def one_frame(drawn: tuple[bytes | str, int | None]) -> None:
        arena.check(*drawn)

    one_frame()


def _assert_playing_table_unharmed(arena: Arena, events_before: int, answers: int) -> None:
    playing = arena.playing
    assert all(session.problems == [] for session in playing.sessions), [
        session.problems for session in playing.sessions
    ]
    assert not any(task.done() for task in playing.tasks), "a playing seat stopped"
    assert playing.events() > events_before, "the playing table made no progress"
    assert playing.answers > answers, "the playing table's players got no answers"


def test_fuzzed_frames_get_a_typed_answer_and_hurt_no_table_r7(arena: Arena) -> None:
    events, answers = arena.playing.events(), arena.playing.answers
    _fuzz(arena, examples=EXAMPLES, derandomize=True)
    assert arena.tally.frames >= EXAMPLES
    # wait for the playing table to show it is alive (a condition, not a sleep)
    deadline = time.monotonic() + 30
    while arena.playing.events() <= events and time.monotonic() < deadline:
        time.sleep(0.05)
    _assert_playing_table_unharmed(arena, events, answers)


@pytest.mark.fuzz
@pytest.mark.timeout(FUZZ_SECONDS + 300)
def test_fuzz_for_minutes() -> None:
    """`make fuzz`: rounds of fresh random examples until ``FUZZ_SECONDS`` have passed."""
    logs.configure("json", "warning")  # -s shows the report, not every commit's debug line
    arena = Arena().open()
    try:
        _fuzz_until(arena, FUZZ_SECONDS)
    finally:
        arena.close()


def _fuzz_until(arena: Arena, seconds: float) -> None:
    events, answers = arena.playing.events(), arena.playing.answers
    started = time.monotonic()
    rss_start = _rss_kib()
    rounds = 0
    while time.monotonic() - started < seconds:
        _fuzz(arena, examples=500, derandomize=False)
        rounds += 1
        print(
            f"[{time.monotonic() - started:7.1f} s] {arena.tally.frames} frames, "
            f"RSS {_rss_kib() / 1024:.1f} MiB, playing table {arena.playing.games} games"
        )
    elapsed = time.monotonic() - started
    _assert_playing_table_unharmed(arena, events, answers)
    print(
        f"fuzz: {arena.tally.frames} frames in {elapsed:.0f} s "
        f"({arena.tally.frames / elapsed:.0f}/s), {rounds} rounds; playing table "
        f"{arena.playing.games} games, longest wait between its snapshots "
        f"{arena.playing.longest_gap_s:.2f} s; RSS {rss_start / 1024:.1f} -> "
        f"{_rss_kib() / 1024:.1f} MiB"
    )
    for outcome, count in arena.tally.outcomes.most_common():
        print(f"  {count:7d}  {outcome}")


def _rss_kib() -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0
