"""The chance of winning the game from a score (R12), for level 5's evaluation.

Points are not the goal; the game is. A hand's points (R6-R11) are drawn from what level-3
self-play produced (`HAND_GAINS`: per profile, how often the dealing and the other team
gained x and y in a complete hand; 250 games per profile, seeds ``gains/0`` … ``gains/249``),
and `win_chance(own, other, dealing)` is the exact chance, under that model, of reaching 40
first, the deal passing left after every hand (R3). Both teams reaching 40 in one hand counts
half. The table makes thresholds matter the way they do at the table: 36 needs one caída
with limpia, 38 no longer scores a limpia, at 30 rondas stop (R6, R9).
"""

from __future__ import annotations

from functools import lru_cache

#: profile -> "x,y,n" triples: n hands in which the dealing team gained x and the other y.
HAND_GAINS: dict[str, str] = {
    "pagat-4p": (
        "0,16,3 0,18,1 0,22,1 0,26,1 2,12,3 2,14,2 2,16,5 2,18,4 2,20,2 2,22,2 2,24,1 2,26,2 "
        "2,28,1 2,30,1 4,6,2 4,8,2 4,10,3 4,12,2 4,14,8 4,16,9 4,18,3 4,20,6 4,22,5 4,24,3 "
        "4,26,1 4,30,1 6,0,1 6,2,1 6,8,1 6,12,7 6,14,5 6,16,7 6,18,10 6,20,5 6,22,4 6,24,3 "
        "6,26,1 6,28,1 8,2,3 8,4,2 8,6,2 8,8,4 8,10,5 8,12,4 8,14,6 8,16,3 8,18,6 8,20,1 "
        "8,22,1 8,24,2 8,32,1 10,0,2 10,2,2 10,4,7 10,6,6 10,8,4 10,12,4 10,14,5 10,16,4 "
        "10,18,3 10,20,1 10,22,2 10,24,1 10,26,2 10,28,2 10,30,1 12,2,2 12,4,4 12,6,12 12,8,4 "
        "12,10,5 12,12,3 12,14,1 12,16,4 12,18,2 12,20,2 12,22,1 12,26,1 12,28,1 12,30,1 "
        "14,0,1 14,2,1 14,4,8 14,6,6 14,8,3 14,10,2 14,12,2 14,14,3 14,16,3 14,20,1 16,0,2 "
        "16,2,7 16,4,5 16,6,5 16,8,6 16,10,1 16,12,7 16,16,1 18,0,2 18,2,6 18,4,2 18,6,10 "
        "18,8,6 18,10,2 18,12,3 18,16,2 18,26,1 18,28,1 20,0,3 20,2,4 20,4,8 20,6,4 20,8,8 "
        "20,10,1 20,12,2 20,14,1 22,0,2 22,2,5 22,4,8 22,6,3 22,8,7 22,12,1 22,14,1 24,0,3 "
        "24,2,9 24,4,5 24,6,9 26,0,2 26,2,3 26,4,4 26,8,1 28,0,1 28,2,1 28,4,1 28,6,1 28,8,2 "
        "28,10,1 28,12,1 28,22,1 28,24,1 30,0,2 30,2,2 30,4,2 30,6,2 30,8,1 32,0,1 32,2,2 "
        "32,6,2 32,8,2 32,12,1 34,4,2 34,6,3 34,10,1 38,14,1"
    ),
    "heads-up": (
        "0,8,1 0,12,1 0,20,3 0,26,1 2,4,2 2,6,2 2,10,1 2,12,2 2,14,3 2,16,1 2,20,2 2,24,1 "
        "2,26,1 4,2,1 4,4,3 4,6,3 4,8,4 4,10,5 4,12,6 4,14,9 4,16,5 4,18,6 4,20,8 4,22,3 "
        "6,2,3 6,4,3 6,6,8 6,8,10 6,10,5 6,12,7 6,14,7 6,16,6 6,18,5 6,20,4 6,22,4 8,0,1 "
        "8,2,2 8,4,7 8,6,7 8,8,6 8,10,9 8,12,5 8,14,13 8,16,5 8,18,5 8,20,4 8,24,2 8,26,1 "
        "10,0,1 10,2,6 10,4,8 10,6,11 10,8,9 10,10,5 10,12,6 10,16,4 10,18,3 10,20,1 10,22,2 "
        "12,2,7 12,4,9 12,6,11 12,8,6 12,10,9 12,12,2 12,14,3 12,16,3 12,18,1 12,20,1 14,0,4 "
        "14,2,3 14,4,5 14,6,5 14,8,5 14,10,3 14,12,3 14,14,1 14,22,1 16,0,2 16,2,4 16,4,13 "
        "16,6,7 16,8,6 16,10,1 16,12,1 18,0,5 18,2,13 18,4,12 18,6,11 18,8,1 18,10,2 20,0,6 "
        "20,2,11 20,4,8 20,6,4 20,8,2 20,10,1 20,14,1 20,16,1 22,0,4 22,2,16 22,4,12 22,6,3 "
        "22,8,2 22,12,1 24,0,2 24,2,10 24,4,6 24,8,1 26,0,4 26,2,4 26,4,6 26,6,6 26,8,1 "
        "28,0,6 28,2,5 28,4,7 28,6,1 30,0,2 30,2,2 30,4,1 30,6,1 30,8,1 32,2,2 32,4,1 32,6,1 "
        "34,0,1 34,2,4 36,2,1 36,4,1 38,4,1"
    ),
    "libre-2p": (
        "0,2,1 0,8,1 0,10,2 0,14,1 0,20,2 0,26,1 2,4,2 2,6,2 2,10,1 2,12,5 2,14,3 2,16,3 "
        "2,18,4 2,20,4 2,26,1 2,28,1 4,2,2 4,4,7 4,6,3 4,8,5 4,10,8 4,12,2 4,14,11 4,16,4 "
        "4,18,6 4,20,8 4,22,3 4,24,1 4,26,1 6,2,4 6,4,4 6,6,7 6,8,9 6,10,8 6,12,7 6,14,8 "
        "6,16,3 6,18,6 6,20,2 6,22,3 8,0,3 8,2,2 8,4,6 8,6,7 8,8,11 8,10,9 8,12,4 8,14,12 "
        "8,16,6 8,18,5 8,20,4 8,22,3 8,24,1 8,26,1 10,0,1 10,2,5 10,4,8 10,6,6 10,8,7 10,10,4 "
        "10,12,6 10,14,3 10,16,4 10,18,2 10,24,1 10,26,1 12,0,1 12,2,5 12,4,10 12,6,11 12,8,3 "
        "12,10,7 12,12,3 12,14,2 12,16,2 12,20,2 14,0,3 14,2,3 14,4,5 14,6,8 14,8,5 14,10,3 "
        "14,12,3 14,14,2 14,16,1 14,22,1 16,0,5 16,2,3 16,4,14 16,6,4 16,8,9 16,10,1 16,12,1 "
        "18,0,6 18,2,10 18,4,12 18,6,9 18,8,3 18,10,2 18,12,1 20,0,5 20,2,10 20,4,10 20,6,3 "
        "20,8,2 20,10,2 20,14,1 20,16,1 22,0,6 22,2,13 22,4,10 22,6,3 22,8,3 22,10,1 22,12,1 "
        "24,0,3 24,2,8 24,4,8 24,8,1 26,0,2 26,2,8 26,4,4 26,6,4 26,8,3 28,0,6 28,2,3 28,4,5 "
        "28,6,3 30,0,4 30,2,3 30,8,1 32,0,1 32,2,1 32,4,1 32,6,3 34,0,2 34,2,3 34,4,1 38,4,1"
    ),
}

