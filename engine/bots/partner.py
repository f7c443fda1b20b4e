"""The follow-up of a play: what the seat after the next opponent can make of it.

Level 3 (`counting`) weighs a play by what it scores minus the next player's best reply;
the next player is always an opponent (R1), so it never looks at the seat after, its
partner's (or, heads-up, its own next card). That seat plays after the opponent's reply,
on the table the play left, and most often right after a trail: the opponent could not
capture, trailed a card, and the follower may catch it (a caída, R9) or clean the table
(a limpia). So a play that leaves the opponent nothing to take, and a table the follower
can clean once the opponent's card lands on it, is worth more than level 3 says.

`follow_up` reckons it the way level 3 reckons the reply: the chance the opponent can
capture nothing on the table the play leaves (each rank it may hold, from the cards
unseen), the card it then trails (any unseen rank that captures nothing there, by how many
are unseen), and on that table plus that card, with the trailed card a caída's target, the
follower's best capture: by chance, from the cards unseen (the partner's hand), or for
certain (heads-up: the player's own hand after the play). Nothing else of the reply is
counted twice: when the opponent captures, level 3's risk has it already.
"""

from __future__ import annotations

from engine.actions import Play
from engine.bots.counting import (
    WIN_VALUE,
    Position,
    _missed,
    _stakes,
    position_of,
    ranked_plays,
    replies_on,
)
from engine.bots.odds import MARGINS, chance_holds
from engine.captures import RANK_UNIT, table_code
from engine.scoring import play_points
from engine.views import View

#: how much of the follow-up counts (the follower may have better to do).
FOLLOW_WEIGHT = 1.0


def _after(pos: Position, play: Play) -> tuple[int, int, int, int, int]:
    """Return the table's code and size, both piles and the team's score after ``play``
    (R8: missed cards go to the other team at once)."""
    rank = play.card >> 2
    code = table_code(pos.by_rank)
    if not play.take:
        return code + RANK_UNIT[rank], pos.table_size + 1, pos.pile, pos.other_pile, pos.score
    for card in play.take:
        code -= RANK_UNIT[card >> 2]
    size = pos.table_size - len(play.take)
    target = pos.caida_target
    caida = target >= 0 and target >> 2 == rank and target in play.take
    score = pos.score + play_points(pos.rules, pos.score, caida, size == 0)
    other_pile = pos.other_pile
    if size and pos.rules.forfeiture and pos.rules.sequence == "manual":
        for missed in _missed(code, rank, play.take):
            code -= RANK_UNIT[missed]
            size -= 1
            other_pile += 1
    return code, size, pos.pile + len(play.take) + 1, other_pile, score


def follow_up(
    pos: Position, play: Play, follower_hand: int, own_after: tuple[int, ...] | None = None
) -> float:
    """Return the expected worth, to the player's team, of the follower's capture after the
    next opponent trails (see the module docstring).

    ``follower_hand``: the follower's cards now (the partner's); ``own_after``: heads-up,
    the player's own hand after ``play`` (then the follower's captures are certain).
    """
    if pos.next_hand == 0 or not pos.caida_next:
        return 0.0  # the packet ends before the opponent, or with its card (R9: no caída)
    if own_after is None and follower_hand <= 0:
        return 0.0
    if own_after is not None and not own_after:
        return 0.0
    code, size, pile, other_pile, score = _after(pos, play)
    if score >= pos.rules.target:
        return 0.0
    unseen = pos.unseen
    total = pos.unseen_total
    trail_target = (play.card >> 2) if not play.take else -1
    capturing: set[int] = set()
    if size:
        for _, ranks in replies_on(code, trail_target):
            capturing.update(ranks)
    trails = 1.0
    for rank in capturing:
        trails *= 1.0 - chance_holds(total, unseen[rank], pos.next_hand)
    weights = [0 if rank in capturing else unseen[rank] for rank in range(10)]
    spread = sum(weights)
    if trails <= 0.0 or spread == 0:
        return 0.0
    points, wins = _stakes(pos.rules, score)
    margins = MARGINS[pos.dealer_own]
    other = other_pile if other_pile < 40 else 40
    base = margins[pile if pile < 40 else 40][other]
    held = None if own_after is None else {card >> 2 for card in own_after}
    expected = 0.0
    for trailed in range(10):
        if not weights[trailed]:
            continue
        replies: list[tuple[float, int]] = []
        for options, ranks in replies_on(code + RANK_UNIT[trailed], trailed):
            best = 0.0
            for extra, kind in options:
                gained = pile + extra
                value = points[kind] + margins[gained if gained < 40 else 40][other] - base
                if wins[kind]:
                    value += WIN_VALUE
                best = max(best, value)
            for rank in ranks:
                count = unseen[rank] - (rank == trailed)
                if held is not None:
                    if rank in held:
                        replies.append((best, 1))
                elif count > 0:
                    replies.append((best, count))
        replies.sort(reverse=True)
        value, none_yet = 0.0, 1.0
        for worth, count in replies:
            chance = 1.0 if held is not None else chance_holds(total - 1, count, follower_hand)
            value += none_yet * chance * worth
            none_yet *= 1.0 - chance
            if none_yet <= 0.0:
                break
        expected += weights[trailed] / spread * value
    return trails * expected


def partner_ranked(
    view: View, plays: list[Play], weight: float = FOLLOW_WEIGHT
) -> list[tuple[float, Play]]:
    """Return (worth, play) best first: level 3's appraisal plus ``weight`` times the
    play's `follow_up` (stable for equal worth)."""
    pos = position_of(view)
    seat = view.viewer
    assert seat is not None, "a seated player's view"
    assert view.hand is not None, "a seated player sees its hand"
    seats = view.rules.seats
    scored = []
    for index, (worth, play) in enumerate(ranked_plays(pos, plays)):
        if seats == 2:
            own = tuple(card for card in view.hand if card != play.card)
            extra = follow_up(pos, play, len(own), own)
        else:
            extra = follow_up(pos, play, view.hand_sizes[(seat + 2) % seats])
        scored.append((worth + weight * extra, index, play))
    scored.sort(key=lambda item: (-item[0], item[1]))
    return [(worth, play) for worth, _, play in scored]
