"""Where players live: the ``PlayerStore`` protocol and the in-memory store.

The contract both stores keep (``tests/server/people/test_store.py`` runs it on each):

- ``enter`` finds a person by their key's digest or makes them (a new public id), and counts
  the visit; a key is never stored, only its digest.
- A person unseen for ``PLAYER_TTL_S`` (a year) is forgotten with everything they own.
- ``settle`` applies a finished game once per person however often it is retried: the first
  settling of a game id stands, and each person's rating and history take it once.
- History is newest first and keeps the last ``HISTORY_CAP`` games.
- Friend requests: at most ``MAX_WAITING`` unanswered, ``REQUESTS_PER_MINUTE`` sent a minute
  (``RequestsLimited``). A request to someone who blocked the sender is dropped silently: the
  sender sees it waiting, the other never sees it.
- ``forget`` deletes the person, their lists, their key's index entry and their board places,
  and takes them out of their friends' and requesters' lists. Other people's histories keep the
  name they played under, as the games' records do.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

from protocol.errors import ErrorCode
from protocol.players import Language, ProfileClass
from server.people.model import (
    BoardEntry,
    GameSummary,
    Player,
    PlayerError,
    PlayerRef,
    Rating,
    Relations,
    RequestsLimited,
    SettledGame,
    UnknownPlayer,
    new_public_id,
)
from server.people.rating import BOARD_MIN_GAMES, NEWCOMER

PLAYER_TTL_S = 365 * 24 * 3600.0
HISTORY_CAP = 200
SETTLED_CAP = 64  # game ids remembered per person against a retried finish
SETTLED_TTL_S = 7 * 24 * 3600.0  # how long a game's first settling stands
MAX_WAITING = 20
REQUESTS_PER_MINUTE = 10
SWEEP_S = 60.0


@runtime_checkable
class PlayerStore(Protocol):
    """People, their games, friends and ratings; every method is a coroutine."""

    async def enter(self, key_digest: str, name: str, language: Language) -> Player:
        """The person whose key has this digest (made now if new: ``name``, ``language``);
        their last visit is now and their expiry starts again."""
        ...

    async def by_key(self, key_digest: str) -> Player | None: ...

    async def get(self, player_id: str) -> Player | None: ...

    async def rename(self, player_id: str, name: str) -> Player:
        """Raise ``UnknownPlayer`` for an id not stored (likewise every change below)."""
        ...

    async def set_language(self, player_id: str, language: Language) -> Player: ...

    async def history(self, player_id: str, skip: int, count: int) -> list[GameSummary]:
        """``count`` finished games after the newest ``skip``, newest first."""
        ...

    async def record_accuracy(self, player_id: str, game_id: str, accuracy: float) -> None:
        """Note the review's accuracy of the person's play in a game of their history (a
        person not stored: nothing; a game not in their history: never shown)."""
        ...

    async def ratings(self, player_ids: Sequence[str], cls: ProfileClass) -> dict[str, Rating]:
        """The stored people's ratings in ``cls`` (a newcomer's for those never rated)."""
        ...

    async def settle(self, game: SettledGame) -> SettledGame:
        """Apply ``game`` to each person once; if a game with its id was settled before, that
        one is applied instead (to whoever has not taken it yet) and returned."""
        ...

    async def board(self, cls: ProfileClass, size: int) -> list[BoardEntry]:
        """The highest ratings of people with ``BOARD_MIN_GAMES`` rated games, best first."""
        ...

    async def request_friend(self, player_id: str, other_id: str) -> None: ...

    async def accept_friend(self, player_id: str, other_id: str) -> None: ...

    async def refuse_friend(self, player_id: str, other_id: str) -> None: ...

    async def remove_friend(self, player_id: str, other_id: str) -> None:
        """End a friendship and withdraw any request between the two."""
        ...

    async def block(self, player_id: str, other_id: str) -> None: ...

    async def unblock(self, player_id: str, other_id: str) -> None: ...

    async def relations(self, player_id: str) -> Relations: ...

    async def forget(self, player_id: str) -> None: ...

    async def close(self) -> None: ...


@dataclass(slots=True)
class _Person:
    player: Player
    history: deque[GameSummary] = field(default_factory=lambda: deque(maxlen=HISTORY_CAP))
    settled: dict[str, None] = field(default_factory=dict)  # insertion-ordered game ids
    accuracy: dict[str, float] = field(default_factory=dict)  # game id -> the review's figure
    friends: set[str] = field(default_factory=set)
    asked: dict[str, float] = field(default_factory=dict)  # id -> when (requests sent)
    askers: dict[str, float] = field(default_factory=dict)  # id -> when (requests received)
    blocked: set[str] = field(default_factory=set)
    sent_at: deque[float] = field(default_factory=deque)  # requests sent in the last minute


class MemoryPlayerStore:
    """Players in dictionaries, for one process. Each method runs without awaiting, so every
    change is atomic on one event loop; unseen people are swept once a minute."""

    def __init__(self, clock: Callable[[], float] = time.time, ttl_s: float = PLAYER_TTL_S) -> None:
        self._people: dict[str, _Person] = {}
        self._keys: dict[str, str] = {}  # key digest -> public id
        self._settled: dict[str, tuple[SettledGame, float]] = {}
        self._clock = clock
        self._ttl_s = ttl_s
        self._next_sweep = clock() + SWEEP_S

    def _sweep(self) -> None:
        now = self._clock()
        if now < self._next_sweep:
            return
        self._next_sweep = now + SWEEP_S
        for player_id in list(self._people):
            self._find(player_id)
        self._settled = {gid: kept for gid, kept in self._settled.items() if kept[1] > now}

    def _find(self, player_id: str) -> _Person | None:
        """The person, unless unseen for the expiry time (then they are forgotten now)."""
        person = self._people.get(player_id)
        if person is not None and person.player.last_seen + self._ttl_s <= self._clock():
            self._drop(person)
            return None
        return person

    def _person(self, player_id: str) -> _Person:
        person = self._find(player_id)
        if person is None:
            raise UnknownPlayer()
        return person

    async def enter(self, key_digest: str, name: str, language: Language) -> Player:
        self._sweep()
        now = self._clock()
        known = self._keys.get(key_digest)
        person = None if known is None else self._find(known)
        if person is None:
            player = Player(new_public_id(), key_digest, name, language, now, now)
            person = _Person(player)
            self._people[player.id] = person
            self._keys[key_digest] = player.id
        person.player = replace(person.player, last_seen=now)
        return person.player

    async def by_key(self, key_digest: str) -> Player | None:
        known = self._keys.get(key_digest)
        person = None if known is None else self._find(known)
        return None if person is None else person.player

    async def get(self, player_id: str) -> Player | None:
        person = self._find(player_id)
        return None if person is None else person.player

    async def rename(self, player_id: str, name: str) -> Player:
        person = self._person(player_id)
        person.player = replace(person.player, name=name)
        return person.player

    async def set_language(self, player_id: str, language: Language) -> Player:
        person = self._person(player_id)
        person.player = replace(person.player, language=language)
        return person.player

    async def history(self, player_id: str, skip: int, count: int) -> list[GameSummary]:
        person = self._find(player_id)
        if person is None:
            return []
        page = list(person.history)[skip : skip + count]
        return [replace(game, accuracy=person.accuracy.get(game.game_id)) for game in page]

    async def record_accuracy(self, player_id: str, game_id: str, accuracy: float) -> None:
        person = self._find(player_id)
        if person is None:
            return
        person.accuracy[game_id] = accuracy
        if len(person.accuracy) > 2 * HISTORY_CAP:  # games gone from the history go too
            shown = {game.game_id for game in person.history}
            person.accuracy = {gid: a for gid, a in person.accuracy.items() if gid in shown}

    async def ratings(self, player_ids: Sequence[str], cls: ProfileClass) -> dict[str, Rating]:
        found = {player_id: self._find(player_id) for player_id in player_ids}
        return {
            player_id: person.player.ratings.get(cls, NEWCOMER)
            for player_id, person in found.items()
            if person is not None
        }

    async def settle(self, game: SettledGame) -> SettledGame:
        self._sweep()
        kept = self._settled.get(game.game_id)
        if kept is None or kept[1] <= self._clock():
            kept = (game, self._clock() + SETTLED_TTL_S)
            self._settled[game.game_id] = kept
        game = kept[0]
        for outcome in game.outcomes:
            person = self._find(outcome.player_id)
            if person is None or game.game_id in person.settled:
                continue
            person.settled[game.game_id] = None
            while len(person.settled) > SETTLED_CAP:
                del person.settled[next(iter(person.settled))]
            person.history.appendleft(outcome.summary)
            if game.rated:
                was = person.player.ratings.get(game.profile_class, NEWCOMER)
                now = Rating(
                    was.mu + outcome.mu_change, was.sigma + outcome.sigma_change, was.games + 1
                )
                ratings = {**person.player.ratings, game.profile_class: now}
                person.player = replace(person.player, ratings=ratings)
        return game

    async def board(self, cls: ProfileClass, size: int) -> list[BoardEntry]:
        entries = [
            BoardEntry(PlayerRef(person.player.id, person.player.name), rating)
            for player_id in list(self._people)
            if (person := self._find(player_id)) is not None
            and (rating := person.player.ratings.get(cls)) is not None
            and rating.games >= BOARD_MIN_GAMES
        ]
        entries.sort(key=lambda entry: (-entry.rating.mu, -entry.rating.games))
        return entries[:size]

    async def request_friend(self, player_id: str, other_id: str) -> None:
        me, other = self._pair(player_id, other_id)
        if other_id in me.blocked:
            raise PlayerError(ErrorCode.FORBIDDEN, "you blocked this player: unblock them first")
        if other_id in me.friends or other_id in me.asked:
            return
        if other_id in me.askers:  # they asked first: the two are friends now
            await self.accept_friend(player_id, other_id)
            return
        now = self._clock()
        while me.sent_at and me.sent_at[0] <= now - 60:
            me.sent_at.popleft()
        check_request_limits(len(me.asked), len(me.sent_at))
        me.sent_at.append(now)
        me.asked[other_id] = now
        if player_id not in other.blocked:  # else dropped silently: only the sender sees it
            other.askers[player_id] = now

    async def accept_friend(self, player_id: str, other_id: str) -> None:
        me, other = self._pair(player_id, other_id)
        if other_id not in me.askers:
            raise PlayerError(ErrorCode.NOT_FOUND, "no friend request from this player")
        self._unlink(me, other)
        me.friends.add(other_id)
        other.friends.add(player_id)

    async def refuse_friend(self, player_id: str, other_id: str) -> None:
        me, other = self._pair(player_id, other_id)
        me.askers.pop(other_id, None)
        other.asked.pop(player_id, None)

    async def remove_friend(self, player_id: str, other_id: str) -> None:
        me, other = self._pair(player_id, other_id)
        self._unlink(me, other)

    async def block(self, player_id: str, other_id: str) -> None:
        me, other = self._pair(player_id, other_id)
        self._unlink(me, other)
        me.blocked.add(other_id)

    async def unblock(self, player_id: str, other_id: str) -> None:
        """Unblock; a request they sent while blocked stays dropped (it leaves their list)."""
        self._person(player_id).blocked.discard(other_id)
        other = self._find(other_id)
        if other is not None:
            other.asked.pop(player_id, None)

    async def relations(self, player_id: str) -> Relations:
        me = self._person(player_id)
        return Relations(
            friends=tuple(sorted(self._refs(me.friends), key=lambda ref: ref.name.casefold())),
            incoming=self._refs(tuple(reversed(me.askers))),  # kept in the order they came
            outgoing=self._refs(tuple(reversed(me.asked))),
            blocked=self._refs(me.blocked),
        )

    async def forget(self, player_id: str) -> None:
        person = self._people.get(player_id)
        if person is not None:
            self._drop(person)

    async def close(self) -> None:
        return None

    def _pair(self, player_id: str, other_id: str) -> tuple[_Person, _Person]:
        if player_id == other_id:
            raise PlayerError(ErrorCode.INVALID_MESSAGE, "that is your own id")
        return self._person(player_id), self._person(other_id)

    @staticmethod
    def _unlink(me: _Person, other: _Person) -> None:
        """No friendship and no request left between the two, either way."""
        me_id, other_id = me.player.id, other.player.id
        me.friends.discard(other_id)
        other.friends.discard(me_id)
        for a, b_id in ((me, other_id), (other, me_id)):
            a.asked.pop(b_id, None)
            a.askers.pop(b_id, None)

    def _refs(self, ids: Sequence[str] | set[str]) -> tuple[PlayerRef, ...]:
        found = [self._find(player_id) for player_id in ids]
        return tuple(PlayerRef(p.player.id, p.player.name) for p in found if p is not None)

    def _drop(self, person: _Person) -> None:
        player_id = person.player.id
        self._people.pop(player_id, None)
        self._keys.pop(person.player.key_digest, None)
        linked = person.friends | set(person.asked) | set(person.askers) | person.blocked
        for other_id in linked:  # the blocked: their dropped requests name this person
            other = self._people.get(other_id)
            if other is not None:
                other.friends.discard(player_id)
                other.asked.pop(player_id, None)
                other.askers.pop(player_id, None)


def check_request_limits(waiting: int, last_minute: int) -> None:
    """Refuse a friend request past either flood limit (``RequestsLimited``)."""
    if waiting >= MAX_WAITING:
        raise RequestsLimited(f"{MAX_WAITING} requests are waiting for an answer already")
    if last_minute >= REQUESTS_PER_MINUTE:
        raise RequestsLimited(f"at most {REQUESTS_PER_MINUTE} a minute")
