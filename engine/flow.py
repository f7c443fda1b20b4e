"""The automatic steps of a game (R3-R6, R10-R12): deals, announcements, awards, the count.

They run inside `apply` (and when a game starts) whenever no one's input is needed, so the
game always rests at a decision: a turn, an announcement, the claim window, or the end.
"""

from __future__ import annotations

import random

from engine.cards import DIAMONDS, RANKS, card_by_code, codes
from engine.events import (
    Announced,
    Awarded,
    ClaimsOpened,
    Event,
    GameOver,
    HandCounted,
    HandStarted,
    MisdealRuled,
    PacketDealt,
)
from engine.legal import Legal
from engine.phase import Phase
from engine.scoring import count_points, ronda_scores

_PLAY, _FINISHED = Phase.PLAY, Phase.FINISHED  # bound once (see engine.legal)


def _read_pack(pack: tuple[str, ...]) -> list[int] | str:
    """Return a pack's cards, or why it is irregular (R5): not the 40 distinct cards."""
    if len(pack) != 40:
        return f"the pack has {len(pack)} cards, not 40"
    cards = [card_by_code(code) for code in pack]
    if -1 in cards:
        return "the pack holds a code that is not a card"
    if len(set(cards)) != 40:
        return "the pack repeats a card"
    return cards


#: (index, index + 1, its bit length) for each step of a 40-card Fisher-Yates walk.
_WALK = tuple((i, i + 1, (i + 1).bit_length()) for i in range(39, 0, -1))


def shuffled_pack(rng: random.Random) -> list[int]:
    """Return the 40 cards in the order ``rng.shuffle(list(range(40)))`` leaves them.

    The same walk and the same draws from ``rng`` as `random.Random.shuffle` (an index below
    n is ``getrandbits(n.bit_length())``, drawn again while it is n or more), without its
    method call per card: a pack per hand is a measurable share of a random game. A test
    holds the two equal, so a seed deals the same packs as before (stored tables, records).
    """
    pack = list(range(40))
    bits = rng.getrandbits
    for i, n, k in _WALK:
        j = bits(k)
        while j >= n:
            j = bits(k)
        pack[i], pack[j] = pack[j], pack[i]
    return pack


def diamond_draw(start: int, pack: list[int], seats: int) -> tuple[tuple[int, ...], int]:
    """Deal face up from ``start`` until the first diamond (R3); return (cards, dealer)."""
    for index, card in enumerate(pack):
        if card & 3 == DIAMONDS:
            return tuple(pack[: index + 1]), (start + index) % seats
    raise AssertionError("a 40-card pack holds diamonds")


