"""What one viewer may see: `View` (a snapshot) and `redact` (an event). Nothing else leaks.

Hands are shown only to their owner; a ronda's rank stays hidden until the hand summary
(`HandCounted`). Everything else is public: the diamond draw, played and captured cards, the
table, pile sizes, a shown cuarenta, claims. A view also holds what a bot needs to count cards
without cheating: the cards played this hand (with who played them), the size of every hand,
the cards still to be dealt, who announced ronda this packet.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import NamedTuple

from engine.events import Announced, Event, PacketDealt
from engine.legal import Legal  # a game's state and legal actions: all a view reads
from engine.memo import keep
from engine.phase import Phase
from engine.rules import Rules


@dataclass(frozen=True, slots=True)
class SeenPlay:
    """A public entry of this hand's history: a play, or a missed-cards take (``card`` = -1)."""

    packet: int
    seat: int
    card: int
    take: tuple[int, ...]
    caida: bool


class View(NamedTuple):
    """One viewer's snapshot of a game (``viewer`` None: a spectator).

    An immutable value: a named tuple, built in C (a server builds one after every change, bots
    one per decision). ``announced`` is this packet's announcements in order, (seat, call);
    ``rondas`` the (packet, seat) of every ronda announced this hand, ranks hidden (R6);
    ``history`` the hand's plays and missed-cards takes; ``claims`` the claims made, (seat,
    rank, valid).
    """

    viewer: int | None
    rules: Rules
    phase: Phase
    hand_number: int
    packet: int
    dealer: int
    turn: int | None
    to_act: tuple[int, ...]
    scores: tuple[int, int]
    pile_sizes: tuple[int, int]
    table: tuple[int, ...]
    hand: tuple[int, ...] | None
    hand_sizes: tuple[int, ...]
    undealt: int
    caida_target: int | None
    missed: tuple[int, ...]
    missed_takers: tuple[int, ...]
    history: tuple[SeenPlay, ...]
    announced: tuple[tuple[int, str], ...]
    rondas: tuple[tuple[int, int], ...]
    cuarenta: tuple[int, tuple[int, ...]] | None
    claims_open: bool
    claims_ended: tuple[bool, bool]
    claims: tuple[tuple[int, str, bool], ...]
    draw_start: int | None
    draw_cards: tuple[int, ...]
    winner: int | str | None

    @property
    def seen(self) -> frozenset[int]:
        """Every card played this hand (played cards are public; captured ones were played)."""
        return frozenset(entry.card for entry in self.history if entry.card >= 0)

    @property
    def ronda_announced(self) -> tuple[int, ...]:
        """The seats that announced ronda this packet (never the rank, R6)."""
        return tuple(seat for seat, call in self.announced if call == "ronda")

    def unseen(self) -> tuple[int, ...]:
        """The cards this viewer cannot place: other hands and the cards still to be dealt."""
        known = set(self.seen) | set(self.hand or ())
        return tuple(card for card in range(40) if card not in known)


#: Each public history entry's `SeenPlay`, built once: a server builds every viewer's view after
#: every change, and rebuilding the hand's whole history each time dominated `view_of`.
#: A bounded memo of immutable values, invisible to callers.
_SEEN: dict[tuple[int, int, int, tuple[int, ...], bool], SeenPlay] = {}
_SEEN_LIMIT = 8192


def _seen_play(entry: tuple[int, int, int, tuple[int, ...], bool]) -> SeenPlay:
    seen = _SEEN.get(entry)
    if seen is None:
        seen = keep(_SEEN, entry, SeenPlay(*entry), _SEEN_LIMIT)
    return seen


def own_hand(game: Legal, viewer: int | None) -> tuple[int, ...] | None:
    """The only hand ``viewer`` may see: its own (None for a spectator).

    A seat's view is the spectator's view plus this hand (and ``viewer``): a server that sends
    every viewer its view after every change builds the public part once and adds this per seat.
    """
    if viewer is None or not 0 <= viewer < game.rules.seats:
        return None
    return game.hand(viewer)


def seen_history(game: Legal, start: int = 0) -> tuple[SeenPlay, ...]:
    """The hand's public history (``View.history``) from entry ``start`` on: a server that
    keeps what it has already sent asks only for the entries after it."""
    return tuple(map(_seen_play, game._history[start:]))


def view_of(game: Legal, viewer: int | None, with_history: bool = True) -> View:
    """Build ``viewer``'s view of ``game`` (a seat, or None for a spectator); without the
    hand's history (empty) when the caller takes it from `seen_history`."""
    missed = game.missed
    taker_team = game._missed_team
    phase = game.phase
    claims_ended = game._claims_ended
    return View(
        viewer,
        game.rules,
        phase,
        game.hand_number,
        game.packet,
        game.dealer,
        game.turn,
        game.to_act(),
        game.scores,
        game.pile_sizes,
        game.table,
        own_hand(game, viewer),
        tuple(map(len, game._hands)),
        len(game._pack) - game._deal_pos,
        game.caida_target,
        missed,
        tuple(range(taker_team, game.rules.seats, 2)) if missed else (),  # the team's seats
        seen_history(game) if with_history else (),
        tuple(game._announced),
        tuple([(packet, seat) for packet, seat, _ in game._hand_rondas]),
        game._cuarenta,
        phase is Phase.CLAIMS,
        (claims_ended[0], claims_ended[1]),
        tuple(game._claims_made),
        game.draw_start,
        game.draw_cards,
        game.winner,
    )


def redacts(event: Event) -> bool:
    """Whether `redact` may hide part of ``event`` from some viewer (by its type): a server
    that redacts every event for every viewer skips the others (every play, most events)."""
    return type(event) is PacketDealt or type(event) is Announced


def redact(event: Event, viewer: int | None) -> Event:
    """Return what ``viewer`` may see of ``event``: THE one redaction of events.

    A `PacketDealt` keeps only the viewer's own cards; an `Announced` ronda hides its rank
    from everyone but the announcer (ranks become public in `HandCounted`). A cuarenta is shown.
    """
    if isinstance(event, PacketDealt):
        hands = tuple(hand if seat == viewer else None for seat, hand in enumerate(event.hands))
        return replace(event, hands=hands)
    if isinstance(event, Announced) and event.call == "ronda" and event.seat != viewer:
        return replace(event, rank=None)
    return event
