"""Wire the pieces into a running server: store, lobby, bots, HTTP routes and WebSockets.

``TableServer`` is what the ``cuarenta serve`` command and the test fixtures start; ``port=0``
picks a free port, reported by ``.port``/``.url`` once started.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import structlog
from websockets.asyncio.server import Server, ServerConnection, serve
from websockets.datastructures import Headers
from websockets.frames import CloseCode

from engine.bridge import CORE_KIND
from protocol import server_messages as s
from server.bots import BotRunner
from server.clubs.night_store import night_store_for
from server.clubs.nights import ClubNights
from server.clubs.routes import ClubRoutes
from server.coach.reviews import Reviews
from server.coach.routes import ReviewRoutes
from server.config import Settings, trusted_networks
from server.connection import Connection, Doors
from server.disk import DiskProbe, DiskWatch, watch_for
from server.edge import AddressLimits, OriginPolicy, client_address
from server.frames import Built
from server.http import HttpRoutes
from server.http_edge import edge_connection
from server.ladder import Ladder, ladder_store_for
from server.listing import Listing, board_for
from server.lobby import Lobby
from server.metrics import Metrics
from server.notices import Notices
from server.people import Players, player_store_for
from server.people.games import GameRecorder
from server.people.invitations import Invitations, MemoryInvitations, RedisInvitations
from server.people.presence import MemoryPresence, Presence, RedisPresence
from server.people.routes import PRESENCE_REFRESH_S, People
from server.push.book import book_for
from server.push.routes import AwayRoutes
from server.push.sender import WebPush
from server.push.vapid import public_key, server_vapid
from server.room import Room
from server.store import MemoryStore, Store, open_store
from server.store.base import StoreError
from server.tasks import cancel_and_wait
from server.waiting import Waiting, waiting_for
from server.waiting.watch import DeadlineWatch

if TYPE_CHECKING:
    from server.cluster import Cluster

log = structlog.get_logger("server.app")
LAG_PROBE_S = 0.5
SHUTDOWN_WAIT_S = 5.0  # how long a shutdown waits for connection handlers to end


class TableServer:
    """One process's table server; ``start`` then ``close`` (or use ``async with``)."""

    def __init__(
        self,
        settings: Settings,
        store: Store | None = None,
        clock: Callable[[], float] = time.time,
        seeds: Callable[[], int] | None = None,
        notices: Notices | None = None,
        disk: DiskProbe | None = None,
    ) -> None:
        """``disk``: how the data's disk is read (a test's stand-in says how much is free)."""
        self.settings = settings
        self.metrics = Metrics()
        self.connections: dict[str, Connection] = {}
        self.bots = BotRunner(
            settings.bot_workers,
            settings.bot_budget_s,
            stand_in=bool(settings.learned_stand_in),
            under_load=bool(settings.learned_under_load),
            review_samples=settings.review_samples,
        )
        self._store = store
        self._clock = clock
        self._seeds = seeds
        self._disk = disk or DiskProbe()
        self._server: Server | None = None
        self._lag_task: asyncio.Task[None] | None = None
        self._presence_task: asyncio.Task[None] | None = None
        self.cluster: Cluster | None = None  # with a Redis store (server.cluster)
        self.lobby: Lobby
        self.ladder: Ladder
        self.people: People
        self.recorder: GameRecorder | None = None
        self.reviews: Reviews  # the coach's reviews of finished games
        self.listing: Listing | None = None  # public and club tables (server.listing)
        self.nights: ClubNights | None = None  # the clubs' nights (server.clubs)
        self._notices = notices  # people away (server.notices); None: Web Push
        self.push: WebPush | None = None  # the Web Push sender, unless notices were given
        self.waiting: Waiting  # turn-based tables between moves (server.waiting)
        self.watch: DeadlineWatch | None = None  # wakes them when something is due
        self._doors: Doors | None = None  # what each connection reaches, once started
        self.trusted = trusted_networks(settings)
        self.limits = AddressLimits(settings.connections_per_address, settings.tables_per_min)

    async def start(self) -> None:
        """Each piece is made whole, from the ones it needs, before the next: people and their
        records, the tables, the clubs' nights, the listing, then the sockets."""
        store = self._store = self._store or await self._open_store()
        players = Players(player_store_for(store))
        self.reviews = Reviews(store, self.bots, players)
        self.recorder = GameRecorder(players, self._deliver, self.reviews)
        book = book_for(store)
        vapid = await server_vapid(book, self.settings.push_key_file or None)
        notices = self._notices
        if notices is None:
            notices = self.push = WebPush(book, vapid, self.settings.push_contact, self._clock)
            self.push.start()
        self.waiting = Waiting(waiting_for(store), notices)
        away = AwayRoutes(
            book,
            self.waiting.board,
            public_key(vapid),
            self.settings.push_loopback > 0,
            self._clock,
        )
        lobby = self.lobby = self._new_lobby(store, self.recorder, self.waiting)
        cluster = self.cluster = lobby.cluster
        self.ladder = Ladder(ladder_store_for(store), store, lobby)
        push = None if cluster is None else cluster.push
        self.people = People(
            players,
            self._presence(store),
            lobby,
            self._deliver,
            push,
            away,
            self._invitations(store),
            notices,
            self._clock,
        )
        if cluster is not None:
            await cluster.start()
        for name in self.settings.clubs:
            await lobby.ensure_club(name)
        lobby.start()
        self.watch = DeadlineWatch(self.waiting.board, lobby, self._clock)
        self.watch.start()
        nights = self.nights = ClubNights(
            night_store_for(store),
            lobby,
            self.settings.clubs,
            self._deliver,
            lambda conn: conn in self.connections,
            self._clock,
            notices=notices,
        )
        nights.start()
        listing = self.listing = Listing(board_for(store), lambda: lobby.rooms, self._clock)
        listing.start()
        disk = await watch_for(
            store, self.settings.disk_dir, self.settings.disk_limits(), self._disk
        )
        self._doors = Doors(
            self.settings, self.metrics, lobby, self.ladder, self.people, nights, self.limits
        )
        self._server = await serve(
            self._handler,
            self.settings.host,
            self.settings.port,
            process_request=self._http_routes(store, listing, nights, disk),
            create_connection=edge_connection(self.metrics, self.limits, self.trusted),
            max_size=self.settings.max_frame_bytes,
            max_queue=16,
            compression=None,
            server_header="cuarenta",
        )
        if cluster is not None:  # tables are placed here from now on (and the proxy's
            await cluster.join(self.address)  # hash sends their sockets here)
        self._lag_task = asyncio.create_task(self._measure_lag())
        self._presence_task = asyncio.create_task(self._keep_presence())
        log.info("listening", url=self.url, engine_core=CORE_KIND)  # compiled or plain Python

    async def _open_store(self) -> Store:
        settings = self.settings
        return await open_store(
            settings.store,
            settings.table_ttl_s,
            settings.record_ttl_s,
            settings.store_timeout_s,
            wait=settings.store_wait,
            wait_timeout_s=settings.store_wait_timeout_s or None,
        )

    def _new_lobby(self, store: Store, recorder: GameRecorder, waiting: Waiting) -> Lobby:
        """The tables, shared with the other processes on a Redis store (``server.cluster``)."""
        share: Callable[[Lobby], Cluster] | None = None
        if not isinstance(store, MemoryStore):
            from server.cluster import Cluster
            from server.store.redis import RedisStore

            assert isinstance(store, RedisStore), "a shared store is a RedisStore"
            redis_store, lease_s = store, self.settings.lease_s
            if self.settings.placement not in ("first", "rendezvous"):
                raise ValueError(f"placement {self.settings.placement!r}: first or rendezvous")
            hashed = self.settings.placement == "rendezvous"

            def share(lobby: Lobby) -> Cluster:
                return Cluster(redis_store, lobby, self.connections, lease_s, hashed)

        return Lobby(
            store,
            self.settings.referee_config(),
            self.bots,
            self.metrics,
            self._deliver,
            self._detached,
            self._clock,
            self._seeds,
            self.settings.lease_s,
            self.settings.idle_unload_s,
            share,
            self.settings.resolve_s,
            recorder.finished,
            waiting,
        )

    def _presence(self, store: Store) -> Presence:
        """Who is online: in this process, or in the same Redis for every process."""
        from server.store.redis import RedisStore

        if isinstance(store, RedisStore):
            return RedisPresence(store.client, self.lobby.owner)
        return MemoryPresence()

    def _invitations(self, store: Store) -> Invitations:
        """The invitations a person has not answered: here, or in the same Redis."""
        from server.store.redis import RedisStore

        if isinstance(store, RedisStore):
            return RedisInvitations(store.client, clock=self._clock)
        return MemoryInvitations(clock=self._clock)

    def _http_routes(
        self, store: Store, listing: Listing, nights: ClubNights, disk: DiskWatch
    ) -> HttpRoutes:
        reviews = ReviewRoutes(self.lobby, self.reviews)

        def club_routes(routes: HttpRoutes) -> ClubRoutes:
            return ClubRoutes(
                self.lobby,
                listing,
                self.settings.clubs,
                routes.web_root,
                routes.page,
                reviews,
                nights,
            )

        return HttpRoutes(
            self.settings.web_root,
            self.metrics,
            self._record,
            club_routes,
            OriginPolicy(self.settings.allowed_origins),
            store.ping,
            self.limits,
            self.trusted,
            disk.report,
        )

    @property
    def port(self) -> int:
        assert self._server is not None, "start() first"
        return int(next(iter(self._server.sockets)).getsockname()[1])

    @property
    def address(self) -> str:
        """This process's address as a proxy dials it (in a container: its own IP)."""
        host = self.settings.host
        if host in ("", "0.0.0.0", "::"):
            host = socket.gethostbyname(socket.gethostname())
        return f"{host}:{self.port}"

    @property
    def url(self) -> str:
        return f"http://{self.settings.host}:{self.port}/"

    @property
    def ws_url(self) -> str:
        return f"ws://{self.settings.host}:{self.port}/ws"

    async def close(self) -> None:
        """Tables first (they stop writing and every lease is released at once: peers take
        them over), then every connection is closed with 1001 (going away)."""
        nights = self.nights
        watch = self.watch
        await cancel_and_wait(
            [
                self._lag_task,
                self._presence_task,
                None if nights is None else nights.stop(),
                None if watch is None else watch.stop(),
            ]
        )
        if self.cluster is not None:  # forwarded requests fail at once from now on, and the
            await self.cluster.leave()  # peers place this process's tables on themselves
        await self.lobby.close()
        if self._server is not None:
            self._server.close()  # closes every connection with 1001 (going away)
            with contextlib.suppress(TimeoutError):
                # Bounded: a handler stuck behind a busy room must not hold up the shutdown.
                async with asyncio.timeout(SHUTDOWN_WAIT_S):
                    await self._server.wait_closed()
        if self.recorder is not None:
            await self.recorder.close()
            await self.reviews.close()
            await self.people.players.store.close()
        if self.listing is not None:
            await self.listing.close()
        if self.push is not None:
            await self.push.close()
        if self.cluster is not None:
            await self.cluster.close()
        self.bots.close()
        if self._store is not None:
            await self._store.close()

    async def __aenter__(self) -> TableServer:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _handler(self, ws: ServerConnection) -> None:
        peer = str(ws.remote_address[0]) if ws.remote_address else "?"
        address = client_address(
            peer, ws.request.headers if ws.request else Headers(), self.trusted
        )
        if not self.limits.connect(address):
            self.metrics.refused.labels(limit="connections_per_address").inc()
            log.info("connection refused", kind="connections_per_address", address=address)
            cap = self.settings.connections_per_address
            await ws.close(
                CloseCode.POLICY_VIOLATION, f"too many connections from your address (limit {cap})"
            )
            return
        assert self._doors is not None, "start() first"
        connection = Connection(ws, self._doors, address)
        self.connections[connection.id] = connection
        self.metrics.connections.set(len(self.connections))
        try:
            await connection.serve()
        finally:
            del self.connections[connection.id]
            self.limits.disconnect(address)
            self.metrics.connections.set(len(self.connections))

    async def club_host_key(self, club: str) -> str | None:
        """The host key of a club's table (``cuarenta serve`` prints its link for the club)."""
        ref = await self.lobby.store.find_key(club)
        stored = None if ref is None else await self.lobby.store.load(ref.table_id)
        return None if stored is None else json.loads(stored.state)["keys"].get("host")

    def _deliver(self, conn: str, message: s.ServerMessage | Built) -> None:
        connection = self.connections.get(conn)
        if connection is not None:
            connection.push(message)
        elif self.cluster is not None:
            self.cluster.deliver(conn, message)  # a connection of another process

    async def _record(self, ref: str, credential: str) -> dict[str, Any] | None:
        """``/record/<table>`` (its latest finished game) or ``/record/<table>/<game>`` (R15).

        Kept records outlive their tables (``--record-ttl``), so both work after it expired.
        """
        table_id, _, game = ref.partition("/")
        if game and not game.isdecimal():
            return None
        return await self.lobby.record(table_id, credential, int(game) if game else None)

    def _detached(self, conn: str, room: Room) -> None:
        if conn in self.connections:
            self.lobby.placement.detach(conn, room)
        elif self.cluster is not None:
            self.cluster.detached(conn, room.table_id)

    async def _keep_presence(self) -> None:
        """Keep quiet connections of people online (presence lapses without a refresh)."""
        while True:
            await asyncio.sleep(PRESENCE_REFRESH_S)
            for connection in list(self.connections.values()):
                # one that closed (or forgot its person) while earlier refreshes were awaited
                # said ``gone`` already: a refresh now would keep it online for the TTL
                if self.connections.get(connection.id) is not connection or not connection.player:
                    continue
                room = connection.room
                try:
                    await self.people.seen(
                        connection.player, connection.id, room.table_id if room else None
                    )
                except StoreError as exc:
                    log.warning("presence not refreshed", error=str(exc)[:200])
                    break

    async def _measure_lag(self) -> None:
        """Event-loop lag: how late a timer of LAG_PROBE_S fires (invariant 6's witness)."""
        loop = asyncio.get_running_loop()
        while True:
            started = loop.time()
            await asyncio.sleep(LAG_PROBE_S)
            self.metrics.loop_lag.set(max(0.0, loop.time() - started - LAG_PROBE_S))
            self.metrics.games.set(
                sum(1 for room in self.lobby.rooms.values() if room.referee.table.in_game)
            )
