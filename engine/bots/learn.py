"""`cuarenta train --model policy`: fit the learned policy (`learned`) to the search's values.

Data: level-3 self-play games dealt from ``<seed>/<profile>/<i>`` (`playout.level3_move` in
every seat, every R10 award claimed). At every ``stride``-th play decision with two plays or
more (the server's list, by rank: R2), each play is valued as level 5 values it
(`deep.win_value`) on ``deals`` sampled deals of the cards the seat cannot see, every play
meeting the same deals (`search.search`, level 5's sampling with its trail evidence), the
deals drawn from a generator seeded by the game and the decision. The rows are `features`
of the seat's view.

Fit (numpy, training only; `learned` infers without it): the network's value of each play
less its position's mean, against the play's value less theirs, in least squares (a play is
judged against the other plays of its position, never across positions), by Adam over
`EPOCHS` passes, from weights drawn from the seed. A linear model over the same features
gained three quarters of what this one gains over level 3 on held-out games. The last
`HELD_OUT` of the games are kept out of the fit; on them the margin over level 3's choice
that gains most (`MARGINS`) is chosen and the policy's gain over level 3 is reported. The
games' results are gathered in game order whatever ``jobs`` is, and numpy runs on one
thread: the same seed, games and deals write the same file, byte for byte (on one machine).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import sys
from collections.abc import Iterator
from dataclasses import replace
from multiprocessing import Pool
from typing import Any

from engine.actions import Play
from engine.bots.deep import LEVEL5, win_value
from engine.bots.features import NAMES, features
from engine.bots.learned import Model
from engine.bots.playout import Played, claim_all, level3_move
from engine.bots.registry import Budget
from engine.bots.search import search
from engine.game import Game
from engine.phase import Phase
from engine.views import View

#: the network's hidden units, passes over the data, positions per step and step size.
HIDDEN = 24
EPOCHS = 30
BATCH = 256
RATE = 3e-3
#: the share of games kept out of the fit to choose the margin and report the gain.
HELD_OUT = 0.2
#: the margins tried (in the model's units: level 5's value, `deep.win_value`).
MARGINS = (0.0, 0.05, 0.1, 0.2, 0.3, 0.5, 0.75, 1.0, 1.5, 2.0)
#: the small, reproducible run (`cuarenta train --model policy`) and the full one (``--full``,
#: sized for about 4 CPU-hours on this machine's cores).
SMALL = {"games": 600, "deals": 48, "stride": 1}
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
            claim_all(game)
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


def _generator_seed(seed: str) -> int:
    return int.from_bytes(hashlib.sha256(seed.encode()).digest()[:8], "big")


def _arrays(samples: list[Sample]) -> tuple[Any, Any, Any]:
    """Rows, values and each row's position number, as numpy arrays."""
    import numpy as np

    rows = [row for sample_rows, _ in samples for row in sample_rows]
    values = [value for _, sample_values in samples for value in sample_values]
    owner = [n for n, (sample_rows, _) in enumerate(samples) for _ in sample_rows]
    return np.array(rows, dtype=np.float64), np.array(values), np.array(owner)


def fit(samples: list[Sample], seed: str, hidden: int = HIDDEN, epochs: int = EPOCHS) -> Model:
    """Return the network fitted to the samples (see the module docstring; margin 0)."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one thread: sums in one order
    import numpy as np

    x, y, owner = _arrays(samples)
    mean, scale = x.mean(0), x.std(0) + 1e-6
    z = (x - mean) / scale
    rng = np.random.default_rng(_generator_seed(seed))
    width = z.shape[1]
    params = [
        rng.normal(0.0, 1.0 / math.sqrt(width), (width, hidden)),
        np.zeros(hidden),
        rng.normal(0.0, 1.0 / math.sqrt(hidden), hidden),
        np.zeros(width),
    ]
    first = [np.zeros_like(p) for p in params]
    second = [np.zeros_like(p) for p in params]
    starts = np.searchsorted(owner, np.arange(len(samples) + 1))
    step = 0
    for _ in range(epochs):
        order = rng.permutation(len(samples))
        for begin in range(0, len(order), BATCH):
            batch = order[begin : begin + BATCH]
            index = np.concatenate([np.arange(starts[p], starts[p + 1]) for p in batch])
            zb, yb = z[index], y[index]
            _, local = np.unique(owner[index], return_inverse=True)
            counts = np.bincount(local)
            h = np.tanh(zb @ params[0] + params[1])
            out = h @ params[2] + zb @ params[3]
            error = out - (np.bincount(local, out) / counts)[local]  # judged within a position
            error -= yb - (np.bincount(local, yb) / counts)[local]
            error /= len(batch)
            dh = np.outer(error, params[2]) * (1.0 - h * h)
            grads = [zb.T @ dh, dh.sum(0), h.T @ error, zb.T @ error]
            step += 1
            for k, grad in enumerate(grads):  # Adam
                first[k] = 0.9 * first[k] + 0.1 * grad
                second[k] = 0.999 * second[k] + 0.001 * grad * grad
                fixed = first[k] / (1 - 0.9**step)
                params[k] -= RATE * fixed / (np.sqrt(second[k] / (1 - 0.999**step)) + 1e-8)

    def rounded(values: Any) -> tuple[float, ...]:
        return tuple(float(f"{float(v):.6g}") for v in values)

    return Model(
        rounded(mean),
        rounded(scale),
        tuple(rounded(params[0][:, unit]) for unit in range(hidden)),
        rounded(params[1]),
        rounded(params[2]),
        rounded(params[3]),
        0.0,
    )


def gain_of(samples: list[Sample], model: Model) -> tuple[float, float]:
    """Return the mean value gain over level 3's choice, per position, of ``model``'s choices
    on ``samples`` (by their search values), and the share of positions it changes."""
    total, changed = 0.0, 0
    for rows, values in samples:
        scores = [model.worth(row) for row in rows]
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
    fitted = fit(train_set, f"{seed}/{profile}")
    tried = [(gain_of(held, replace(fitted, margin=m)), m) for m in MARGINS]
    (gain, changed), margin = max(tried, key=lambda item: (item[0][0], -item[1]))
    return {
        "mean": fitted.mean,
        "scale": fitted.scale,
        "hidden": fitted.hidden,
        "bias": fitted.bias,
        "out": fitted.out,
        "linear": fitted.linear,
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
