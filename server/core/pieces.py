"""The encoded pieces of one moment of a table, shared by every viewer's frame.

A change's frames are assembled (``protocol.frames``) from pieces encoded once per change: the
public view, the table info and deadlines, each event form, each seat's hand and legal list.
Only what differs between viewers is encoded per viewer, so a change costs little more for four
viewers than for one; the ``Publisher`` (``server.core.publishing``) decides who is sent what.
"""

from __future__ import annotations

from typing import Any, Protocol

from engine.game import Game
from engine.views import own_hand, view_of
from protocol import frames
from protocol.convert import action_fields, card_codes, view_fields
from protocol.frames import KEYS, NONE, pack
from server.core import clocks, forfeit
from server.core.outcome import Baseline
from server.core.seating import Viewer
from server.core.table import Table
from server.frames import Built, frames_you


class Source(Protocol):
    """What the pieces read of the table's publisher (``server.core.publishing.Publisher``)."""

    table: Table
    forms: list[bytes | tuple[bytes, ...]]
    baseline: Baseline | None
    told_deadlines: tuple[Any, ...] | None

    def packed_info(self) -> bytes: ...

    def history_entries(self, game: Game) -> list[bytes]: ...

    def chat_for(self, viewer: Viewer) -> list[dict[str, Any]]: ...

    def event_frame(self, n: int, seat: int | None) -> bytes: ...


