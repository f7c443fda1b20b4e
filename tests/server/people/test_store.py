"""One contract for the player stores: in memory and in a private real redis-server."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from protocol.errors import ErrorCode
from server.people.model import (
    GameSummary,
    Outcome,
    PlayerError,
    RequestsLimited,
    Seat,
    SettledGame,
    UnknownPlayer,
    key_digest,
)
from server.people.rating import NEWCOMER
from server.people.redis_store import RedisPlayerStore
from server.people.store import (
    HISTORY_CAP,
    MAX_WAITING,
    PLAYER_TTL_S,
    REQUESTS_PER_MINUTE,
    MemoryPlayerStore,
    PlayerStore,
)
from tests.redis_server import RedisServer

KEY = "k" * 43


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def store(request: pytest.FixtureRequest) -> AsyncIterator[PlayerStore]:
    if request.param == "memory":
        yield MemoryPlayerStore()
        return
    server: RedisServer = request.getfixturevalue("redis_server")
    client = Redis.from_url(server.url)
    try:
        yield RedisPlayerStore(client)
    finally:
        await client.aclose()


def summary(game: int, table: str = "T1", change: int | None = None) -> GameSummary:
    return GameSummary(
        finished_at=1_700_000_000.0 + game,
        profile="pagat-4p",
        table_id=table,
        game=game,
        partners=(Seat("Bot", bot_level=1),),
        opponents=(Seat("Beto", "beto-public-1"), Seat("Caro")),
        score=(40, 22),
        result="won",
        rating_change=change,
        casual=change is None,
    )


async def people(store: PlayerStore, *names: str) -> list[str]:
    return [(await store.enter(key_digest(name * 40), name, "es")).id for name in names]


async def test_a_key_comes_back_as_the_same_person_and_only_its_digest_is_kept(
    store: PlayerStore,
) -> None:
    first = await store.enter(key_digest(KEY), "Ana", "es")
    again = await store.enter(key_digest(KEY), "ignored", "en")
    assert again.id == first.id
    assert (again.name, again.language, again.first_seen) == ("Ana", "es", first.first_seen)
    assert again.last_seen >= first.last_seen
    assert first.key_digest == key_digest(KEY) != KEY
    assert KEY not in first.id
    assert await store.by_key(key_digest("x" * 43)) is None
    other = await store.enter(key_digest("x" * 43), "Beto", "pt")
    assert other.id != first.id


async def test_rename_and_language_change_the_person_and_not_another(store: PlayerStore) -> None:
    ana, beto = await people(store, "Ana", "Beto")
    await store.rename(ana, "Ana María")
    await store.set_language(ana, "en")
    got = await store.get(ana)
    assert got is not None
    assert (got.name, got.language) == ("Ana María", "en")
    assert (await store.get(beto)).name == "Beto"  # type: ignore[union-attr]
    with pytest.raises(UnknownPlayer):
        await store.rename("nobody-here", "X")


async def test_history_pages_newest_first_and_keeps_the_last_games(store: PlayerStore) -> None:
    (ana,) = await people(store, "Ana")
    for n in range(1, HISTORY_CAP + 6):
        await store.settle(SettledGame(f"T1#{n}", "pairs", False, (Outcome(ana, summary(n)),)))
    first = await store.history(ana, 0, 3)
    assert [game.game for game in first] == [HISTORY_CAP + 5, HISTORY_CAP + 4, HISTORY_CAP + 3]
    assert first[0] == summary(HISTORY_CAP + 5)  # kept whole: names, ids, bots, score
    second = await store.history(ana, 3, 3)
    assert [game.game for game in second] == [HISTORY_CAP + 2, HISTORY_CAP + 1, HISTORY_CAP]
    assert len(await store.history(ana, 0, 10_000)) == HISTORY_CAP
    assert await store.history(ana, HISTORY_CAP, 5) == []


async def test_a_game_settled_twice_counts_once_and_the_first_settling_stands(
    store: PlayerStore,
) -> None:
    (ana,) = await people(store, "Ana")
    first = SettledGame("T1#1", "pairs", True, (Outcome(ana, summary(1, change=20), 0.5, -0.2),))
    retry = SettledGame("T1#1", "pairs", True, (Outcome(ana, summary(1, change=99), 9.0, -1.0),))
    assert await store.settle(first) == first
    assert await store.settle(retry) == first
    rating = (await store.ratings([ana], "pairs"))[ana]
    assert rating.games == 1
    assert rating.mu == pytest.approx(NEWCOMER.mu + 0.5, abs=1e-12)
    assert rating.sigma == pytest.approx(NEWCOMER.sigma - 0.2, abs=1e-12)
    assert [game.rating_change for game in await store.history(ana, 0, 10)] == [20]
    assert (await store.ratings([ana], "duel"))[ana] == NEWCOMER
    assert await store.ratings(["nobody-here"], "pairs") == {}


async def test_friends_request_accept_remove(store: PlayerStore) -> None:
    ana, beto, caro = await people(store, "Ana", "Beto", "Caro")
    await store.request_friend(ana, beto)
    await store.request_friend(caro, beto)
    seen = await store.relations(beto)
    assert [ref.name for ref in seen.incoming] == ["Caro", "Ana"]  # newest first
    assert [ref.name for ref in (await store.relations(ana)).outgoing] == ["Beto"]
    await store.accept_friend(beto, ana)
    await store.refuse_friend(beto, caro)
    assert [ref.id for ref in (await store.relations(ana)).friends] == [beto]
    assert [ref.id for ref in (await store.relations(beto)).friends] == [ana]
    assert (await store.relations(beto)).incoming == ()
    assert (await store.relations(caro)).outgoing == ()
    with pytest.raises(PlayerError) as refused:
        await store.accept_friend(beto, caro)
    assert refused.value.code is ErrorCode.NOT_FOUND
    await store.remove_friend(ana, beto)
    assert (await store.relations(beto)).friends == ()
    with pytest.raises(UnknownPlayer):
        await store.request_friend(ana, "nobody-here")


async def test_asking_someone_who_asked_you_makes_you_friends(store: PlayerStore) -> None:
    ana, beto = await people(store, "Ana", "Beto")
    await store.request_friend(ana, beto)
    await store.request_friend(beto, ana)
    assert [ref.id for ref in (await store.relations(ana)).friends] == [beto]
    assert (await store.relations(ana)).outgoing == (await store.relations(beto)).incoming == ()


async def test_a_blocked_persons_requests_are_dropped_silently(store: PlayerStore) -> None:
    ana, beto = await people(store, "Ana", "Beto")
    await store.request_friend(ana, beto)
    await store.accept_friend(beto, ana)
    await store.block(beto, ana)
    assert (await store.relations(ana)).friends == ()
    await store.request_friend(ana, beto)
    assert [ref.id for ref in (await store.relations(ana)).outgoing] == [beto]  # as if waiting
    seen = await store.relations(beto)
    assert seen.incoming == ()
    assert [ref.id for ref in seen.blocked] == [ana]
    with pytest.raises(PlayerError) as refused:
        await store.request_friend(beto, ana)
    assert refused.value.code is ErrorCode.FORBIDDEN
    await store.unblock(beto, ana)
    assert (await store.relations(beto)).blocked == ()
    assert (await store.relations(ana)).outgoing == ()  # the dropped request stays dropped
    assert (await store.relations(beto)).incoming == ()


async def test_friend_requests_are_limited_a_minute_and_waiting(store: PlayerStore) -> None:
    names = [f"P{i:02}" for i in range(MAX_WAITING + 2)]
    ana, *others = await people(store, "Ana", *names)
    for other in others[:REQUESTS_PER_MINUTE]:
        await store.request_friend(ana, other)
    with pytest.raises(RequestsLimited) as limited:
        await store.request_friend(ana, others[REQUESTS_PER_MINUTE])
    assert limited.value.code is ErrorCode.RATE_LIMITED
    assert len((await store.relations(ana)).outgoing) == REQUESTS_PER_MINUTE


async def test_forget_removes_the_person_from_every_list(store: PlayerStore) -> None:
    ana, beto, caro = await people(store, "Ana", "Beto", "Caro")
    await store.request_friend(ana, beto)
    await store.accept_friend(beto, ana)
    await store.request_friend(ana, caro)
    await store.settle(SettledGame("T1#1", "pairs", False, (Outcome(ana, summary(1)),)))
    await store.forget(ana)
    assert await store.get(ana) is None
    assert await store.by_key(key_digest("Ana" * 40)) is None
    assert (await store.relations(beto)).friends == ()
    assert (await store.relations(caro)).incoming == ()
    assert await store.history(ana, 0, 10) == []
    again = await store.enter(key_digest("Ana" * 40), "Ana", "es")
    assert again.id != ana  # the key makes a new person: nothing of the old one is left


async def test_a_person_unseen_for_a_year_is_forgotten_in_memory() -> None:
    now = [1_000_000.0]
    store = MemoryPlayerStore(clock=lambda: now[0])
    ana, beto = await people(store, "Ana", "Beto")
    await store.request_friend(ana, beto)
    await store.accept_friend(beto, ana)
    now[0] += PLAYER_TTL_S - 10
    await store.enter(key_digest("Beto" * 40), "Beto", "es")  # Beto came back; Ana did not
    now[0] += 20
    assert await store.get(ana) is None
    assert await store.by_key(key_digest("Ana" * 40)) is None
    assert await store.get(beto) is not None
    assert (await store.relations(beto)).friends == ()


async def test_friend_requests_made_in_one_millisecond_list_newest_first(
    store: PlayerStore,
) -> None:
    """Requests come back newest first even when many share a clock tick (a Redis score tie
    once listed them by id instead)."""
    names = ["Dora", "Eva", "Fabi", "Gus", "Hugo", "Ines"]
    target, *askers = await people(store, "Beto", *names)
    for asker in askers:
        await store.request_friend(asker, target)
    seen = await store.relations(target)
    assert [ref.name for ref in seen.incoming] == names[::-1]
