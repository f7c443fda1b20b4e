"""The table as text (pure): what a player reads must match the rules' facts."""

from __future__ import annotations

from clients.terminal.i18n import Translator
from clients.terminal.render import (
    board,
    card_text,
    hand_line,
    seat_lines,
    seconds_left,
    status_line,
    table_line,
    team_name,
)
from protocol import server_messages as s
from tests.clients.positions import worked_example
from tests.clients.snapshots import snapshot_of

EN, ES = Translator("en"), Translator("es")
TURN = s.Deadline(kind="turn", seat=0, at=1000.0, remaining_ms=30_000)


def test_cards_show_rank_and_suit_symbol_r2() -> None:
    assert [card_text(code) for code in ("6S", "JD", "AH", "KC")] == ["6♠", "J♦", "A♥", "K♣"]


def test_teams_are_us_and_them_for_a_player_and_numbered_for_a_spectator_r1() -> None:
    assert [team_name(t, 1, EN) for t in (0, 1)] == ["Them", "Us"]
    assert [team_name(t, 2, ES) for t in (0, 1)] == ["Nosotros", "Ellos"]
    assert team_name(1, None, EN) == "Team 2"  # numbered from 1, like the seats


def test_the_player_sees_table_hand_numbered_and_that_it_is_their_turn_with_the_clock() -> None:
    snap = snapshot_of(worked_example(), 0, deadlines=(TURN,))
    assert table_line(snap, EN) == "Table: 2♣ 4♦ 7♥ J♣"
    assert hand_line(snap, EN) == "Your hand: 1:3♥  2:5♦  3:6♠  4:J♠"
    assert status_line(snap, EN, elapsed_s=4.2) == "Hand 1, packet 1 · Your turn · 26 s left"
    assert status_line(snap, ES, elapsed_s=0) == "Mano 1, reparto 1 · Tu turno · 30 s"


def test_seat_lines_mark_the_turn_the_dealer_bots_and_hand_sizes() -> None:
    snap = snapshot_of(worked_example(), 1, bots=(2,), deadlines=(TURN,))
    lines = seat_lines(snap, EN, elapsed_s=10)
    assert lines[0] == "▶ Seat 1: Ana · 4 cards · 20 s left"  # seats from 1, as in the browser
    assert lines[1] == "  Seat 2: Beto (you) · 4 cards"
    assert lines[2] == "  Seat 3: bot, level 2 · 4 cards"  # the log says "Seat 3 bot (level 2)"
    assert lines[3] == "  Seat 4: Dani · 4 cards · deals"
    assert status_line(snap, EN) == "Hand 1, packet 1 · Ana's turn · 30 s left"


def test_a_spectator_sees_no_hand_and_numbered_teams() -> None:
    snap = snapshot_of(worked_example(), None)
    assert hand_line(snap, EN) == ""
    text = board(snap, EN)
    assert "Team 1: 0 points, 0 cards" in text
    assert "Team 2: 0 points, 0 cards" in text
    assert "3♥" not in text  # seat 0's hand never reaches a spectator (invariant 1)


def test_the_clock_never_goes_below_zero() -> None:
    assert seconds_left(TURN, 29.5) == 1
    assert seconds_left(TURN, 31.0) == 0