TARGET = 40


def _gains(profile: str) -> list[tuple[int, int, float]]:
    """Return (x, y, chance) in half-points: scores and gains are always even (R12)."""
    triples = [tuple(map(int, item.split(","))) for item in HAND_GAINS[profile].split()]
    total = sum(n for _, _, n in triples)
    return [(x // 2, y // 2, n / total) for x, y, n in triples]


@lru_cache(maxsize=4)
def _table(profile: str) -> tuple[list[list[float]], list[list[float]]]:
    """Return two grids [a/2][b/2]: the chance a wins when a's team deals next, and when not.

    The grids run past 40 (terminal cells hold 1, 0 or a half), so the sums need no tests.
    """
    gains = _gains(profile)
    goal = TARGET // 2
    size = goal + max(max(x, y) for x, y, _ in gains) + 1
    deals = [[0.0] * size for _ in range(size)]
    waits = [[0.0] * size for _ in range(size)]
    for a in range(size):
        for b in range(size):
            if a >= goal or b >= goal:
                done = 0.5 if a >= goal and b >= goal else float(a >= goal)
                deals[a][b] = waits[a][b] = done
    for total in range(2 * goal - 2, -1, -1):  # every hand adds points: fill from the top
        for a in range(max(0, total - goal + 1), min(goal - 1, total) + 1):
            b = total - a
            deals[a][b] = sum(p * waits[a + x][b + y] for x, y, p in gains)
            waits[a][b] = sum(p * deals[a + y][b + x] for x, y, p in gains)
    return deals, waits


def win_chance(profile: str, own: int, other: int, own_deals: bool) -> float:
    """Return the chance a team at ``own`` beats one at ``other`` (who deals next given)."""
    if own >= TARGET or other >= TARGET:
        return 0.5 if own >= TARGET and other >= TARGET else float(own >= TARGET)
    deals, waits = _table(profile)
    return (deals if own_deals else waits)[own // 2][other // 2]
