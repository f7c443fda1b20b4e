"""Deal the cards one seat cannot see, consistently with everything it observed.

A sample ("determinization") gives every other seat a hand of the right size and the rest
of the pack to the stock, respecting what the public record proves:

- R6 ronda: a seat that announced ronda this packet holds exactly three of a rank among
  its packet's cards (played ones included; libre-2p: three or four); with automatic
  announcements, a seat whose team was below the ronda limit and announced nothing holds no
  ronda (its team's score now bounds its score then, since scores never fall).
- R6 cuarenta: with automatic announcements and four of a kind winning, nobody holds four
  of a rank this packet — the game would be over.
- R7/R13 mandatory capture: a seat that trailed while a rank could capture holds no card of
  that rank now (it would have had to capture with it).

With ``declined`` (level 5) it also reads how the others played, as a belief rather than a
fact: a seat that let a caída go (R9: it did not match the card just trailed) or trailed
while it could have captured (R7) most likely holds no card of those ranks, so they are
kept out of its hand in `DECLINED_TRUST` of the samples.

Constrained seats are served first; the remaining conflicts (announcement facts) are
rejected and redealt a bounded number of times, so sampling never loops forever.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from engine.captures import can_capture
from engine.coredeals import Sampler
from engine.state import Hidden
from engine.views import View

#: redeals tried before a sample that breaks an announcement fact is accepted anyway.
TRIES = 24
#: the share of samples in which a declined caída's rank is kept out of the seat's hand.
DECLINED_TRUST = 0.85


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the public record proves about the other seats' current hands."""

    played: tuple[tuple[int, ...], ...]  # this packet's plays, per seat
    ronda: tuple[bool | None, ...]  # True: holds a ronda, False: holds none, None: unknown
    no_four: bool  # nobody holds four of a rank this packet
    forbidden: tuple[frozenset[int], ...]  # ranks a seat cannot hold now
    declined: tuple[frozenset[int], ...]  # ranks a seat probably does not hold (how it played)
    unseen: tuple[int, ...] = ()  # the cards the viewer cannot place (`View.unseen`)


def _could_capture_at_trails(view: View) -> list[set[int]]:
    """Return, per seat, the ranks that could have captured when it trailed this packet (R7)."""
    seats = view.rules.seats
    ranks: list[set[int]] = [set() for _ in range(seats)]
    table: list[list[int]] = [[] for _ in range(10)]
    for entry in view.history:
        if entry.card >= 0 and not entry.take and entry.packet == view.packet:
            ranks[entry.seat].update(r for r in range(10) if can_capture(table, r))
        if entry.card >= 0 and not entry.take:
            table[entry.card >> 2].append(entry.card)
        for card in entry.take:
            table[card >> 2].remove(card)
    return ranks


def _forbidden_ranks(view: View) -> list[set[int]]:
    """Return, per seat, the ranks it cannot hold after trailing when it could capture."""
    if not view.rules.capture_mandatory:
        return [set() for _ in range(view.rules.seats)]
    return _could_capture_at_trails(view)


def _declined_ranks(view: View) -> list[set[int]]:
    """Return, per seat, the ranks it probably does not hold, from how it played this packet.

    A seat that let a caída go (R9) or trailed while a rank could capture (R7) most likely
    held no card of that rank: every level from 2 up, and most people, capture when they can.
    Hands only shrink within a packet, so it holds none now either.
    """
    declined = _could_capture_at_trails(view)
    previous = None
    for entry in view.history:
        if entry.card < 0 or entry.packet != view.packet:
            continue
        if previous is not None and not previous.take and not entry.caida:
            declined[entry.seat].add(previous.card >> 2)
        previous = entry
    return declined


def evidence_of(view: View, declined: bool = False) -> Evidence:
    """Collect what ``view``'s public record proves (and, with ``declined``, suggests)."""
    rules = view.rules
    seats = rules.seats
    played: list[list[int]] = [[] for _ in range(seats)]
    for entry in view.history:
        if entry.card >= 0 and entry.packet == view.packet:
            played[entry.seat].append(entry.card)
    automatic = rules.announcements == "auto"
    announced = set(view.ronda_announced)
    ronda: list[bool | None] = []
    for seat in range(seats):
        if seat in announced:
            ronda.append(True)
        elif automatic and view.scores[seat & 1] < rules.ronda_limit:
            ronda.append(False)
        else:
            ronda.append(None)
    no_four = automatic and rules.four_of_a_kind == "wins" and view.cuarenta is None
    forbidden = tuple(frozenset(ranks) for ranks in _forbidden_ranks(view))
    unlikely = _declined_ranks(view) if declined else [set() for _ in range(seats)]
    return Evidence(
        tuple(map(tuple, played)),
        tuple(ronda),
        no_four,
        forbidden,
        tuple(frozenset(ranks) for ranks in unlikely),
        view.unseen(),
    )


