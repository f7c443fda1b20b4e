"""The fast core: the same game as `engine.game.Game`, for playouts and random games.

`Game` is the readable reference and the one the server keeps; `Core` plays exactly the same
game (a property test holds the two equal on random games of every profile and house rule)
with none of what a playout does not need: no action or event objects, no record, no checks.
A move is an int (`play_move`): a play is ``card | mask << 6`` (``mask``, the table cards
taken, 0 for a trail), the other actions are tagged above bit 48. Hands are bit sets; the
table is kept laid in order and by rank, as in `Game` (R8's "longer on the table").

The module is written for mypyc, which compiles it when the package is installed with a C
compiler at hand (`setup.py`); without one it runs as it is, still faster than `Game`
through the lean moves. `engine.bridge.CORE_KIND` says which is running.
"""

from __future__ import annotations

import random

from engine.captures import _USABLE, RANK_UNIT, low_code, missed_cards, usable_sums
from engine.cards import codes
from engine.corecaps import capture_masks, rank_capture_masks
from engine.corestate import (
    ANNOUNCE,
    ANNOUNCE_MOVE,
    CLAIM,
    CLAIMS,
    CLOSE_CLAIMS,
    DRAW,
    FINISHED,
    PLAY,
    TAG,
    TAKE_MISSED,
    WAITING,
    CoreState,
    count_points,
    other_move,
)
from engine.flow import _read_pack, diamond_draw, shuffled_pack
from engine.rules import resolve_rules