class Pieces:
    """The encoded pieces of one moment of a table, shared by every viewer's frame."""

    __slots__ = (
        "_change",
        "_change4",
        "_deadline_key",
        "_deadlines",
        "_deciding",
        "_events",
        "_history",
        "_info",
        "_legal",
        "_public",
        "_public_from",
        "_shared",
        "_views",
        "head",
        "publisher",
        "table",
    )

    def __init__(self, publisher: Source, due: list[clocks.Clock] | None = None) -> None:
        self.publisher = publisher
        table = self.table = publisher.table
        game = table.game
        self.head = KEYS.last_event + pack(table.last_event)
        self._info = publisher.packed_info()
        published = clocks.published(
            table, table.last_input, clocks.due(table) if due is None else due
        )
        self._deadlines = frames.deadlines(published)
        self._deadline_key = tuple((each["kind"], each["seat"], each["at"]) for each in published)
        # the public view and the history: built when a viewer needs them (protocol 4's
        # changes do not), once for all of them
        self._public: bytes | None = None
        self._history: list[bytes] | None = None
        self._deciding = frozenset(game.to_act()) if game is not None and table.in_game else ()
        self._views: dict[tuple[int | None, int], bytes] = {}
        self._legal: dict[int, bytes] = {}
        self._events: dict[tuple[int, int], bytes] = {}  # (first, which): ``_events_of``
        self._change: tuple[bytes, int] | None = None
        self._change4: tuple[bytes, bytes] | None = None
        self._shared: dict[tuple[int | None, tuple[int, int], int | None], Built] = {}
        self._public_from: dict[int, bool] = {}  # first event: all public from it (``_events_key``)

    def _game_parts(self) -> tuple[bytes, list[bytes]]:
        """The public view's fields (keys and values without the map's header: each seat's
        view adds its ``viewer``, ``hand`` and ``history``) and the history entries."""
        if self._public is None or self._history is None:
            game = self.table.game
            assert game is not None
            public = view_fields(view_of(game, None, with_history=False), self.table.options, False)
            del public["viewer"], public["hand"]
            forfeit.shown_over(self.table, public)
            self._public = frames.public_view(public)
            self._history = self.publisher.history_entries(game)
        return self._public, self._history

    def snapshot(self, viewer: Viewer) -> bytes:
        """``viewer``'s whole snapshot message, encoded."""
        chat = frames.chat(self.publisher.chat_for(viewer))
        return frames.snapshot(self._body(viewer, 0), self._info, self._deadlines, chat)

    def update(self, viewer: Viewer, first: int, rid: int | None) -> Built:
        """``viewer``'s update: events ``first`` to the last, then its snapshot as a change of
        the one the previous update sent (``Publisher.baseline``); a protocol 4 ``change``."""
        if viewer.version >= 4:
            return self.change(viewer, first, rid)
        if self._change is None:
            self._change = self._change_of(self.publisher.baseline)
        tail, history_from = self._change
        events = self._events_of(first, viewer.seat)
        data = frames.update(rid, events, self._body(viewer, history_from), tail)
        return Built(data, "update", self.table.last_event)

    def change(self, viewer: Viewer, first: int, rid: int | None) -> Built:
        """``viewer``'s protocol 4 change: events ``first`` to the last, its legal list, and
        the info and deadlines when the previous update told others; its ``You`` when it is
        not the one it was last sent, with the whole view (a seat taken over mid-game)."""
        if self._change4 is None:
            before, publisher = self.publisher.baseline, self.publisher
            info = self._info if before is None or before.info != self._info else NONE
            told = publisher.told_deadlines
            deadlines = (
                NONE if told == self._deadline_key else self._deadlines[len(KEYS.deadlines) :]
            )
            self._change4 = (info, deadlines)
        info, deadlines = self._change4
        seat, you = viewer.seat, you_frame(viewer)
        if viewer.told_you != you:  # its own: a view and a You no other viewer is sent
            viewer.told_you, view = you, self._view(seat, 0)
            events = self._events_of(first, seat)
            data = frames.change(rid, events, you, info, view, self._legal_of(seat), deadlines)
            return Built(data, "update", self.table.last_event)
        # viewers told the same events and legal list (the spectators, the seats not to act
        # when the events are public) share one frame
        key = (rid, self._events_key(first, seat), seat if seat in self._deciding else None)
        shared = self._shared.get(key)
        if shared is None:
            events, legal = self._events_of(first, seat), self._legal_of(seat)
            data = frames.change(rid, events, NONE, info, NONE, legal, deadlines)
            shared = self._shared[key] = Built(data, "update", self.table.last_event)
        return shared

    def baseline(self) -> tuple[Baseline, tuple[Any, ...]]:
        """What this moment's updates tell every viewer: the next update's baseline, and the
        deadlines (kind, seat, time) they tell."""
        history = self._history if self._history is not None else []
        return Baseline(self._info, history, len(history)), self._deadline_key

    def _change_of(self, before: Baseline | None) -> tuple[bytes, int]:
        """The snapshot's tail and where its history starts, relative to ``before``."""
        info = self._info if before is None or before.info != self._info else NONE
        # the same hand's entries list, grown (Publisher.history_entries): send the new ones
        history = self._game_parts()[1] if self.table.game is not None else None
        history_from = before.length if before and history is before.history else 0
        return frames.change_tail(info, self._deadlines, history_from), history_from

    def _body(self, viewer: Viewer, history_from: int) -> tuple[bytes, ...]:
        """A snapshot's fields between its type and its info: whole and change alike."""
        seat = viewer.seat
        return frames.snapshot_body(
            self.head, you_frame(viewer), self._view(seat, history_from), self._legal_of(seat)
        )

    def _view(self, seat: int | None, history_from: int) -> bytes:
        game = self.table.game
        if game is None:
            return NONE
        data = self._views.get((seat, history_from))
        if data is None:
            public, history = self._game_parts()
            hand = own_hand(game, seat)  # the one hand this viewer may see (invariant 1)
            data = self._views[(seat, history_from)] = frames.view(
                public,
                history[history_from:],
                seat,
                None if hand is None else card_codes(hand),
            )
        return data

    def _legal_of(self, seat: int | None) -> bytes:
        if seat is None or seat not in self._deciding:
            return frames.NO_LEGAL
        data = self._legal.get(seat)
        if data is None:
            game = self.table.game
            assert game is not None
            # captures up to suit-equivalence (R2, R7): a crowded table cannot stall us
            offered = [action_fields(a) for a in game.legal_actions(seat, by_rank=True)]
            data = self._legal[seat] = frames.legal(offered)
        return data

    def _events_key(self, first: int, seat: int | None) -> tuple[int, int]:
        """Which form of events ``first`` on the viewer in ``seat`` is sent: ``(first, -2)``
        when all of them are public, else its seat's (``-1``: the spectators')."""
        public = self._public_from.get(first)
        if public is None:
            forms = self.publisher.forms[first - 1 :]
            public = self._public_from[first] = all(type(form) is bytes for form in forms)
        return (first, -2 if public else -1 if seat is None else seat)

    def _events_of(self, first: int, seat: int | None) -> bytes:
        """The ``events`` field from event ``first`` on as the viewer in ``seat`` may see it
        (None: a spectator): built once for every viewer when all of them are public, as most
        are, else once per seat and once for the spectators."""
        key = self._events_key(first, seat)
        data = self._events.get(key)
        if data is None:
            publisher = self.publisher
            numbers = range(first, len(publisher.forms) + 1)
            data = self._events[key] = frames.events(
                [publisher.event_frame(n, seat) for n in numbers]
            )
        return data


def you_frame(viewer: Viewer) -> bytes:
    """The `You` the viewer is told: its seat, whether it hosts, its name, whether it may sit."""
    return frames_you(viewer.seat, viewer.host, viewer.name, viewer.can_sit)
