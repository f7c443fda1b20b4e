"""Groups of four pairs, then a knock-out with a repechage (the shape of Quito's big nights).

1. **Groups.** The pairs, in seed order, are dealt into groups of four (snake order: seeds 1..G
   head the G groups, the next G go back the other way); each group plays a round-robin, three
   rounds, ranked by ``standings`` within the group.
2. **Main draw.** Its size is the smallest power of two above the number of groups G; the G
   group winners go straight in, the best record first.
3. **Repechage.** The runners-up, then the third-placed pairs (each ranked across the groups by
   match points, point difference, points for) fill the main draw's remaining places. Each
   repechage round plays only as many games as it must: the best-seeded go through without
   playing, the others meet best against worst; the rounds go on until the places are filled.
4. **Knock-out.** Seeds meet in the usual bracket (1 and 2 only in the final). A knock-out game
   needs a winner: a level score is refused, the game is played again.

A withdrawn pair is paired no more: a group game it would have played, and a knock-out game, is
a walkover for its opponent. Nobody enters once the groups are drawn.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from server.clubs.standings import Standing, standings
from server.clubs.tournament import (
    Match,
    Pair,
    Round,
    TournamentError,
    forfeited,
    numbered,
    scored,
)

GROUP_SIZE = 4
GROUP_ROUNDS = ((0, 3, 1, 2), (0, 2, 3, 1), (0, 1, 2, 3))  # the round-robin of four, by place


@dataclass(frozen=True, slots=True)
class GroupsNight:
    pairs: tuple[Pair, ...]
    groups: tuple[tuple[str, ...], ...]
    rounds: tuple[Round, ...] = ()
    bracket: tuple[str | None, ...] = ()  # the main draw's places this knock-out round

    @property
    def matches(self) -> tuple[Match, ...]:
        return tuple(match for round_ in self.rounds for match in round_.matches)

    @property
    def champion(self) -> str | None:
        """The pair that won the final (None until it is played)."""
        last = self.rounds[-1] if self.rounds else None
        if last is None or last.stage != "main" or not last.done or len(self.bracket) != 2:
            return None
        return _winners(last, self.bracket)[0]

    def withdrawn(self, pair: str) -> bool:
        return any(p.id == pair and p.withdrawn is not None for p in self.pairs)

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": "groups",
            "pairs": [pair.to_dict() for pair in self.pairs],
            "groups": [list(group) for group in self.groups],
            "rounds": [round_.to_dict() for round_ in self.rounds],
            "bracket": list(self.bracket),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GroupsNight:
        return cls(
            tuple(Pair.from_dict(pair) for pair in data["pairs"]),
            tuple(tuple(group) for group in data["groups"]),
            tuple(Round.from_dict(round_) for round_ in data["rounds"]),
            tuple(data["bracket"]),
        )


def start(pairs: tuple[Pair, ...]) -> GroupsNight:
    """Draw ``pairs`` (seed order) into groups of four; a count not a multiple of four is
    refused, naming how many bot pairs would complete it."""
    if len({pair.id for pair in pairs}) != len(pairs):
        raise TournamentError("two pairs have the same id")
    missing = -len(pairs) % GROUP_SIZE
    if missing or not pairs:
        raise TournamentError(f"groups of four: add {missing or 4} pair(s) (a bot pair will do)")
    count = len(pairs) // GROUP_SIZE
    groups: list[list[str]] = [[] for _ in range(count)]
    for index, pair in enumerate(pairs):
        row, col = divmod(index, count)
        groups[col if row % 2 == 0 else count - 1 - col].append(pair.id)
    return GroupsNight(pairs, tuple(tuple(group) for group in groups))


def withdraw(night: GroupsNight, pair_id: str) -> GroupsNight:
    """``pair_id`` plays no more; its unfinished game is a walkover."""
    if not any(pair.id == pair_id for pair in night.pairs):
        raise TournamentError(f"no pair {pair_id}")
    last = len(night.rounds)
    pairs = tuple(replace(p, withdrawn=last) if p.id == pair_id else p for p in night.pairs)
    rounds = (*night.rounds[:-1], forfeited(night.rounds[-1], pair_id)) if last else ()
    return replace(night, pairs=pairs, rounds=rounds)


def record(night: GroupsNight, table: int, score_a: int, score_b: int) -> GroupsNight:
    """The current round's game at ``table`` ended ``score_a`` to ``score_b``."""
    if not night.rounds:
        raise TournamentError("no round is paired yet")
    current = night.rounds[-1]
    if current.stage != "group" and score_a == score_b:
        raise TournamentError(f"table {table}: a knock-out game needs a winner; play it again")
    return replace(night, rounds=(*night.rounds[:-1], scored(current, table, score_a, score_b)))


