"""`cuarenta train`: learn the rest of the hand (`rest`) from level-3 self-play, from a seed.

``--model policy`` fits the learned policy instead (`learn`, `learned`); this docstring is
about the default, ``--model rest``.

Each game is dealt from ``<seed>/<profile>/<i>`` and played by level 3 in every seat, the
way a search's playouts play (`playout.level3_move`, every R10 award claimed). Whenever a
packet other than a hand's first is dealt, the position is noted: the packets still to play,
the cards on the table, both piles and scores (with the R10 awards already due, as
`deep.chance_of` counts them). When that hand's last card is played, what the rest of the
hand brought each team is counted (cards won, points scored, new R10 awards included) under
that note's key. The same seed and game count give the same file, byte for byte.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import dataclass

from engine.bots.playout import Played, claim_all, level3_move
from engine.bots.rest import MODEL_PATH, TABLE_CAP, key_of
from engine.bots.search import scores_with_awards
from engine.events import HandCounted
from engine.events import Played as PlayedEvent
from engine.game import Game
from engine.phase import Phase

#: the profiles a model is trained for (their default house rules).
PROFILES = ("pagat-4p", "heads-up", "libre-2p")
#: the outcomes kept per distribution, the most frequent: each other one is counted as the
#: nearest kept, so a playout's end is valued over a few dozen outcomes, not hundreds.
KEEP_CARDS = 40
KEEP_POINTS = 30


def compress(counts: Counter[tuple[int, int]], keep: int) -> list[list[int]]:
    """Return [a, b, times] of the ``keep`` most frequent pairs, each other pair's times added
    to the nearest kept one (the first of equals), sorted."""
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    kept = dict(ranked[:keep])
    for (a, b), times in ranked[keep:]:
        nearest = min(kept, key=lambda pair: (abs(pair[0] - a) + abs(pair[1] - b), pair))
        kept[nearest] += times
    return [[a, b, times] for (a, b), times in sorted(kept.items())]


@dataclass(frozen=True, slots=True)
class Note:
    """A packet about to be played: its key, and the leading and dealing teams' state."""

    key: str
    lead: int
    piles: tuple[int, int]
    scores: tuple[int, int]


def _over(game: Game) -> bool:
    return game.phase is Phase.FINISHED


def _in_claims(game: Game) -> bool:
    return game.phase is Phase.CLAIMS


def self_play(profile: str, seed: str, into: dict[str, Counter[tuple[int, int, int, int]]]) -> None:
    """Play one level-3 game and add what each noted packet's rest of the hand brought."""
    game = Game.new(profile, seed=seed)
    notes: list[Note] = []
    played = Played()

    def close(piles: tuple[int, int], scores: tuple[int, int]) -> None:
        for note in notes:
            lead, dealing = note.lead, 1 - note.lead
            into[note.key][
                piles[lead] - note.piles[lead],
                piles[dealing] - note.piles[dealing],
                scores[lead] - note.scores[lead],
                scores[dealing] - note.scores[dealing],
            ] += 1
        notes.clear()

    while not _over(game):
        phase = game.phase
        if phase is Phase.PLAY or phase is Phase.ANNOUNCE:
            hand, packet, before = game.hand_number, game.packet, tuple(game._scores)
            events = game.apply(level3_move(game, played))
            counted = next((e for e in events if isinstance(e, HandCounted)), None)
            if counted is not None:  # no claim window: counted, and the next hand dealt
                card = events[0]
                assert isinstance(card, PlayedEvent), "a hand ends with its last card"
                scores = list(before)
                scores[card.seat & 1] += card.points
                close(counted.piles, (scores[0], scores[1]))
            elif _in_claims(game) or _over(game):
                close(game.pile_sizes, scores_with_awards(game))
            elif game.packet != packet and game.hand_number == hand:
                notes.append(
                    Note(
                        key_of(game.rules.packets_per_hand - game.packet, len(game._table)),
                        (game._turn or 0) & 1,
                        game.pile_sizes,
                        scores_with_awards(game),
                    )
                )
        elif phase is Phase.CLAIMS:
            claim_all(game)
        else:
            game.apply(game.system_actions()[0])
            notes.clear()


def train(games: int, seed: str, profiles: tuple[str, ...] = PROFILES) -> dict[str, object]:
    """Return the model (`rest`'s JSON form) from ``games`` self-play games per profile."""
    out: dict[str, object] = {}
    for profile in profiles:
        seen: dict[str, Counter[tuple[int, int, int, int]]] = {}
        for left in range(1, 5):
            for table in range(TABLE_CAP + 1):
                seen[key_of(left, table)] = Counter()
        for index in range(games):
            self_play(profile, f"{seed}/{profile}/{index}", seen)
        entries: dict[str, object] = {}
        for key, counts in seen.items():
            if not counts:
                continue
            cards: Counter[tuple[int, int]] = Counter()
            points: Counter[tuple[int, int]] = Counter()
            for (cards_lead, cards_dealing, points_lead, points_dealing), times in counts.items():
                cards[cards_lead, cards_dealing] += times
                points[points_lead, points_dealing] += times
            entries[key] = {
                "samples": sum(counts.values()),
                "cards": compress(cards, KEEP_CARDS),
                "points": compress(points, KEEP_POINTS),
            }
        out[profile] = entries
    return {"seed": seed, "games": games, "profiles": out}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", choices=("rest", "policy"), default="rest", help="what to fit")
    parser.add_argument("--games", type=int, default=None, help="self-play games per profile")
    parser.add_argument("--seed", default=None, help="the seed list of the games")
    parser.add_argument("--out", default=None, help="where to write the model")
    policy = parser.add_argument_group("--model policy")
    policy.add_argument("--deals", type=int, default=None, help="sampled deals per decision")
    policy.add_argument("--stride", type=int, default=None, help="every n-th decision is kept")
    policy.add_argument("--jobs", type=int, default=1, help="processes (same file for any)")
    policy.add_argument(
        "--profiles", default="pagat-4p", help="comma-separated profiles (default: pagat-4p)"
    )
    policy.add_argument(
        "--full", action="store_true", help="the full run's games, deals and stride (hours)"
    )


def run_policy(args: argparse.Namespace) -> int:
    """Fit the learned policy (`learn`) and write it."""
    from engine.bots import learn, learned

    sizes = learn.FULL if args.full else learn.SMALL
    games = args.games or sizes["games"]
    deals = args.deals or sizes["deals"]
    stride = args.stride or sizes["stride"]
    profiles = tuple(p for p in args.profiles.split(",") if p)
    model = learn.train(args.seed or "policy-1", games, deals, stride, args.jobs, profiles)
    out = args.out or str(learned.POLICY_PATH)
    learn.report(model, out, learn.write(model, out))
    return 0


def run(args: argparse.Namespace) -> int:
    if args.model == "policy":
        return run_policy(args)
    args.games = args.games or 20000
    args.seed = args.seed or "rest-1"
    args.out = args.out or str(MODEL_PATH)
    model = train(args.games, args.seed)
    text = json.dumps(model, separators=(",", ":"), sort_keys=True)
    with open(args.out, "w", encoding="utf-8") as file:
        file.write(text + "\n")
    size = len(text) // 1024
    print(f"wrote {args.out}: {size} KB, {args.games} games per profile", file=sys.stderr)
    return 0
