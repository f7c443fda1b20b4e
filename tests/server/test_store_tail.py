"""A table stored as a snapshot plus a tail of deltas loads as the whole state did.

Random games (all-bot tables and tables with people who play, leave, come back and let their
clocks run out; rematches) are committed move by move as the room commits them
(``Referee.stored_form``). Cut at random moves, the store's ``load`` (snapshot and tail joined)
must equal the whole state the referee writes at that move (``to_state``: what every commit
stored before), and the table rebuilt from it must be the table rebuilt from the whole state,
on the memory store and on a real Redis. The finished game's record is rebuilt exactly (R15):
the actions replayed from the deal seed give the same game.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from protocol import client_messages as c
from server.bots import decide
from server.config import Settings
from server.core.commands import Resume
from server.core.outcome import Outcome
from server.core.referee import Referee
from server.core.storage import SNAPSHOT_EVERY
from server.errors import Refused
from server.store import MemoryStore, Store
from server.store.base import joined
from tests.redis_server import RedisServer
from tests.server.core.drive import attach, bot_act, bots_due, detach, handle, tick

T0 = 1_000_000.0
CONFIG = Settings(grace_s=60, claim_window_s=15, bot_delay_s=0.0, away_turn_s=5).referee_config()
#: "chat" and "lock" change the head's rarely changing fields mid-game (a delta then carries them)
STEPS = ("bots", "bots", "all", "play", "play", "leave", "back", "wait", "chat", "lock")


@dataclass
class Commit:
    form: bytes
    delta: bool
    entries: list[bytes]
    whole: bytes  # the whole state at this move: what a commit stored before


@dataclass
class Game:
    ref: Referee
    people: int
    created: bytes  # the state the table is created with
    now: float = T0
    away: set[int] = field(default_factory=set)
    commits: list[Commit] = field(default_factory=list)
    rid: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def run(self, out: Outcome) -> None:
        if out.dirty:
            form, delta = self.ref.stored_form()
            self.commits.append(Commit(form, delta, list(out.entries), self.ref.to_state()))


def new_game(seed: int, people: int, turn_timer: int) -> Game:
    seeds = itertools.count(seed)
    ref = Referee.create("pagat-4p", {}, turn_timer, CONFIG, seeds=lambda: next(seeds))  # type: ignore[arg-type]
    game = Game(ref, people, ref.to_state())
    game.run(attach(ref, "host", "Host", c.Watch(key=ref.table.keys["host"]), "host", T0))
    for seat in range(people):
        join = c.Join(key=ref.table.keys["join"], seat=seat)
        game.run(attach(ref, f"p{seat}", f"P{seat}", join, "join", T0))
    for _ in range(4 - people):
        game.run(handle(ref, "host", c.AddBot(level=1), T0))
    game.run(handle(ref, "host", c.Start(), T0))
    return game


def step(game: Game, kind: str, pick: int) -> None:
    """One command of ``kind`` (skipped when it does not apply now)."""
    ref, now = game.ref, game.now
    here = [seat for seat in range(game.people) if seat not in game.away]
    if kind in ("bots", "all"):  # a few bot moves, or all until a person's turn or the end
        for _ in range(1 + pick % 40 if kind == "bots" else 1_000):
            requests = bots_due(ref, now)
            for request in requests:
                action = decide(request.level, request.view, request.legal, request.seed, 1.0)
                game.run(bot_act(ref, request, action, now))
            if not requests:
                break
    elif kind == "play" and here:
        conn = f"p{here[pick % len(here)]}"
        legal = ref.snapshot(ref.table.viewers[conn]).legal
        if legal:
            chosen = legal[pick % len(legal)].model_copy(update={"at": ref.table.last_event})
            game.run(handle(ref, conn, chosen, now))
    elif kind == "leave" and here:
        seat = here[pick % len(here)]
        game.away.add(seat)
        game.run(detach(ref, f"p{seat}", now))
    elif kind == "back" and game.away:
        seat = sorted(game.away)[pick % len(game.away)]
        token = ref.table.seats[seat].token
        if token is not None and ref.table.seats[seat].occupant == "person":
            game.away.discard(seat)
            resume = Resume(f"p{seat}", f"P{seat}", token, None, next(game.rid))
            game.run(ref.apply(resume, now))
    elif kind == "wait":
        game.now += pick % 40
        game.run(tick(ref, game.now))
    elif kind == "chat":
        speaker = f"p{here[pick % len(here)]}" if here else "host"
        with contextlib.suppress(Refused):  # a burst past the chat limit: nothing changes
            game.run(handle(ref, speaker, c.Chat(text=f"line {pick}"), now))
    elif kind == "lock":
        game.run(handle(ref, "host", c.Lock(locked=pick % 2 == 0), now))
    if (
        ref.table.stage == "finished" and pick % 3 == 0
    ):  # another game: the people's votes, or the host
        votes = [(f"p{seat}", c.Rematch()) for seat in here] + [("host", c.Start())]
        for conn, vote in votes:
            if ref.table.stage == "finished":
                with contextlib.suppress(Refused):  # a seat that is not there to vote
                    game.run(handle(ref, conn, vote, now))


games = st.builds(
    lambda seed, people, timer, steps: (seed, people, timer, steps),
    st.integers(1, 10_000),
    st.integers(0, 2),
    st.sampled_from([0, 15]),
    st.lists(st.tuples(st.sampled_from(STEPS), st.integers(0, 1_000)), min_size=20, max_size=150),
)


def played(seed: int, people: int, timer: int, steps: list[tuple[str, int]]) -> Game:
    game = new_game(seed, people, timer)
    for kind, pick in steps:
        step(game, kind, pick)
    return game


def same_table(loaded: bytes, whole: bytes, log: list[bytes]) -> None:
    """Both rebuild the same table, its game replayed from the deal seed (R15)."""
    a = Referee.from_state(loaded, log, CONFIG, T0)
    b = Referee.from_state(whole, log, CONFIG, T0)
    assert json.loads(a.to_state()) == json.loads(b.to_state())
    assert (a.table.game and a.table.game.actions) == (b.table.game and b.table.game.actions)


async def check(store: Store, game: Game, cuts: list[float]) -> None:
    """Commit the game's forms one by one, loading after each: the joined state must be the
    whole state; at the cuts (fractions of the game) the table is rebuilt from both."""
    ref = game.ref
    await store.create_table(ref.table_id, game.created, {})
    rebuilt = {int(cut * len(game.commits)) + 1 for cut in cuts} | {len(game.commits)}
    log: list[bytes] = []
    for n, commit in enumerate(game.commits, 1):
        stored = await store.commit(
            ref.table_id, n - 1, commit.form, commit.entries, delta=commit.delta
        )
        log += commit.entries
        assert stored.version == n
        loaded = await store.load(ref.table_id)
        assert loaded is not None
        assert (loaded.version, loaded.last_event) == (n, len(log))
        assert json.loads(loaded.state) == json.loads(commit.whole)
        if n in rebuilt:
            same_table(loaded.state, commit.whole, log)


def test_forms_are_mostly_deltas_with_a_snapshot_every_few_commits_and_each_game() -> None:
    game = played(3, 0, 0, [("bots", 0)] * 400)
    deltas = [commit.delta for commit in game.commits]
    longest = max(len(list(run)) for is_delta, run in itertools.groupby(deltas) if is_delta)
    assert longest == SNAPSHOT_EVERY - 1
    assert deltas.count(True) > 0.9 * len(deltas) - 8  # a few snapshots in the lobby
    finished = [c for c in game.commits if json.loads(c.whole)["finished_record"] is not None]
    assert finished, "the game reached its end"
    assert not finished[0].delta, "a game's end is a snapshot"
    state, tail = game.commits[0].form, list[bytes]()
    # the joined forms are the whole state, with no store in between
    for n in range(1, len(game.commits)):
        form = game.commits[n]
        state, tail = (form.form, []) if not form.delta else (state, [*tail, form.form])
        assert json.loads(joined(state, tail)) == json.loads(form.whole)


def test_a_delta_is_a_small_part_of_the_whole_state() -> None:
    game = played(5, 0, 0, [("bots", 0)] * 400)
    deltas = [len(c.form) for c in game.commits if c.delta]
    wholes = [len(c.whole) for c in game.commits if c.delta]
    assert sum(deltas) / len(deltas) < 300
    assert sum(deltas) * 10 < sum(wholes)


@settings(max_examples=15, deadline=None)
@given(game=games, cuts=st.lists(st.floats(0, 1, exclude_max=True), max_size=6))
def test_memory_loads_snapshot_plus_tail_as_the_whole_state(
    game: tuple[int, int, int, list[tuple[str, int]]], cuts: list[float]
) -> None:
    asyncio.run(check(MemoryStore(), played(*game), cuts))


@pytest.mark.redis
@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(game=games, cuts=st.lists(st.floats(0, 1, exclude_max=True), max_size=4))
def test_redis_loads_snapshot_plus_tail_as_the_whole_state(
    redis_server: RedisServer, game: tuple[int, int, int, list[tuple[str, int]]], cuts: list[float]
) -> None:
    from server.store.redis import open_store

    async def on_redis() -> None:
        store = await open_store(redis_server.url)
        try:
            await check(store, played(*game), cuts)
        finally:
            await store.close()

    asyncio.run(on_redis())
