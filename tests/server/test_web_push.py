"""Web Push end to end with real parts (issue 41): the server's sender posts to a push service
the test serves on loopback, which checks the VAPID signature (RFC 8292) and decrypts the
payload with the subscription's own keys (RFC 8291, aes128gcm)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field, replace
from typing import Any

import http_ece
import pytest
from aiohttp import web
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from clients.session import ClientSession, RequestRefused
from protocol import away as a
from protocol import client_messages as c
from protocol import players as p
from protocol import server_messages as s
from protocol.errors import ErrorCode
from server.app import TableServer
from server.notices import Notice
from server.push.book import Prefs
from server.push.sender import quiet
from tests.server.people.wire import new_key
from tests.serving import TEST_SETTINGS

SETTINGS = replace(TEST_SETTINGS, push_loopback=1, push_contact="mailto:club@example.org")


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Browser:
    """A browser's push subscription: its own key pair and auth secret (what it decrypts with)."""

    key: ec.EllipticCurvePrivateKey = field(
        default_factory=lambda: ec.generate_private_key(ec.SECP256R1())
    )
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscribe(self, endpoint: str) -> a.PushSubscribe:
        point = self.key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)
        return a.PushSubscribe(endpoint=endpoint, p256dh=b64(point), auth=b64(self.auth))


class PushService:
    """A push service on 127.0.0.1: checks each push's VAPID header, keeps the decrypted payload;
    ``/gone/...`` answers 410 as a service does for an unsubscribed browser."""

    def __init__(self) -> None:
        self.browsers: dict[str, Browser] = {}
        self.received: asyncio.Queue[tuple[str, dict[str, Any], float]] = asyncio.Queue()
        self.server_key = ""  # the table server's VAPID public key, as it told the browser
        self.contact = ""
        self.gone_posts = 0
        self.port = 0

    async def handle(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if request.path.startswith("/gone/"):
            self.gone_posts += 1
            return web.Response(status=410)
        self.check_vapid(request.headers["Authorization"])
        assert request.headers["Content-Encoding"] == "aes128gcm"
        assert int(request.headers["TTL"]) > 0
        browser = self.browsers[name]
        plain = http_ece.decrypt(
            await request.read(), private_key=browser.key, auth_secret=browser.auth
        )
        self.received.put_nowait((name, json.loads(plain), time.monotonic()))
        return web.Response(status=201)

    def check_vapid(self, header: str) -> None:
        scheme, _, params = header.partition(" ")
        assert scheme == "vapid"
        fields = dict(part.strip().split("=", 1) for part in params.split(","))
        assert fields["k"] == self.server_key  # signed by the key the browser subscribed with
        head, body, signature = fields["t"].split(".")
        raw = unb64(signature)
        der = encode_dss_signature(int.from_bytes(raw[:32]), int.from_bytes(raw[32:]))
        public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(fields["k"]))
        public.verify(der, f"{head}.{body}".encode(), ec.ECDSA(hashes.SHA256()))  # raises if bad
        claims = json.loads(unb64(body))
        assert claims["aud"] == f"http://127.0.0.1:{self.port}"
        assert claims["sub"] == self.contact
        assert claims["exp"] > time.time()


