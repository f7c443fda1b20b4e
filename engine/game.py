"""`Game`: a game of Cuarenta, and `apply`, the one place its state changes (R3-R15).

`apply` validates an action completely before touching anything (`engine.legal`), so an
illegal action leaves the game exactly as it was. After each action the game runs every
automatic step it can (`engine.flow`: deal, announcements, awards, count, next hand) until it
needs someone's input, and returns all the events that happened.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from engine.actions import (
    Action,
    Announce,
    Claim,
    CloseClaims,
    Play,
    TakeMissed,
    action_from_json,
)
from engine.captures import RANK_UNIT, missed_cards
from engine.cards import RANKS
from engine.determinize import game_from_view
from engine.errors import IllegalAction
from engine.events import (
    Announced,
    Claimed,
    ClaimsClosed,
    DealerDrawn,
    Event,
    MissedTaken,
    Played,
    played_event,
)
from engine.flow import Flow, diamond_draw, shuffled_pack
from engine.legal import cards_of
from engine.phase import Phase
from engine.record import Draw, Record
from engine.rules import DEFAULT_PROFILE, Rules, resolve_rules
from engine.scoring import play_points
from engine.state import Hidden
from engine.views import View, view_of

_PLAY = Phase.PLAY  # bound once (see engine.legal)

#: The event of every trail, per ``seat * 40 + card``: events are immutable, so one is shared.
_TRAILED: tuple[Played, ...] = tuple(
    played_event(seat, card, (), False, False, 0, ()) for seat in range(4) for card in range(40)
)


class Game(Flow):
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
        pack = shuffled_pack(rng)
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
            for _step in game.apply_record(record.actions):
                pass
        return game

    def apply_record(
        self, actions: Iterable[Mapping[str, Any]]
    ) -> Iterator[tuple[Action, tuple[Event, ...]]]:
        """Apply a record's actions (R15) in order, yielding each with the events it caused.

        The one replay loop (`from_record`, `engine.replay`, the replay viewer's positions): an
        action that cannot be read or applied raises `IllegalAction` with ``index`` set to its
        position in ``actions``, the game left as it was after the one before.
        """
        for index, obj in enumerate(actions):
            try:
                action = action_from_json(obj)
                events = self.apply(action)
            except IllegalAction as error:
                error.index = index
                raise
            yield action, events

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
        return game_from_view(cls, view, hidden)

    def copy(self) -> Game:
        """Return an independent copy (cheap: a few list copies), e.g. for a bot's search."""
        other = Game.__new__(Game)
        self._copy_state_into(other)
        return other

    # ------------------------------------------------------------------ apply
    def apply(self, action: Action) -> tuple[Event, ...]:
        """Apply a legal action and every automatic step after it; return the events.

        An illegal action raises `IllegalAction` naming the rule, and changes nothing.
        A play, the hot path of every playout, is applied right here, written out flat.
        """
        if type(action) is not Play:
            return self._apply_other(action)
        seat, card, mask = action.seat, action.card, action.mask
        rules = self.rules
        caps = self._caps
        # accept at once a card of the seat to play, trailed or taking what legal_actions
        # listed for this very state; anything else gets the complete check (or refusal)
        if (
            self._phase is not _PLAY
            or seat != self._turn
            or type(card) is not int
            or card not in self._hands[seat]
            or (
                mask not in caps.get(card >> 2, ())
                if mask
                else rules.capture_mandatory and self._can_capture(card >> 2)
            )
        ):
            mask = self._check_play(action)
        if caps:
            caps.clear()  # captures listed for the state now left behind
        rank = card >> 2
        self._hands[seat].remove(card)
        played = self._played_in_packet + 1
        self._played_in_packet = played
        if self._missed:  # R8: the chance ends when the next card is played
            self._missed = []
            self._missed_team = -1
        self._actions.append(action)
        if not mask:  # a trail (R7)
            self._table.append(card)
            self._by_rank[rank].append(card)
            if rank < 6 and self._low >= 0:
                self._low += RANK_UNIT[rank]
            self._last_trail = card
            self._history.append((self.packet, seat, card, (), False))
            event: Played = _TRAILED[seat * 40 + card]
        else:
            team = seat & 1
            table, by_rank = self._table, self._by_rank
            missed = (
                missed_cards(by_rank, rank, mask)
                if rules.forfeiture and rules.sequence == "manual"
                else ()
            )
            taken = cards_of(mask)  # ascending: one order for events, piles and history
            low = self._low
            for each in taken:
                table.remove(each)
                by_rank[each >> 2].remove(each)
                if each < 24:
                    low -= RANK_UNIT[each >> 2]
            if low >= 0:  # (unknown, -1, stays unknown)
                self._low = low
            pile = self._piles[team]
            pile.append(card)
            pile += taken
            trail = self._last_trail
            caida = trail >= 0 and trail >> 2 == rank and (mask >> trail) & 1 == 1  # R9 match
            limpia = not table
            before = self._scores[team]
            points = play_points(rules, before, caida, limpia)  # R9
            if caida and rules.awards_r10:
                self._note_ronda_caida(seat, rank, team)
            self._last_trail = -1
            if missed:
                self._missed = list(missed)
                self._missed_team = 1 - team
            self._history.append((self.packet, seat, card, taken, caida))
            self._scores[team] = before + points
            event = played_event(seat, card, taken, caida, limpia, points, missed)
            if before + points >= rules.target:
                events: list[Event] = [event]
                self._finish(team, "reached 40 in play", events)
                return tuple(events)
        if played < 5 * rules.seats:
            self._turn = (seat + 1) % rules.seats
            return (event,)
        events = [event]
        if self.packet + 1 < rules.packets_per_hand:
            self._deal_packet(events)
        else:
            self._end_hand(events)
        return tuple(events)

    def _apply_other(self, action: Action) -> tuple[Event, ...]:
        """Apply a legal action other than a play (see `apply`)."""
        self._check(action)
        events: list[Event] = []
        if self._caps:
            self._caps.clear()  # captures listed for the state now left behind
        if isinstance(action, TakeMissed):
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
        self._low = -1  # derived again on first use
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
