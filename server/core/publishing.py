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

The frames are assembled from pieces encoded once per change (``server.core.pieces``).
"""

from __future__ import annotations

import json
from typing import Any, TypeGuard

from engine.game import Game
from engine.views import SeenPlay, redact, redacts, seen_history
from protocol import frames
from protocol import server_messages as s
from protocol.base import WireModel
from protocol.convert import seen_play_fields
from protocol.frames import pack
from server.core import clocks
from server.core.coaching import hints_allowed
from server.core.info_key import info_key
from server.core.outcome import Baseline, Outcome
from server.core.pieces import Pieces, you_frame
from server.core.seating import Viewer
from server.core.storage import compact
from server.core.table import Table
from server.frames import Built


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
        viewer.told_you = you_frame(viewer)
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
