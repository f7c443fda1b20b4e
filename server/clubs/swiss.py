"""A Swiss night: every round pairs pairs of like standing who have not met yet.

Pairing (``docs/clubs.md``): the active pairs in standings order; with an odd count the lowest
pair that has not yet played the house pair plays it (a bye is a game against two bots, never a
free win). Then from the top, each pair meets the nearest pair below it that it has not met,
backtracking when that leaves the rest unpairable. Only when no pairing without a repeat exists
are repeats allowed, as few as possible. A late pair is paired from the next round on with zero
points; a withdrawn pair is paired no more (a game it had not finished is a walkover).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from server.clubs.standings import Standing, standings
from server.clubs.tournament import (
    HOUSE,
    Match,
    Pair,
    Round,
    TournamentError,
    forfeited,
    met,
    numbered,
    scored,
)

Seen = dict[str, dict[str, int]]


@dataclass(frozen=True, slots=True)
class SwissNight:
    pairs: tuple[Pair, ...]
    planned: int
    rounds: tuple[Round, ...] = ()

    @property
    def matches(self) -> tuple[Match, ...]:
        return tuple(match for round_ in self.rounds for match in round_.matches)

    @property
    def finished(self) -> bool:
        return len(self.rounds) == self.planned and self.rounds[-1].done

    def standings(self) -> tuple[Standing, ...]:
        return standings([pair.id for pair in self.pairs], self.matches)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": "swiss",
            "pairs": [pair.to_dict() for pair in self.pairs],
            "planned": self.planned,
            "rounds": [round_.to_dict() for round_ in self.rounds],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SwissNight:
        pairs = tuple(Pair.from_dict(pair) for pair in data["pairs"])
        return cls(pairs, data["planned"], tuple(Round.from_dict(r) for r in data["rounds"]))


def start(pairs: tuple[Pair, ...], planned: int) -> SwissNight:
    """A night of ``planned`` rounds between ``pairs`` (in seed order), none paired yet."""
    if len({pair.id for pair in pairs}) != len(pairs):
        raise TournamentError("two pairs have the same id")
    if planned < 1:
        raise TournamentError("a night has at least one round")
    return SwissNight(pairs, planned)


def enter(night: SwissNight, pair: Pair) -> SwissNight:
    """A late pair: paired from the next round, with zero points."""
    if any(known.id == pair.id for known in night.pairs):
        raise TournamentError(f"pair {pair.id} is already entered")
    return replace(night, pairs=(*night.pairs, replace(pair, joined=len(night.rounds) + 1)))


def withdraw(night: SwissNight, pair_id: str) -> SwissNight:
    """``pair_id`` plays no more; its unfinished game of this round is a walkover."""
    found = [pair for pair in night.pairs if pair.id == pair_id]
    if not found:
        raise TournamentError(f"no pair {pair_id}")
    last = len(night.rounds)
    pairs = tuple(replace(p, withdrawn=last) if p.id == pair_id else p for p in night.pairs)
    rounds = (*night.rounds[:-1], forfeited(night.rounds[-1], pair_id)) if last else ()
    return replace(night, pairs=pairs, rounds=rounds)


def record(night: SwissNight, table: int, score_a: int, score_b: int) -> SwissNight:
    """The current round's game at ``table`` ended ``score_a`` to ``score_b``."""
    if not night.rounds:
        raise TournamentError("no round is paired yet")
    return replace(
        night, rounds=(*night.rounds[:-1], scored(night.rounds[-1], table, score_a, score_b))
    )


def pair_next(night: SwissNight) -> SwissNight:
    """The night with its next round paired; refused while a game of the last round is on."""
    if night.rounds and not night.rounds[-1].done:
        tables = [m.table for m in night.rounds[-1].matches if not m.done]
        raise TournamentError(f"round {len(night.rounds)} is not done: tables {tables}")
    if len(night.rounds) >= night.planned:
        raise TournamentError(f"the night's {night.planned} rounds are played")
    number = len(night.rounds) + 1
    active = {pair.id for pair in night.pairs if pair.active_in(number)}
    if not active:
        raise TournamentError("no pair is left to play")
    order = [s.pair for s in night.standings() if s.pair in active]
    matches = numbered(pairings(order, met(night.rounds)))
    return replace(night, rounds=(*night.rounds, Round(number, "swiss", matches)))


def pairings(order: list[str], seen: Seen) -> list[tuple[str, str]]:
    """The round's pairings for ``order`` (standings order) with the fewest repeat meetings."""
    byes: list[str | None] = list(reversed(order)) if len(order) % 2 else [None]
    for allowed in range(len(order) + 1):
        for bye in byes:
            cost = 0 if bye is None else min(1, _times(seen, bye, HOUSE))
            if cost > allowed:
                continue
            rest = tuple(pair for pair in order if pair != bye)
            found = _match(rest, seen, allowed - cost, set())
            if found is not None:
                return found + ([] if bye is None else [(bye, HOUSE)])
    raise AssertionError("a pairing with repeats always exists")


def _match(
    rest: tuple[str, ...], seen: Seen, budget: int, failed: set[tuple[tuple[str, ...], int]]
) -> list[tuple[str, str]] | None:
    """Pair ``rest`` top-down with at most ``budget`` repeats; None if impossible."""
    if not rest:
        return []
    if (rest, budget) in failed:
        return None
    first = rest[0]
    for index in range(1, len(rest)):
        other = rest[index]
        cost = 1 if _times(seen, first, other) else 0
        if cost > budget:
            continue
        tail = _match(rest[1:index] + rest[index + 1 :], seen, budget - cost, failed)
        if tail is not None:
            return [(first, other), *tail]
    failed.add((rest, budget))
    return None


def _times(seen: Seen, one: str, other: str) -> int:
    return seen.get(one, {}).get(other, 0)
