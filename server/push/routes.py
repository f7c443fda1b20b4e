"""The requests of ``protocol.away`` for one person: their turn-based tables, their push
subscriptions and their notice settings.

A subscription's endpoint is where this server will POST: it must be an ``https`` URL of a
host name (not an address, not ``localhost``), so a client cannot turn the server against the
network it runs in; ``allow_loopback`` (a test's own push service on 127.0.0.1) is the one
exception.
"""

from __future__ import annotations

import ipaddress
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import orjson

from protocol import away as a
from protocol.errors import ErrorCode
from server.errors import Refused
from server.push.book import Prefs, PushBook
from server.waiting.board import WaitingBoard


def checked_endpoint(endpoint: str, allow_loopback: bool) -> str:
    """The endpoint if this server may POST to it, else ``Refused`` naming why."""
    parts = urlsplit(endpoint)
    host = parts.hostname or ""
    if allow_loopback and parts.scheme in ("http", "https") and host in ("127.0.0.1", "::1"):
        return endpoint
    if parts.scheme != "https" or not host or host == "localhost":
        raise Refused(
            ErrorCode.INVALID_MESSAGE, "a push endpoint is an https URL of a push service"
        )
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return endpoint
    raise Refused(ErrorCode.INVALID_MESSAGE, "a push endpoint names a host, not an address")


def _forfeit_of(ended: Any, seats: list[dict[str, Any]], player: str) -> str | None:
    """``won``/``lost``: the game ended by a forfeit, seen from the person's side (None: not
    by a forfeit). R1's team of seat ``i`` is ``i % 2``; R14's two seats are their teams."""
    if not ended or ended.get("by") != "forfeit":
        return None
    mine = next(i for i, seat in enumerate(seats) if seat["player"] == player)
    return "lost" if mine % 2 == ended["team"] else "won"


def checked_zone(name: str) -> str:
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise Refused(ErrorCode.INVALID_MESSAGE, f"unknown time zone {name!r}") from exc
    return name


class AwayRoutes:
    """Answers one person's ``protocol.away`` requests."""

    def __init__(
        self,
        book: PushBook,
        board: WaitingBoard,
        public_key: str,
        allow_loopback: bool = False,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.book = book
        self.board = board
        self.public_key = public_key
        self.allow_loopback = allow_loopback
        self.clock = clock

    async def answer(self, player: str, message: a.AwayRequest) -> a.AwayAnswer | None:
        """The answer (None: a plain ``ack``)."""
        match message:
            case a.TurnsRequest(rid=rid):
                return await self.turns(player, rid)
            case a.PushKeyRequest(rid=rid):
                return a.PushKey(rid=rid, public_key=self.public_key)
            case a.PushSubscribe(endpoint=endpoint, p256dh=p256dh, auth=auth):
                endpoint = checked_endpoint(endpoint, self.allow_loopback)
                kept = {"endpoint": endpoint, "p256dh": p256dh, "auth": auth}
                await self.book.add(player, endpoint, orjson.dumps(kept))
                return None
            case a.PushUnsubscribe(endpoint=endpoint):
                await self.book.remove(player, endpoint)
                return None
            case a.NoticeSettingsRequest(rid=rid):
                return await self.settings(player, rid)
            case a.SetNoticeSettings(rid=rid):
                if (message.quiet_from is None) != (message.quiet_to is None):
                    raise Refused(ErrorCode.INVALID_MESSAGE, "quiet hours need a start and an end")
                prefs = Prefs(
                    tuple(sorted(set(message.off))),
                    message.quiet_from,
                    message.quiet_to,
                    checked_zone(message.time_zone),
                )
                await self.book.set_prefs(player, prefs)
                return await self.settings(player, rid)
        raise Refused(ErrorCode.INVALID_MESSAGE, f"not a request about notices: {message.type}")

    async def settings(self, player: str, rid: int) -> a.NoticeSettings:
        prefs = await self.book.prefs(player)
        devices = len(await self.book.subscriptions(player))
        return a.NoticeSettings(
            rid=rid,
            off=list(prefs.off),  # type: ignore[arg-type]  # checked when they were set
            quiet_from=prefs.quiet_from,
            quiet_to=prefs.quiet_to,
            time_zone=prefs.time_zone,
            devices=devices,
        )

    async def turns(self, player: str, rid: int) -> a.Turns:
        """The person's turn-based tables: those waiting for them first, the soonest due."""
        lines = []
        for card in await self.board.cards_of(player):
            fields = orjson.loads(card)
            if player not in fields["players"]:
                continue
            awaited = fields.pop("awaited")
            fields["your_turn"] = player in awaited
            fields["waiting_for"] = [
                seat["name"] or "" for seat in fields["seats"] if seat["player"] in awaited
            ]
            fields.pop("players")
            fields["forfeit"] = _forfeit_of(fields.pop("ended", None), fields["seats"], player)
            lines.append(a.TurnLine.model_validate(fields))
        lines.sort(key=lambda line: (not line.your_turn, line.deadline or float("inf")))
        return a.Turns(rid=rid, tables=lines, server_time=self.clock())
