"""The chaos run's faults: a seeded schedule, each fault injected and healed in turn.

Two lanes run side by side, so faults overlap: the infrastructure's (a server killed with
SIGKILL or stopped with SIGTERM and started again on its port; the Redis primary killed, the
replica promoted, the old primary back as its replica; a Redis node stopped with SIGSTOP for some
seconds, then SIGCONT; a lossy window on every Redis link) and the clients' (a person who stops
reading for some seconds; one who vanishes and comes back with the seat token). Each lane first
injects every one of its kinds once, in a seeded order (so even a short run meets each), then
seeded choices until the run's time is up.
"""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from bench.chaos_people import Crowd
from bench.chaos_redis import SentinelRedis

INFRA = ("server_kill9", "server_sigterm", "primary_kill", "redis_stall", "lossy_link")
CLIENTS = ("slow_client", "vanish_client")
KINDS = INFRA + CLIENTS
START_TIMEOUT_S = 60.0
DUE_S = 60.0  # past the run's time, how long a kind not yet injected (nobody to hit) stays due
LOSSY_SHARE = 0.04  # of the Redis links cut each second (and of new ones refused) in a window


class ServerProcess:
    """``cuarenta serve`` on a fixed port (caddy's upstream), killed and started again."""

    def __init__(self, port: int, args: Sequence[str], log: Path) -> None:
        self.port, self.args, self.log = port, list(args), log
        self.process: subprocess.Popen[str] | None = None
        self.starts = 0

    @property
    def upstream(self) -> str:
        return f"127.0.0.1:{self.port}"

    def start(self) -> None:
        """Start and wait for its ``listening on`` line; a start refused (Redis away, the port
        not yet free) is tried again until ``START_TIMEOUT_S``."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while True:
            with self.log.open("a") as errors:
                process = subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "server.cli",
                        "serve",
                        "--port",
                        str(self.port),
                        *self.args,
                    ],
                    stdout=subprocess.PIPE,
                    stderr=errors,
                    text=True,
                    env={**os.environ, "PYTHONUNBUFFERED": "1"},
                )
            assert process.stdout is not None
            line = process.stdout.readline()  # blocks until the port is bound (or exit)
            if line.startswith("listening on "):
                self.process = process
                self.starts += 1
                return
            process.kill()
            process.wait()
            process.stdout.close()
            if time.monotonic() > deadline:
                raise RuntimeError(f"server on {self.port} did not start: see {self.log}")
            time.sleep(0.5)  # its refusal's cause (Redis failing over) takes seconds to pass

    def kill(self) -> None:
        if self.process is not None:
            self.process.send_signal(signal.SIGKILL)
            self._reap()

    def stop(self) -> None:
        """SIGTERM: the clean way out (leases released, connections told 1001)."""
        if self.process is not None:
            self.process.terminate()
            self._reap()

    def _reap(self) -> None:
        assert self.process is not None
        self.process.wait(timeout=START_TIMEOUT_S)
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.process = None


class Faults:
    """Injects the faults of ``KINDS`` on a seeded schedule and counts them."""

    def __init__(
        self,
        rng: random.Random,
        servers: list[ServerProcess],
        redis: SentinelRedis,
        crowd: Crowd,
        gap_s: tuple[float, float] = (2.0, 6.0),
        kinds: tuple[str, ...] = KINDS,
    ) -> None:
        unknown = set(kinds) - set(KINDS)
        if unknown:
            raise ValueError(f"no fault kind {sorted(unknown)} (known: {', '.join(KINDS)})")
        self.rng, self.servers, self.redis, self.crowd = rng, servers, redis, crowd
        self.kinds = kinds
        self.gap_s = gap_s
        self.counts: Counter[str] = Counter()
        self.log: list[str] = []
        self.started = time.monotonic()

    async def run(self, seconds: float) -> None:
        """Both lanes until ``seconds`` have passed and each has injected all its kinds."""
        until = time.monotonic() + seconds
        lanes = [tuple(k for k in lane if k in self.kinds) for lane in (INFRA, CLIENTS)]
        await asyncio.gather(*(self._lane(lane, until) for lane in lanes))

    async def _lane(self, kinds: tuple[str, ...], until: float) -> None:
        if not kinds:
            return
        first = self.rng.sample(kinds, len(kinds))
        while first or time.monotonic() < until:
            await asyncio.sleep(self.rng.uniform(*self.gap_s))
            kind = first.pop(0) if first else self.rng.choice(kinds)
            if await getattr(self, kind)():
                self.counts[kind] += 1
            elif kind not in self.counts and time.monotonic() < until + DUE_S:
                first.insert(0, kind)  # nobody to inflict it on yet: it stays due a while

    def _note(self, what: str) -> None:
        self.log.append(f"{time.monotonic() - self.started:7.1f} s  {what}")

    # ------------------------------------------------------------------ servers
    async def server_kill9(self) -> bool:
        server = self.rng.choice(self.servers)
        self._note(f"kill -9 server {server.port}")
        await asyncio.to_thread(server.kill)
        await asyncio.sleep(self.rng.uniform(0.5, 3.0))  # how long it stays dead
        await self._restart(server)
        return True

    async def _restart(self, server: ServerProcess) -> None:
        """Start it again, however long Redis keeps it from starting (noted, then retried)."""
        while True:
            try:
                await asyncio.to_thread(server.start)
                return
            except RuntimeError as exc:
                self.counts["server start refused for a minute"] += 1
                self._note(f"server {server.port} could not start: {exc}")

    async def server_sigterm(self) -> bool:
        server = self.rng.choice(self.servers)
        self._note(f"SIGTERM server {server.port}")
        await asyncio.to_thread(server.stop)
        await asyncio.sleep(self.rng.uniform(0.5, 3.0))
        await self._restart(server)
        return True

    # ------------------------------------------------------------------ Redis
    async def primary_kill(self) -> bool:
        self._note("kill -9 the Redis primary")
        await self.redis.kill_primary()
        self._note("the replica promoted, the old primary back as its replica")
        return True

    async def redis_stall(self) -> bool:
        primary = await self.redis.primary()
        node = primary if self.rng.random() < 0.75 else await self.redis.replica()
        stalled_s = self.rng.uniform(1.5, 4.0)
        role = "primary" if node is primary else "replica"
        self._note(f"SIGSTOP the Redis {role} for {stalled_s:.1f} s")
        node.signal(signal.SIGSTOP)
        try:
            await asyncio.sleep(stalled_s)  # the stall's length
        finally:
            node.signal(signal.SIGCONT)
        return True

    async def lossy_link(self) -> bool:
        window_s, before = self.rng.uniform(5.0, 12.0), self.redis.cuts
        self.redis.lossy(LOSSY_SHARE)
        try:
            await asyncio.sleep(window_s)
        finally:
            self.redis.lossy(0.0)
        self._note(f"lossy Redis links for {window_s:.1f} s: {self.redis.cuts - before} cut")
        return True

    # ------------------------------------------------------------------ clients
    async def slow_client(self) -> bool:
        people = self.crowd.people_in_play()
        if not people:
            return False
        person, slow_s = self.rng.choice(people), self.rng.uniform(3.0, 12.0)
        self._note(f"{person.name} stops reading for {slow_s:.1f} s")
        transport = person.session.ws.transport
        transport.pause_reading()
        try:
            await asyncio.sleep(slow_s)
        finally:
            if not transport.is_closing():
                transport.resume_reading()
        return True

    async def vanish_client(self) -> bool:
        people = self.crowd.people_in_play()
        if not people:
            return False
        person, away_s = self.rng.choice(people), self.rng.uniform(0.5, 6.0)
        self._note(f"{person.name} vanishes for {away_s:.1f} s")
        self.crowd.vanish(person, away_s)
        return True
