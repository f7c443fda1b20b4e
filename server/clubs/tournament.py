"""A club night's competition, as values: pairs, matches, rounds; shared by every format.

A **pair** is two members, or one member and a bot of a chosen level, or (the **house pair**,
``HOUSE``) two bots: a pair left without an opponent plays the house pair rather than sit out,
so nobody is handed points they did not play for. A **match** is one game between two pairs at
one table; its result is the final score (R15), or a **walkover** when a pair withdrew before
playing it. A **round** is the matches played at the same time; the next round is paired only
once every match of the last one is done.

Every value is frozen and has ``to_dict``/``from_dict`` (plain JSON types), so a night can be
kept in the store; every change is a pure function returning a new value.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

HOUSE = "house"
"""The house pair's id: two bots, never ranked; it plays whoever would otherwise sit out."""


class TournamentError(ValueError):
    """A change the night's rules refuse (an unknown pair, a round not done, a bad score)."""


@dataclass(frozen=True, slots=True)
class Pair:
    """An entrant: ``members`` (one or two people) and a bot of ``bot_level`` for a free place.

    ``joined`` is the first round it may be paired in (a late arrival: the next round, with zero
    points); ``withdrawn`` the last round it played (None while it plays on).
    """

    id: str
    members: tuple[str, ...]
    bot_level: int | None = None
    joined: int = 1
    withdrawn: int | None = None

    def __post_init__(self) -> None:
        if self.id == HOUSE or not self.id:
            raise TournamentError(f"pair id {self.id!r} is reserved or empty")
        if len(self.members) > 2 or (len(self.members) < 2 and self.bot_level is None):
            raise TournamentError(f"pair {self.id}: two members, or fewer and a bot level")

    def active_in(self, round_no: int) -> bool:
        """True if the pair is paired in round ``round_no``."""
        return self.joined <= round_no and (self.withdrawn is None or round_no <= self.withdrawn)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "members": list(self.members),
            "bot_level": self.bot_level,
            "joined": self.joined,
            "withdrawn": self.withdrawn,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Pair:
        return cls(
            data["id"], tuple(data["members"]), data["bot_level"], data["joined"], data["withdrawn"]
        )


@dataclass(frozen=True, slots=True)
class Match:
    """Pair ``a`` against pair ``b`` (``HOUSE`` for the house pair) at table ``table``."""

    table: int
    a: str
    b: str
    score_a: int | None = None
    score_b: int | None = None
    forfeit: str | None = None  # the pair that withdrew before playing it: a walkover

    @property
    def done(self) -> bool:
        return self.forfeit is not None or self.score_a is not None

    @property
    def winner(self) -> str | None:
        """The winning pair; None for a draw or a match not done."""
        if self.forfeit is not None:
            return self.b if self.forfeit == self.a else self.a
        if self.score_a is None or self.score_b is None or self.score_a == self.score_b:
            return None
        return self.a if self.score_a > self.score_b else self.b

    @property
    def loser(self) -> str | None:
        won = self.winner
        return None if won is None else (self.b if won == self.a else self.a)

    def has(self, pair: str) -> bool:
        return pair in (self.a, self.b)

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "a": self.a,
            "b": self.b,
            "score_a": self.score_a,
            "score_b": self.score_b,
            "forfeit": self.forfeit,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Match:
        return cls(**data)


@dataclass(frozen=True, slots=True)
class Round:
    """The matches played at once; ``stage`` names the part of the night (``swiss``,
    ``group``, ``repechage``, ``main``); ``through`` are pairs that go on without playing."""

    number: int
    stage: str
    matches: tuple[Match, ...]
    through: tuple[str, ...] = ()

    @property
    def done(self) -> bool:
        return all(match.done for match in self.matches)

    def to_dict(self) -> dict[str, Any]:
        return {
            "number": self.number,
            "stage": self.stage,
            "matches": [match.to_dict() for match in self.matches],
            "through": list(self.through),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Round:
        matches = tuple(Match.from_dict(match) for match in data["matches"])
        return cls(data["number"], data["stage"], matches, tuple(data["through"]))


def scored(round_: Round, table: int, score_a: int, score_b: int) -> Round:
    """``round_`` with the result of the game at ``table`` (final scores, R15)."""
    if min(score_a, score_b) < 0:
        raise TournamentError(f"table {table}: a score is never negative")
    for index, match in enumerate(round_.matches):
        if match.table == table:
            if match.done:
                raise TournamentError(f"round {round_.number}, table {table}: already recorded")
            done = replace(match, score_a=score_a, score_b=score_b)
            return replace(round_, matches=_swap(round_.matches, index, done))
    raise TournamentError(f"round {round_.number} has no table {table}")


def forfeited(round_: Round, pair: str) -> Round:
    """``round_`` with ``pair``'s match not yet played given to its opponent (a walkover)."""
    matches = tuple(
        replace(m, forfeit=pair) if m.has(pair) and not m.done else m for m in round_.matches
    )
    return replace(round_, matches=matches)


def numbered(pairings: list[tuple[str, str]]) -> tuple[Match, ...]:
    """Matches at tables 1, 2, ... in the order given."""
    return tuple(Match(table, a, b) for table, (a, b) in enumerate(pairings, start=1))


def met(rounds: tuple[Round, ...]) -> dict[str, dict[str, int]]:
    """How many times each pair has met each opponent (``HOUSE`` included)."""
    seen: dict[str, dict[str, int]] = {}
    for round_ in rounds:
        for match in round_.matches:
            for one, other in ((match.a, match.b), (match.b, match.a)):
                seen.setdefault(one, {})
                seen[one][other] = seen[one].get(other, 0) + 1
    return seen


def _swap(matches: tuple[Match, ...], index: int, match: Match) -> tuple[Match, ...]:
    return (*matches[:index], match, *matches[index + 1 :])
