"""The ``Notices`` that pushes: each notice to every browser its person subscribed, once.

``send`` only queues (a table never waits for a push service); a few workers deliver. Before a
push: the person's switches and quiet hours (``Prefs``, in their own time zone) are asked, then
the book's ``first_time`` claims the notice's key, so of the processes, restarts and retried
commits that make the same notice one pushes it. Each push is encrypted for its subscription
(RFC 8291, aes128gcm) and signed with the server's VAPID key by pywebpush; a subscription the
push service answers 404 or 410 for is gone and forgotten.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import aiohttp
import orjson
import structlog
from py_vapid import Vapid
from pywebpush import WebPushException, webpush_async

from server.notices import Notice
from server.push.book import Prefs, PushBook
from server.store.base import StoreError
from server.tasks import cancel_and_wait

log = structlog.get_logger("server.push")
WORKERS = 4
QUEUE_MAX = 10_000  # notices waiting to be pushed at most (more are dropped, and logged)
PUSH_TIMEOUT_S = 10.0
DEFAULT_TTL_S = 24 * 3600  # how long a push service keeps a notice for a device that is off
GONE = (404, 410)


def quiet(prefs: Prefs, now: float) -> bool:
    """Inside the person's quiet hours now (a range may run over midnight)."""
    start, end = prefs.quiet_from, prefs.quiet_to
    if start is None or end is None or start == end:
        return False
    local = datetime.fromtimestamp(now, UTC).astimezone(ZoneInfo(prefs.time_zone))
    minute = local.hour * 60 + local.minute
    return start <= minute < end if start < end else minute >= start or minute < end


def payload(notice: Notice) -> bytes:
    """What the service worker is sent: the kind, the page to open, the table, the deadline,
    the short public text, the warning ("forfeit_next", or "") and a club round's pace
    (seconds a move, 0 live; None for the other kinds); never a key."""
    return orjson.dumps(
        {
            "kind": notice.kind,
            "url": notice.url,
            "table": notice.room_id,
            "deadline": notice.deadline,
            "detail": notice.detail,
            "warning": notice.warning,
            "pace": notice.pace,
        }
    )


class WebPush:
    """Pushes notices to the browsers of the people they name."""

    def __init__(
        self,
        book: PushBook,
        vapid: Vapid,
        subject: str,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.book = book
        self.vapid = vapid
        self.subject = subject  # the VAPID "sub" claim: how a push service reaches the host
        self.clock = clock
        self.pushed = 0  # pushes a push service accepted, so far
        self._queue: asyncio.Queue[Notice] = asyncio.Queue(QUEUE_MAX)
        self._tasks: list[asyncio.Task[None]] = []
        self._session: aiohttp.ClientSession | None = None

    def start(self) -> None:
        self._tasks = [asyncio.create_task(self._work(), name=f"push-{n}") for n in range(WORKERS)]

    async def close(self) -> None:
        await cancel_and_wait(list(self._tasks))
        if self._session is not None:
            await self._session.close()

    async def send(self, notice: Notice) -> None:
        try:
            self._queue.put_nowait(notice)
        except asyncio.QueueFull:
            log.warning("too many notices waiting; one dropped", kind=notice.kind)

    async def _work(self) -> None:
        while True:
            notice = await self._queue.get()
            try:
                await self.deliver(notice)
            except StoreError as exc:
                log.warning("a notice was not pushed", kind=notice.kind, error=str(exc)[:200])
            except Exception:
                log.exception("a notice was not pushed", kind=notice.kind)

    async def deliver(self, notice: Notice) -> int:
        """Push ``notice`` to each of its person's browsers, unless switched off, quiet or sent
        already; how many pushes were accepted."""
        book, player = self.book, notice.player_id
        prefs = await book.prefs(player)
        if notice.kind in prefs.off or quiet(prefs, self.clock()):
            return 0
        subscriptions = await book.subscriptions(player)
        if not subscriptions or not await book.first_time(notice.key):
            return 0
        if self._session is None:  # made on the first push: a server that never pushes holds none
            timeout = aiohttp.ClientTimeout(total=PUSH_TIMEOUT_S)
            self._session = aiohttp.ClientSession(timeout=timeout)
        data = payload(notice).decode()
        ttl = DEFAULT_TTL_S
        if notice.deadline is not None:
            ttl = max(60, int(notice.deadline - self.clock()))
        accepted = 0
        for kept in subscriptions:
            subscription = orjson.loads(kept)
            info = {
                "endpoint": subscription["endpoint"],
                "keys": {"p256dh": subscription["p256dh"], "auth": subscription["auth"]},
            }
            try:
                await webpush_async(
                    info,
                    data,
                    vapid_private_key=self.vapid,
                    vapid_claims={"sub": self.subject},  # fresh: pywebpush adds aud and exp
                    ttl=ttl,
                    aiohttp_session=self._session,
                )
            except WebPushException as exc:
                status = exc.status_code
                if status in GONE:
                    await book.remove(player, subscription["endpoint"])
                    log.info("a gone push subscription was forgotten", status=status)
                else:
                    log.warning("a push was refused", status=status)
                continue
            except (aiohttp.ClientError, TimeoutError) as exc:
                log.warning("a push service did not answer", error=str(exc)[:200])
                continue
            accepted += 1
        self.pushed += accepted
        return accepted
