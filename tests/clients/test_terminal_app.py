"""The terminal client driven by textual's pilot against a real server on 127.0.0.1.

A person at the keyboard (the pilot) plays a whole game with three wire bots, and the screen's
final score is the server's (R12, R15); a connection killed mid-hand comes back by itself on
the same seat, with no event lost, and play goes on (invariants 2 and 5).
"""

from __future__ import annotations

import asyncio
import re

from textual.pilot import Pilot
from textual.widgets import RichLog, Static

from clients.reconnect import LastingSession
from clients.table import create_table
from clients.terminal.app import TableApp
from clients.terminal.i18n import MESSAGES, Translator
from clients.terminal.render import cards_text, seat_name
from protocol import client_messages as c
from tests.clients.wire import replayed, wire_bots
from tests.serving import StartServer

WAIT_S = 30.0


def board_text(app: TableApp) -> str:
    """What the board widget shows now."""
    return str(app.query_one("#board", Static).render())


async def next_change(app: TableApp) -> None:
    await asyncio.wait_for(app.changed.wait(), WAIT_S)
    app.changed.clear()


async def play_by_keyboard(
    app: TableApp, pilot: Pilot[int], until_plays: int | None = None
) -> None:
    """Press keys as a person would: a card, then its first option; announce what is offered.

    Claims are left alone (the window closes on the server's clock). Returns at the end of the
    game, or once the hand has ``until_plays`` plays in its history.
    """
    press = pilot.press
    answered: set[int] = set()
    while True:
        await next_change(app)
        snap = app.drawn  # a person acts on what the screen shows
        assert snap is not None
        assert app.lost is None, app.lost
        if snap.info.stage == "finished":
            return
        view = snap.view
        if until_plays is not None and view is not None and len(view.history) >= until_plays:
            return
        required = [a for a in snap.legal if isinstance(a, c.Play | c.Announce)]
        current = app.place.current.last_event == snap.last_event
        if required and current and snap.last_event not in answered:
            answered.add(snap.last_event)
            assert app.menu is not None
            options = app.menu.options(app.tr)
            await press(options[0].key)
            if options[0].action is None:  # a card: now its captures and the trail
                await press("enter")


async def test_a_person_plays_a_whole_game_with_three_wire_bots_and_sees_the_servers_score(
    start_server: StartServer,
) -> None:
    async with start_server(claim_window_s=0.05) as server:
        links = await create_table(server.url)
        place = LastingSession(links.host, "Ana")
        await place.open()
        app = TableApp(place, Translator("en"))
        async with app.run_test(size=(120, 40)) as pilot, wire_bots(links.join, 3) as bots:
            while app.snapshot is None or not all(
                seat.occupant != "empty" for seat in app.snapshot.info.seats
            ):
                await next_change(app)
            await pilot.press("s")  # the host starts the game
            await play_by_keyboard(app, pilot)
            await asyncio.wait_for(asyncio.gather(*bots), WAIT_S)
            final = app.drawn  # the finished game, on the screen
            assert final is not None
            assert final.view is not None
            result = replayed(server, final.info.table)
            assert result["status"] == "finished"
            assert final.view.scores == result["scores"]
            assert final.view.winner == result["winner"]
            a, b = final.view.scores
            assert final.you.seat is not None
            us = final.view.winner == final.you.seat % 2
            assert f"Game over · winner: {'Us' if us else 'Them'}, {a}-{b}" in board_text(app)
            assert place.current.problems == []
            await place.close()


async def test_a_connection_killed_mid_hand_resumes_on_the_same_seat(
    start_server: StartServer,
) -> None:
    async with start_server(claim_window_s=0.05) as server:
        links = await create_table(server.url)
        place = LastingSession(links.host, "Ana")
        await place.open()
        app = TableApp(place, Translator("es"))
        async with app.run_test(size=(120, 40)) as pilot, wire_bots(links.join, 3):
            while app.snapshot is None or any(
                seat.occupant == "empty" for seat in app.snapshot.info.seats
            ):
                await next_change(app)
            await pilot.press("s")
            await play_by_keyboard(app, pilot, until_plays=6)
            seat, first = place.current.seat, place.current
            assert first.ws.transport is not None
            first.ws.transport.abort()  # the line drops mid-hand
            await play_by_keyboard(app, pilot, until_plays=10)  # and the game goes on
            assert place.reconnects == 1
            assert place.current is not first
            assert app.snapshot is not None
            assert app.snapshot.you.seat == seat
            assert "reconectado (1)" in app.status
            assert place.current.problems == []  # every event number arrived once (inv. 2)
            referee = server.lobby.rooms[app.snapshot.info.table].referee
            assert seat is not None
            assert referee.table.seats[seat].conn == place.current.connection_id
            assert not referee.table.seats[seat].stand_in
            await place.close()


