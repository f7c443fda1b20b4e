"""Legal actions and their validation: who may do what now (R5-R10).

`Legal` lists every legal action and checks any action against the rules without changing
anything, so `apply` (in `engine.game`) can refuse an illegal action before touching the state.
Listing plays is the hot path of random playouts, so it works on ints and bit masks and
shares the immutable `Play` objects it hands out.
"""

from __future__ import annotations

from typing import Any

from engine.actions import (
    Action,
    Announce,
    Claim,
    CloseClaims,
    Misdeal,
    Play,
    TakeMissed,
    play_of_mask,
)
from engine.captures import _USABLE, Parts, check_capture, low_code, usable_sums
from engine.cards import RANKS, card_code
from engine.corecaps import capture_masks, rank_capture_masks
from engine.errors import IllegalAction
from engine.memo import keep
from engine.phase import Phase
from engine.state import GameState

_TRAILS: tuple[tuple[Play, ...], ...] = tuple(
    tuple(Play(seat, card) for card in range(40)) for seat in range(4)
)
#: Shared immutable captures, per ``seat * 40 + card``, keyed by the taken-cards mask: listing
#: the legal actions then costs a dict lookup per capture instead of a new frozenset. The limit
#: is per dict and the cache is process-wide: 160 x 256 plays, about 6 MiB at most. At 4096
#: (655,360 plays, about 90 MiB) a long-running server's RSS kept rising for thousands of games.
_CAPTURE_PLAYS: tuple[dict[int, Play], ...] = tuple({} for _ in range(160))
_CAPTURE_PLAYS_LIMIT = 256
#: Every claim of each seat (R10): the claim window lists them all, so they are shared.
_CLAIM_ACTIONS: tuple[tuple[Claim, ...], ...] = tuple(
    tuple(Claim(seat, rank) for rank in RANKS) for seat in range(4)
)


_ACTION_TYPES = (Play, TakeMissed, Announce, Claim, CloseClaims, Misdeal)

# Enum members are slow to reach through their class (EnumType attribute lookup): bind them.
_ANNOUNCE, _PLAY, _CLAIMS = Phase.ANNOUNCE, Phase.PLAY, Phase.CLAIMS
_WAITING, _FINISHED = Phase.WAITING, Phase.FINISHED


def _closed(phase: Phase) -> IllegalAction | None:
    """Why nobody may act in ``phase``: the game is over (R12) or waits for a pack (R15)."""
    if phase is _FINISHED:
        return IllegalAction("R12", "the game is over")
    if phase is _WAITING:
        return IllegalAction("R15", "no pack is left to deal the next hand")
    return None


def _play(seat: int, card: int, mask: int) -> Play:
    """Build (and remember) the Play taking the cards of ``mask`` (see `_CAPTURE_PLAYS`)."""
    plays = _CAPTURE_PLAYS[seat * 40 + card]
    action = play_of_mask(seat, card, mask, frozenset(cards_of(mask)))
    return keep(plays, mask, action, _CAPTURE_PLAYS_LIMIT)


#: The cards of each byte of a 40-bit mask: ``_BYTE_CARDS[k][byte]``, ascending.
_BYTE_CARDS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(8 * k + bit for bit in range(8) if byte >> bit & 1) for byte in range(256))
    for k in range(5)
)


def cards_of(mask: int) -> tuple[int, ...]:
    """Return the cards of a mask of cards (``0 <= mask < 2**40``), ascending."""
    b0, b1, b2, b3, b4 = _BYTE_CARDS
    return (
        b0[mask & 255]
        + b1[mask >> 8 & 255]
        + b2[mask >> 16 & 255]
        + b3[mask >> 24 & 255]
        + b4[mask >> 32]
    )