class Flow(Legal):
    """The automatic steps between decisions."""

    __slots__ = ()

    def _start_hand(self, events: list[Event]) -> None:
        """Start hands until one is dealt, the game ends, or no pack is left (R4, R5, R15)."""
        while True:
            self._reset_hand()
            shuffled: list[int] | None = None
            if self._next_pack == len(self.packs):
                if self._pack_seed is None:
                    self._phase = Phase.WAITING
                    self._turn = None
                    return
                # each new pack from its own generator, seeded from the game's: a copy of the
                # game then shares one int instead of a whole generator state
                shuffled = shuffled_pack(random.Random(self._pack_seed + self._next_pack))
                self.packs.append(tuple(codes(shuffled)))
            codes_ = self.packs[self._next_pack]
            self._next_pack += 1
            self.hand_number += 1
            events.append(HandStarted(self.hand_number, self.dealer))
            pack = shuffled or _read_pack(codes_)  # a pack we shuffled is regular
            if isinstance(pack, list):
                self._pack = pack
                self._deal_packet(events)
                return
            if not self._rule_misdeal(pack, events):
                return

    def _misdeal(self, reason: str, events: list[Event]) -> None:
        if self._rule_misdeal(reason, events):
            self._start_hand(events)

    def _rule_misdeal(self, reason: str, events: list[Event]) -> bool:
        """Apply the R5 penalty; return whether the hand is to be redealt."""
        penalty = self.rules.misdeal_penalty
        other = 1 - (self.dealer & 1)
        points = {"game": 0, "ten": 10, "two": 2}[penalty]
        self._scores[other] += points
        events.append(MisdealRuled(self.dealer, penalty, points, reason))
        if penalty == "game" or self._scores[other] >= self.rules.target:
            self._finish(other, f"misdeal ({penalty})", events)
            return False
        if penalty == "ten":
            self.dealer = (self.dealer + 1) % self.rules.seats
        return True

    def _deal_packet(self, events: list[Event]) -> None:
        """Deal 5 cards to each seat from the dealer's left (R4, R14), then announce (R6)."""
        seats, dealer, pack = self.rules.seats, self.dealer, self._pack
        self.packet += 1
        pos = self._deal_pos
        dealt: list[tuple[int, ...]] = [()] * seats
        order = [(dealer + offset) % seats for offset in range(1, seats + 1)]
        for seat in order:
            hand = pack[pos : pos + 5]
            hand.sort()
            pos += 5
            self._hands[seat] = hand
            dealt[seat] = tuple(hand)
            # R6 on the sorted hand: four of a kind spans four places (hand[1] is one of
            # them), exactly three of a kind three places (hand[2] is one of them)
            c0, c1, c2, c3, c4 = hand
            if c0 >> 2 == c3 >> 2 or c1 >> 2 == c4 >> 2:
                self._four[seat], self._ronda[seat] = c1 >> 2, -1
            else:
                three = c0 >> 2 == c2 >> 2 or c1 >> 2 == c3 >> 2 or c2 >> 2 == c4 >> 2
                self._four[seat], self._ronda[seat] = -1, c2 >> 2 if three else -1
        self._deal_pos = pos
        self._packet_hands = dealt
        self._ronda_caught = [False] * seats
        self._last_trail = -1  # R9: the first play of a packet is never a caída
        self._played_in_packet = 0
        self._announced = []
        self._cuarenta = None
        events.append(PacketDealt(self.hand_number, self.packet, dealer, tuple(dealt)))
        if self.rules.announcements == "manual":
            self._phase = Phase.ANNOUNCE
            self._announce_queue = order
            self._turn = order[0]
            return
        self._auto_announce(order, events)
        if self._phase is not _FINISHED:
            self._phase = _PLAY
            self._turn = order[0]

    def _auto_announce(self, order: list[int], events: list[Event]) -> None:
        """Announce every cuarenta and scoring ronda in order, on the running score (R6, R14)."""
        rules = self.rules
        for index, seat in enumerate(order):
            four = self._four[seat]
            if four >= 0 and rules.four_of_a_kind == "wins":
                self._show_cuarenta(seat, events)
                rivals = [other for other in order[index + 1 :] if self._four[other] >= 0]
                if rivals and rules.double_four_draws:  # R14 heads-up: both hold one
                    self._show_cuarenta(rivals[0], events)
                    self._finish("draw", "both players hold four of a kind", events)
                else:
                    self._finish(seat & 1, "cuarenta", events)
                return
            rank = self._ronda[seat] if four < 0 else four  # R14 libre-2p: four scores as ronda
            if rank >= 0 and ronda_scores(rules, self._scores[seat & 1]):
                self._score_ronda(seat, rank, events)
                if self._phase is Phase.FINISHED:
                    return

    def _score_ronda(self, seat: int, rank: int, events: list[Event]) -> None:
        team = seat & 1
        points = self.rules.ronda_points if ronda_scores(self.rules, self._scores[team]) else 0
        self._scores[team] += points
        self._announced.append((seat, "ronda"))
        self._hand_rondas.append((self.packet, seat, rank))
        events.append(Announced(seat, "ronda", RANKS[rank], points))
        if self._scores[team] >= self.rules.target:
            self._finish(team, "reached 40 with a ronda", events)

    def _show_cuarenta(self, seat: int, events: list[Event]) -> None:
        rank = self._four[seat]
        cards = tuple(card for card in self._hands[seat] if card >> 2 == rank)
        self._cuarenta = (seat, cards)
        self._announced.append((seat, "cuarenta"))
        events.append(Announced(seat, "cuarenta", RANKS[rank], 0, cards))

    def _end_hand(self, events: list[Event]) -> None:
        """After the last card: R10 claims or awards, then the count (R12 order)."""
        self._turn = None
        if self.rules.awards_r10 and self.rules.special_claims == "claim":
            self._phase = Phase.CLAIMS
            events.append(ClaimsOpened(self.hand_number))
            return
        if self.rules.awards_r10:
            for team, rank in self._r10:
                points = 10 if self._scores[team] < 30 else 0
                self._scores[team] += points
                events.append(Awarded(team, RANKS[rank], points))
        self._r10 = []
        self._count(events)

    def _count(self, events: list[Event]) -> None:
        """Count the cards (R11), then end the game or pass the deal and start a hand (R12)."""
        self._discarded += self._table  # R11: table cards belong to nobody (missed ones too)
        self._table = []
        self._by_rank = [[] for _ in range(10)]
        self._low = 0
        self._missed = []
        self._missed_team = -1
        piles = self.pile_sizes
        dealer_team = self.dealer & 1
        points = count_points(piles, dealer_team)
        if not self.rules.count_at_38:  # R14 libre-2p: at 38 only a caída scores
            points = tuple(0 if self._scores[t] == 38 else points[t] for t in (0, 1))  # type: ignore[assignment]
        self._scores[0] += points[0]
        self._scores[1] += points[1]
        rondas = tuple((packet, seat, RANKS[rank]) for packet, seat, rank in self._hand_rondas)
        events.append(HandCounted(self.hand_number, self.dealer, piles, points, rondas))
        self._counted.append((self.dealer, piles))
        for team in (0, 1):
            if self._scores[team] >= self.rules.target:
                self._finish(team, "reached 40 with the count", events)
                return
        self.dealer = (self.dealer + 1) % self.rules.seats
        self._start_hand(events)

    def _finish(self, winner: int | str, reason: str, events: list[Event]) -> None:
        self._winner = winner
        self._phase = Phase.FINISHED
        self._turn = None
        events.append(GameOver(winner, self.scores, reason))
