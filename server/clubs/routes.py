"""HTTP routes of the club night: the lobby of public tables, club pages and their results export,
a table's public log for the table screen, and the replay viewer's positions.

- ``/tables``, ``/c/<club>``, ``/replay``: the web client's pages (``tables.html``,
  ``club.html``, ``replay.html``);
- ``/tables.json`` (``?club=<name>``): the public tables live now, or that club's
  (``server.listing``);
- ``/c/<club>.json``: a club's live tables and today's finished games (result, score sheet);
- ``/c/<club>/results.csv`` and ``.json`` with ``?key=<host key>``: every kept result of the
  club (date, table, players by seat and team, final score, winner, hands; ``server.clubs.export``:
  cells safe in a spreadsheet, teams named by their players);
- ``/c/<club>/tv``: the club's TV (``club.html`` drawn for a screen);
- ``/c/<club>/night.json``: the club's night for the page and its TV (``server.clubs``):
  members, pairs, rounds, standings, past nights, the season, and each round table's live seats
  and scores;
- ``/t/<name>`` and ``/c/<name>`` for a club's name as typed ("Club Loja", "ñandú"): redirected
  to its slug (``server.clubs.names``); ``<club>`` everywhere else is the slug;
- ``/watch-log/<key>``: the table's whole event log as a spectator receives it (the
  spectator's redacted forms only: invariant 1);
- ``/replayed/<table>/<game>?key=…``, ``/replayed?record=…``,
  ``/replayed/club/<club>/<table>/<game>``: a finished game replayed through the engine
  (``server.replay_positions``).

A club's finished games are shown on its public page, so their replays open without a key; the
export (players' names over time) takes the club's host key, printed by ``cuarenta serve``.
"""

from __future__ import annotations

import http
import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote

import structlog
from websockets.http11 import Response

from server import keys
from server.clubs import export
from server.clubs.names import is_slug, slug
from server.coach.routes import PREFIX as REVIEW
from server.coach.routes import ReviewRoutes
from server.core.publishing import seen_by
from server.http_edge import _response
from server.listing import Listing
from server.replay_positions import BadRecord, inflate, positions

if TYPE_CHECKING:
    from server.connection import ClubNightDoor
    from server.lobby import Lobby

log = structlog.get_logger("server.clubs.routes")
PAGES = {"/tables": "tables.html", "/replay": "replay.html"}
FileAnswer = Callable[[Path], Awaitable[Response]]


