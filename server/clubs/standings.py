"""Standings: who leads the night, from the recorded matches alone (``docs/clubs.md``).

Order: **match points** (a win 2, a draw 1, a loss 0; a walkover is a win with no game points),
then **point difference** (game points for minus against), then **head-to-head** (the match
points earned in the matches between the pairs still level), then game points for, then the
order the pairs were entered in (their seed). The house pair is never ranked; a game against it
counts for its opponent like any other.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from server.clubs.tournament import HOUSE, Match

WIN, DRAW, LOSS = 2, 1, 0


@dataclass(frozen=True, slots=True)
class Standing:
    pair: str
    played: int = 0
    won: int = 0
    drawn: int = 0
    lost: int = 0
    points_for: int = 0
    points_against: int = 0

    @property
    def match_points(self) -> int:
        return WIN * self.won + DRAW * self.drawn + LOSS * self.lost

    @property
    def difference(self) -> int:
        return self.points_for - self.points_against


def match_points(match: Match, pair: str) -> int:
    """What ``match`` earned ``pair`` (0 if not done)."""
    if not match.done:
        return 0
    won = match.winner
    return DRAW if won is None else (WIN if won == pair else LOSS)


def tally(pair: str, matches: Iterable[Match]) -> Standing:
    """``pair``'s record over the done matches it played."""
    played = won = drawn = lost = got = gave = 0
    for match in matches:
        if not (match.done and match.has(pair)):
            continue
        played += 1
        earned = match_points(match, pair)
        won, drawn, lost = won + (earned == WIN), drawn + (earned == DRAW), lost + (earned == LOSS)
        if match.forfeit is None:
            mine, theirs = (
                (match.score_a, match.score_b)
                if match.a == pair
                else (match.score_b, match.score_a)
            )
            got, gave = got + (mine or 0), gave + (theirs or 0)
    return Standing(pair, played, won, drawn, lost, got, gave)


def standings(pairs: Sequence[str], matches: Sequence[Match]) -> tuple[Standing, ...]:
    """``pairs`` ranked by the order above (``pairs`` in seed order; ``HOUSE`` left out)."""
    table = [tally(pair, matches) for pair in pairs if pair != HOUSE]
    seed = {pair: index for index, pair in enumerate(pairs)}
    table.sort(key=lambda s: (-s.match_points, -s.difference))
    ranked: list[Standing] = []
    start = 0
    while start < len(table):
        end = start + 1
        level = (table[start].match_points, table[start].difference)
        while end < len(table) and (table[end].match_points, table[end].difference) == level:
            end += 1
        ranked.extend(_head_to_head(table[start:end], matches, seed))
        start = end
    return tuple(ranked)


def _head_to_head(
    level: list[Standing], matches: Sequence[Match], seed: dict[str, int]
) -> list[Standing]:
    """Pairs level on match points and difference, ordered by their games among themselves."""
    if len(level) == 1:
        return level
    names = {s.pair for s in level}
    among = [m for m in matches if m.a in names and m.b in names]
    mini = {s.pair: sum(match_points(m, s.pair) for m in among if m.has(s.pair)) for s in level}
    return sorted(level, key=lambda s: (-mini[s.pair], -s.points_for, seed[s.pair]))
