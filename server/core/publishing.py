"""What every viewer is sent: numbered events, redacted per viewer, and its fresh snapshot.

Every change goes through ``Publisher.publish``: it numbers the new events, logs them (one log
entry format: ``entry`` writes it, ``forms_of`` reads it) and redacts engine events for every
kind of viewer through ``engine.views.redact`` (the one redaction path, invariant 1). When the
command is done, ``finish`` sends every viewer ONE ``update`` frame: its forms of the new events,
then its snapshot, built from ``engine.views`` (the spectator's view plus ``own_hand``), with the
answer to its own request folded in. The snapshot is told as a change of the table's previous
update (``Baseline``: unchanged info left out, only new history entries); after any whole
snapshot (a newcomer, a resumed seat) the next update tells everything. A protocol 4 viewer is
sent a ``change`` instead: the same event forms and only what they cannot tell, so its frame
needs no view at all (the client follows the events, ``protocol.follow``).

The frames are assembled from pieces encoded once per change (``Pieces``): the public view, the
table info and deadlines, each event form, each seat's hand and legal list. Only what differs
between viewers is encoded per viewer, so a change costs little more for four viewers than for one.
"""

from __future__ import annotations

import json
from typing import Any, TypeGuard

from engine.game import Game
from engine.views import SeenPlay, own_hand, redact, redacts, seen_history, view_of
from protocol import frames
from protocol import server_messages as s
from protocol.base import WireModel
from protocol.convert import action_fields, card_codes, seen_play_fields, view_fields
from protocol.frames import KEYS, NONE, pack
from server.core import clocks, forfeit
from server.core.coaching import hints_allowed
from server.core.info_key import info_key
from server.core.outcome import Baseline, Outcome
from server.core.seating import Viewer
from server.core.storage import compact
from server.core.table import Table
from server.frames import Built, frames_you


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
        "_views",
        "head",
        "publisher",
        "table",
    )

    def __init__(self, publisher: Publisher, due: list[clocks.Clock] | None = None) -> None:
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
        seat, you, view = viewer.seat, _you(viewer), NONE
        if viewer.told_you != you:
            viewer.told_you, view = you, self._view(seat, 0)
        else:
            you = NONE
        events = self._events_of(first, seat)
        data = frames.change(rid, events, you, info, view, self._legal_of(seat), deadlines)
        return Built(data, "update", self.table.last_event)

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
            self.head, _you(viewer), self._view(seat, history_from), self._legal_of(seat)
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

    def _events_of(self, first: int, seat: int | None) -> bytes:
        """The ``events`` field from event ``first`` on as the viewer in ``seat`` may see it
        (None: a spectator): built once for every viewer when all of them are public, as most
        are, else once per seat and once for the spectators."""
        forms = self.publisher.forms[first - 1 :]
        public = all(type(form) is bytes for form in forms)
        key = (first, -2 if public else -1 if seat is None else seat)
        data = self._events.get(key)
        if data is None:
            publisher = self.publisher
            numbers = range(first, first + len(forms))
            data = self._events[key] = frames.events(
                [publisher.event_frame(n, seat) for n in numbers]
            )
        return data


def _you(viewer: Viewer) -> bytes:
    return frames_you(viewer.seat, viewer.host, viewer.name, viewer.can_sit)