def shuffle(items: list[int], rng: random.Random) -> None:
    """Shuffle ``items`` in place exactly as ``rng.shuffle(items)`` does: the same walk and
    the same draws (an index below n is ``getrandbits(n.bit_length())``, drawn again while
    it is n or more, as `engine.flow.shuffled_pack`), without a method call per item."""
    bits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = bits(k)
        while j >= n:
            j = bits(k)
        items[i], items[j] = items[j], items[i]


def _counts(cards: list[int]) -> list[int]:
    counts = [0] * 10
    for card in cards:
        counts[card >> 2] += 1
    return counts


def _fits(view: View, evidence: Evidence, seat: int, hand: list[int]) -> bool:
    counts = _counts([*evidence.played[seat], *hand])
    if evidence.no_four and 4 in counts:
        return False
    fact = evidence.ronda[seat]
    if fact is None:
        return True
    has = 3 in counts or (view.rules.four_of_a_kind == "ronda" and 4 in counts)
    return has == fact


def _seed_ronda(evidence: Evidence, seat: int, pool: list[int], rng: random.Random) -> list[int]:
    """Pick a rank the announced ronda may be and the pool cards that complete it."""
    played = _counts(list(evidence.played[seat]))
    in_pool = _counts(pool)
    options = [
        (rank, 3 - played[rank])
        for rank in range(10)
        if played[rank] <= 3 and in_pool[rank] >= 3 - played[rank]
    ]
    if not options:
        return []
    rank, need = rng.choice(options)
    cards = [card for card in pool if card >> 2 == rank]
    shuffle(cards, rng)
    return cards[:need]


def _deal_once(view: View, evidence: Evidence, rng: random.Random) -> list[list[int]]:
    seats = view.rules.seats
    pool = list(evidence.unseen or view.unseen())
    shuffle(pool, rng)
    hands: list[list[int]] = [[] for _ in range(seats)]
    others = [seat for seat in range(seats) if seat != view.viewer]
    # constrained seats first: a ronda announcer gets its three, then forbidden ranks are avoided
    others.sort(key=lambda seat: (evidence.ronda[seat] is not True, not evidence.forbidden[seat]))
    trust = rng.random() < DECLINED_TRUST
    for seat in others:
        size = view.hand_sizes[seat]
        if evidence.ronda[seat] is True:
            for card in _seed_ronda(evidence, seat, pool, rng)[:size]:
                pool.remove(card)
                hands[seat].append(card)
        banned = (
            evidence.forbidden[seat] | evidence.declined[seat]
            if trust
            else evidence.forbidden[seat]
        )
        allowed = [card for card in pool if card >> 2 not in banned]
        for card in allowed[: size - len(hands[seat])]:
            pool.remove(card)
            hands[seat].append(card)
        while len(hands[seat]) < size:  # the evidence cannot all hold: deal what is left
            hands[seat].append(pool.pop())
    hands.append(pool)  # the stock (order is random already)
    return hands


def sample_hidden(view: View, evidence: Evidence, rng: random.Random) -> Hidden:
    """Return one deal of the cards ``view``'s seat cannot see, consistent with ``evidence``."""
    seats = view.rules.seats
    dealt = _deal_once(view, evidence, rng)
    for _ in range(TRIES - 1):
        if all(_fits(view, evidence, s, dealt[s]) for s in range(seats) if s != view.viewer):
            break
        dealt = _deal_once(view, evidence, rng)
    own = tuple(view.hand or ())
    hands = tuple(own if s == view.viewer else tuple(dealt[s]) for s in range(seats))
    return Hidden(hands=hands, stock=tuple(dealt[seats]))


def _ranks_mask(ranks: frozenset[int]) -> int:
    mask = 0
    for rank in ranks:
        mask |= 1 << rank
    return mask


def sampler_of(view: View, evidence: Evidence) -> Sampler:
    """Return `sample_hidden` on ints (`engine.coredeals.Sampler`, compiled with the core):
    its ``deal(rng)`` makes the same draws and the same deals, as lists."""
    seats = view.rules.seats
    return Sampler(
        -1 if view.viewer is None else view.viewer,
        list(view.hand or ()),
        list(view.hand_sizes),
        list(evidence.unseen or view.unseen()),
        [list(cards) for cards in evidence.played],
        [-1 if fact is None else int(fact) for fact in evidence.ronda],
        [_ranks_mask(evidence.forbidden[seat]) for seat in range(seats)],
        [_ranks_mask(evidence.declined[seat]) for seat in range(seats)],
        evidence.no_four,
        view.rules.four_of_a_kind == "ronda",
    )
