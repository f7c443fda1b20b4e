"""The terminal table (textual): draws snapshots, turns keys into actions, keeps the seat.

All text comes from the pure modules (``render``, ``event_text``, ``choices``); this module
only wires them to widgets and to a `LastingSession`, which reconnects by itself and resumes
the seat. The app never guesses at the game: it shows the last snapshot and sends only the
actions that snapshot offered, stamped with the event number they were chosen at.

Keys: the numbers choose a card and then a capture (Enter: the first option, Esc: back);
``r``/``c``/``p`` announce ronda/cuarenta/pass, ``m`` takes missed cards, a rank letter claims
(R10); ``/`` opens the chat line; in the lobby the host presses ``s`` to start and ``b`` to
add a bot; after a game ``n`` asks for another; in the free game (R14 libre-2p) ``n`` also
starts a new game while one is under way (pressed twice: it asks first); ``ctrl+q`` quits.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import ClassVar

from textual import events, on
from textual.app import App, ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.css.query import NoMatches
from textual.widgets import Input, RichLog, Static

from clients.reconnect import LastingSession, Status
from clients.session import SessionError
from clients.terminal.choices import Menu
from clients.terminal.errors import error_text, note_text
from clients.terminal.event_text import (
    chat_text,
    count_notes,
    describe,
    game_event_of,
    history_lines,
)
from clients.terminal.i18n import Translator
from clients.terminal.render import board, header
from protocol import client_messages as c
from protocol import game_events as g
from protocol import server_messages as s

LOG_LINES = 500
DRAW_DELAY_S = 0.05  # at most ~20 redraws a second: plenty for cards, cheap over SSH
HOST_KEYS: dict[str, Callable[[], c.ClientMessage]] = {
    "s": c.Start,
    "b": lambda: c.AddBot(level=2),
}


class TableApp(App[int]):
    """One person (or spectator) at one table."""

    CSS = """
    #header { height: 1; background: $primary; color: $text; }
    #status { height: 1; color: $warning; }
    #main { height: 1fr; }
    #board-column { width: 1fr; min-width: 44; }
    #board { width: 100%; padding: 0 1; }
    #log { width: 1fr; min-width: 24; border-left: solid $primary; padding: 0 1; }
    #menu { height: auto; padding: 0 1; color: $accent; }
    #chat { display: none; }
    #chat.open { display: block; }
    """
    AUTO_FOCUS = None  # keys go to the table, not to the (hidden) chat line
    BINDINGS: ClassVar[list[BindingType]] = [("ctrl+q", "quit", "Quit")]

    def __init__(
        self, place: LastingSession, tr: Translator, clock: Callable[[], float] = time.monotonic
    ) -> None:
        super().__init__()
        self.place = place
        self.tr = tr
        self.clock = clock
        self.snapshot: s.Snapshot | None = None  # the newest one received
        self.drawn: s.Snapshot | None = None  # the one the screen shows (drawn a moment later)
        self.received_at = 0.0
        self.menu: Menu | None = None
        self.status = tr("connected")
        self.log_lines: list[str] = []
        self.changed = asyncio.Event()  # set after each redraw (tests wait on it)
        self.lost: str | None = None  # why the table was lost for good, if it was
        self._shown: dict[str, str] = {}  # the text each widget shows now
        self._draw_pending = False
        self.confirming_new = False  # "n" once in a free game under way: "n" again confirms
        self._counted: g.HandCounted | None = None  # a hand count awaiting its scores

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static("", id="header", markup=False)
        yield Static("", id="status", markup=False)
        with Horizontal(id="main"):
            with Vertical(id="board-column"):
                yield Static("", id="board", markup=False)
                yield Static("", id="menu", markup=False)
            yield RichLog(id="log", max_lines=LOG_LINES, wrap=True, markup=False, min_width=20)
        yield Input(placeholder=self.tr("chat_prompt"), id="chat", max_length=280)

    def on_mount(self) -> None:
        self.run_worker(self._follow(), exclusive=True, group="follow")
        self.set_interval(1.0, self._request_draw)  # the turn clock ticks between snapshots

    # ------------------------------------------------------------------ the stream
    async def _follow(self) -> None:
        async for item in self.place.stream():
            if isinstance(item, Status):
                self._on_status(item)
            elif isinstance(item, s.Snapshot):
                self._on_snapshot(item)
            elif isinstance(item, s.Event):
                self._on_event(item)
            elif isinstance(item, s.ChatLine):
                self._add_line(chat_text(item, self.tr))
                self._request_draw()
            elif isinstance(item, s.Presence) and self.snapshot is not None:
                info = self.snapshot.info.model_copy(
                    update={"seats": item.seats, "spectators": item.spectators}
                )
                self.snapshot = self.snapshot.model_copy(update={"info": info})
                self._request_draw()

    def _on_status(self, status: Status) -> None:
        if status.state == "reconnecting":
            self.status = self.tr("reconnecting")
        elif status.state == "closed":
            self.status = self.tr("closed", detail=note_text(status.detail, self.tr))
            if not self.place.closed_by_client:
                self.lost = status.detail
        elif status.attempt:
            self.status = self.tr("resumed", n=status.attempt)
        else:
            self.status = self.tr("connected")
        self._request_draw()

    def _on_snapshot(self, snap: s.Snapshot) -> None:
        if self.snapshot is None:  # arriving mid-hand (a spectator): the hand so far
            for line in history_lines(snap, self.tr):
                self._add_line(line)
        self.snapshot = snap
        if self._counted is not None and snap.view is not None:  # the scores after the count
            for line in count_notes(self._counted, snap.view.scores, snap.info, self.tr):
                self._add_line(line)
            self._counted = None
        self.received_at = self.clock()
        if self.menu is None or self.menu.snapshot.legal != snap.legal:
            self.menu = Menu(snap)
        else:
            self.menu = Menu(snap, self.menu.card)
        self._request_draw()

    def _on_event(self, event: s.Event) -> None:
        if self.snapshot is None:
            return
        counted = game_event_of(event)
        if isinstance(counted, g.HandCounted):
            self._counted = counted
        line = describe(event, self.snapshot.info, self.snapshot.you.seat, self.tr)
        if line is not None:
            self._add_line(line)

    def _add_line(self, line: str) -> None:
        self.log_lines.append(line)
        del self.log_lines[:-LOG_LINES]
        with contextlib.suppress(NoMatches):
            self.query_one("#log", RichLog).write(line)

    # ------------------------------------------------------------------ drawing
    def _request_draw(self) -> None:
        """Draw soon: a burst of messages (bots answer in milliseconds) becomes one frame."""
        if not self._draw_pending:
            self._draw_pending = True
            self.set_timer(DRAW_DELAY_S, self._draw)

    def _draw(self) -> None:
        """Redraw what changed, then tell waiters (tests) the screen is current."""
        self._draw_pending = False
        self.changed.set()
        snap = self.drawn = self.snapshot
        texts = {"#status": self.status}
        if snap is not None:
            elapsed = self.clock() - self.received_at
            texts |= {
                "#header": header(snap, self.tr),
                "#board": board(snap, self.tr, elapsed),
                "#menu": self.menu_text(),
            }
        for selector, text in texts.items():
            if self._shown.get(selector) != text:
                self._shown[selector] = text
                with contextlib.suppress(NoMatches):  # the screen may be gone on exit
                    self.query_one(selector, Static).update(text)

    def menu_text(self) -> str:
        """The live keys and what they do (empty when nothing is asked of us)."""
        snap, menu = self.snapshot, self.menu
        if snap is None or menu is None:
            return ""
        if snap.info.stage == "finished":
            return self.tr("rematch_hint")
        if self.confirming_new:
            return self.tr("new_game_confirm")
        options = menu.options(self.tr)
        keys = self.tr("keys") + (f" · {self.tr('new_game_hint')}" if self._free_game() else "")
        if not options:
            return keys
        lines = [menu.prompt(self.tr)]
        lines += [f"  {option.key}  {option.label}" for option in options]
        return "\n".join(lines)

    def _free_game(self) -> bool:
        """R14 libre-2p under way, seated: "n" starts a new game (the server checks the rest)."""
        snap = self.snapshot
        return (
            snap is not None
            and snap.info.profile == "libre-2p"
            and snap.info.stage == "playing"
            and snap.you.seat is not None
        )

    # ------------------------------------------------------------------ keys
    async def on_key(self, event: events.Key) -> None:
        chat = self.query_one("#chat", Input)
        if chat.has_focus:
            if event.key == "escape":
                self._close_chat()
                event.stop()
            return
        key = event.key
        if key == "slash":
            chat.add_class("open")
            chat.focus()
            event.stop()
            return
        snap = self.snapshot
        if snap is None:
            return
        if self.confirming_new:
            self.confirming_new = False
            if key == "n" and self._free_game():
                self._send(c.Start())
            self._draw()
        elif snap.info.stage == "lobby" and snap.you.host and key in HOST_KEYS:
            self._send(HOST_KEYS[key]())
        elif snap.info.stage == "finished" and key == "n" and snap.you.seat is not None:
            self._send(c.Rematch())
        elif key == "n" and self._free_game():
            self.confirming_new = True
            self._draw()
        elif self.menu is not None:
            self.menu, action = self.menu.press(key, self.tr)
            if action is not None:
                self._send(action, at=snap.last_event)
            self._draw()
        event.stop()

    @on(Input.Submitted, "#chat")
    def _chat_submitted(self, message: Input.Submitted) -> None:
        text = message.value.strip()
        if text:
            self._send(c.Chat(text=text))
        message.input.value = ""
        self._close_chat()

    def _close_chat(self) -> None:
        chat = self.query_one("#chat", Input)
        chat.remove_class("open")
        self.set_focus(None)

    def _send(self, request: c.ClientMessage, at: int | None = None) -> None:
        """Send in the background: the answer's effects come back as events and snapshots."""
        self.run_worker(self._request(request, at), group="send")

    async def _request(self, request: c.ClientMessage, at: int | None) -> None:
        try:
            if at is not None and isinstance(request, c.Play | c.TakeMissed | c.Announce | c.Claim):
                await self.place.act(request, at)
            else:
                await self.place.request(request)
        except SessionError as exc:
            self.status = self.tr("refused", detail=error_text(exc, self.tr))
            self._draw()

    async def action_quit(self) -> None:
        await self.place.close()
        self.exit(0)
