"""`Game`: the one place the state changes (R3-R12), and the legal actions that change it.

`apply` validates an action completely before touching anything, so an illegal action leaves
the game exactly as it was. After each action the game runs every automatic step it can
(deal, automatic announcements, awards, count, next hand) until it needs someone's input,
and returns all the events that happened.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engine.actions import (
    Action,
    Announce,
    Claim,
    CloseClaims,
    Misdeal,
    Play,
    TakeMissed,
    action_from_json,
    play_of_mask,
)
from engine.captures import (
    _USABLE,
    Capture,
    can_capture,
    captures,
    check_capture,
    usable_sums,
)
from engine.cards import DIAMONDS, RANKS, card_by_code, card_code, codes
from engine.errors import IllegalAction
from engine.events import (
    Announced,
    Awarded,
    Claimed,
    ClaimsClosed,
    ClaimsOpened,
    DealerDrawn,
    Event,
    GameOver,
    HandCounted,
    HandStarted,
    MisdealRuled,
    MissedTaken,
    PacketDealt,
    played_event,
)
from engine.phase import Phase
from engine.record import Draw, Record
from engine.rules import DEFAULT_PROFILE, Rules, resolve_rules
from engine.scoring import count_points, play_points, ronda_scores
from engine.state import GameState, Hidden
from engine.views import View, view_of

_TRAILS: tuple[tuple[Play, ...], ...] = tuple(
    tuple(Play(seat, card) for card in range(40)) for seat in range(4)
)
#: Shared immutable captures, per ``seat * 40 + card``, keyed by the taken-cards mask: listing
#: the legal actions then costs a dict lookup per capture instead of a new frozenset.
_CAPTURE_PLAYS: tuple[dict[int, Play], ...] = tuple({} for _ in range(160))
_CAPTURE_PLAYS_LIMIT = 4096


def _play(seat: int, card: int, mask: int) -> Play:
    """Build (and remember) the Play taking the cards of ``mask`` (see `_CAPTURE_PLAYS`)."""
    plays = _CAPTURE_PLAYS[seat * 40 + card]
    if len(plays) >= _CAPTURE_PLAYS_LIMIT:
        plays.clear()
    action = plays[mask] = play_of_mask(seat, card, mask, frozenset(_cards_of(mask)))
    return action


def _cards_of(mask: int) -> tuple[int, ...]:
    taken = []
    while mask:
        low = mask & -mask
        taken.append(low.bit_length() - 1)
        mask ^= low
    return tuple(taken)


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


def diamond_draw(start: int, pack: list[int], seats: int) -> tuple[tuple[int, ...], int]:
    """Deal face up from ``start`` until the first diamond (R3); return (cards, dealer)."""
    for index, card in enumerate(pack):
        if card & 3 == DIAMONDS:
            return tuple(pack[: index + 1]), (start + index) % seats
    raise AssertionError("a 40-card pack holds diamonds")


class Game(GameState):
    """A game of Cuarenta under one `Rules`: state, legal actions, `apply`."""

    __slots__ = ()

    # ------------------------------------------------------------------ construction
    @classmethod
    def new(
        cls,
        profile: str = DEFAULT_PROFILE,
        options: Mapping[str, object] | None = None,
        seed: int | str | None = None,
    ) -> Game:
        """Start a game: draw the first dealer (R3) and deal, all from ``random.Random(seed)``."""
        rules = resolve_rules(profile, options)
        rng = random.Random(seed)
        start = rng.randrange(rules.seats)
        pack = list(range(40))
        rng.shuffle(pack)
        cards, dealer = diamond_draw(start, pack, rules.seats)
        pack_seed = rng.getrandbits(64)
        return cls._blank(rules, dict(options or {}), pack_seed, [], dealer, start, cards)

    @classmethod
    def _blank(
        cls,
        rules: Rules,
        options: dict[str, object],
        pack_seed: int | None,
        packs: list[tuple[str, ...]],
        dealer: int,
        draw_start: int | None,
        draw_cards: tuple[int, ...],
    ) -> Game:
        game = cls.__new__(cls)
        game._init_state(rules, options, pack_seed, packs, dealer, draw_start, draw_cards)
        events: list[Event] = []
        if draw_start is not None:
            events.append(DealerDrawn(draw_start, draw_cards, dealer))
        game._start_hand(events)
        game.start_events = tuple(events)
        return game

    @classmethod
    def from_record(
        cls, record: Record, *, play_actions: bool = True, seed: int | None = None
    ) -> Game:
        """Rebuild a game from a record (R15), applying its actions unless told not to.

        Hands are dealt from the record's packs in order; when they run out the game waits
        (`Phase.WAITING`), unless ``seed`` is given to shuffle further packs (a resumed table).
        An illegal action raises `IllegalAction` with ``index`` set to its position.
        """
        rules = resolve_rules(record.profile, record.options)
        draw = record.draw
        game = cls._blank(
            rules,
            dict(record.options),
            seed,
            list(record.packs),
            record.first_dealer,
            None if draw is None else draw.start,
            () if draw is None else draw.cards,
        )
        if play_actions:
            for index, obj in enumerate(record.actions):
                try:
                    game.apply(action_from_json(obj))
                except IllegalAction as error:
                    error.index = index  # type: ignore[attr-defined]
                    raise
        return game

    def record(self) -> Record:
        """Return the game's record (R15): replaying it reproduces this game exactly."""
        draw = None if self.draw_start is None else Draw(self.draw_start, self.draw_cards)
        return Record(
            profile=self.rules.profile,
            options=dict(self.options),
            dealer=self.first_dealer,
            draw=draw,
            packs=tuple(self.packs),
            actions=tuple(action.to_json() for action in self._actions),
        )

    def view(self, seat: int | None) -> View:
        """Return what ``seat`` may see (None: a spectator); see `engine.views`."""
        return view_of(self, seat)

    @classmethod
    def from_view(cls, view: View, hidden: Hidden) -> Game:
        """Build a complete game consistent with ``view`` and a guess of its hidden cards.

        For bots' sampling: the result plays the rest of the hand out like a real game (it
        waits for a pack when the hand ends). See `engine.determinize`.
        """
        from engine.determinize import game_from_view

        return game_from_view(cls, view, hidden)

    def copy(self) -> Game:
        """Return an independent copy (cheap: a few list copies), e.g. for a bot's search."""
        other = Game.__new__(Game)
        self._copy_state_into(other)
        return other

    # ------------------------------------------------------------------ public state
    @property
    def phase(self) -> Phase:
        """What the game waits for."""
        return self._phase

    @property
    def turn(self) -> int | None:
        """The seat to play or announce, or None (claim window, waiting, finished)."""
        return self._turn

    @property
    def scores(self) -> tuple[int, int]:
        """The two teams' scores."""
        return self._scores[0], self._scores[1]

    @property
    def pile_sizes(self) -> tuple[int, int]:
        """The number of cards in each team's pile this hand."""
        return len(self._piles[0]), len(self._piles[1])

    @property
    def table(self) -> tuple[int, ...]:
        """The table cards in the order they were laid."""
        return tuple(self._table)

    @property
    def winner(self) -> int | str | None:
        """The winning team, ``"draw"`` (R14 heads-up), or None while the game goes on."""
        return self._winner

    @property
    def caida_target(self) -> int | None:
        """The card the previous player just trailed in this packet (R9), if any."""
        return None if self._last_trail < 0 else self._last_trail

    @property
    def missed(self) -> tuple[int, ...]:
        """Missed sequence cards the other team may take now (R8)."""
        return tuple(self._missed)

    @property
    def actions(self) -> tuple[Action, ...]:
        """Every action applied so far, in order (the record's ``actions``)."""
        return tuple(self._actions)

    @property
    def counted_hands(self) -> tuple[tuple[int, tuple[int, int]], ...]:
        """(dealer, pile sizes) of every hand that reached its count (R11, R15 ``hands``)."""
        return tuple(self._counted)

    def hand(self, seat: int) -> tuple[int, ...]:
        """The cards in a seat's hand (secret: views show it only to its owner)."""
        return tuple(self._hands[seat])

    def team_of(self, seat: int) -> int:
        """Return a seat's team (R1: seats 0 and 2 are team 0; R14: team = seat)."""
        return seat & 1

    def __str__(self) -> str:
        hands = " | ".join(" ".join(codes(sorted(hand))) for hand in self._hands)
        table = " ".join(codes(self._table)) or "-"
        return (
            f"{self.rules.profile} {self._phase} hand {self.hand_number} packet {self.packet} "
            f"dealer {self.dealer} turn {self._turn} scores {self._scores[0]}-{self._scores[1]} "
            f"table [{table}] hands [{hands}]"
        )

    # ------------------------------------------------------------------ legal actions
    def _plays(self, seat: int) -> list[Action]:
        """List a seat's plays; the hot path of random playouts, hence written out flat."""
        out: list[Action] = []
        rules = self.rules
        by_rank = self._by_rank
        code = (  # low_code(by_rank), written out
            len(by_rank[0])
            + 5 * len(by_rank[1])
            + 25 * len(by_rank[2])
            + 125 * len(by_rank[3])
            + 625 * len(by_rank[4])
            + 3125 * len(by_rank[5])
        )
        usable = _USABLE.get(code) or usable_sums(code)
        cache = self._caps
        trails = _TRAILS[seat]
        for card in self._hands[seat]:
            rank = card >> 2
            if not by_rank[rank] and not usable[rank]:
                out.append(trails[card])  # no basis: no capture (R7)
                continue
            caps: list[Capture] | None = cache.get(rank)
            if caps is None:
                manual = rules.sequence == "manual"
                caps = cache[rank] = captures(by_rank, rank, manual, rules.forfeiture, usable[rank])
            if not rules.capture_mandatory:
                out.append(trails[card])
            known = _CAPTURE_PLAYS[seat * 40 + card]
            if len(caps) == 1:
                mask = caps[0][0]
                out.append(known.get(mask) or _play(seat, card, mask))
            else:  # colex order: by the mask of the taken cards
                for mask in sorted([cap[0] for cap in caps]):
                    out.append(known.get(mask) or _play(seat, card, mask))
        return out

    def to_act(self) -> tuple[int, ...]:
        """The seats that have a legal action now (several in the claim window, or with R8)."""
        phase = self._phase
        if phase is Phase.CLAIMS:
            seats = {s for s in range(self.rules.seats) if not self._claims_ended[s & 1]}
        elif phase is Phase.PLAY or phase is Phase.ANNOUNCE:
            seats = {self._turn} if self._turn is not None else set()
        else:
            return ()
        if self._missed:
            seats.update(s for s in range(self.rules.seats) if s & 1 == self._missed_team)
        return tuple(sorted(seats))

    def legal_actions(self, seat: int | None = None) -> tuple[Action, ...]:
        """Every legal player action now (of ``seat`` only, if given), in a fixed order.

        By seat; then plays by card, each card's trail first and then its captures in colex
        order of the taken cards (their bit mask: the highest card decides); then
        announcements, claims, take-missed. Each distinct capture (basis and sequence) is its
        own action.
        """
        phase = self._phase
        if phase is Phase.PLAY and not self._missed:
            turn = self._turn
            if seat is not None and seat != turn:
                return ()
            return tuple(self._plays(turn))  # type: ignore[arg-type]
        out: list[Action] = []
        for each in range(self.rules.seats) if seat is None else (seat,):
            if not 0 <= each < self.rules.seats:
                continue
            if phase is Phase.PLAY and each == self._turn:
                out += self._plays(each)
            elif phase is Phase.ANNOUNCE and each == self._turn:
                out += [Announce(each, call) for call in self._calls(each)]
            elif phase is Phase.CLAIMS and not self._claims_ended[each & 1]:
                out += [Claim(each, rank) for rank in RANKS]
            if self._missed and each & 1 == self._missed_team and phase is not Phase.FINISHED:
                out.append(TakeMissed(each))
        return tuple(out)

    def _calls(self, seat: int) -> list[str]:
        calls = []
        if self._ronda[seat] >= 0:
            calls.append("ronda")
        if self._four[seat] >= 0:
            calls.append("cuarenta")
        return [*calls, "pass"]

    def _misdeal_allowed(self) -> bool:
        # R5: after a packet is dealt and before its first card; we also allow it during manual
        # announcements (they happen before the first card).
        return (
            self.rules.referee
            and self._phase in (Phase.ANNOUNCE, Phase.PLAY)
            and self._played_in_packet == 0
        )

    def system_actions(self) -> tuple[Action, ...]:
        """The legal system actions now: CloseClaims (the clock) and Misdeal (the referee)."""
        out: list[Action] = []
        if self._phase is Phase.CLAIMS:
            out.append(CloseClaims())
        if self._misdeal_allowed():
            out.append(Misdeal())
        return tuple(out)

    def is_legal(self, action: Action) -> bool:
        """Tell whether ``action`` may be applied now."""
        try:
            self._check(action)
        except IllegalAction:
            return False
        return True

    # ------------------------------------------------------------------ validation
    def _check(self, action: Action) -> Any:
        """Raise IllegalAction unless ``action`` is legal now; return what apply needs."""
        phase = self._phase
        if phase is Phase.PLAY and type(action) is Play and action.seat == self._turn:
            return self._check_play(action, action.seat)  # the common case, first
        if phase is Phase.FINISHED:
            raise IllegalAction("R12", "the game is over")
        if phase is Phase.WAITING:
            raise IllegalAction("R15", "no pack is left to deal the next hand")
        seats = self.rules.seats
        if isinstance(action, (CloseClaims, Misdeal)):
            if isinstance(action, CloseClaims) and phase is not Phase.CLAIMS:
                raise IllegalAction("R10", "there is no claim window to close")
            if isinstance(action, Misdeal) and not self._misdeal_allowed():
                if not self.rules.referee:
                    raise IllegalAction("R14", f"{self.rules.profile} has no referee rulings")
                raise IllegalAction(
                    "R5", "a misdeal is ruled only after a deal and before the first card"
                )
            return None
        seat = action.seat
        if type(seat) is not int or not 0 <= seat < seats:
            raise IllegalAction("R1", f"seat {seat!r} is not a seat at a {seats}-player table")
        if type(action) is Play:
            return self._check_play(action, seat)
        if isinstance(action, TakeMissed):
            if not self._missed:
                raise IllegalAction("R8", "there are no missed cards to take")
            if seat & 1 != self._missed_team:
                raise IllegalAction("R8", "only the other team may take missed cards")
            return None
        if isinstance(action, Announce):
            if phase is not Phase.ANNOUNCE:
                raise IllegalAction("R6", "nothing can be announced now")
            if seat != self._turn:
                raise IllegalAction("R6", f"it is seat {self._turn}'s turn to announce")
            if action.call not in self._calls(seat):
                raise IllegalAction("R6", f"seat {seat} cannot announce {action.call!r}")
            return None
        if isinstance(action, Claim):
            if phase is not Phase.CLAIMS:
                raise IllegalAction("R10", "claims are made only in the claim window")
            if (
                not isinstance(action.rank, str)
                or len(action.rank) != 1
                or action.rank not in RANKS
            ):
                raise IllegalAction("R10", f"{action.rank!r} is not a rank")
            if self._claims_ended[seat & 1]:
                raise IllegalAction("R10", "a wrong claim ended this team's claiming for the hand")
            return None
        raise IllegalAction("R15", f"{action!r} is not an action")

    def _check_play(self, action: Play, seat: int) -> Capture | None:
        if self._phase is not Phase.PLAY:
            raise IllegalAction("R6", "no card is played before the announcements end")
        if seat != self._turn:
            raise IllegalAction("R7", f"it is seat {self._turn}'s turn to play")
        card = action.card
        if type(card) is not int or card not in self._hands[seat]:
            shown = card_code(card) if type(card) is int and 0 <= card < 40 else repr(card)
            raise IllegalAction("R7", f"{shown} is not in seat {seat}'s hand")
        mask = action.mask
        rank = card >> 2
        if not mask:
            if self.rules.capture_mandatory and can_capture(self._by_rank, rank):
                raise IllegalAction(
                    "R7", f"{card_code(card)} can capture, and capture is mandatory (R13)"
                )
            return None
        caps: list[Capture] | None = self._caps.get(rank)
        if caps is not None:  # listed by legal_actions for this very state
            for cap in caps:
                if cap[0] == mask:
                    return cap
        elif mask > 0 and mask & self._table_mask() == mask:
            taken = _cards_of(mask)
            rules = self.rules
            missed = check_capture(
                self._by_rank, rank, taken, rules.sequence == "manual", rules.forfeiture
            )
            if missed is not None:
                return mask, missed
        from engine.explain import why_not_capture

        raise IllegalAction(*why_not_capture(self, card, action.take))

    def _table_mask(self) -> int:
        mask = 0
        for card in self._table:
            mask |= 1 << card
        return mask

    # ------------------------------------------------------------------ apply
    def apply(self, action: Action) -> tuple[Event, ...]:
        """Apply a legal action and every automatic step after it; return the events.

        An illegal action raises `IllegalAction` naming the rule, and changes nothing.
        """
        checked = self._check(action)
        events: list[Event] = []
        self._caps = {}
        if type(action) is Play:
            self._apply_play(action, checked, events)
        elif isinstance(action, TakeMissed):
            self._take_missed(action.seat, events)
        elif isinstance(action, Announce):
            self._announce(action, events)
        elif isinstance(action, Claim):
            self._claim(action, events)
        elif isinstance(action, CloseClaims):
            self._r10 = []
            events.append(ClaimsClosed())
            self._count(events)
        else:
            self._misdeal("referee ruling", events)
        self._actions.append(action)
        return tuple(events)

    def _apply_play(self, action: Play, cap: Capture | None, events: list[Event]) -> None:
        seat, card = action.seat, action.card
        rank = card >> 2
        team = seat & 1
        self._hands[seat].remove(card)
        self._played_in_packet += 1
        self._missed = []  # R8: the chance ends when the next card is played
        self._missed_team = -1
        table, by_rank = self._table, self._by_rank
        if cap is None:  # a trail (R7)
            table.append(card)
            by_rank[rank].append(card)
            self._last_trail = card
            self._history.append((self.packet, seat, card, (), False))
            events.append(played_event(seat, card, (), False, False, 0, ()))
        else:
            mask, missed = cap
            taken = _cards_of(mask)
            for each in taken:
                table.remove(each)
                by_rank[each >> 2].remove(each)
            pile = self._piles[team]
            pile.append(card)
            pile += taken
            trail = self._last_trail
            caida = trail >= 0 and trail >> 2 == rank and (mask >> trail) & 1 == 1  # R9 match
            limpia = not table
            before = self._scores[team]
            points = play_points(self.rules, before, caida, limpia)
            if caida and self.rules.awards_r10:
                self._note_ronda_caida(seat, rank, team)
            self._last_trail = -1
            if missed:
                self._missed = list(missed)
                self._missed_team = 1 - team
            self._history.append((self.packet, seat, card, taken, caida))
            self._scores[team] = before + points
            events.append(played_event(seat, card, taken, caida, limpia, points, missed))
            if before + points >= self.rules.target:
                self._finish(team, "reached 40 in play", events)
                return
        if self._played_in_packet < 5 * self.rules.seats:
            self._turn = (seat + 1) % self.rules.seats
        elif self.packet + 1 < self.rules.packets_per_hand:
            self._deal_packet(events)
        else:
            self._end_hand(events)

    def _note_ronda_caida(self, seat: int, rank: int, team: int) -> None:
        # R10: the caught card is one of the trailer's ronda cards this packet; one per ronda.
        trailer = (seat - 1) % self.rules.seats
        if self._ronda[trailer] == rank and not self._ronda_caught[trailer]:
            self._ronda_caught[trailer] = True
            self._r10.append((team, rank))

    def _take_missed(self, seat: int, events: list[Event]) -> None:
        cards = tuple(self._missed)
        for card in cards:
            self._table.remove(card)
            self._by_rank[card >> 2].remove(card)
        self._piles[seat & 1] += cards
        self._missed = []
        self._missed_team = -1
        self._history.append((self.packet, seat, -1, cards, False))
        events.append(MissedTaken(seat, cards))

    def _announce(self, action: Announce, events: list[Event]) -> None:
        seat = action.seat
        self._announce_queue.pop(0)
        if action.call == "cuarenta":
            self._show_cuarenta(seat, events)
            self._finish(seat & 1, "cuarenta", events)
            return
        if action.call == "ronda":
            self._score_ronda(seat, self._ronda[seat], events)
            if self._phase is Phase.FINISHED:
                return
        else:
            self._announced.append((seat, "pass"))
            events.append(Announced(seat, "pass", None, 0))
        if not self._announce_queue:
            self._phase = Phase.PLAY
            self._turn = (self.dealer + 1) % self.rules.seats
        else:
            self._turn = self._announce_queue[0]

    def _claim(self, action: Claim, events: list[Event]) -> None:
        team = action.seat & 1
        rank = RANKS.index(action.rank)
        valid = (team, rank) in self._r10
        points = 0
        if valid:
            self._r10.remove((team, rank))
            points = 10 if self._scores[team] < 30 else 0
            self._scores[team] += points
        else:
            self._claims_ended[team] = True
        self._claims_made.append((action.seat, action.rank, valid))
        events.append(Claimed(action.seat, action.rank, valid, points))

    # ------------------------------------------------------------------ automatic steps
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
                shuffled = list(range(40))
                random.Random(self._pack_seed + self._next_pack).shuffle(shuffled)
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

    def _reset_hand(self) -> None:
        self._pack = []
        self._deal_pos = 0
        self.packet = -1
        for hand in self._hands:
            hand.clear()
        self._table = []
        self._by_rank = [[] for _ in range(10)]
        self._piles = [[], []]
        self._missed = []
        self._missed_team = -1
        self._r10 = []
        self._claims_ended = [False, False]
        self._claims_made = []
        self._hand_rondas = []
        self._history = []
        self._discarded = []
        self._last_trail = -1

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
        for offset in range(1, seats + 1):
            seat = (dealer + offset) % seats
            hand = sorted(pack[pos : pos + 5])
            pos += 5
            self._hands[seat] = hand
            dealt[seat] = tuple(hand)
            counts = [0] * 10
            for card in hand:
                counts[card >> 2] += 1
            self._ronda[seat] = counts.index(3) if 3 in counts else -1
            self._four[seat] = counts.index(4) if 4 in counts else -1
        self._deal_pos = pos
        self._packet_hands = dealt
        self._ronda_caught = [False] * seats
        self._last_trail = -1  # R9: the first play of a packet is never a caída
        self._played_in_packet = 0
        self._announced = []
        self._cuarenta = None
        events.append(PacketDealt(self.hand_number, self.packet, dealer, tuple(dealt)))
        order = [(dealer + offset) % seats for offset in range(1, seats + 1)]
        if self.rules.announcements == "manual":
            self._phase = Phase.ANNOUNCE
            self._announce_queue = order
            self._turn = order[0]
            return
        self._auto_announce(order, events)
        if self._phase is not Phase.FINISHED:
            self._phase = Phase.PLAY
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
