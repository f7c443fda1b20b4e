"""`cuarenta bench follow_up`: level 3 with the follow-up term against level 3, duplicate.

Level 6 ranks level 3's plays with `engine.bots.partner`'s follow-up (what the partner, or
heads-up the player's own next card, makes of the opponent's trail). This plays that ranking
alone, no search, as a level of its own (registered as `LEVEL` in this process only) in
`cuarenta tournament`'s duplicate games against level 3, so its worth is measured apart from
the search's: ``--weight`` scales the term (level 6 uses 1).
"""

from __future__ import annotations

import argparse
import random

from bench import tournament
from engine.actions import Action
from engine.bots import Budget, Policy, register
from engine.bots.counting import best_of, own_plays, position_of, without_gifts
from engine.bots.partner import partner_ranked
from engine.bots.routine import routine
from engine.views import View

#: the level number the ranking plays as (no real level has it).
LEVEL = 13


def follow_up_policy(weight: float) -> Policy:
    """Return level 3 ranked with ``weight`` times the follow-up, ties broken by the rng."""

    def policy(
        view: View, legal: tuple[Action, ...], rng: random.Random, budget: Budget
    ) -> Action | None:
        decided, action = routine(view, legal)
        if decided:
            return action
        plays = without_gifts(position_of(view), own_plays(view, legal))
        return best_of(partner_ranked(view, plays, weight), rng)

    return policy


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Describe the command line (see the module docstring)."""
    parser.add_argument("--weight", type=float, default=1.0, help="the follow-up's weight")
    parser.add_argument("--pairs", type=int, default=400)
    parser.add_argument("--profile", default="pagat-4p")
    parser.add_argument("--seed-list", default="follow-up", metavar="NAME")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--json", action="store_true")


def run(args: argparse.Namespace) -> int:
    """Play the match and print `cuarenta tournament`'s figures (level 13: the follow-up)."""
    register(LEVEL)(follow_up_policy(args.weight))
    parser = argparse.ArgumentParser()
    tournament.add_arguments(parser)
    options = [str(LEVEL), "3", "--pairs", str(args.pairs), "--profile", args.profile]
    options += ["--seed-list", args.seed_list, "--jobs", str(args.jobs)]
    return tournament.run(parser.parse_args([*options, *(["--json"] if args.json else [])]))
