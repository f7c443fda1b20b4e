"""Pure tallies: the card count (R11) and the points of a play (R9)."""

from __future__ import annotations

from engine.rules import Rules


def count_points(piles: tuple[int, int], dealer_team: int) -> tuple[int, int]:
    """Return what each team scores for its cards at the end of a hand (R11).

    >>> count_points((20, 20), 0), count_points((23, 17), 1), count_points((15, 15), 1)
    ((0, 6), (10, 0), (2, 0))
    """
    non_dealers = 1 - dealer_team
    points = [0, 0]
    big = [team for team in (0, 1) if piles[team] >= 20]
    if len(big) == 2:  # 20-20: only the non-dealing team scores 6
        points[non_dealers] = 6
    elif big:
        extra = piles[big[0]] - 20
        points[big[0]] = 6 + (extra + 1) // 2 * 2  # 6 + (n - 20) rounded up to even
    elif piles[0] != piles[1]:
        points[0 if piles[0] > piles[1] else 1] = 2
    else:
        points[non_dealers] = 2
    return points[0], points[1]


def play_points(rules: Rules, before: int, caida: bool, limpia: bool) -> int:
    """Return the R9 points of a capture for a team whose score before it is ``before``.

    A caída always scores 2; a limpia scores 2 except at exactly 38 (the 38 rule, every profile).
    """
    points = 2 if caida else 0
    if limpia and before != 38:
        points += 2
    return points


def ronda_scores(rules: Rules, score: int) -> bool:
    """Tell whether a ronda scores for a team at ``score`` (R6: below 30; R14 libre-2p: 38)."""
    return score < rules.ronda_limit
