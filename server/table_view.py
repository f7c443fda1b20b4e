"""What every viewer is sent: numbered events, redacted per viewer, then a fresh snapshot.

Every change goes through ``_publish``: it numbers the new events, redacts engine events for
every kind of viewer through ``engine.views.redact`` (the one redaction path, invariant 1) and
queues for every viewer its events followed by a snapshot built from ``engine.views.view_of``.
A viewer may not see an event at all only in theory: it would get a ``hidden`` placeholder with
the same number, so a gap always means loss (invariant 2).
"""

from __future__ import annotations

import json
from typing import Any, Literal

from engine.phase import Phase
from engine.views import redact, view_of
from protocol import server_messages as s
from protocol.base import WireModel
from protocol.convert import action_to_wire, view_to_wire
from server.seating import Viewer
from server.table_state import Outcome, TableState


class TableViews(TableState):
    """Log entries, events, snapshots, deadlines and presence for a table's viewers."""

    def _publish(self, out: Outcome, events: list[Any], now: float) -> None:
        """Number ``events``, log them, and send every viewer its events plus a snapshot."""
        out.dirty = True
        self.last_input = max(self.last_input, now)
        first = self.last_event + 1
        for event in events:
            if not isinstance(event, WireModel):
                self.game_event = self.last_event + 1  # a game change: older actions are stale
            entry = self._entry(event)
            self.log.append(entry)
            out.entries.append(json.dumps(entry, separators=(",", ":")).encode())
        shared: dict[object, Any] = {}
        for viewer in self.viewers.values():
            for n in range(first, self.last_event + 1):
                out.to(viewer.conn, self._event_for(n, viewer, shared))
            out.to(viewer.conn, self.snapshot(viewer, shared))

    def _entry(self, event: Any) -> dict[str, Any]:
        """A log entry: one public form, or one form per seat plus the spectators' (``v``)."""
        if isinstance(event, WireModel):
            return {"a": event.model_dump(mode="json")}
        seen = [redact(event, seat) for seat in (*range(len(self.seats)), None)]
        if all(each is event for each in seen):  # nothing to hide: one public form
            return {"a": event.to_json()}
        forms = [each.to_json() for each in seen]
        if all(form == forms[0] for form in forms):
            return {"a": forms[0]}
        return {"v": forms}

    def _event_for(
        self, n: int, viewer: Viewer, shared: dict[object, Any] | None = None
    ) -> s.Event:
        """Event ``n`` as ``viewer`` may see it; viewers shown the same form share one message
        (``shared``), so the connections encode it once."""
        entry = self.log[n - 1]
        which = -2 if "a" in entry else viewer.seat if viewer.seat is not None else -1
        key = ("event", n, which)
        if shared is not None and key in shared:
            message: s.Event = shared[key]
            return message
        form = entry["a"] if which == -2 else entry["v"][which]
        message = s.Event.model_construct(type="event", n=n, event=form)
        if shared is not None:
            shared[key] = message
        return message

    def _snapshot_to(self, out: Outcome, viewer: Viewer) -> None:
        out.to(viewer.conn, self.snapshot(viewer))

    def snapshot(self, viewer: Viewer, shared: dict[object, Any] | None = None) -> s.Snapshot:
        """``viewer``'s snapshot; ``shared`` caches what viewers of one publish have in common
        (the table info, the deadlines, each seat's and the spectators' view)."""
        shared = {} if shared is None else shared
        game = self.game
        view = legal = None
        if game is not None:
            key = ("view", viewer.seat)
            if key not in shared:
                shared[key] = view_to_wire(view_of(game, viewer.seat), self.options)
            view = shared[key]
            if viewer.seat is not None and viewer.seat in game.to_act() and self.in_game:
                legal = [
                    action_to_wire(a) for a in game.legal_actions(viewer.seat, by_rank=True)
                ]  # captures up to suit-equivalence (R2, R7): a crowded table cannot stall us
        if "info" not in shared:
            shared["info"], shared["deadlines"] = self.info(), self.deadlines()
        return s.Snapshot(
            last_event=self.last_event,
            you=s.You(
                role="player" if viewer.seat is not None else "spectator",
                seat=viewer.seat,
                host=viewer.host,
                name=viewer.name,
            ),
            info=shared["info"],
            view=view,
            legal=legal or [],
            deadlines=shared["deadlines"],
        )

    def info(self) -> s.TableInfo:
        return s.TableInfo(
            table=self.table_id,
            profile=self.profile,
            options=self.options,
            turn_timer=self.turn_timer,
            locked=self.locked,
            stage=self.stage,  # type: ignore[arg-type]
            game=self.game_no,
            seats=self.seat_infos(),
            spectators=self.spectators,
            rematch_asked=sorted(self.rematch),
        )

    def seat_infos(self) -> list[s.SeatInfo]:
        return [
            s.SeatInfo(
                seat=i,
                occupant=seat.occupant,
                name=seat.name,
                bot_level=seat.bot_level,
                connected=seat.connected,
                stand_in=seat.stand_in,
            )
            for i, seat in enumerate(self.seats)
        ]

    @property
    def spectators(self) -> int:
        return sum(1 for viewer in self.viewers.values() if viewer.seat is None)

    def deadlines(self, now: float | None = None) -> list[s.Deadline]:
        """Public deadlines: people's decisions, the claim window, absent people's grace.

        ``remaining_ms`` counts from ``now`` (default: the time of the latest input), so a
        client can show a countdown whatever its own clock says.
        """
        now = self.last_input if now is None else now
        out: list[s.Deadline] = []

        def add(
            kind: Literal["turn", "announce", "claims", "grace"], seat: int | None, at: float
        ) -> None:
            remaining = max(0, round((at - now) * 1000))
            out.append(s.Deadline(kind=kind, seat=seat, at=at, remaining_ms=remaining))

        game = self.game
        if game is not None and self.in_game and game.phase in (Phase.PLAY, Phase.ANNOUNCE):
            turn = game.turn
            limit = self._person_limit(game)
            if turn is not None and limit and not self.seats[turn].is_bot_controlled:
                kind: Literal["turn", "announce"] = (
                    "announce" if game.phase is Phase.ANNOUNCE else "turn"
                )
                add(kind, turn, self.decision_since + limit)
        if self.claims_deadline is not None:
            add("claims", None, self.claims_deadline)
        for index, seat in enumerate(self.seats):
            if seat.occupant == "person" and seat.away_since is not None and not seat.open:
                add("grace", index, seat.away_since + self.config.grace_s)
        return out

    def _presence(self, out: Outcome) -> None:
        """Who is here changed (no event): presence, and the deadlines it starts or ends."""
        message = s.Presence(seats=self.seat_infos(), spectators=self.spectators)
        clocks = s.Deadlines(deadlines=self.deadlines())
        for viewer in self.viewers.values():
            out.to(viewer.conn, message)
            out.to(viewer.conn, clocks)