@contextlib.asynccontextmanager
async def served(service: PushService) -> AsyncIterator[PushService]:
    """``service`` listening on a free loopback port (its ``port`` set), until the block ends."""
    app = web.Application()
    app.router.add_post("/push/{name}", service.handle)
    app.router.add_post("/gone/{name}", service.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    service.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        yield service
    finally:
        await runner.cleanup()


@pytest.fixture
async def push_service() -> AsyncIterator[PushService]:
    async with served(PushService()) as service:
        yield service


@pytest.fixture
async def server(push_service: PushService) -> AsyncIterator[TableServer]:
    started = TableServer(SETTINGS)
    await started.start()
    push_service.contact = SETTINGS.push_contact
    yield started
    await started.close()


async def subscribed(
    server: TableServer,
    service: PushService,
    name: str,
    gone_too: bool = False,
    key: str | None = None,
) -> ClientSession:
    person = await ClientSession.connect(server.ws_url, name, player_key=key or new_key())
    key = await person.request(a.PushKeyRequest())
    assert isinstance(key, a.PushKey)
    service.server_key = key.public_key
    if gone_too:  # a device unsubscribed since: the service answers 410 (pushed to first)
        await person.request(Browser().subscribe(f"http://127.0.0.1:{service.port}/gone/{name}"))
    browser = service.browsers[name] = Browser()
    await person.request(browser.subscribe(f"http://127.0.0.1:{service.port}/push/{name}"))
    return person


async def test_a_person_whose_tab_is_closed_is_pushed_their_turn_encrypted_and_signed(
    server: TableServer, push_service: PushService
) -> None:
    ana = await ClientSession.connect(server.ws_url, "Ana", player_key=new_key())
    beto = await subscribed(server, push_service, "Beto", gone_too=True)
    created = await ana.request(c.CreateTable(profile="pagat-4p", move_deadline=43200))
    assert isinstance(created, s.TableCreated)
    await ana.request(c.Join(key=created.host_key, seat=0))
    await beto.request(c.Join(key=created.join_key, seat=1))
    me = await beto.request(p.MeRequest())
    assert isinstance(me, p.Me)
    beto_id = me.id
    for seat in (2, 3):
        await ana.request(c.AddBot(level=1, seat=seat))
    await beto.close()  # his tab is closed; the table waits for him when his turn comes
    await ana.request(c.Start())
    rng = random.Random(3)
    while True:  # Ana plays her turns; the bots theirs; until Beto's turn is pushed
        waiting = asyncio.ensure_future(push_service.received.get())
        snap_task = asyncio.ensure_future(ana.next_snapshot(wait_s=20))
        done, _ = await asyncio.wait({waiting, snap_task}, return_when=asyncio.FIRST_COMPLETED)
        if waiting in done:
            snap_task.cancel()
            name, pushed, _ = waiting.result()
            break
        waiting.cancel()
        snap = snap_task.result()
        required = [x for x in snap.legal if isinstance(x, c.Play | c.Announce)]
        if required and snap.last_event == ana.last_event:
            await ana.act(rng.choice(required))
    assert name == "Beto"
    assert pushed["kind"] == "your_turn"
    assert pushed["url"] == f"/me?open={created.table}"
    assert pushed["table"] == created.table
    assert pushed["deadline"] > time.time()
    text = json.dumps(pushed)
    assert all(key not in text for key in (created.join_key, created.host_key, created.watch_key))
    assert push_service.gone_posts == 1  # pushed to first (subscribed first), and forgotten:
    assert server.push is not None
    assert len(await server.push.book.subscriptions(beto_id)) == 1
    await ana.close()


async def test_one_push_per_event_and_person_and_none_switched_off_or_quiet(
    server: TableServer, push_service: PushService
) -> None:
    beto = await subscribed(server, push_service, "Beto")
    me = await beto.request(p.MeRequest())
    assert isinstance(me, p.Me)
    sender = server.push
    assert sender is not None
    notice = Notice("your_turn", me.id, "your_turn:t:1:9", "/me?open=t", "t", None, "")
    assert await sender.deliver(notice) == 1
    assert await sender.deliver(notice) == 0  # the same event: pushed once
    await beto.request(a.SetNoticeSettings(off=["deadline_near"]))
    near = replace(notice, kind="deadline_near", key="deadline_near:t:1:9")
    assert await sender.deliver(near) == 0  # switched off
    quiet_nights = a.SetNoticeSettings(
        quiet_from=22 * 60, quiet_to=7 * 60, time_zone="America/Guayaquil"
    )
    settings = await beto.request(quiet_nights)
    assert isinstance(settings, a.NoticeSettings)
    assert (settings.quiet_from, settings.devices) == (22 * 60, 1)
    midnight = 1_800_000_000 - 1_800_000_000 % 86400
    sender.clock = lambda: midnight + 4 * 3600  # 23:00 in Quito: quiet
    assert await sender.deliver(replace(notice, key="your_turn:t:1:10")) == 0
    sender.clock = lambda: midnight + 17 * 3600  # noon in Quito
    assert await sender.deliver(replace(notice, key="your_turn:t:1:10")) == 1
    assert [name for name, _, _ in drain(push_service)] == ["Beto", "Beto"]
    await beto.close()


def drain(service: PushService) -> list[tuple[str, dict[str, Any], float]]:
    got = []
    while not service.received.empty():
        got.append(service.received.get_nowait())
    return got


def test_quiet_hours_are_the_persons_own_and_may_run_over_midnight() -> None:
    quito = Prefs((), 22 * 60, 7 * 60, "America/Guayaquil")  # UTC-5
    assert quiet(quito, 1_800_000_000 - 1_800_000_000 % 86400 + 4 * 3600)  # 04:00 UTC: 23:00
    assert not quiet(quito, 1_800_000_000 - 1_800_000_000 % 86400 + 17 * 3600)  # 12:00 there
    assert not quiet(Prefs(), 0.0)


@pytest.mark.parametrize(
    "endpoint",
    [
        "http://push.example.org/x",
        "https://10.0.0.7/x",
        "https://localhost/x",
        "file:///etc/passwd1",
    ],
)
async def test_a_push_endpoint_must_be_a_push_service_on_the_internet(
    start_server: Any, endpoint: str
) -> None:
    async with start_server() as plain:  # push_loopback off, as deployed
        person = await ClientSession.connect(plain.ws_url, "Eve", player_key=new_key())
        with pytest.raises(RequestRefused) as refused:
            await person.request(Browser().subscribe(endpoint))
        assert refused.value.code == ErrorCode.INVALID_MESSAGE
        settings = await person.request(a.NoticeSettingsRequest())
        assert isinstance(settings, a.NoticeSettings)
        assert settings.devices == 0  # nothing kept
        await person.close()
