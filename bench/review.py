"""`cuarenta bench review`: how far the coach's marks can be trusted.

The positions are the play decisions of level-3 self-play games (seeds
``bench-review/<profile>/<i>``) where the seat has more than one distinct play. At each, level 5
chooses its play (its own budget), and the review judges that play as it would in a game
(`review.judge`, `REVIEW_BUDGET`, seed 0). Level 5's play is what the review recommends, up to
the noise of two searches, so every mark it gets (inaccuracy or worse) is suspect: each one is
judged again on `REFERENCE` times the deals with other seeds, and the bench counts the marks
that reference still gives, and those it calls good. It also prints the positions searched
again (their loss within two errors of a threshold) and the review's CPU per judged play.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

from bench.declines import level3_decisions
from engine.actions import Play
from engine.bots import Budget, choose
from engine.bots.deep import SAMPLE_FACTOR
from engine.bots.hint import distinct_plays
from engine.bots.review import REVIEW_BUDGET, WIDEN, judge
from engine.rules import PROFILES

#: the reference search: this many times the review's deals, with each of `SEEDS` seeds.
REFERENCE = 4
SEEDS = (101, 202)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--positions", type=int, default=300, help="level 5's plays judged")
    parser.add_argument("--profile", default="pagat-4p", choices=sorted(PROFILES))
    parser.add_argument("--samples", type=int, default=None, help="level 5's samples")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")


def measure(args: argparse.Namespace) -> dict[str, object]:
    """Judge level 5's plays, then every mark again on the reference search."""
    budget = Budget(samples=args.samples) if args.samples else None
    marks: list[dict[str, object]] = []
    judged = widened = held = 0
    base = (REVIEW_BUDGET.samples or 0) * SAMPLE_FACTOR
    spent = 0.0
    rng = random.Random("bench-review")
    for _, seat, view, legal in level3_decisions(args.profile, f"bench-review/{args.profile}"):
        if judged == args.positions:
            break
        if view.turn != seat or len(distinct_plays(view, legal)) < 2:
            continue
        made = choose(5, view, legal, rng, budget)
        if not isinstance(made, Play):
            continue
        began = time.process_time()
        step = judge(view, legal, made, REVIEW_BUDGET, 0)
        spent += time.process_time() - began
        judged += 1
        widened += step.deals > base
        if step.grade in ("good", "forced"):
            continue
        wide = Budget(samples=(REVIEW_BUDGET.samples or 0) * REFERENCE)
        again = [judge(view, legal, made, wide, seed) for seed in SEEDS]
        held += all(each.grade != "good" for each in again)
        marks.append(
            {
                "grade": step.grade,
                "loss": round(step.loss, 2),
                "sure": round(step.sure, 2),
                "reference": [each.grade for each in again],
                "reference_loss": round(statistics.fmean(each.loss for each in again), 2),
            }
        )
    return {
        "profile": args.profile,
        "judged": judged,
        "marks": len(marks),
        "marks_held": held,
        "marks_good_by_reference": len(marks) - held,
        "searched_again": widened,
        "widen": WIDEN,
        "review_cpu_ms_per_play": round(1000 * spent / max(1, judged), 1),
        "each_mark": marks,
    }


def run(args: argparse.Namespace) -> int:
    figures = measure(args)
    if args.json:
        print(json.dumps(figures, indent=1))
        return 0
    each_mark = figures.pop("each_mark")
    assert isinstance(each_mark, list)
    print(f"level 5's plays judged by the review ({figures['profile']}): {figures['judged']}")
    print(f"  searched again near a threshold ({WIDEN}x the deals): {figures['searched_again']}")
    print(f"  review CPU per judged play: {figures['review_cpu_ms_per_play']} ms")
    print(
        f"  marks given: {figures['marks']}; held by the reference ({REFERENCE}x deals, "
        f"{len(SEEDS)} seeds): {figures['marks_held']}; "
        f"called good there: {figures['marks_good_by_reference']}"
    )
    for mark in each_mark:
        print(f"    {mark}")
    return 0
