"""``make deploy-test``: docker-compose.yml brought up for real with podman, and played through.

The images come from Debian's packages (``deploy.build_images``); the compose file is the
repository's own, run by podman-compose under a project name of its own (``PROJECT``) on a free
port. Then, through Caddy only, with the project's own clients:

1. **up**: Redis (append-only), two server replicas and the proxy start; ``/readyz`` answers
   through the proxy and every container's healthcheck passes;
2. **games**: a fleet of wire bots (``clients.bot.fleet``) plays whole games on new tables;
3. **club night, round 1**: the club's host (its key from ``cuarenta serve``'s line in a
   replica's log) registers four pairs (a member and a bot each) and starts a Swiss night of
   three rounds; each member follows the club, is told a seat, and a wire bot plays it;
4. **a replica killed**: in round 2, with a fleet playing too, one replica gets SIGKILL
   (``podman kill``) and is started again; the round, the fleet's games and ``/readyz`` go on;
5. **the stack down and up**: in round 3, ``podman-compose down`` (the volumes stay) and ``up``;
   the night finishes round 3 on the tables it had, the host key is the same, and every result
   exported before is still exported (Redis replayed its append-only file).

It prints PASS or FAIL per step and a summary, exits 1 on a failure, and removes the containers,
network and volumes it made (``--keep`` leaves the stack up for a look).

podman as Debian 12 has it (4.3) differs from Docker in two ways this script covers:

- healthchecks are run by systemd timers, and no systemd runs here, so nothing would ever run
  them: a ticker runs ``podman healthcheck run`` for every container every ``HEALTH_EVERY_S``;
- podman-compose skips ``depends_on: condition: service_healthy`` before podman 4.6 (it warns
  "Ignored ... condition check"), so services start together; the server retries Redis and
  Caddy retries the replicas, and this script waits for health itself.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import socket
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clients.bot.fleet import FleetResult, play_table, run_fleet
from clients.bot.player import BotPlan, BotTally, WireBot
from clients.links import TableLink, socket_url
from clients.reconnect import LastingSession
from clients.session import ClientSession, RequestRefused, SessionError
from clients.table import TableLinks
from deploy.build_images import SERVER_IMAGE, build_all
from deploy.podman import CACHE, ROOT, podman, podman_env, run, say
from protocol import client_messages as c
from protocol import clubs as m

PROJECT = "cuarenta-deploytest"
CLUB = "quito"
MEMBERS = ("Ana", "Beto", "Carla", "Dani")
ROUNDS = 3
SERVICES = {"redis": 1, "server": 2, "proxy": 1}  # the compose file's services without a profile
HEALTH_EVERY_S = 2.0
COMPOSE = Path(
    os.environ.get("PODMAN_COMPOSE", CACHE / "podman-compose" / "bin" / "podman-compose")
)
HOST_LINE = re.compile(rf"^club {CLUB}: \S+ host link \S+/t/(\S+)$", re.MULTILINE)
Night = dict[str, Any]


class Failed(Exception):
    """A step's check did not hold: the message says what was seen."""


@dataclass(slots=True)
class Step:
    name: str
    ok: bool | None = None  # None: not run (an earlier step failed)
    detail: str = ""
    seconds: float = 0.0


