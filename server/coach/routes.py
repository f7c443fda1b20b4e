"""``/review/<table>/<game>?key=…``: the review of a finished game (``cuarenta-review/1``).

The same credential rule as ``/record/``: a seat token or the host key of the game's end. The
review stored with the game (``server.coach.reviews``: computed when the game ended) is served as
kept; one not stored yet (still being computed, or a game from before reviews were kept) is
answered 202 "not ready", its computation started once if it is not under way.
"""

from __future__ import annotations

import http
import json
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote

from websockets.datastructures import Headers
from websockets.http11 import Response

if TYPE_CHECKING:
    from server.coach.reviews import Reviews
    from server.lobby import Lobby

PREFIX = "/review/"


class ReviewRoutes:
    """Answers ``/review/``."""

    def __init__(self, lobby: Lobby, reviews: Reviews) -> None:
        self.lobby = lobby
        self.reviews = reviews

    async def answer(self, path: str, query: str) -> Response:
        """The answer to ``/review/<table>/<game>?key=…``."""
        table_id, _, game = unquote(path.removeprefix(PREFIX)).partition("/")
        keys = parse_qs(query).get("key", [])
        if not keys or not table_id or not game.isdecimal():
            return _text(http.HTTPStatus.BAD_REQUEST, "a review needs /<table>/<game>?key=<key>")
        record = await self.lobby.record(table_id, keys[0], int(game))
        if record is None:
            return _text(http.HTTPStatus.NOT_FOUND, "no finished game for this table and key")
        which = (table_id, int(game))
        kept = None if self.reviews.running(which) else await self.reviews.find(which)
        if kept is not None:
            return _response(http.HTTPStatus.OK, kept, "application/json")
        if not self.reviews.start(which, record):
            return _text(http.HTTPStatus.SERVICE_UNAVAILABLE, "the coach is busy, try again soon")
        return _json(http.HTTPStatus.ACCEPTED, {"status": "not ready"})


def _json(status: http.HTTPStatus, value: Any) -> Response:
    body = json.dumps(value).encode()
    return _response(status, body, "application/json")


def _text(status: http.HTTPStatus, message: str) -> Response:
    return _response(status, f"{message}\n".encode(), "text/plain; charset=utf-8")


def _response(status: http.HTTPStatus, body: bytes, kind: str) -> Response:
    """Not stored by a browser or proxy: 202 now, the review later."""
    headers = Headers([("Content-Type", kind), ("Content-Length", str(len(body)))])
    headers["Cache-Control"] = "no-store"
    return Response(status.value, status.phrase, headers, body)
