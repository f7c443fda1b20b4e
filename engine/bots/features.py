"""What the learned policy sees of a play: numbers computed from the seat's own view only.

`features` turns a view and its plays into one row of numbers per play: what level 3 weighs
(its appraisal, R9 points, cards taken, the follow-up `partner.follow_up` reckons), what the
play leaves (the table's size and sum, the cards of its rank still unseen, what the hand
kept can still capture, whether the next opponent seems to lack the trailed rank), and the
state of the game (scores near 30 and 36, the packet and the hand ending, who deals). A
small network over them (`learned`) ranks the plays; since it compares plays of one
position, a number that is the same for every play (the score alone) counts only through
what it changes in the others' worth.

Every input comes from `View` (hand, table, the hand's public history with who played what,
scores, piles, phase): nothing the seat cannot see, so re-dealing the unseen cards never
changes a row (tests/engine/bots/test_learned.py).
"""

from __future__ import annotations

from engine.actions import Play
from engine.bots.counting import Position, _reckoning, position_of
from engine.bots.counting import _appraise as appraise_with
from engine.bots.partner import follow_up
from engine.bots.sampling import evidence_of
from engine.captures import can_capture
from engine.scoring import play_points
from engine.views import View

#: what a play's own numbers are called.
PLAY = (
    "worth",
    "follow_up",
    "trail",
    "taken",
    "points",
    "caida",
    "limpia",
    "table_after",
    "table_sum",
    "trail_unseen_0",
    "trail_unseen_1",
    "trail_unseen_2",
    "trail_unseen_3",
    "trail_figure",
    "trail_rank",
    "capture_rank",
    "kept_captures",
    "kept_same_rank",
    "next_lacks_rank",
    "partner_lacks_rank",
)
#: the state of the game, the same for every play of a position (R6, R9, R10, R12 thresholds).
CONTEXT = (
    "own_30",
    "other_30",
    "own_36",
    "other_36",
    "packet_late",
    "last_packet",
    "dealer_own",
    "heads_up",
)
#: a row: the play's numbers, then the position's (the model crosses them itself).
NAMES = (*PLAY, *CONTEXT)


def _context(view: View, pos: Position) -> list[float]:
    held = sum(view.hand_sizes)
    seats = view.rules.seats
    return [
        float(pos.score >= 30),
        float(pos.other_score >= 30),
        float(pos.score >= 36),
        float(pos.other_score >= 36),
        float(held <= seats * 2),
        float(view.undealt == 0),
        float(pos.dealer_own),
        float(seats == 2),
    ]


def _table_after(view: View, play: Play) -> list[int]:
    table = list(view.table)
    if not play.take:
        return [*table, play.card]
    taken = set(play.take)
    return [card for card in table if card not in taken]


def features(view: View, plays: list[Play]) -> list[list[float]]:
    """Return one row of `NAMES` numbers per play of ``plays`` (the viewer's own plays)."""
    seat = view.viewer
    assert seat is not None, "a seated player's view"
    assert view.hand is not None, "a seated player sees its hand"
    pos = position_of(view)
    rec = _reckoning(pos)
    seats = view.rules.seats
    declined = evidence_of(view, declined=True).declined
    next_lacks = declined[(seat + 1) % seats]
    partner_lacks = declined[(seat + 2) % seats] if seats == 4 else frozenset()
    context = _context(view, pos)
    target = view.caida_target
    rows: list[list[float]] = []
    for play in plays:
        rank = play.card >> 2
        trail = not play.take
        after = _table_after(view, play)
        by_rank: list[list[int]] = [[] for _ in range(10)]
        for card in after:
            by_rank[card >> 2].append(card)
        kept = [card for card in view.hand if card != play.card]
        if seats == 2:
            extra = follow_up(pos, play, len(kept), tuple(kept))
        else:
            extra = follow_up(pos, play, view.hand_sizes[(seat + 2) % seats])
        caida = target is not None and target in play.take and target >> 2 == rank
        limpia = bool(play.take) and not after
        unseen = pos.unseen[rank]
        row = [
            appraise_with(pos, rec, play),
            extra,
            float(trail),
            len(play.take) / 4.0,
            float(play_points(view.rules, pos.score, caida, limpia)) if play.take else 0.0,
            float(caida),
            float(limpia),
            len(after) / 5.0,
            sum(card // 4 + 1 for card in after if card // 4 < 7) / 20.0,
            float(trail and unseen == 0),
            float(trail and unseen == 1),
            float(trail and unseen == 2),
            float(trail and unseen >= 3),
            float(trail and rank >= 7),
            rank / 9.0 if trail else 0.0,
            0.0 if trail else rank / 9.0,
            sum(can_capture(by_rank, card >> 2) for card in kept) / 4.0,
            float(any(card >> 2 == rank for card in kept)),
            float(trail and rank in next_lacks),
            float(trail and rank in partner_lacks),
        ]
        row.extend(context)
        rows.append(row)
    return rows