class Legal(GameState):
    """The legal actions of a game state, and the check behind `apply`."""

    __slots__ = ()

    def _plays(self, seat: int, by_rank: bool = False) -> list[Action]:
        """List a seat's plays; the hot path of random playouts, hence written out flat.

        Captures are bit masks of the taken cards (`capture_masks`), cached per state under
        the played rank; ``by_rank`` lists captures up to suit-equivalence (`rank_captures`),
        cached under ``10 + rank`` so that `apply` only ever trusts a complete list.
        """
        out: list[Action] = []
        add = out.append
        table = self._by_rank
        code = self._low
        if code < 0:
            code = self._low = low_code(table)
        usable = _USABLE.get(code) or usable_sums(code)
        trails = _TRAILS[seat]
        cache = self._caps
        mandatory = self.rules.capture_mandatory
        for card in self._hands[seat]:
            rank = card >> 2
            if not table[rank] and not usable[rank]:
                add(trails[card])  # no basis: no capture (R7)
                continue
            key = rank + 10 if by_rank else rank
            caps: list[int] | None = cache.get(key)
            if caps is None:
                matches = table[rank]
                if len(matches) == 1 and not usable[rank] and (rank == 9 or not table[rank + 1]):
                    caps = cache[key] = [1 << matches[0]]  # the one match, nothing more (R7)
                elif by_rank:
                    caps = cache[key] = self._rank_masks(rank, usable[rank])
                else:
                    manual = self.rules.sequence == "manual"
                    caps = cache[key] = capture_masks(table, rank, manual, usable[rank])
            if not mandatory:
                add(trails[card])
            known = _CAPTURE_PLAYS[seat * 40 + card]
            for mask in caps:  # colex order: by the mask of the taken cards
                add(known.get(mask) or _play(seat, card, mask))
        return out

    def _rank_masks(self, rank: int, sums: tuple[Parts, ...]) -> list[int]:
        """Return the masks of a rank's captures up to suits (`rank_captures`), ascending."""
        manual = self.rules.sequence == "manual"
        return rank_capture_masks(self._by_rank, rank, manual, sums, self._last_trail)

    def to_act(self) -> tuple[int, ...]:
        """The seats that have a legal action now (several in the claim window, or with R8)."""
        phase = self._phase
        if phase is _CLAIMS:
            seats = {s for s in range(self.rules.seats) if not self._claims_ended[s & 1]}
        elif phase is _PLAY or phase is _ANNOUNCE:
            seats = {self._turn} if self._turn is not None else set()
        else:
            return ()
        if self._missed:
            seats.update(s for s in range(self.rules.seats) if s & 1 == self._missed_team)
        return tuple(sorted(seats))

    def legal_actions(
        self, seat: int | None = None, *, by_rank: bool = False
    ) -> tuple[Action, ...]:
        """Every legal player action now (of ``seat`` only, if given), in a fixed order.

        By seat; then plays by card, each card's trail first and then its captures in colex
        order of the taken cards (their bit mask: the highest card decides); then
        announcements, claims, take-missed. Each distinct capture (basis and sequence) is its
        own action (R15's complete list). ``by_rank`` lists captures up to suit-equivalence
        instead: one per played card and rank multiset of the take (plus the caída match,
        R9), which is what servers offer and bots choose from, since the complete list can
        reach tens of thousands on a crowded table (R2, R7). `apply` accepts any legal take.
        """
        phase = self._phase
        if phase is _PLAY and not self._missed:
            turn = self._turn
            if seat is not None and seat != turn:
                return ()
            return tuple(self._plays(turn, by_rank))  # type: ignore[arg-type]
        out: list[Action] = []
        for each in range(self.rules.seats) if seat is None else (seat,):
            if not 0 <= each < self.rules.seats:
                continue
            if phase is _PLAY and each == self._turn:
                out += self._plays(each, by_rank)
            elif phase is _ANNOUNCE and each == self._turn:
                out += [Announce(each, call) for call in self._calls(each)]
            elif phase is _CLAIMS and not self._claims_ended[each & 1]:
                out += _CLAIM_ACTIONS[each]
            if self._missed and each & 1 == self._missed_team and phase is not _FINISHED:
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
            self.rules.referee and self._phase in (_ANNOUNCE, _PLAY) and self._played_in_packet == 0
        )

    def system_actions(self) -> tuple[Action, ...]:
        """The legal system actions now: CloseClaims (the clock) and Misdeal (the referee)."""
        out: list[Action] = []
        if self._phase is _CLAIMS:
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
        if type(action) is Play:
            return self._check_play(action)
        if not isinstance(action, _ACTION_TYPES):
            raise IllegalAction("R15", f"{action!r} is not an action")
        phase = self._phase
        closed = _closed(phase)
        if closed is not None:
            raise closed
        seats = self.rules.seats
        if isinstance(action, (CloseClaims, Misdeal)):
            if isinstance(action, CloseClaims) and phase is not _CLAIMS:
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
        if isinstance(action, TakeMissed):
            if not self._missed:
                raise IllegalAction("R8", "there are no missed cards to take")
            if seat & 1 != self._missed_team:
                raise IllegalAction("R8", "only the other team may take missed cards")
            return None
        if isinstance(action, Announce):
            if phase is not _ANNOUNCE:
                raise IllegalAction("R6", "nothing can be announced now")
            if seat != self._turn:
                raise IllegalAction("R6", f"it is seat {self._turn}'s turn to announce")
            if action.call not in self._calls(seat):
                raise IllegalAction("R6", f"seat {seat} cannot announce {action.call!r}")
            return None
        if isinstance(action, Claim):
            if phase is not _CLAIMS:
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

    def _check_play(self, action: Play) -> int:
        """Return the mask of the cards ``action`` takes (0: a trail) if it is legal now.

        A take is checked against the complete list `legal_actions` made for this very state
        (`_caps`), else directly by the rules (`check_capture`): never by listing captures.
        """
        seat = action.seat
        if self._phase is not _PLAY or seat != self._turn:
            raise self._refusal(seat)
        card = action.card
        if type(card) is not int or card not in self._hands[seat]:
            shown = card_code(card) if type(card) is int and 0 <= card < 40 else repr(card)
            raise IllegalAction("R7", f"{shown} is not in seat {seat}'s hand")
        mask = action.mask
        rank = card >> 2
        if not mask:
            if self.rules.capture_mandatory and self._can_capture(rank):
                raise IllegalAction(
                    "R7", f"{card_code(card)} can capture, and capture is mandatory (R13)"
                )
            return 0
        caps: list[int] | None = self._caps.get(rank)
        if caps is not None:  # listed by legal_actions for this very state
            if mask in caps:
                return mask
        elif mask > 0 and mask & self._table_mask() == mask:
            rules = self.rules
            if (
                check_capture(
                    self._by_rank, rank, cards_of(mask), rules.sequence == "manual", False
                )
                is not None
            ):
                return mask
        from engine.explain import why_not_capture

        raise IllegalAction(*why_not_capture(self, card, action.take))

    def _refusal(self, seat: object) -> IllegalAction:
        """Return why a card cannot be played now by ``seat`` (not in play, or not its turn)."""
        phase = self._phase
        closed = _closed(phase)
        if closed is not None:
            return closed
        seats = self.rules.seats
        if type(seat) is not int or not 0 <= seat < seats:
            return IllegalAction("R1", f"seat {seat!r} is not a seat at a {seats}-player table")
        if phase is not _PLAY:
            return IllegalAction("R6", "no card is played before the announcements end")
        return IllegalAction("R7", f"it is seat {self._turn}'s turn to play")

    def _can_capture(self, rank: int) -> bool:
        """Tell whether a card of ``rank`` has a capture (R13 ``capture_mandatory``)."""
        table = self._by_rank
        if table[rank]:
            return True
        code = self._low
        if code < 0:
            code = self._low = low_code(table)
        return bool((_USABLE.get(code) or usable_sums(code))[rank])

    def _table_mask(self) -> int:
        mask = 0
        for card in self._table:
            mask |= 1 << card
        return mask