async def test_a_spectator_sees_the_game_but_no_hand_and_chats_with_spectators(
    start_server: StartServer,
) -> None:
    async with start_server(claim_window_s=0.05) as server:
        links = await create_table(server.url)
        place = LastingSession(links.watch, "Eve", watch=True)
        await place.open()
        app = TableApp(place, Translator("en"))
        async with app.run_test(size=(120, 40)) as pilot:
            # chat while the table is quiet: the pilot waits for an idle app after each key
            await pilot.press("slash", "h", "o", "l", "a", "enter")
            while "Eve: hola" not in app.log_lines:
                await next_change(app)
            async with wire_bots(links.join, 4, host=links.host):
                await play_by_keyboard(app, pilot, until_plays=4)  # nothing to press: watch
                snap = app.snapshot
                assert snap is not None
                assert snap.you.role == "spectator"
                board = board_text(app)
                assert "Your hand" not in board
                assert "Team 1:" in board
                assert "Team 2:" in board
                assert app.menu is not None
                assert app.menu.options(app.tr) == []
                assert any(line.startswith("wire 0 sits in seat 1") for line in app.log_lines)
            await place.close()


def english_only_words() -> set[str]:
    """Words of the English messages that neither Spanish nor Portuguese uses."""

    def words(lang: int) -> set[str]:
        text = " ".join(texts[lang] for texts in MESSAGES.values())
        return {w.lower() for w in re.findall(r"[A-Za-z']+", re.sub(r"\{\w+\}", " ", text))}

    return {w for w in words(1) - words(0) - words(2) if len(w) >= 3}


async def test_in_portuguese_the_draw_is_shown_as_dealt_and_bots_go_by_their_seat(
    start_server: StartServer,
) -> None:
    async with start_server(claim_window_s=0.05) as server:
        links = await create_table(server.url)
        place = LastingSession(links.host, "Ana")
        await place.open()
        tr = Translator("pt")
        app = TableApp(place, tr)
        async with app.run_test(size=(80, 40)) as pilot:  # a narrow terminal: nothing cut
            while app.snapshot is None:
                await next_change(app)
            for _ in range(3):
                await pilot.press("b")  # the host seats three bots (level 2)
            while any(seat.occupant == "empty" for seat in app.snapshot.info.seats):
                await next_change(app)
            await pilot.press("s")
            await play_by_keyboard(app, pilot, until_plays=9)
            table = app.snapshot.info.table
            game = server.lobby.rooms[table].referee.table.game
            assert game is not None
            record = game.record().to_json()

            # R3: the draw as it was dealt, up to the first diamond — the record's order.
            drawn = [line for line in app.log_lines if line.startswith("sorteio: ")]
            assert drawn == [
                f"sorteio: {cards_text(record['draw']['cards'])} → "
                f"{seat_name(app.snapshot.info, record['dealer'], tr)} dá as cartas"
            ]
            # Every play line names its player: the person, or the bot by its seat and level.
            plays = [a for a in record["actions"] if a["type"] == "play"]
            said = [line for line in app.log_lines if " descarta " in line or " leva " in line]
            assert len(said) == len(plays)
            for action, line in zip(plays, said, strict=True):
                seat = action["seat"]
                who = "Ana" if seat == 0 else f"Bot do assento {seat + 1} (nível 2)"
                assert line.startswith(who + " "), (action, line)
            # Nothing English on the screen: header, status, board, keys and the log.
            screen = "\n".join([*app._shown.values(), *app.log_lines]).replace(table, "")
            seen = {w.lower() for w in re.findall(r"[A-Za-z']+", screen)}
            assert not seen & english_only_words(), seen & english_only_words()
            assert "Assento 1" in board_text(app)
            log = app.query_one("#log", RichLog)
            assert max(strip.cell_length for strip in log.lines) <= log.content_region.width
            assert app.query_one("#board-column").size.width >= 36  # half the width, not a third
            await place.close()
