"""A search's sampled deals on ints, compiled with the fast core: `Sampler` deals the unseen
cards as `engine.bots.sampling.sample_hidden` does (the same draws from the same generator,
so the same deals), and `Layer` lays a deal on a copy of the view's first core as
`engine.bridge.Deals` does. Those two stay the readable references; a test holds each of
these to them. Both are built from a view by `sampling.sampler_of` and `bridge.Deals`.

Written for mypyc, like the core (`engine.core`).
"""

from __future__ import annotations

from random import Random
from typing import Final

from engine.core import Core

#: redeals tried before a sample that breaks an announcement fact is accepted anyway
#: (`sampling.TRIES`)
TRIES: Final = 24
#: the share of samples that keep declined ranks out of a seat's hand (`sampling.DECLINED_TRUST`)
DECLINED_TRUST: Final = 0.85


def shuffle(items: list[int], rng: Random) -> None:
    """`sampling.shuffle`: ``rng.shuffle(items)``'s walk and draws."""
    i = len(items) - 1
    while i > 0:
        n = i + 1
        k = n.bit_length()
        j: int = rng.getrandbits(k)
        while j >= n:
            j = rng.getrandbits(k)
        items[i], items[j] = items[j], items[i]
        i -= 1


def _counts(cards: list[int]) -> list[int]:
    counts = [0] * 10
    for card in cards:
        counts[card >> 2] += 1
    return counts


class Sampler:
    """One view's evidence (`sampling.Evidence`) as ints, ready to deal from.

    ``ronda`` per seat: 1 holds a ronda, 0 holds none, -1 unknown; ``forbidden`` and
    ``declined`` per seat: bit sets of ranks.
    """

    def __init__(
        self,
        viewer: int,
        own: list[int],
        sizes: list[int],
        pool: list[int],
        played: list[list[int]],
        ronda: list[int],
        forbidden: list[int],
        declined: list[int],
        no_four: bool,
        four_is_ronda: bool,
    ) -> None:
        seats = len(sizes)
        self.seats = seats
        self.viewer = viewer
        self.own = own
        self.sizes = sizes
        self.pool = pool
        self.played = played
        self.ronda = ronda
        self.forbidden = forbidden
        self.declined = declined
        self.no_four = no_four
        self.four_is_ronda = four_is_ronda
        others = [seat for seat in range(seats) if seat != viewer]
        # constrained seats first: a ronda announcer, then a seat with forbidden ranks
        self.order = sorted(others, key=lambda seat: (ronda[seat] != 1, forbidden[seat] == 0))

    def deal(self, rng: Random) -> list[list[int]]:
        """`sampling.sample_hidden`: every seat's hand (the viewer's own), then the stock."""
        dealt = self.deal_once(rng)
        for _ in range(TRIES - 1):
            fits = True
            for seat in range(self.seats):
                if seat != self.viewer and not self.fits(seat, dealt[seat]):
                    fits = False
                    break
            if fits:
                break
            dealt = self.deal_once(rng)
        if self.viewer >= 0:
            dealt[self.viewer] = self.own[:]
        return dealt

    def fits(self, seat: int, hand: list[int]) -> bool:
        """`sampling._fits`."""
        counts = _counts(self.played[seat] + hand)
        if self.no_four and 4 in counts:
            return False
        fact = self.ronda[seat]
        if fact < 0:
            return True
        has = 3 in counts or (self.four_is_ronda and 4 in counts)
        return has == (fact == 1)

    def seed_ronda(self, seat: int, pool: list[int], rng: Random) -> list[int]:
        """`sampling._seed_ronda`."""
        played = _counts(self.played[seat])
        in_pool = _counts(pool)
        options: list[tuple[int, int]] = []
        for rank in range(10):
            if played[rank] <= 3 and in_pool[rank] >= 3 - played[rank]:
                options.append((rank, 3 - played[rank]))
        if not options:
            return []
        choice: tuple[int, int] = rng.choice(options)
        rank, need = choice
        cards = [card for card in pool if card >> 2 == rank]
        shuffle(cards, rng)
        return cards[:need]

    def deal_once(self, rng: Random) -> list[list[int]]:
        """`sampling._deal_once`."""
        pool = self.pool[:]
        shuffle(pool, rng)
        hands: list[list[int]] = [[] for _ in range(self.seats)]
        trust: bool = rng.random() < DECLINED_TRUST
        for seat in self.order:
            size = self.sizes[seat]
            hand = hands[seat]
            if self.ronda[seat] == 1:
                for card in self.seed_ronda(seat, pool, rng)[:size]:
                    pool.remove(card)
                    hand.append(card)
            banned = self.forbidden[seat] | self.declined[seat] if trust else self.forbidden[seat]
            allowed = [card for card in pool if not (banned >> (card >> 2)) & 1]
            for card in allowed[: size - len(hand)]:
                pool.remove(card)
                hand.append(card)
            while len(hand) < size:  # the evidence cannot all hold: deal what is left
                hand.append(pool.pop())
        hands.append(pool)  # the stock (order is random already)
        return hands


def deal_hidden(sampler: Sampler, rng: Random) -> list[list[int]]:
    """Return ``sampler.deal(rng)``: the one call a search makes per deal (a bench counts it)."""
    return sampler.deal(rng)


class Layer:
    """What a deal changes in a view's first core, laid on a copy of it (`bridge.Deals.core`).

    ``played``: per seat, the cards it played this packet; ``before``: per seat, the rank it
    held three of in each earlier packet (-1: none), ``before[packet][seat]``; ``caidas``: the
    hand's caídas in order as (packet, trailer seat, capturing team, rank); ``claimed``: the
    R10 events claimed validly, (team, rank) in order.
    """

    def __init__(
        self,
        first: Core,
        packet: int,
        played: list[list[int]],
        before: list[list[int]],
        caidas: list[tuple[int, int, int, int]],
        claimed: list[tuple[int, int]],
    ) -> None:
        self.first = first
        self.packet = packet
        self.played = played
        self.before = before
        self.caidas = caidas
        self.claimed = claimed

    def core(self, dealt: list[list[int]]) -> Core:
        """Return the first core with the hands and stock of ``dealt`` (`Sampler.deal`)."""
        core = self.first.copy()
        seats = core.seats
        threes = [-1] * seats
        for seat in range(seats):
            hand = sorted(dealt[seat])
            core.hands[seat] = hand
            counts = _counts(self.played[seat] + hand)
            threes[seat] = counts.index(3) if 3 in counts else -1
            core.ronda[seat] = threes[seat]
            core.four[seat] = counts.index(4) if 4 in counts else -1
        stock = dealt[seats]
        core.pack = [-1] * (40 - len(stock)) + stock
        events: list[tuple[int, int]] = []
        caught = [False] * seats
        if core.awards:
            caught_before: list[int] = []  # (packet * 4 + seat) of earlier packets
            for packet, trailer, team, rank in self.caidas:
                if packet == self.packet:
                    if caught[trailer] or threes[trailer] != rank:
                        continue
                    caught[trailer] = True
                else:
                    earlier = packet * 4 + trailer
                    if earlier in caught_before or self.before[packet][trailer] != rank:
                        continue
                    caught_before.append(earlier)
                events.append((team, rank))
            for event in self.claimed:
                if event in events:
                    events.remove(event)
        core.r10 = events
        core.ronda_caught = caught
        return core
