"""`cuarenta train --model policy`: fit the learned policy (`learned`) to the search's values.

Data: level-3 self-play games dealt from ``<seed>/<profile>/<i>`` (`playout.level3_move` in
every seat, every R10 award claimed). At every ``stride``-th play decision with two plays or
more (the server's list, by rank: R2), each play is valued as level 5 values it
(`deep.win_value`) on ``deals`` sampled deals of the cards the seat cannot see, every play
meeting the same deals (`search.search`, level 5's sampling with its trail evidence), the
deals drawn from a generator seeded by the game and the decision. The rows are `features`
of the seat's view.

Fit: least squares of each play's value less its position's mean on its features less
theirs (a play is judged against the other plays of its position, never across positions),
with a ridge of `RIDGE` times each feature's own spread, solved exactly (Gaussian
elimination; the standard library). The last `HELD_OUT` of the games are kept out of the
fit; on them the margin over level 3's choice that gains most (`MARGINS`) is chosen and the
policy's gain over level 3 is reported. Every sum runs in a fixed order, and the games'
results are gathered in game order whatever ``jobs`` is: the same seed, games and deals
write the same file, byte for byte.
"""

from __future__ import annotations

import json
import math
import random
import sys
from collections.abc import Iterator
from multiprocessing import Pool

from engine.actions import Claim, Play
from engine.bots.deep import LEVEL5, win_value
from engine.bots.features import NAMES, features
from engine.bots.learned import Model
from engine.bots.playout import Played, level3_move
from engine.bots.registry import Budget
from engine.bots.search import search
from engine.cards import RANKS
from engine.game import Game
from engine.phase import Phase
from engine.views import View

#: the ridge, relative to each feature's spread (keeps rare features from wild weights).
RIDGE = 1e-3
#: the share of games kept out of the fit to choose the margin and report the gain.
HELD_OUT = 0.2
#: the margins tried (in the model's units: level 5's value, `deep.win_value`).
MARGINS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0)
#: the small, reproducible run (`cuarenta train --model policy`) and the full one (``--full``,
#: sized for about 4 CPU-hours on this machine's cores).
SMALL = {"games": 300, "deals": 48, "stride": 1}
FULL = {"games": 3000, "deals": 64, "stride": 1}

#: one position: its rows (one per play) and each play's value
Sample = tuple[list[list[float]], list[float]]


def decisions(profile: str, seed: str, stride: int) -> Iterator[tuple[View, list[Play]]]:
    """Yield every ``stride``-th play decision (view, plays by rank) of one level-3 game."""
    game = Game.new(profile, seed=seed)
    played = Played()
    seen = 0
    while game.phase is not Phase.FINISHED:
        phase = game.phase
        if phase is Phase.PLAY and not game._missed and game._turn is not None:
            seat = game._turn
            plays = [a for a in game.legal_actions(seat, by_rank=True) if isinstance(a, Play)]
            if len(plays) > 1:
                if seen % stride == 0:
                    yield game.view(seat), plays
                seen += 1
        if phase is Phase.PLAY or phase is Phase.ANNOUNCE:
            game.apply(level3_move(game, played))
        elif phase is Phase.CLAIMS:
            for team, rank in list(game._r10):
                game.apply(Claim(team, RANKS[rank]))  # seat ``team`` is of team ``team``
            game.apply(game.system_actions()[0])
        else:
            game.apply(game.system_actions()[0])


def game_samples(job: tuple[str, str, int, int]) -> list[Sample]:
    """Return the samples of one game (top-level: a process pool pickles it)."""
    profile, seed, deals, stride = job
    out: list[Sample] = []
    for number, (view, plays) in enumerate(decisions(profile, seed, stride)):
        rng = random.Random(f"{seed}/decision/{number}")
        values = search(view, plays, rng, Budget(samples=deals), LEVEL5, win_value)
        means = [math.fsum(each) / len(each) for each in values]
        out.append((features(view, plays), means))
    return out


