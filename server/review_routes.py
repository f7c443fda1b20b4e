"""``/review/<table>/<game>?key=…``: the review of a finished game (``cuarenta-review/1``).

The same credential rule as ``/record/``: a seat token or the host key of the game's end. The
first ask starts the review in the bot runner's review worker (its own process, at low
priority: never on the loop, never holding up a table's bots) and is answered 202 "not ready";
once done it is kept, and every ask after is answered with it. Reviews are deterministic, so a
process that has not got one computes the same again.
"""

from __future__ import annotations

import asyncio
import http
import json
from collections import OrderedDict
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote

import structlog
from websockets.datastructures import Headers
from websockets.http11 import Response

if TYPE_CHECKING:
    from server.lobby import Lobby

log = structlog.get_logger("server.review_routes")
KEPT_REVIEWS = 500  # reviews kept in this process, the oldest asked for going first
PREFIX = "/review/"


class Reviews:
    """Reviews of finished games: computed once, kept, answered by ``/review/``."""

    def __init__(self, lobby: Lobby) -> None:
        self.lobby = lobby
        self._done: OrderedDict[tuple[str, int], dict[str, Any]] = OrderedDict()
        self._running: dict[tuple[str, int], asyncio.Task[None]] = {}

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
        done = self._done.get(which)
        if done is not None:
            self._done.move_to_end(which)
            return _json(http.HTTPStatus.OK, done)
        if which not in self._running:
            self._running[which] = asyncio.get_running_loop().create_task(
                self._review(which, record)
            )
        return _json(http.HTTPStatus.ACCEPTED, {"status": "not ready"})

    async def _review(self, which: tuple[str, int], record: dict[str, Any]) -> None:
        try:
            self._done[which] = await self.lobby.bots.review(record)
            while len(self._done) > KEPT_REVIEWS:
                self._done.popitem(last=False)
        except Exception:  # a review is a courtesy: its failure is logged, the next ask retries
            log.exception("review failed", table=which[0], game=which[1])
        finally:
            del self._running[which]


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
