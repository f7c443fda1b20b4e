"""Follow a table from its numbered events: a viewer's next ``GameView`` from its last one.

A protocol 4 ``change`` carries the events and not the view, so a client keeps its view by
applying each event to it (`follow_event`), exactly as the server's game changed: the result is
the view the server's snapshot would hold (``tests/protocol/test_follow.py`` holds every seat
and a spectator to that over random games). The events are the viewer's own redacted forms, so
following them reveals nothing a snapshot would not (invariant 1): a seat learns its own hand
from ``packet_dealt`` and loses a card with each of its ``played``.

An event the view cannot take (a card that is not on the table, a hand it was never dealt) is a
`FollowError`: the view went wrong somewhere, and the client asks for a snapshot. A hosted game
deals its own packs, so it never waits for one (R15's ``waiting`` phase of a replayed record),
the one engine state no event announces.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from engine.rules import Rules, resolve_rules
from protocol import game_events as g
from protocol import table_events as t
from protocol.errors import ProtocolError
from protocol.server_messages import GameView, SeenPlay, TableInfo
from protocol.table_events import KnownEvent, UnknownEvent


class FollowError(ProtocolError):
    """An event does not fit the view it was applied to: ask for a snapshot."""


_RULES: dict[tuple[str, tuple[tuple[str, Any], ...]], Rules] = {}


def _rules(view: GameView) -> Rules:
    key = (view.profile, tuple(sorted(view.options.items())))
    rules = _RULES.get(key)
    if rules is None:
        rules = _RULES[key] = resolve_rules(view.profile, view.options)
    return rules


def blank_view(info: TableInfo, viewer: int | None) -> GameView:
    """The view of a game just created at the table ``info`` describes, before its first event
    (``game_started`` comes first, then the game's own events)."""
    seats = resolve_rules(info.profile, info.options).seats
    return GameView(
        profile=info.profile,
        options=dict(info.options),
        seats=seats,
        phase="waiting",
        viewer=viewer,
        hand_number=-1,
        packet=-1,
        dealer=0,
        turn=None,
        to_act=[],
        scores=[0, 0],
        piles=[0, 0],
        table=[],
        hand=None if viewer is None else [],
        hand_sizes=[0] * seats,
        undealt=0,
        caida_target=None,
        missed=[],
        missed_takers=[],
        history=[],
        announced=[],
        rondas=[],
        cuarenta=None,
        claims_open=False,
        claims_ended=[False, False],
        claims=[],
        draw_start=None,
        draw_cards=[],
        winner=None,
    )


def follow_event(
    view: GameView | None,
    event: KnownEvent | UnknownEvent,
    info: TableInfo | None,
    viewer: int | None,
) -> GameView | None:
    """The view after one numbered event of the table (a table event or a game event), given
    the table's ``info`` as the change carrying the event tells it and the viewer's seat."""
    if isinstance(event, t.GameStarted):
        if info is None:
            raise FollowError("a game started before the table's info was known")
        return blank_view(info, viewer)
    if isinstance(event, t.OptionsChanged):  # the view shows the table's options
        return None if view is None else view.model_copy(update={"options": event.options})
    if isinstance(event, t.Forfeited):  # a turn-based team's missed deadlines end the game
        return None if view is None else view.model_copy(update=forfeited(event.winner))
    if not g.is_game_event(event):
        return view  # a table event (seats, the lock...) or one this version does not know
    if view is None:
        raise FollowError(f"a {event.type} event before any game")
    return follow(view, event)


def forfeited(winner: int) -> dict[str, Any]:
    """The view's fields a forfeit changes (``forfeited``; the server's view of a forfeited
    game, ``server.core.forfeit``): over, nobody to act, ``winner`` the winner."""
    return {"phase": "finished", "turn": None, "to_act": [], "claims_open": False, "winner": winner}


def follow(view: GameView, event: g.GameEvent) -> GameView:
    """The view after one game event (as this viewer was sent it): a new value, the old one
    unchanged."""
    step = _STEPS.get(type(event))
    if step is None:
        raise FollowError(f"no way to follow a {event.type} event")
    changes = step(view, event, _rules(view))
    return view.model_copy(update={**changes, **_settled(view, changes)})


def _settled(view: GameView, changes: Mapping[str, Any]) -> dict[str, Any]:
    """``to_act`` and ``claims_open``, as the engine derives them from the rest."""
    phase = changes.get("phase", view.phase)
    turn = changes.get("turn", view.turn)
    if phase == "claims":
        ended = changes.get("claims_ended", view.claims_ended)
        to_act = {seat for seat in range(view.seats) if not ended[seat & 1]}
    elif phase in ("play", "announce"):
        to_act = set() if turn is None else {turn}
    else:
        return {"to_act": [], "claims_open": False}
    to_act.update(changes.get("missed_takers", view.missed_takers))  # R8: the other team
    return {"to_act": sorted(to_act), "claims_open": phase == "claims"}


def _add(scores: list[int], team: int, points: int) -> list[int]:
    out = list(scores)
    out[team] += points
    return out


def _without(cards: list[str], gone: list[str], what: str) -> list[str]:
    out = list(cards)
    for card in gone:
        if card not in out:
            raise FollowError(f"{card} is not in the {what} it leaves")
        out.remove(card)
    return out


Step = Callable[[GameView, Any, Rules], dict[str, Any]]


def _dealer_drawn(view: GameView, event: g.DealerDrawn, rules: Rules) -> dict[str, Any]:
    return {"draw_start": event.start, "draw_cards": list(event.cards), "dealer": event.dealer}


def _hand_started(view: GameView, event: g.HandStarted, rules: Rules) -> dict[str, Any]:
    """R4: a fresh pack and an empty table; scores carry over."""
    return {
        "hand_number": event.hand,
        "dealer": event.dealer,
        "packet": -1,
        "hand": None if view.viewer is None else [],
        "hand_sizes": [0] * rules.seats,
        "undealt": 0,
        "table": [],
        "piles": [0, 0],
        "caida_target": None,
        "missed": [],
        "missed_takers": [],
        "claims_ended": [False, False],
        "claims": [],
        "announced": [],
        "rondas": [],
        "cuarenta": None,
        "history": [],
    }


def _packet_dealt(view: GameView, event: g.PacketDealt, rules: Rules) -> dict[str, Any]:
    """R4: 5 cards to every seat; the dealer's left acts first (R6 manual: announces)."""
    seats = rules.seats
    hand = None
    if view.viewer is not None:
        mine = event.hands[view.viewer] if view.viewer < len(event.hands) else None
        if mine is None:
            raise FollowError(f"packet {event.packet} came without seat {view.viewer}'s cards")
        hand = list(mine)
    return {
        "hand_number": event.hand,
        "packet": event.packet,
        "dealer": event.dealer,
        "hand": hand,
        "hand_sizes": [5] * seats,
        "undealt": 40 - 5 * seats * (event.packet + 1),
        "caida_target": None,  # R9: the first play of a packet is never a caída
        "announced": [],
        "cuarenta": None,
        "phase": "announce" if rules.announcements == "manual" else "play",
        "turn": (event.dealer + 1) % seats,
    }


def _announced(view: GameView, event: g.Announced, rules: Rules) -> dict[str, Any]:
    announced = [*view.announced, (event.seat, event.call)]
    out: dict[str, Any] = {"announced": announced}
    if event.call == "ronda":  # R6: who, never the rank
        out["rondas"] = [*view.rondas, (view.packet, event.seat)]
        out["scores"] = _add(view.scores, event.seat & 1, event.points)
    elif event.call == "cuarenta":
        out["cuarenta"] = (event.seat, list(event.cards))
    if view.phase == "announce":  # R6 manual: every seat once, from the dealer's left
        done = len(announced)
        if done >= rules.seats:
            out["phase"], out["turn"] = "play", (view.dealer + 1) % rules.seats
        else:
            out["turn"] = (view.dealer + 1 + done) % rules.seats
    return out


def _played(view: GameView, event: g.Played, rules: Rules) -> dict[str, Any]:
    """R7-R9: a trail or a capture; the chance at missed cards ends with it (R8)."""
    seat, team = event.seat, event.seat & 1
    out: dict[str, Any] = {"missed": [], "missed_takers": []}
    if view.viewer == seat:
        out["hand"] = _without(view.hand or [], [event.card], "hand")
    sizes = list(view.hand_sizes)
    if sizes[seat] <= 0:
        raise FollowError(f"seat {seat} played from an empty hand")
    sizes[seat] -= 1
    out["hand_sizes"] = sizes
    if not event.take:
        out["table"] = [*view.table, event.card]
        out["caida_target"] = event.card
        entry = SeenPlay(packet=view.packet, seat=seat, card=event.card, take=[], caida=False)
    else:
        out["table"] = _without(view.table, event.take, "table")
        out["piles"] = _add(view.piles, team, 1 + len(event.take))
        out["caida_target"] = None
        if event.missed:
            out["missed"] = list(event.missed)
            out["missed_takers"] = list(range(1 - team, rules.seats, 2))
        out["scores"] = _add(view.scores, team, event.points)
        entry = SeenPlay(
            packet=view.packet, seat=seat, card=event.card, take=list(event.take), caida=event.caida
        )
    out["history"] = [*view.history, entry]
    if any(sizes):  # the packet goes on: the next seat plays
        out["turn"] = (seat + 1) % rules.seats
    return out


def _missed_taken(view: GameView, event: g.MissedTaken, rules: Rules) -> dict[str, Any]:
    """R8: the missed cards go to the taker's pile, in the order the view lists them."""
    if sorted(view.missed) != sorted(event.cards):
        raise FollowError("the missed cards taken are not the ones the view holds")
    taken = list(view.missed)
    entry = SeenPlay(packet=view.packet, seat=event.seat, card=None, take=taken, caida=False)
    return {
        "table": _without(view.table, taken, "table"),
        "piles": _add(view.piles, event.seat & 1, len(taken)),
        "missed": [],
        "missed_takers": [],
        "history": [*view.history, entry],
    }


def _claims_opened(view: GameView, event: g.ClaimsOpened, rules: Rules) -> dict[str, Any]:
    return {"phase": "claims", "turn": None}


def _claimed(view: GameView, event: g.Claimed, rules: Rules) -> dict[str, Any]:
    """R10: a wrong claim ends the team's claiming."""
    team = event.seat & 1
    out: dict[str, Any] = {
        "claims": [*view.claims, (event.seat, event.rank, event.valid)],
        "scores": _add(view.scores, team, event.points),
    }
    if not event.valid:
        ended = list(view.claims_ended)
        ended[team] = True
        out["claims_ended"] = ended
    return out


def _claims_closed(view: GameView, event: g.ClaimsClosed, rules: Rules) -> dict[str, Any]:
    return {}


def _awarded(view: GameView, event: g.Awarded, rules: Rules) -> dict[str, Any]:
    return {"scores": _add(view.scores, event.team, event.points)}


def _hand_counted(view: GameView, event: g.HandCounted, rules: Rules) -> dict[str, Any]:
    """R11: the table's cards belong to nobody; the piles stay on view until the next hand."""
    scores = [view.scores[0] + event.points[0], view.scores[1] + event.points[1]]
    return {
        "scores": scores,
        "table": [],
        "missed": [],
        "missed_takers": [],
        "turn": None,
        "phase": "waiting",  # until the next hand is dealt, or the game is over
    }


def _misdeal_ruled(view: GameView, event: g.MisdealRuled, rules: Rules) -> dict[str, Any]:
    """R5: the other team's points (the redeal, if any, follows as a new hand)."""
    return {"scores": _add(view.scores, 1 - (event.dealer & 1), event.points)}


def _game_over(view: GameView, event: g.GameOver, rules: Rules) -> dict[str, Any]:
    return {
        "phase": "finished",
        "turn": None,
        "winner": event.winner,
        "scores": list(event.scores),
    }


_STEPS: Final[dict[type, Step]] = {
    g.DealerDrawn: _dealer_drawn,
    g.HandStarted: _hand_started,
    g.PacketDealt: _packet_dealt,
    g.Announced: _announced,
    g.Played: _played,
    g.MissedTaken: _missed_taken,
    g.ClaimsOpened: _claims_opened,
    g.Claimed: _claimed,
    g.ClaimsClosed: _claims_closed,
    g.Awarded: _awarded,
    g.HandCounted: _hand_counted,
    g.MisdealRuled: _misdeal_ruled,
    g.GameOver: _game_over,
}