class ClubRoutes:
    """Answers the paths above; None for any other path (``HttpRoutes`` goes on)."""

    def __init__(
        self,
        lobby: Lobby,
        listing: Listing,
        clubs: tuple[str, ...],
        web_root: Path,
        page: FileAnswer,
        reviews: ReviewRoutes,
        nights: ClubNightDoor | None,
    ) -> None:
        self.lobby = lobby
        self.nights = nights
        self.listing = listing
        self.clubs = clubs
        self.web_root = web_root
        self.page = page
        self.reviews = reviews  # /review/: the coach's review of a finished game

    async def __call__(self, path: str, query: str) -> Response | None:
        try:
            return await self._route(path, query)
        except Exception:  # the store or the board unreachable: a clear answer, not a dropped one
            log.exception("club night route failed", path=path)
            return _text(http.HTTPStatus.SERVICE_UNAVAILABLE, "storage unavailable, try again")

    async def _route(self, path: str, query: str) -> Response | None:
        asked = parse_qs(query)
        if path in PAGES:
            return await self.page(self.web_root / PAGES[path])
        if path.startswith(REVIEW):
            return await self.reviews.answer(path, query)
        if path == "/tables.json":
            club = asked.get("club", [None])[0]
            return _json({"tables": await self.listing.tables(club)})
        if path.startswith("/watch-log/"):
            return await self._watch_log(unquote(path.removeprefix("/watch-log/")))
        if path == "/replayed" or path.startswith("/replayed/"):
            return await self._replayed(path.removeprefix("/replayed").strip("/"), asked)
        if path.startswith("/c/"):
            return await self._club(unquote(path.removeprefix("/c/")), asked, query)
        if path.startswith("/t/"):
            return self._club_spelling(unquote(path.removeprefix("/t/")).rstrip("/"), query)
        return None

    def _club_spelling(self, name: str, query: str) -> Response | None:
        """``/t/Club Loja`` or ``/t/ñandú``: the club's link as its slug spells it."""
        if is_slug(name) or slug(name) not in self.clubs:
            return None  # a slug or a random key: the table page finds (or refuses) it
        return _redirect(f"/t/{slug(name)}" + (f"?{query}" if query else ""))

    async def _club(self, rest: str, asked: dict[str, list[str]], query: str) -> Response | None:
        name, _, export_name = rest.partition("/")
        data = name.endswith(".json") and not export_name
        name = name.removesuffix(".json")
        if name not in self.clubs:
            if slug(name) not in self.clubs:
                return None
            tail = (".json" if data else "") + (f"/{export_name}" if export_name else "")
            return _redirect(f"/c/{slug(name)}{tail}" + (f"?{query}" if query else ""))
        if export_name in ("results.csv", "results.json"):
            if not await self._is_club_host(name, asked.get("key", [""])[0]):
                return _text(
                    http.HTTPStatus.FORBIDDEN, "the export needs ?key=<the club's host key>"
                )
            results = await self.listing.results(name)
            if export_name == "results.json":
                return _json(export.results_json(name, results), f"{name}-results.json")
            return _csv(results, f"{name}-results.csv")
        if export_name == "tv":
            return await self.page(self.web_root / "club.html")
        if export_name == "night.json" and self.nights is not None:
            return _json(await self.nights.view(name))
        if export_name:
            return None
        if not data:
            return await self.page(self.web_root / "club.html")
        today = datetime.fromtimestamp(self.listing.clock(), UTC).date().isoformat()
        results = [r for r in await self.listing.results(name) if r["ended"].startswith(today)]
        return _json({"club": name, "tables": await self.listing.tables(name), "results": results})

    async def _is_club_host(self, club: str, credential: str) -> bool:
        store = self.lobby.store
        ref = await store.find_key(club)
        stored = None if ref is None else await store.load(ref.table_id)
        if stored is None or not credential:
            return False
        host = json.loads(stored.state)["keys"].get("host")
        return keys.same_secret(credential, host)

    async def _watch_log(self, key: str) -> Response:
        store = self.lobby.store
        ref = await store.find_key(key)
        if ref is None:
            return _text(http.HTTPStatus.NOT_FOUND, "no table has this link")
        log = []
        for event in await store.events_after(ref.table_id, 0):
            entry = json.loads(event.data)
            log.append({"n": event.n, "event": seen_by(entry, None)})
        return _json({"table": ref.table_id, "log": log})

    async def _replayed(self, ref: str, asked: dict[str, list[str]]) -> Response:
        try:
            if not ref:
                packed = asked.get("record", [""])[0]
                if not packed:
                    raise BadRecord("send ?record=<base64url of the deflated record JSON>")
                return _json(positions(inflate(packed)))
            record = await self._stored_record(ref, asked.get("key", [""])[0])
            if record is None:
                return _text(http.HTTPStatus.NOT_FOUND, "no finished game for this table and key")
            return _json(positions(record))
        except BadRecord as problem:
            return _text(http.HTTPStatus.BAD_REQUEST, str(problem))

    async def _stored_record(self, ref: str, credential: str) -> Any:
        parts = [unquote(part) for part in ref.split("/")]
        if len(parts) == 4 and parts[0] == "club" and parts[3].isdecimal():
            club, table_id, game = parts[1], parts[2], int(parts[3])
            found = await self.lobby.store.find_key(club) if club in self.clubs else None
            if found is None or found.table_id != table_id:
                return None
            kept = await self.lobby.store.find_record(table_id, game)
            return None if kept is None else json.loads(kept.record)
        if len(parts) == 2 and parts[1].isdecimal() and credential:
            return await self.lobby.record(parts[0], credential, int(parts[1]))
        if len(parts) == 1 and credential:
            return await self.lobby.record(parts[0], credential, None)
        return None


def _csv(results: list[dict[str, Any]], filename: str) -> Response:
    body = export.results_csv(results).encode()
    response = _response(http.HTTPStatus.OK, body, "text/csv; charset=utf-8")
    response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _redirect(target: str) -> Response:
    response = _response(http.HTTPStatus.FOUND, f"{target}\n".encode(), "text/plain; charset=utf-8")
    response.headers["Location"] = target
    return response


def _json(value: Any, filename: str | None = None) -> Response:
    body = json.dumps(value, separators=(",", ":")).encode()
    response = _response(http.HTTPStatus.OK, body, "application/json")
    if filename:
        response.headers["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _text(status: http.HTTPStatus, message: str) -> Response:
    return _response(status, f"{message}\n".encode(), "text/plain; charset=utf-8")