def centred(sample: Sample) -> tuple[list[list[float]], list[float]]:
    """Return a position's rows and values less their means over its plays."""
    rows, values = sample
    count = len(rows)
    mean_row = [math.fsum(column) / count for column in zip(*rows, strict=True)]
    mean_value = math.fsum(values) / count
    return (
        [[x - m for x, m in zip(row, mean_row, strict=True)] for row in rows],
        [v - mean_value for v in values],
    )


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Return x with matrix x = vector (Gaussian elimination, partial pivoting)."""
    size = len(vector)
    a = [[*row, b] for row, b in zip(matrix, vector, strict=True)]
    for col in range(size):
        pivot = max(range(col, size), key=lambda r: (abs(a[r][col]), -r))
        a[col], a[pivot] = a[pivot], a[col]
        head = a[col][col]
        if head == 0.0:
            continue
        for r in range(col + 1, size):
            factor = a[r][col] / head
            if factor:
                row, top = a[r], a[col]
                for c in range(col, size + 1):
                    row[c] -= factor * top[c]
    x = [0.0] * size
    for r in range(size - 1, -1, -1):
        head = a[r][r]
        rest = math.fsum(a[r][c] * x[c] for c in range(r + 1, size))
        x[r] = 0.0 if head == 0.0 else (a[r][size] - rest) / head
    return x


def fit(samples: list[Sample]) -> list[float]:
    """Return the ridge least-squares weights over the centred samples (see the docstring)."""
    size = len(NAMES)
    xtx = [[0.0] * size for _ in range(size)]
    xty = [0.0] * size
    for sample in samples:
        rows, values = centred(sample)
        for row, value in zip(rows, values, strict=True):
            for i in range(size):
                xi = row[i]
                if xi == 0.0:
                    continue
                line = xtx[i]
                for j in range(i, size):
                    line[j] += xi * row[j]
                xty[i] += xi * value
    for i in range(size):
        for j in range(i):
            xtx[i][j] = xtx[j][i]
        xtx[i][i] += RIDGE * xtx[i][i] + 1e-9
    return solve(xtx, xty)


def gain_of(samples: list[Sample], model: Model) -> tuple[float, float]:
    """Return the mean value gain over level 3's choice, per position, of ``model``'s choices
    on ``samples`` (by their search values), and the share of positions it changes."""
    total, changed = 0.0, 0
    for rows, values in samples:
        scores = [math.fsum(w * x for w, x in zip(model.weights, row, strict=True)) for row in rows]
        first = max(range(len(rows)), key=lambda i: (rows[i][0], -i))  # level 3: its worth
        best = max(range(len(rows)), key=lambda i: (scores[i], -i))
        if best != first and scores[best] > scores[first] + model.margin:
            total += values[best] - values[first]
            changed += 1
    count = max(1, len(samples))
    return total / count, changed / count


def train_profile(
    profile: str, seed: str, games: int, deals: int, stride: int, jobs: int
) -> dict[str, object]:
    """Return one profile's model entry (weights, margin, what the held-out games say)."""
    work = [(profile, f"{seed}/{profile}/{i}", deals, stride) for i in range(games)]
    if jobs <= 1:
        per_game = list(map(game_samples, work))
    else:
        with Pool(jobs) as pool:
            per_game = pool.map(game_samples, work, chunksize=1)
    cut = games - max(1, int(games * HELD_OUT)) if games > 1 else games
    train_set = [s for each in per_game[:cut] for s in each]
    held = [s for each in per_game[cut:] for s in each] or train_set
    weights = [float(f"{w:.6g}") for w in fit(train_set)]
    tried = [(gain_of(held, Model(tuple(weights), m)), m) for m in MARGINS]
    (gain, changed), margin = max(tried, key=lambda item: (item[0][0], -item[1]))
    return {
        "weights": weights,
        "margin": margin,
        "positions": len(train_set),
        "held_out": {"positions": len(held), "gain": round(gain, 6), "changed": changed},
    }


def train(
    seed: str, games: int, deals: int, stride: int, jobs: int, profiles: tuple[str, ...]
) -> dict[str, object]:
    """Return the policy model's JSON form (`learned.parse` reads it)."""
    out = {p: train_profile(p, seed, games, deals, stride, jobs) for p in profiles}
    return {
        "names": list(NAMES),
        "seed": seed,
        "games": games,
        "deals": deals,
        "stride": stride,
        "profiles": out,
    }


def write(model: dict[str, object], path: str) -> int:
    """Write the model as one sorted JSON line; return its size in bytes."""
    text = json.dumps(model, separators=(",", ":"), sort_keys=True) + "\n"
    with open(path, "w", encoding="utf-8") as file:
        file.write(text)
    return len(text)


def report(model: dict[str, object], path: str, size: int) -> None:
    """Print what was written and what the held-out games say, on stderr."""
    profiles = model["profiles"]
    assert isinstance(profiles, dict)
    for profile, entry in profiles.items():
        held = entry["held_out"]
        print(
            f"{profile}: {entry['positions']} positions, margin {entry['margin']}, held out "
            f"{held['positions']}: gain {held['gain']:+.4f} over level 3, "
            f"{100 * held['changed']:.1f} % changed",
            file=sys.stderr,
        )
    print(f"wrote {path}: {size} bytes", file=sys.stderr)