class Publisher:
    """Log entries, events, snapshots, deadlines and presence for one table's viewers.

    It keeps, beside the table's stored log, each event's wire forms (``forms``: one public
    msgpack form, or one per seat then the spectators'), the hand's history as sent, and the
    ``baseline`` the next update is told as a change of (None: the whole of it).
    """

    __slots__ = (
        "_history",
        "_history_of",
        "_info",
        "baseline",
        "forms",
        "table",
        "told_deadlines",
    )

    def __init__(self, table: Table) -> None:
        self.table = table
        self.forms: list[bytes | tuple[bytes, ...]] = []
        # this hand's public history as sent: its entries and each one's encoding
        self._history: tuple[list[SeenPlay], list[bytes]] = ([], [])
        self._history_of: tuple[Game, int] | None = None  # the game and hand it was taken from
        self.baseline: Baseline | None = None  # what the last update told (None: nothing yet)
        self.told_deadlines: tuple[Any, ...] | None = None  # and the deadlines it told
        self._info: tuple[tuple[Any, ...], bytes] | None = None  # its key, as last packed
        for line in table.log:
            self.forms.append(forms_of(json.loads(line)))

    def history_entries(self, game: Game) -> list[bytes]:
        """The hand's public history, each entry encoded: a hand's history only grows, so each
        entry is encoded once, into a list kept (and only appended to) until the next hand."""
        entries, packed = self._history
        done = len(entries)
        new = seen_history(game, done - 1) if done else seen_history(game)
        if done:
            was = self._history_of  # compared by identity: the same game object, same hand
            same_hand = was is not None and was[0] is game and was[1] == game.hand_number
            if same_hand and new and new[0] == entries[-1]:
                new = new[1:]  # the same hand, grown (or not)
            else:  # another hand or game: start over
                entries, packed, new = [], [], seen_history(game)
        for entry in new:
            entries.append(entry)
            packed.append(pack(seen_play_fields(entry)))
        self._history, self._history_of = (entries, packed), (game, game.hand_number)
        return packed

    def publish(self, out: Outcome, events: list[Any], now: float) -> None:
        """Number ``events`` and log them; ``finish`` sends them to every viewer."""
        table = self.table
        out.dirty = True
        table.last_input = max(table.last_input, now)
        if out.first_new is None:
            out.first_new = table.last_event + 1
        for event in events:
            if not _is_wire(event):
                table.game_event = table.last_event + 1  # a game change: older actions are stale
            entry = self.entry(event)
            line = compact(entry)
            table.log.append(line)
            self.forms.append(forms_of(entry))
            out.entries.append(line)

    def finish(self, out: Outcome) -> Outcome:
        """Send every viewer one update for the events ``out`` logged; answer the requests;
        tell when the table next has something due (the clocks are computed once for both)."""
        due = clocks.due(self.table)
        out.wakeup, out.woken = clocks.next_wakeup(self.table, due), True
        first = out.first_new
        if first is not None:
            pieces = Pieces(self, due)
            out.baseline = self.baseline
            for viewer in self.table.viewers.values():
                out.to(viewer.conn, pieces.update(viewer, first, out.acks.pop(viewer.conn, None)))
            self.baseline, self.told_deadlines = pieces.baseline()
            out.first_new = None
        for conn, rid in out.acks.items():
            out.to(conn, s.Ack(rid=rid))
        out.acks.clear()
        return out

    def entry(self, event: Any) -> dict[str, Any]:
        """A log entry (the one format, read by ``forms_of`` and ``read_entries``): one public
        form (``a``), or one form per seat plus the spectators' (``v``)."""
        if _is_wire(event):
            return {"a": event.model_dump(mode="json")}
        if not redacts(event):  # nothing any viewer may not see: one public form
            return {"a": event.to_json()}
        seen = [redact(event, seat) for seat in (*range(len(self.table.seats)), None)]
        if all(each is event for each in seen):
            return {"a": event.to_json()}
        forms = [each.to_json() for each in seen]
        if all(form == forms[0] for form in forms):
            return {"a": forms[0]}
        return {"v": forms}

    def event_for(self, n: int, viewer: Viewer) -> Built:
        """Event ``n`` as ``viewer`` may see it, on its own (a resumed seat's missed events)."""
        return Built(self.event_frame(n, viewer.seat), "event", n)

    def event_frame(self, n: int, seat: int | None) -> bytes:
        """Event ``n``'s message as the viewer in ``seat`` (None: a spectator) may see it."""
        forms = self.forms[n - 1]
        form = forms if isinstance(forms, bytes) else forms[-1 if seat is None else seat]
        return frames.event(n, form)

    def snapshot_to(self, out: Outcome, viewer: Viewer) -> None:
        """Send ``viewer`` its whole snapshot; the next update tells every viewer everything
        (this viewer's baseline is not the last update's)."""
        out.to(viewer.conn, Built(Pieces(self).snapshot(viewer), "snapshot", self.table.last_event))
        viewer.told_you = _you(viewer)
        self.whole_next()

    def chat(self, out: Outcome, line: s.ChatLine) -> None:
        """Send a chat line to those who may read it and keep it for their whole snapshots:
        players talk to the table (spectators read them), spectators among spectators only."""
        table = self.table
        fields = line.model_dump(mode="json")
        table.chat["spectators"].append(fields)
        if line.channel == "players":
            table.chat["players"].append(fields)
        for other in table.viewers.values():
            if line.channel == "players" or other.seat is None:
                out.to(other.conn, line)
        out.dirty = True  # the lines are stored with the table

    def chat_for(self, viewer: Viewer) -> list[dict[str, Any]]:
        """The kept lines ``viewer`` may read, oldest first."""
        return list(self.table.chat["players" if viewer.seat is not None else "spectators"])

    def whole_next(self) -> None:
        """The next update tells every viewer everything: some viewer's snapshot (or lack of
        one, on a new connection) is not the last update's."""
        self.baseline = self.told_deadlines = None

    def snapshot(self, viewer: Viewer) -> s.Snapshot:
        """``viewer``'s snapshot as a model (the frames carry the same, encoded)."""
        message = Built(Pieces(self).snapshot(viewer), "snapshot", self.table.last_event).model()
        assert isinstance(message, s.Snapshot)
        return message

    def info_fields(self) -> dict[str, Any]:
        """``TableInfo``'s JSON form."""
        table = self.table
        return {
            "table": table.table_id,
            "profile": table.profile,
            "options": table.options,
            "turn_timer": table.turn_timer,
            "locked": table.locked,
            "stage": table.stage,
            "game": table.game_no,
            "seats": self.seat_fields(),
            "spectators": self.spectators,
            "rematch_asked": sorted(table.rematch),
            "casual": table.casual or table.solo,  # a solo ladder game is never rated (R14)
            "hints": hints_allowed(table),
            "move_deadline": table.move_deadline,
            "on_deadline": table.on_deadline,
            "missed": tuple(table.missed),
            "ended": table.ended,
        }

    def packed_info(self) -> bytes:
        """``info_fields`` packed, the same bytes object while it does not change (most
        commands leave it as it was: the update's change then leaves it out)."""
        key, last = info_key(self.table, self.spectators), self._info
        if last is not None and last[0] == key:
            return last[1]
        self._info = (key, pack(self.info_fields()))
        return self._info[1]

    def info(self) -> s.TableInfo:
        return s.TableInfo.model_validate(self.info_fields())

    def seat_fields(self) -> list[dict[str, Any]]:
        """Every seat's ``SeatInfo`` JSON form: who sits, bot or person, connected, stood in for."""
        return [
            {
                "seat": i,
                "occupant": seat.occupant,
                "name": seat.name,
                "bot_level": seat.bot_level,
                "connected": seat.connected,
                "stand_in": seat.stand_in,
                "player": seat.player,
            }
            for i, seat in enumerate(self.table.seats)
        ]

    @property
    def spectators(self) -> int:
        return sum(1 for viewer in self.table.viewers.values() if viewer.seat is None)

    def deadline_fields(self, now: float | None = None) -> list[dict[str, Any]]:
        """Public deadlines' JSON form (``server.core.clocks``), counted from ``now`` (default:
        the time of the latest input)."""
        return clocks.published(self.table, self.table.last_input if now is None else now)

    def deadlines(self, now: float | None = None) -> list[s.Deadline]:
        return [s.Deadline.model_validate(each) for each in self.deadline_fields(now)]

    def presence(self, out: Outcome) -> None:
        """Who is here changed (no event): presence, and the deadlines it starts or ends."""
        message = s.Presence.model_validate(
            {"seats": self.seat_fields(), "spectators": self.spectators}
        )
        deadlines = s.Deadlines(deadlines=self.deadlines())
        self.told_deadlines = None  # the next change tells them again (their times as then)
        for viewer in self.table.viewers.values():
            out.to(viewer.conn, message)
            out.to(viewer.conn, deadlines)


_WIRE: dict[type, bool] = {}


def _is_wire(event: object) -> TypeGuard[WireModel]:
    """A protocol message (not an engine event), by type: ``isinstance`` against a pydantic
    class goes through ``ABCMeta`` and misses (every engine event) cost a microsecond."""
    wire = _WIRE.get(type(event))
    if wire is None:
        wire = _WIRE[type(event)] = isinstance(event, WireModel)
    return wire


def seen_by(entry: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """A log entry (parsed) as the viewer in ``seat`` (None: a spectator) was sent it: its
    public form, or that viewer's redacted one (the reader of ``Publisher.entry``'s format)."""
    if "a" in entry:
        public: dict[str, Any] = entry["a"]
        return public
    form: dict[str, Any] = entry["v"][-1 if seat is None else seat]
    return form


def forms_of(entry: dict[str, Any]) -> bytes | tuple[bytes, ...]:
    """A log entry's wire forms, packed once: the public one, or one per seat then the
    spectators'."""
    if "a" in entry:
        return pack(entry["a"])
    return tuple(pack(form) for form in entry["v"])
