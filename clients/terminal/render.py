"""Pure text of the table: a snapshot (and the time since it came) in, lines out.

Nothing here touches a socket or a widget, so every line a player reads is unit-tested. Cards
are written rank + suit symbol (``6♠``); teams are "us"/"them" for a player (R1: team = seat
mod 2) and numbered for a spectator; seats and teams are numbered from 1, as in the browser,
and a bot goes by its seat and level (several bots may share one level).
"""

from __future__ import annotations

from collections.abc import Sequence

from clients.terminal.i18n import Translator
from protocol import server_messages as s

SUIT_SYMBOLS = {"C": "♣", "D": "♦", "H": "♥", "S": "♠"}


def card_text(code: str) -> str:
    """``"6S"`` -> ``"6♠"`` (R2 codes, shown with suit symbols)."""
    return code[0] + SUIT_SYMBOLS.get(code[1:].upper(), code[1:])


def cards_text(codes: Sequence[str]) -> str:
    return " ".join(card_text(code) for code in codes)


def seat_label(seat: int, tr: Translator) -> str:
    """ "Seat n", numbered from 1 as in the browser (the wire's seats count from 0)."""
    return tr("seat", seat=seat + 1)


def seat_name(info: s.TableInfo, seat: int, tr: Translator) -> str:
    """The name at ``seat``: a bot by its seat and level, a person by name, else "Seat n"."""
    if 0 <= seat < len(info.seats):
        occupant = info.seats[seat]
        if occupant.occupant == "bot":
            return tr("bot_name", seat=seat + 1, level=occupant.bot_level)
        if occupant.name:
            return str(occupant.name)
    return seat_label(seat, tr)


def team_name(team: int, viewer: int | None, tr: Translator) -> str:
    """R1: a player's own team is "us"; a spectator sees numbered teams."""
    if viewer is None:
        return tr("team_n", team=team + 1)  # numbered from 1, like the seats
    return tr("team_us") if viewer % 2 == team else tr("team_them")


def seconds_left(deadline: s.Deadline, elapsed_s: float) -> int:
    """Whole seconds left on ``deadline``, ``elapsed_s`` after its snapshot arrived."""
    return max(0, int(deadline.remaining_ms / 1000 - elapsed_s + 0.999))


def turn_deadline(snap: s.Snapshot) -> s.Deadline | None:
    """The clock running on the current decision (a turn, an announcement or the claims)."""
    for deadline in snap.deadlines:
        if deadline.kind in ("turn", "announce", "claims"):
            return deadline
    return None


def header(snap: s.Snapshot, tr: Translator) -> str:
    """The title line: table, profile, and who you are here."""
    who = seat_label(snap.you.seat, tr) if snap.you.seat is not None else tr("spectator")
    profile = tr(f"profile_{snap.info.profile}")
    return f"{tr('title')} · {snap.info.table} · {profile} · {snap.you.name} ({who})"


def score_lines(snap: s.Snapshot, tr: Translator) -> list[str]:
    """One line per team: score and pile size (R11 counts the piles)."""
    view = snap.view
    if view is None:
        return []
    return [
        tr(
            "score",
            team=team_name(team, snap.you.seat, tr),
            score=view.scores[team],
            pile=view.piles[team],
        )
        for team in (0, 1)
    ]


def seat_lines(snap: s.Snapshot, tr: Translator, elapsed_s: float = 0.0) -> list[str]:
    """One line per seat: marker for the turn, name, who plays it, cards held, the dealer."""
    info, view = snap.info, snap.view
    clock = turn_deadline(snap)
    lines = []
    for seat_info in info.seats:
        seat = seat_info.seat
        parts = [seat_label(seat, tr) + ":", seat_name(info, seat, tr)]
        if seat_info.occupant == "empty":
            parts = [seat_label(seat, tr) + ":", tr("empty_seat")]
        elif seat_info.occupant == "bot":  # the log calls it "the bot of seat n (level l)"
            parts = [seat_label(seat, tr) + ":", tr("bot", level=seat_info.bot_level)]
        if seat == snap.you.seat:
            parts.append(f"({tr('you')})")
        if seat_info.occupant == "person" and seat_info.stand_in:
            parts.append(f"[{tr('stand_in')}]")
        elif seat_info.occupant == "person" and not seat_info.connected:
            parts.append(f"[{tr('away')}]")
        if view is not None and seat < len(view.hand_sizes):
            parts.append("· " + tr("cards_in_hand", n=view.hand_sizes[seat]))
            if view.dealer == seat:
                parts.append(f"· {tr('dealer')}")
        marker = "  "
        if view is not None and view.phase in ("play", "announce") and view.turn == seat:
            marker = "▶ "
            if clock is not None and clock.seat == seat:
                parts.append(f"· {tr('seconds_left', s=seconds_left(clock, elapsed_s))}")
        lines.append(marker + " ".join(parts))
    return lines


def table_line(snap: s.Snapshot, tr: Translator) -> str:
    view = snap.view
    cards = cards_text(view.table) if view is not None and view.table else tr("table_empty")
    line = f"{tr('table')}: {cards}"
    if view is not None and view.missed:
        line += "   " + tr("missed_on_table", cards=cards_text(view.missed))
    return line


def hand_line(snap: s.Snapshot, tr: Translator) -> str:
    """The viewer's hand, numbered as the keys that choose each card."""
    view = snap.view
    if view is None or view.hand is None:
        return ""
    numbered = "  ".join(f"{i}:{card_text(code)}" for i, code in enumerate(view.hand, 1))
    return f"{tr('hand')}: {numbered}"


def status_line(snap: s.Snapshot, tr: Translator, elapsed_s: float = 0.0) -> str:
    """What the table waits for: players, a turn (with its clock), claims, or nothing (over)."""
    info, view = snap.info, snap.view
    if view is None or info.stage == "lobby":
        hint = f" — {tr('lobby_host')}" if snap.you.host else ""
        return tr("lobby") + hint
    if view.phase == "finished" or info.stage == "finished":
        a, b = view.scores
        if view.winner == "draw" or view.winner is None:
            return tr("draw", a=a, b=b)
        return tr("game_over", team=team_name(int(view.winner), snap.you.seat, tr), a=a, b=b)
    clock = turn_deadline(snap)
    left = f" · {tr('seconds_left', s=seconds_left(clock, elapsed_s))}" if clock else ""
    hand = tr("hand_number", hand=view.hand_number + 1, packet=view.packet + 1)
    if view.phase == "claims":
        return f"{hand} · {tr('claims_phase')}{left}"
    if view.turn is None:
        return hand
    who = (
        tr("your_turn")
        if view.turn == snap.you.seat
        else tr("turn_of", name=seat_name(info, view.turn, tr))
    )
    phase = f" · {tr('announce_phase')}" if view.phase == "announce" else ""
    return f"{hand} · {who}{phase}{left}"


def board(snap: s.Snapshot, tr: Translator, elapsed_s: float = 0.0) -> str:
    """The whole table as text: status, scores, seats, table cards, the viewer's hand."""
    lines = [
        status_line(snap, tr, elapsed_s),
        *score_lines(snap, tr),
        "",
        *seat_lines(snap, tr, elapsed_s),
        "",
        table_line(snap, tr),
    ]
    hand = hand_line(snap, tr)
    if hand:
        lines.append(hand)
    return "\n".join(lines)
