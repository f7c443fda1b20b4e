"""Pure text of the event log: one line per numbered event (or None for nothing to say).

Game events arrive already redacted for this viewer (a ronda's rank hidden, other hands absent)
as their models (``protocol.game_events``), table events as theirs; an event of a type this
client does not know (``UnknownEvent``, from a newer server) has no line.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import assert_never

from clients.terminal.i18n import Translator
from clients.terminal.render import card_text, cards_text, seat_name, team_name
from engine.scoring import count_points
from protocol import game_events as g
from protocol import server_messages as s
from protocol import table_events as t
from protocol.coach import HintsChanged

Names = Callable[[int], str]


def describe(event: s.Event, info: s.TableInfo, viewer: int | None, tr: Translator) -> str | None:
    """The log line of ``event`` for ``viewer`` (names taken from ``info``)."""
    body = event.event

    def name(seat: int) -> str:
        return seat_name(info, seat, tr)

    if g.is_game_event(body):
        return _engine_line(body, name, viewer, tr)
    if t.is_table_event(body):
        return _table_line(body, name, viewer, tr)
    return None


def _table_line(body: t.TableEvent, name: Names, viewer: int | None, tr: Translator) -> str | None:
    match body:
        case t.SeatTaken(seat=seat, name=who, bot_level=level):
            if level is not None:
                return tr("ev_bot_seated", level=level, seat=seat + 1)
            return tr("ev_seat_taken", name=who, seat=seat + 1)
        case t.SeatFreed(seat=seat):
            return tr("ev_seat_freed", seat=seat + 1)
        case t.SeatsSwapped(seat=seat, other=other):
            return tr("ev_swapped", seat=seat + 1, other=other + 1)
        case t.GameStarted(game=game):
            return tr("ev_started", game=game)
        case t.StandIn(seat=seat, active=active):
            return tr("ev_stand_in_on" if active else "ev_stand_in_off", name=name(seat))
        case t.Forfeited(team=team, winner=winner, scores=(a, b)):
            lost, won = team_name(team, viewer, tr), team_name(winner, viewer, tr)
            return tr("ev_forfeited", lost=lost, team=won, a=a, b=b)
        case t.RematchAsked(seat=seat):
            return tr("ev_rematch", name=name(seat))
        case t.OptionsChanged():
            return tr("ev_options")
        case t.LockChanged(locked=locked):
            return tr("ev_lock_on" if locked else "ev_lock_off")
        case HintsChanged(hints=hints):
            return tr("ev_hints_on" if hints else "ev_hints_off")
        case _:
            assert_never(body)


def _engine_line(event: g.GameEvent, name: Names, viewer: int | None, tr: Translator) -> str | None:
    match event:
        case g.Played():
            return _played(event, name, tr)
        case g.DealerDrawn(cards=cards, dealer=dealer):
            return tr("ev_dealer", cards=cards_text(cards), name=name(dealer))
        case g.HandStarted(hand=hand, dealer=dealer):
            return tr("ev_hand", hand=hand + 1, name=name(dealer))
        case g.PacketDealt(packet=packet):
            return tr("ev_packet", packet=packet + 1)
        case g.Announced(seat=seat, call=call, rank=rank, points=points):
            said = tr(f"call_{call}") + (f" ({rank})" if rank else "")
            scored = tr("ev_points", points=points) if points else ""
            return tr("ev_announced", name=name(seat), call=said) + scored
        case g.MissedTaken(seat=seat, cards=cards):
            return tr("ev_missed_taken", name=name(seat), cards=cards_text(cards))
        case g.ClaimsOpened():
            return tr("ev_claims_opened")
        case g.Claimed(seat=seat, rank=rank, valid=valid, points=points):
            verdict = tr("ev_valid", points=points) if valid else tr("ev_wrong")
            return tr("ev_claimed", name=name(seat), rank=rank, verdict=verdict)
        case g.ClaimsClosed():
            return tr("ev_claims_closed")
        case g.Awarded(team=team, rank=rank, points=points):
            return tr("ev_awarded", team=team_name(team, viewer, tr), rank=rank, points=points)
        case g.HandCounted(piles=(a, b), points=(pa, pb)):
            return tr("ev_counted", a=a, b=b, pa=pa, pb=pb)
        case g.MisdealRuled(dealer=dealer, penalty=penalty):
            return tr("ev_misdeal", name=name(dealer), penalty=tr(f"penalty_{penalty}"))
        case g.GameOver(winner=winner, scores=(a, b)):
            if winner == "draw":
                return tr("draw", a=a, b=b)
            return tr("ev_game_over", team=team_name(winner, viewer, tr), a=a, b=b)


def _played(body: g.Played, name: Names, tr: Translator) -> str:
    who, card = name(body.seat), card_text(body.card)
    if not body.take:
        line = tr("ev_trail", name=who, card=card)
    else:
        line = tr("ev_capture", name=who, take=cards_text(body.take), card=card)
    flags = [tr(flag) for flag, on in (("caida", body.caida), ("limpia", body.limpia)) if on]
    if flags:
        line += f" ({', '.join(flags)})"
    if body.points:
        line += tr("ev_points", points=body.points)
    if body.missed:
        line += tr("ev_missed", cards=cards_text(body.missed))
    return line


def chat_text(line: s.ChatLine, tr: Translator) -> str:
    return tr("chat_line", name=line.name, text=line.text)


def history_lines(snap: s.Snapshot, tr: Translator) -> list[str]:
    """The hand so far, for a viewer who arrives in its middle (the snapshot's public history:
    its plays and missed-cards takes, without the points the live events would tell)."""
    view = snap.view
    if view is None or snap.info.stage != "playing":
        return []

    def name(seat: int) -> str:
        return seat_name(snap.info, seat, tr)

    lines = [tr("ev_hand", hand=view.hand_number + 1, name=name(view.dealer))]
    for entry in view.history:
        if entry.card is None:
            lines.append(tr("ev_missed_taken", name=name(entry.seat), cards=cards_text(entry.take)))
            continue
        play = g.Played(
            seat=entry.seat,
            card=entry.card,
            take=entry.take,
            caida=entry.caida,
            limpia=False,
            points=0,
        )
        lines.append(_played(play, name, tr))
    return lines


def game_event_of(event: s.Event) -> g.GameEvent | None:
    """The game event an ``event`` message carries (None: a table event or an unknown one)."""
    body = event.event
    return body if g.is_game_event(body) else None


def count_notes(
    counted: g.HandCounted, scores: Sequence[int], info: s.TableInfo, tr: Translator
) -> list[str]:
    """R14 libre-2p, "38 que no juega": why a hand's count gave a player on 38 nothing.

    ``counted`` is the hand_counted event, ``scores`` the scores after it (a +0 count leaves
    the player on 38); only a count the cards would have won (R11) needs saying.
    """
    if info.profile != "libre-2p":
        return []
    would = count_points(counted.piles, counted.dealer % 2)
    return [
        tr("ev_at38", name=seat_name(info, team, tr))
        for team in (0, 1)
        if scores[team] == 38 and counted.points[team] == 0 and would[team] > 0
    ]