class Core(CoreState):
    """A game state and its rules, changed in place by `apply`; `copy` for a playout."""

    @staticmethod
    def new(
        profile: str = "pagat-4p", options: dict[str, object] | None = None, seed: int = 0
    ) -> Core:
        """Start a game as `Game.new` does from the same seed (the same draw and packs)."""
        rules = resolve_rules(profile, options)
        rng = random.Random(seed)
        start = rng.randrange(rules.seats)
        _cards, dealer = diamond_draw(start, shuffled_pack(rng), rules.seats)
        core = Core(rules, dealer, rng.getrandbits(64), [])
        core.start_hand()
        return core

    def copy(self) -> Core:
        """Return an independent copy (lists copied, values shared)."""
        other = Core(self.rules, self.dealer, self.pack_seed, self.packs[:])
        other.next_pack = self.next_pack
        other.dealer, other.hand_number, other.packet = self.dealer, self.hand_number, self.packet
        other.pack, other.deal_pos = self.pack, self.deal_pos
        other.hands = [hand[:] for hand in self.hands]
        other.table = self.table[:]
        other.by_rank = [cards[:] for cards in self.by_rank]
        other.low, other.piles = self.low, self.piles[:]
        other.pile_counts, other.scores = self.pile_counts[:], self.scores[:]
        other.turn, other.phase, other.last_trail = self.turn, self.phase, self.last_trail
        other.missed, other.missed_team = self.missed[:], self.missed_team
        other.r10, other.claims_ended = self.r10[:], self.claims_ended[:]
        other.ronda, other.four = self.ronda[:], self.four[:]
        other.ronda_caught, other.queue = self.ronda_caught[:], self.queue[:]
        other.played, other.played_ranks = self.played, self.played_ranks[:]
        other.winner, other.caps = self.winner, {}
        return other

    # ------------------------------------------------------------------ legal moves
    def legal(self, seat: int = -1, by_rank: bool = False) -> list[int]:
        """Every legal move now (of ``seat`` only, unless -1), in `Game.legal_actions`' order."""
        phase = self.phase
        if phase == PLAY and not self.missed:
            if seat >= 0 and seat != self.turn:
                return []
            return self.plays(self.turn, by_rank)
        out: list[int] = []
        for each in range(self.seats):
            if seat >= 0 and each != seat:
                continue
            if phase == PLAY and each == self.turn:
                out += self.plays(each, by_rank)
            elif phase == ANNOUNCE and each == self.turn:
                if self.ronda[each] >= 0:
                    out.append(other_move(ANNOUNCE_MOVE, each, 0))
                if self.four[each] >= 0:
                    out.append(other_move(ANNOUNCE_MOVE, each, 1))
                out.append(other_move(ANNOUNCE_MOVE, each, 2))
            elif phase == CLAIMS and not self.claims_ended[each & 1]:
                out += [other_move(CLAIM, each, rank) for rank in range(10)]
            if self.missed and each & 1 == self.missed_team and phase != FINISHED:
                out.append(other_move(TAKE_MISSED, each))
        return out

    def plays(self, seat: int, by_rank: bool = False) -> list[int]:
        """A seat's plays: by card, its trail first, then its captures by mask (R7, R13)."""
        out: list[int] = []
        by = self.by_rank
        code = self.low
        if code < 0:
            code = self.low = low_code(by)
        usable = _USABLE.get(code)
        if usable is None:
            usable = usable_sums(code)
        mandatory = self.mandatory
        for card in self.hands[seat]:
            rank = card >> 2
            sums = usable[rank]
            if not by[rank] and not sums:
                out.append(card)  # no basis: no capture (R7)
                continue
            key = rank + 10 if by_rank else rank
            caps = self.caps.get(key)
            if caps is None:
                if by_rank:
                    caps = rank_capture_masks(by, rank, self.manual, sums, self.last_trail)
                else:
                    caps = capture_masks(by, rank, self.manual, sums)
                self.caps[key] = caps
            if not mandatory:
                out.append(card)
            for mask in caps:
                out.append(card | mask << 6)
        return out

    # ------------------------------------------------------------------ apply
    def apply(self, move: int) -> None:
        """Apply a legal move (one `legal` listed) and every automatic step after it."""
        if move >= TAG:
            self.apply_other(move)
            return
        card = move & 63
        mask = move >> 6
        seat = self.turn
        rank = card >> 2
        if self.caps:
            self.caps.clear()
        self.hands[seat].remove(card)
        self.played += 1
        self.played_ranks[rank] += 1
        if self.missed:
            self.missed = []
            self.missed_team = -1
        if not mask:  # a trail (R7)
            self.table.append(card)
            self.by_rank[rank].append(card)
            if rank < 6 and self.low >= 0:
                self.low += RANK_UNIT[rank]
            self.last_trail = card
        elif self.capture(seat, card, rank, mask):
            return
        if self.played < self.per_packet:
            self.turn = (seat + 1) % self.seats
        elif self.packet + 1 < self.packets:
            self.deal_packet()
        else:
            self.end_hand()

    def capture(self, seat: int, card: int, rank: int, mask: int) -> bool:
        """Take the cards of ``mask`` with ``card`` (R7-R9); return whether the game is won."""
        team = seat & 1
        table, by = self.table, self.by_rank
        missed = missed_cards(by, rank, mask) if self.forfeit else ()
        low = self.low
        taken = 0
        rest = mask
        while rest:
            low_bit = rest & -rest
            each = low_bit.bit_length() - 1
            rest ^= low_bit
            table.remove(each)
            by[each >> 2].remove(each)
            if each < 24:
                low -= RANK_UNIT[each >> 2]
            taken += 1
        if low >= 0:
            self.low = low
        self.piles[team] |= mask | 1 << card
        self.pile_counts[team] += taken + 1
        trail = self.last_trail
        caida = trail >= 0 and trail >> 2 == rank and (mask >> trail) & 1 == 1  # R9
        before = self.scores[team]
        points = 2 if caida else 0
        if not table and before != 38:  # R9 limpia, not at 38
            points += 2
        if caida and self.awards:
            trailer = (seat - 1) % self.seats  # R10
            if self.ronda[trailer] == rank and not self.ronda_caught[trailer]:
                self.ronda_caught[trailer] = True
                self.r10.append((team, rank))
        self.last_trail = -1
        if missed:
            self.missed = list(missed)
            self.missed_team = 1 - team
        self.scores[team] = before + points
        if before + points >= self.target:
            self.finish(team)
            return True
        return False

    def apply_other(self, move: int) -> None:
        """Apply a move other than a play (see `other_move`)."""
        tag, seat, detail = move // TAG, move >> 4 & 3, move & 15
        if self.caps:
            self.caps.clear()
        if tag == TAKE_MISSED:
            for card in self.missed:
                self.table.remove(card)
                self.by_rank[card >> 2].remove(card)
                self.piles[seat & 1] |= 1 << card
            self.pile_counts[seat & 1] += len(self.missed)
            self.low = -1
            self.missed, self.missed_team = [], -1
        elif tag == ANNOUNCE_MOVE:
            self.announce(seat, detail)
        elif tag == CLAIM:
            team = seat & 1
            if (team, detail) in self.r10:
                self.r10.remove((team, detail))
                self.scores[team] += 10 if self.scores[team] < 30 else 0
            else:
                self.claims_ended[team] = True
        elif tag == CLOSE_CLAIMS:
            self.r10 = []
            self.count()
        elif self.rule_misdeal():
            self.start_hand()

    def announce(self, seat: int, call: int) -> None:
        """A manual announcement (R6): ronda (0), cuarenta (1) or pass (2)."""
        self.queue.pop(0)
        if call == 1:
            self.finish(seat & 1)
            return
        if call == 0:
            self.score_ronda(seat)
            if self.phase == FINISHED:
                return
        if not self.queue:
            self.phase = PLAY
            self.turn = (self.dealer + 1) % self.seats
        else:
            self.turn = self.queue[0]

    # ------------------------------------------------------------------ automatic steps
    def start_hand(self) -> None:
        """Start hands until one is dealt, the game ends, or no pack is left (R4, R5, R15)."""
        while True:
            self.reset_hand()
            shuffled: list[int] = []
            if self.next_pack == len(self.packs):
                if self.pack_seed < 0:
                    self.phase, self.turn = WAITING, -1
                    return
                shuffled = shuffled_pack(random.Random(self.pack_seed + self.next_pack))
                self.packs.append(tuple(codes(shuffled)))
            read = shuffled or _read_pack(self.packs[self.next_pack])
            self.next_pack += 1
            self.hand_number += 1
            if isinstance(read, list):
                self.pack = read
                self.deal_packet()
                return
            if not self.rule_misdeal():
                return

    def reset_hand(self) -> None:
        """Empty everything a hand holds (R4)."""
        self.pack, self.deal_pos, self.packet = [], 0, -1
        self.hands = [[] for _ in range(self.seats)]
        self.table, self.by_rank, self.low = [], [[] for _ in range(10)], 0
        self.piles, self.pile_counts = [0, 0], [0, 0]
        self.missed, self.missed_team, self.r10 = [], -1, []
        self.claims_ended = [False, False]
        self.last_trail, self.played, self.played_ranks = -1, 0, [0] * 10

    def rule_misdeal(self) -> bool:
        """Apply the R5 penalty; return whether the hand is to be redealt."""
        penalty = self.rules.misdeal_penalty
        other = 1 - (self.dealer & 1)
        self.scores[other] += 10 if penalty == "ten" else 2 if penalty == "two" else 0
        if penalty == "game" or self.scores[other] >= self.target:
            self.finish(other)
            return False
        if penalty == "ten":
            self.dealer = (self.dealer + 1) % self.seats
        return True

    def deal_packet(self) -> None:
        """Deal 5 cards to each seat from the dealer's left (R4, R14), then announce (R6)."""
        seats, dealer, pack = self.seats, self.dealer, self.pack
        self.packet += 1
        pos = self.deal_pos
        order = [(dealer + offset) % seats for offset in range(1, seats + 1)]
        for seat in order:
            hand = pack[pos : pos + 5]
            hand.sort()
            counts = [0] * 10
            for card in hand:
                counts[card >> 2] += 1
            pos += 5
            self.hands[seat] = hand
            self.four[seat] = counts.index(4) if 4 in counts else -1
            self.ronda[seat] = counts.index(3) if 3 in counts else -1
        self.deal_pos = pos
        self.ronda_caught = [False] * seats
        self.last_trail, self.played = -1, 0
        if self.announce_manual:
            self.phase, self.queue, self.turn = ANNOUNCE, order, order[0]
            return
        self.auto_announce(order)
        if self.phase != FINISHED:
            self.phase, self.turn = PLAY, order[0]

    def auto_announce(self, order: list[int]) -> None:
        """Announce every cuarenta and scoring ronda in order, on the running score (R6)."""
        rules = self.rules
        for index, seat in enumerate(order):
            four = self.four[seat]
            if four >= 0 and rules.four_of_a_kind == "wins":
                rivals = [other for other in order[index + 1 :] if self.four[other] >= 0]
                if rivals and rules.double_four_draws:  # R14 heads-up: both hold one
                    self.finish(DRAW)
                else:
                    self.finish(seat & 1)
                return
            rank = self.ronda[seat] if four < 0 else four  # R14 libre-2p: four is a ronda
            if rank >= 0 and self.scores[seat & 1] < rules.ronda_limit:
                self.score_ronda(seat)
                if self.phase == FINISHED:
                    return

    def score_ronda(self, seat: int) -> None:
        """Score a ronda (R6) for ``seat``'s team, unless it is at the ronda limit."""
        team = seat & 1
        if self.scores[team] < self.rules.ronda_limit:
            self.scores[team] += self.rules.ronda_points
        if self.scores[team] >= self.target:
            self.finish(team)

    def end_hand(self) -> None:
        """After the last card: R10 claims or awards, then the count (R12 order)."""
        self.turn = -1
        if self.window:
            self.phase = CLAIMS
            return
        if self.awards:
            for team, _rank in self.r10:
                self.scores[team] += 10 if self.scores[team] < 30 else 0
        self.r10 = []
        self.count()

    def count(self) -> None:
        """Count the cards (R11), then end the game or pass the deal (R12)."""
        self.table, self.by_rank, self.low = [], [[] for _ in range(10)], 0
        self.missed, self.missed_team = [], -1
        own, other = self.pile_counts
        dealer_team = self.dealer & 1
        points = count_points(own, other, dealer_team)
        for team in (0, 1):
            if self.rules.count_at_38 or self.scores[team] != 38:
                self.scores[team] += points[team]
        for team in (0, 1):
            if self.scores[team] >= self.target:
                self.finish(team)
                return
        self.dealer = (self.dealer + 1) % self.seats
        self.start_hand()

    def finish(self, winner: int) -> None:
        """End the game (R12): ``winner`` a team or `DRAW`."""
        self.winner, self.phase, self.turn = winner, FINISHED, -1