@dataclass(slots=True)
class Stack:
    """The compose project: its port, its containers' health, and what the steps learned."""

    port: int
    health: dict[str, str] = field(default_factory=dict)
    host_key: str = ""
    fleets: list[FleetResult] = field(default_factory=list)
    resent: int = 0  # host commands sent again after a "send it again" refusal

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def env(self) -> dict[str, str]:
        """podman's settings plus the compose file's variables (none of the caller's own)."""
        env = {k: v for k, v in podman_env().items() if not k.startswith("CUARENTA_")}
        return {**env, "CUARENTA_CLUBS": CLUB, "CUARENTA_HTTP_PORT": str(self.port)}

    async def compose(self, *args: str) -> str:
        argv: list[str | Path] = [
            COMPOSE,
            "--project-name",
            PROJECT,
            "--file",
            ROOT / "docker-compose.yml",
        ]
        done = await asyncio.to_thread(
            run, [*argv, *args], capture=True, env=self.env(), timeout=300, check=False
        )
        if done.returncode != 0:
            raise Failed(f"podman-compose {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
        return done.stdout

    async def containers(self, every: bool = False) -> dict[str, str]:
        """The project's containers: name -> state ("running", "exited", ...)."""
        done = await asyncio.to_thread(
            podman,
            "ps", *(["--all"] if every else []),
            "--filter", f"label=io.podman.compose.project={PROJECT}",
            "--format", "{{.Names}} {{.State}}",
            capture=True, quiet=True,
        )  # fmt: skip
        return dict(line.split(" ", 1) for line in done.stdout.splitlines() if line.strip())

    def name(self, service: str, number: int = 1) -> str:
        return f"{PROJECT}_{service}_{number}"

    async def tick_health(self) -> None:
        """Run every container's healthcheck now and then (no systemd runs them here)."""
        while True:
            for name in await self.containers():
                done = await asyncio.to_thread(
                    podman, "healthcheck", "run", name, check=False, capture=True, quiet=True
                )
                self.health[name] = "healthy" if done.returncode == 0 else "unhealthy"
            await asyncio.sleep(HEALTH_EVERY_S)

    async def wait_healthy(self, wait_s: float = 90) -> str:
        wanted = {self.name(s, n) for s, count in SERVICES.items() for n in range(1, count + 1)}

        def healthy() -> bool:
            return all(self.health.get(name) == "healthy" for name in wanted)

        await until(healthy, wait_s, lambda: f"health: {self.health}")
        return ", ".join(sorted(wanted))

    async def wait_ready(self, wait_s: float = 90) -> float:
        """Seconds until ``/readyz`` answers 200 through the proxy."""
        started = time.monotonic()
        await until_async(lambda: self.ready(), wait_s, lambda: "/readyz never answered 200")
        return time.monotonic() - started

    async def ready(self) -> bool:
        try:
            status, _ = await self.get("/readyz")
        except (OSError, urllib.error.URLError):
            return False
        return status == 200

    async def get(self, path: str) -> tuple[int, bytes]:
        def fetch() -> tuple[int, bytes]:
            try:
                with urllib.request.urlopen(self.base + path, timeout=5) as answer:
                    return int(answer.status), bytes(answer.read())
            except urllib.error.HTTPError as exc:
                return exc.code, exc.read()

        return await asyncio.to_thread(fetch)

    async def get_json(self, path: str) -> Any:
        status, body = await self.get(path)
        if status != 200:
            raise Failed(f"GET {path}: {status} {body[:200]!r}")
        return json.loads(body)

    async def night(self) -> Night:
        state = await self.get_json(f"/c/{CLUB}/night.json")
        night: Night = state.get("night") or {}
        return night

    async def results(self) -> set[str]:
        data = await self.get_json(f"/c/{CLUB}/results.json?key={self.host_key}")
        return {json.dumps(row, sort_keys=True) for row in data["results"]}

    async def logged_host_key(self) -> str:
        """The club's host key as a replica printed it at start (``cuarenta serve``)."""
        keys: set[str] = set()
        for number in range(1, SERVICES["server"] + 1):
            done = await asyncio.to_thread(
                podman, "logs", self.name("server", number), capture=True, quiet=True
            )
            keys |= set(HOST_LINE.findall(done.stdout + done.stderr))
        if len(keys) != 1:
            raise Failed(f"expected one host key in the replicas' logs, found {len(keys)}")
        return keys.pop()


async def until(done: Callable[[], bool], wait_s: float, seen: Callable[[], str]) -> None:
    async def check() -> bool:
        return done()

    await until_async(check, wait_s, seen)


async def until_async(
    done: Callable[[], Awaitable[bool]], wait_s: float, seen: Callable[[], str]
) -> None:
    deadline = time.monotonic() + wait_s
    while not await done():
        if time.monotonic() > deadline:
            raise Failed(f"not within {wait_s:.0f} s: {seen()}")
        await asyncio.sleep(0.5)  # polling the stack from outside, as a person's page does


def round_state(night: Night, number: int) -> tuple[bool, bool, bool]:
    """(every table of round ``number`` open, every one started, every match of it done)."""
    rounds = (night.get("tournament") or {}).get("rounds", [])
    if len(rounds) < number:
        return False, False, False
    matches = rounds[number - 1]["matches"]
    tables = night.get("tables", {})
    opened = all(
        match["forfeit"] is not None or f"{number}-{match['table']}" in tables for match in matches
    )
    started = all(
        match["forfeit"] is not None
        or tables.get(f"{number}-{match['table']}", {}).get("started", False)
        for match in matches
    )
    done = all(match["forfeit"] is not None or match["score_a"] is not None for match in matches)
    return opened, started, done


async def until_round(stack: Stack, number: int, state: str, wait_s: float = 240) -> Night:
    """The night once round ``number`` is ``state`` ("open", "started" or "done")."""
    last: list[Night] = [{}]

    async def reached() -> bool:
        with contextlib.suppress(Failed, OSError, urllib.error.URLError, ValueError):
            last[0] = await stack.night()
        opened, started, done = round_state(last[0], number)
        return {"open": opened, "started": started, "done": done}[state]

    await until_async(reached, wait_s, lambda: f"round {number} not {state}")
    return last[0]


async def host_says(stack: Stack, message: c.ClientMessage, tries: int = 5) -> None:
    """One host command over a short connection through the proxy (as the club page does).

    Both replicas drive the night, each writing it only over the version it read; a command
    that meets the other's write is refused unapplied ("the night changed at that moment: send
    it again"), and is sent again, as the refusal asks."""
    for attempt in range(1, tries + 1):
        session = await ClientSession.connect(socket_url(stack.base), "host")
        try:
            await session.request(m.ClubOpen(club=CLUB, key=stack.host_key))
            await session.request(message)
            return
        except RequestRefused as exc:
            if "send it again" not in str(exc) or attempt == tries:
                raise
            stack.resent += 1
        finally:
            await session.close()


async def play_round(stack: Stack, number: int) -> list[asyncio.Task[BotTally]]:
    """Start round ``number``: once its tables are open, each member follows the club, is told
    a seat and a wire bot plays it (one game); returns the bots' tasks once all sat down.

    The members follow after the tables open, not before: a ``club_seat`` is pushed only to
    followers connected to the replica that opened the round (``server.clubs.nights``
    ``_tell_seats``), while following tells a member the seat the stored night gives them on
    whichever replica the proxy picked."""
    await host_says(stack, m.ClubRound(club=CLUB, key=stack.host_key, round=number))
    await until_round(stack, number, "open", wait_s=60)
    ws = socket_url(stack.base)
    bots = []
    for name in MEMBERS:
        follower = await ClientSession.connect(ws, name)
        try:
            await follower.request(m.ClubOpen(club=CLUB, member=True))
            told = await follower.next_of(m.ClubSeat, lambda seat: seat.round == number, 30)
        finally:
            await follower.close()
        place = LastingSession(TableLink.of(stack.base, told.join_key), name, seat=told.seat)
        await place.open()
        bots.append(asyncio.create_task(seated(place, number)))
    return bots


async def seated(place: LastingSession, number: int) -> BotTally:
    try:
        return await WireBot(place, BotPlan(level=2, games=1, seed=number)).run()
    finally:
        await place.close()


async def finished(bots: list[asyncio.Task[BotTally]], wait_s: float = 240) -> int:
    """Every member's bot finished its game: the actions they played."""
    tallies = await asyncio.wait_for(asyncio.gather(*bots), wait_s)
    return sum(tally.actions for tally in tallies)


def fleet_text(fleet: FleetResult) -> str:
    scores = ", ".join(f"{t.scores[0]}-{t.scores[1]}" for t in fleet.tables)
    return (
        f"{len(fleet.tables)} tables ({scores}), {fleet.actions} actions in {fleet.seconds:.0f} s"
    )


def check_fleet(fleet: FleetResult) -> None:
    for table in fleet.tables:
        if table.winner is None or max(table.scores) < 40:
            raise Failed(f"table {table.table} ended without a winner: {table.scores}")


# --- the steps ------------------------------------------------------------------------------


async def step_up(stack: Stack) -> str:
    await stack.compose("up", "--detach")
    running = await stack.containers()
    counts = {s: sum(n.startswith(f"{PROJECT}_{s}_") for n in running) for s in SERVICES}
    if counts != SERVICES:
        raise Failed(f"containers per service {counts}, expected {SERVICES}")
    ready = await stack.wait_ready()
    names = await stack.wait_healthy()
    stack.host_key = await stack.logged_host_key()
    status, zipped = await stack.get("/offline/engine.zip")  # the pocket, built in the image
    if status != 200 or not zipped.startswith(b"PK"):
        raise Failed(f"/offline/engine.zip answered {status}: the image has no pocket")
    return (
        f"/readyz through the proxy after {ready:.1f} s; healthy: {names}; "
        f"pocket engine {len(zipped)} bytes"
    )


async def step_games(stack: Stack) -> str:
    fleet = await run_fleet(stack.base, 2, BotPlan(level=2, seed=1))
    check_fleet(fleet)
    stack.fleets.append(fleet)
    # and one at the club's own table (its stable link /t/<club>), whose games the club's
    # results export lists: what the down-and-up step checks is kept
    link = TableLink.of(stack.base, CLUB)
    host = TableLink.of(stack.base, stack.host_key)
    club = await play_table(TableLinks(CLUB, link, link, host), BotPlan(level=2, seed=3), 4)
    if club.winner is None:
        raise Failed(f"the club table's game ended without a winner: {club.scores}")
    results: set[str] = set()

    async def exported() -> bool:  # the listing keeps a result at its next refresh
        results.update(await stack.results())
        return bool(results)

    await until_async(exported, 30, lambda: "the club's results export lists no game")
    return (
        f"{fleet_text(fleet)}; the club table /t/{CLUB}: {club.scores[0]}-{club.scores[1]}, "
        f"{len(results)} result(s) exported"
    )


async def step_round_1(stack: Stack) -> str:
    for name in MEMBERS:  # four pairs: a member and a level-2 bot each
        await host_says(
            stack, m.ClubPair(club=CLUB, key=stack.host_key, members=[name], bot_level=2)
        )
    await host_says(
        stack, m.ClubStart(club=CLUB, key=stack.host_key, format="swiss", rounds=ROUNDS)
    )
    actions = await finished(await play_round(stack, 1))
    night = await until_round(stack, 1, "done")
    return (
        f"{len(night['pairs'])} pairs, round 1 done ({actions} actions by the members' bots; "
        f"host commands sent again so far: {stack.resent})"
    )


async def step_kill_a_replica(stack: Stack) -> str:
    victim = stack.name("server", 1)
    bots = await play_round(stack, 2)
    fleet = asyncio.create_task(run_fleet(stack.base, 2, BotPlan(level=2, pace_s=0.05, seed=2)))
    await until_round(stack, 2, "started")
    await asyncio.sleep(1.0)  # a few moves into the games
    await asyncio.to_thread(podman, "kill", "--signal", "KILL", victim)
    killed = time.monotonic()
    await asyncio.sleep(3.0)  # the table's lease is still the dead process's
    state = (await stack.containers(every=True)).get(victim)
    restarted = "restarted by its restart policy"
    if state != "running":
        await asyncio.to_thread(podman, "start", victim)
        restarted = "started again"
    actions = await finished(bots)
    await until_round(stack, 2, "done")
    played = await asyncio.wait_for(fleet, 240)
    check_fleet(played)
    stack.fleets.append(played)
    if not await stack.ready():
        raise Failed("/readyz does not answer after the replica came back")
    stack.health.clear()
    await stack.wait_healthy()
    return (
        f"{victim} killed mid-round and {restarted}; round 2 done "
        f"{time.monotonic() - killed:.0f} s after the kill ({actions} member actions); "
        f"fleet: {fleet_text(played)}; all healthy again"
    )


async def step_down_and_up(stack: Stack) -> str:
    bots = await play_round(stack, 3)
    await until_round(stack, 3, "started")
    before = await stack.results()
    night_before = await stack.night()
    key_before = stack.host_key
    await stack.compose("down")
    if await stack.containers(every=True):
        raise Failed("containers left after down")
    volumes = await asyncio.to_thread(
        podman, "volume", "ls", "--format", "{{.Name}}", capture=True, quiet=True
    )
    if f"{PROJECT}_redis-data" not in volumes.stdout.split():
        raise Failed("the redis-data volume did not survive down")
    down_at = time.monotonic()
    await stack.compose("up", "--detach")
    ready = await stack.wait_ready()
    stack.health.clear()
    await stack.wait_healthy()
    stack.host_key = await stack.logged_host_key()
    if stack.host_key != key_before:
        raise Failed("the club's host key changed: the club was not restored from Redis")
    actions = await finished(bots)
    night = await until_round(stack, 3, "done")
    if not night.get("finished"):
        raise Failed("round 3 done but the night is not finished")
    after = await stack.results()
    if not before or not before <= after:
        raise Failed(
            f"{len(before - after)} of {len(before)} exported results lost across down and up"
        )
    earlier = [r["matches"] for r in night_before["tournament"]["rounds"][:2]]
    if earlier != [r["matches"] for r in night["tournament"]["rounds"][:2]]:
        raise Failed("rounds 1 and 2 read differently after down and up")
    standings = ", ".join(f"{row['pair']} {row['points_for']}" for row in night["standings"])
    return (
        f"down and up, /readyz {ready:.1f} s after up ({time.monotonic() - down_at:.0f} s "
        f"from down); round 3 finished on its tables ({actions} member actions); "
        f"{len(before)} results kept, {len(after)} now; standings: {standings}"
    )


STEPS: list[tuple[str, Callable[[Stack], Awaitable[str]]]] = [
    ("stack up: redis, 2 replicas, caddy; /readyz and healthchecks", step_up),
    ("whole games through the proxy (wire bot fleet; the club's table)", step_games),
    ("club night: pairs, Swiss start, round 1", step_round_1),
    ("a replica killed (SIGKILL) and restarted in round 2", step_kill_a_replica),
    ("stack down (volumes kept) and up in round 3", step_down_and_up),
]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def timed(step: Step) -> Iterator[None]:
    started = time.monotonic()
    try:
        yield
    finally:
        step.seconds = time.monotonic() - started


async def run_steps(stack: Stack, steps: list[Step], keep: bool) -> None:
    ticker = asyncio.create_task(stack.tick_health())
    try:
        await stack.compose("down", "--volumes")  # a previous run's leftovers
        for step, (_, action) in zip(steps, STEPS, strict=True):
            say(f"--- {step.name}")
            with timed(step):
                try:
                    step.detail = await asyncio.wait_for(action(stack), 600)
                    step.ok = True
                except (Failed, SessionError, TimeoutError, OSError) as exc:
                    step.ok, step.detail = False, f"{type(exc).__name__}: {exc}"
            say(f"{'PASS' if step.ok else 'FAIL'} {step.name}: {step.detail}")
            if not step.ok:
                await dump_logs(stack)
                break
    finally:
        ticker.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await ticker
        if not keep:
            with contextlib.suppress(Failed):
                await stack.compose("down", "--volumes")
            left = await stack.containers(every=True)
            say("cleaned up" if not left else f"containers left behind: {sorted(left)}")


async def dump_logs(stack: Stack) -> None:
    for name in await stack.containers(every=True):
        done = await asyncio.to_thread(
            podman, "logs", "--tail", "15", name, capture=True, quiet=True, check=False
        )
        say(f"last lines of {name}:\n{done.stdout}{done.stderr}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--keep", action="store_true", help="leave the stack up at the end")
    parser.add_argument("--no-build", action="store_true", help="use the images as they are")
    parser.add_argument("--port", type=int, default=0, help="the proxy's port (default: free)")
    args = parser.parse_args()
    if not COMPOSE.is_file():
        print(f"deploy-test: {COMPOSE} is missing (make deploy-test installs it)", file=sys.stderr)
        return 2
    started = time.monotonic()
    steps = [Step(name) for name, _ in STEPS]
    build = Step("images from Debian's packages (base, stages, redis, caddy, server)")
    with timed(build):
        try:
            build.detail = f"{SERVER_IMAGE} and the rest" if args.no_build else "built"
            if not args.no_build:
                build_all()
            build.ok = True
        except Exception as exc:  # a build's failure is reported like any other step's
            build.ok, build.detail = False, f"{type(exc).__name__}: {exc}"
    if build.ok:
        stack = Stack(port=args.port or free_port())
        asyncio.run(run_steps(stack, steps, args.keep))
    print("\n=== deploy-test summary ===")
    for step in [build, *steps]:
        mark = {True: "PASS", False: "FAIL", None: "SKIP"}[step.ok]
        print(f"{mark}  {step.name}  ({step.seconds:.0f} s)\n      {step.detail}")
    ok = all(step.ok for step in [build, *steps])
    print(f"=== {'PASS' if ok else 'FAIL'} in {time.monotonic() - started:.0f} s ===")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
