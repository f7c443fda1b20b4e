"""The event log (pure): one line per event, from the redacted forms a viewer receives."""

from __future__ import annotations

from clients.terminal.event_text import count_notes, describe, history_lines
from clients.terminal.i18n import Translator
from engine.events import Announced, GameOver, HandCounted, Played
from engine.views import redact
from protocol import server_messages as s
from protocol import table_events as t
from protocol.game_events import HandCounted as HandCountedEvent
from tests.clients.positions import worked_example
from tests.clients.snapshots import NAMES, snapshot_of, table_info
from tests.engine.helpers import cards
from tests.server.ladder.test_rule38_note import a_count_voided_at_38

EN, ES = Translator("en"), Translator("es")
INFO = table_info()


def line(body: object, viewer: int | None = 0, tr: Translator = EN) -> str | None:
    return describe(s.Event(n=1, event=body), INFO, viewer, tr)  # type: ignore[arg-type]


def test_a_capture_line_names_the_cards_and_the_r9_points() -> None:
    played = Played(0, min(cards("JS")), tuple(sorted(cards("JC 2C"))), True, True, 4)
    assert line(played.to_json()) == "Ana takes 2♣ J♣ with J♠ (caída, limpia) +4"
    assert line(played.to_json(), tr=ES) == "Ana lleva 2♣ J♣ con J♠ (caída, limpia) +4"


def test_a_trail_and_missed_cards_r8() -> None:
    trail = Played(1, min(cards("3H")), (), False, False, 0)
    assert line(trail.to_json()) == "Beto trails 3♥"
    missed = Played(
        2,
        min(cards("5D")),
        tuple(sorted(cards("5C 6S"))),
        False,
        False,
        0,
        tuple(sorted(cards("7H"))),
    )
    assert line(missed.to_json()) == "Caro takes 5♣ 6♠ with 5♦ (misses 7♥)"


def test_a_ronda_rank_shows_only_where_the_redaction_left_it_r6() -> None:
    ronda = Announced(1, "ronda", "7", 4)
    assert line(redact(ronda, 0).to_json(), viewer=0) == "Beto announces ronda +4"
    assert line(redact(ronda, 1).to_json(), viewer=1) == "Beto announces ronda (7) +4"


def test_count_and_game_over_from_the_players_side_r11_r12() -> None:
    counted = HandCounted(0, 3, (22, 18), (8, 0), ())
    assert line(counted.to_json()) == "count: 22-18 cards, +8/+0"
    over = GameOver(1, (30, 40), "reached 40")
    assert line(over.to_json(), viewer=0) == "winner: Them, 30-40"
    assert line(over.to_json(), viewer=None) == "winner: Team 2, 30-40"


def test_table_events() -> None:
    assert line(t.SeatTaken(seat=2, name="Caro")) == "Caro sits in seat 3"  # from 1
    assert line(t.SeatTaken(seat=1, name="Bot 2", bot_level=2)) == ("a level 2 bot sits in seat 2")
    assert line(t.SeatTaken(seat=1, name="Bot 2", bot_level=2), tr=ES) == (
        "un bot de nivel 2 se sienta en el asiento 2"
    )
    assert line(t.StandIn(seat=3, active=True, reason="disconnected")) == "a bot plays for Dani"
    forfeit = t.Forfeited(team=1, winner=0, scores=(18, 26))  # a turn-based team's 2 misses
    assert line(forfeit) == "Them: two deadlines missed in a row, forfeit; winner: Us, 18-26"


def test_a_spectator_arriving_mid_hand_reads_the_hand_so_far() -> None:
    snap = snapshot_of(worked_example(), None)
    assert history_lines(snap, EN) == [
        "hand 1: Dani deals",
        "Ana trails 2♣",
        "Beto trails 4♦",
        "Caro trails 7♥",
        "Dani trails J♣",
    ]
    assert history_lines(snap, ES)[1] == "Ana tira 2♣"


def test_r14_libre_2p_a_count_at_38_says_why_it_gave_nothing() -> None:
    found, scores, team, _worth = a_count_voided_at_38()  # a real free game's count
    counted = HandCountedEvent.model_validate(found)
    info = table_info(seats=2).model_copy(update={"profile": "libre-2p"})
    assert count_notes(counted, scores, info, ES) == [
        f"{NAMES[team]} está en 38: a 38 solo cuenta la caída, sus cartones no suman"
    ]
    assert "only a caída scores" in count_notes(counted, scores, info, EN)[0]
    heads_up = info.model_copy(update={"profile": "heads-up"})
    assert count_notes(counted, scores, heads_up, EN) == []  # R14 heads-up counts at 38