def group_table(night: GroupsNight, group: tuple[str, ...]) -> tuple[Standing, ...]:
    """The group's ranking from its own round-robin (later knock-out games do not count)."""
    members = set(group)
    group_games = (m for r in night.rounds if r.stage == "group" for m in r.matches)
    inside = [m for m in group_games if m.a in members and m.b in members]
    return standings(list(group), inside)


def pair_next(night: GroupsNight) -> GroupsNight:
    """The night with its next round paired; refused while a game of the last round is on."""
    if night.rounds and not night.rounds[-1].done:
        tables = [m.table for m in night.rounds[-1].matches if not m.done]
        raise TournamentError(f"round {len(night.rounds)} is not done: tables {tables}")
    if night.champion is not None:
        raise TournamentError(f"the night is over: {night.champion} won")
    number = len(night.rounds) + 1
    if number <= len(GROUP_ROUNDS):
        return _walkovers(replace(night, rounds=(*night.rounds, _group_round(night, number))))
    if not night.bracket:
        entrants, places = _repechage_field(night)
        if len(entrants) > places:
            return _walkovers(
                replace(night, rounds=(*night.rounds, _repechage(number, entrants, places)))
            )
        return _main_round(night, number, _draw(night, entrants))
    return _main_round(night, number, _next_places(night))


def _group_round(night: GroupsNight, number: int) -> Round:
    first, second, third, fourth = GROUP_ROUNDS[number - 1]
    games = []
    for group in night.groups:
        games += [(group[first], group[second]), (group[third], group[fourth])]
    return Round(number, "group", numbered(games))


def _walkovers(night: GroupsNight) -> GroupsNight:
    """Every game of the new round against a withdrawn pair is given to its opponent."""
    current = night.rounds[-1]
    for pair in night.pairs:
        if pair.withdrawn is not None:
            current = forfeited(current, pair.id)
    return replace(night, rounds=(*night.rounds[:-1], current))


def _ranked_across(night: GroupsNight, place: int) -> list[str]:
    """The pairs placed ``place`` (0: winners) in their groups, best record first."""
    found = []
    for index, group in enumerate(night.groups):
        row = group_table(night, group)[place]
        found.append((-row.match_points, -row.difference, -row.points_for, index, row.pair))
    return [entry[-1] for entry in sorted(found)]


def _main_size(groups: int) -> int:
    size = 1
    while size <= groups:
        size *= 2
    return size


def _repechage_field(night: GroupsNight) -> tuple[list[str], int]:
    """The repechage pairs still in it, in seed order, and the main draw places left for them."""
    places = _main_size(len(night.groups)) - len(night.groups)
    field = _ranked_across(night, 1) + _ranked_across(night, 2)
    for round_ in night.rounds:
        if round_.stage == "repechage":
            field = [pair for pair in field if all(m.loser != pair for m in round_.matches)]
    return [pair for pair in field if not night.withdrawn(pair)], places


def _repechage(number: int, field: list[str], places: int) -> Round:
    """As few games as fill ``places``: the best seeds go through, the rest meet best-worst."""
    games = len(field) - places if len(field) <= 2 * places else len(field) // 2
    through, playing = field[: len(field) - 2 * games], field[len(field) - 2 * games :]
    pairings = [(playing[i], playing[-1 - i]) for i in range(games)]
    return Round(number, "repechage", numbered(pairings), tuple(through))


def _draw(night: GroupsNight, survivors: list[str]) -> tuple[str | None, ...]:
    """The main draw's places in bracket order: seed 1 meets the last seed, and so on."""
    seeds: list[str | None] = [
        pair for pair in _ranked_across(night, 0) + survivors if not night.withdrawn(pair)
    ]
    size = _main_size(len(night.groups))
    seeds += [None] * (size - len(seeds))
    order = [1]
    while len(order) < size:
        order = [seed for one in order for seed in (one, 2 * len(order) + 1 - one)]
    return tuple(seeds[seed - 1] for seed in order)


def _winners(round_: Round, places: tuple[str | None, ...]) -> list[str | None]:
    """Who goes on from each two neighbouring places (a free place: its neighbour)."""
    out: list[str | None] = []
    for one, other in zip(places[::2], places[1::2], strict=True):
        if one is None or other is None:
            out.append(one or other)
        else:
            out.append(next(m.winner for m in round_.matches if m.has(one)))
    return out


def _next_places(night: GroupsNight) -> tuple[str | None, ...]:
    return tuple(_winners(night.rounds[-1], night.bracket))


def _main_round(night: GroupsNight, number: int, places: tuple[str | None, ...]) -> GroupsNight:
    games = [(a, b) for a, b in zip(places[::2], places[1::2], strict=True) if a and b]
    through = tuple(a or b for a, b in zip(places[::2], places[1::2], strict=True) if not (a and b))
    round_ = Round(number, "main", numbered(games), tuple(p for p in through if p))
    return _walkovers(replace(night, rounds=(*night.rounds, round_), bracket=places))
