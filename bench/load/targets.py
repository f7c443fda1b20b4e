"""The servers under test as child processes: start, address, RSS, CPU time, loop lag, stop.

Both print ``listening on URL`` once bound (so ``--port 0`` works and readiness is never a
sleep) and then the lag probe's lines, which a reader thread collects with their timestamps.
"""

from __future__ import annotations

import ctypes
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Literal

from bench.load.errors import TargetError
from bench.load.lag import parse_gc, parse_line
from protocol import PROTOCOL_VERSION

TargetKind = Literal["cuarenta", "game", "floor"]
"""The table server, the game floor (``bench.game_floor``) and the floor (``bench.floor``)."""
STOP_TIMEOUT_S = 5.0
PROFILE_TIMEOUT_S = 60.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
PAGE_BYTES = os.sysconf("SC_PAGE_SIZE")
PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True)  # loaded here: a forked child only calls into it


def die_with_parent() -> None:
    """Have the kernel SIGKILL this process when its parent dies (Linux ``PR_SET_PDEATHSIG``).

    A benchmark killed by a timeout must not leave servers or load processes running: an
    orphaned server keeps its abandoned tables' stand-in bots playing, and ignores SIGTERM.
    """
    _LIBC.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


#: every load comes from 127.0.0.1: the per-address caps guard a server against one abusive
#: address and are not what a benchmark measures (names an older tree does not know are ignored,
#: so a side-by-side run against one still starts)
UNCAPPED = {"CUARENTA_CONNECTIONS_PER_ADDRESS": "0", "CUARENTA_TABLES_PER_MIN": "0"}


def server_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a server a benchmark starts: the caller's without its ``CUARENTA_*``
    settings (the bench sets what it needs; a user's shell must not change the figures or
    break the run), plus `UNCAPPED`."""
    base = os.environ if base is None else base
    kept = {name: value for name, value in base.items() if not name.startswith("CUARENTA_")}
    return kept | UNCAPPED


def server_command(profile: Path | None = None) -> list[str]:
    """``cuarenta serve`` on the embedded store, bots without pacing, plus the lag probe.

    A few closed-loop tables play faster than a person's per-connection command limit allows
    (it guards against abuse and is not what is measured), so the limit is lifted.
    """
    command = [
        sys.executable,
        "-m",
        "bench.load.probed_serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--store",
        "memory",
        "--bot-delay",
        "0",
        "--commands-per-s",
        "100000",
        "--log-format",
        "json",
        "--log-level",
        "warning",
    ]
    return command + (["--profile", str(profile)] if profile else [])


def floor_command(kind: TargetKind = "floor") -> list[str]:
    """The floor (``bench.floor``) or the game floor (``bench.game_floor``)."""
    module = "bench.game_floor" if kind == "game" else "bench.floor"
    return [sys.executable, "-m", module, "--host", "127.0.0.1", "--port", "0"]


@dataclass(frozen=True, slots=True)
class Usage:
    """A process's resident memory and CPU time at one moment."""

    rss_bytes: int
    cpu_s: float


def protocol_of(tree: Path | None) -> int:
    """The protocol version ``tree`` (None: this one) speaks, read from its source: a
    baseline from before protocol 4 refuses a hello of 4."""
    if tree is None:
        return PROTOCOL_VERSION
    found = re.search(
        r"^PROTOCOL_VERSION = (\d+)", (tree / "protocol" / "base.py").read_text(), re.M
    )
    if found is None:
        raise TargetError(f"no PROTOCOL_VERSION in {tree}/protocol/base.py")
    return int(found.group(1))


class TargetProcess:
    """A started server under test; use as a context manager so it never outlives the run."""

    def __init__(
        self, kind: TargetKind, profile: Path | None = None, tree: Path | None = None
    ) -> None:
        """``tree``: serve another checkout of the project (a baseline) instead of this one."""
        self.kind = kind
        self.profile = profile
        self.version = protocol_of(tree)
        if profile is not None:
            profile.unlink(missing_ok=True)
        command = server_command(profile) if kind == "cuarenta" else floor_command(kind)
        handle, name = tempfile.mkstemp(prefix=f"bench-{kind}-", suffix=".stderr")
        self._stderr_path = Path(name)
        with os.fdopen(handle, "ab") as stderr:  # O_APPEND: our reads never race its writes
            self.process = subprocess.Popen(
                command,
                stdout=subprocess.PIPE,
                stderr=stderr,
                text=True,
                cwd=tree or Path(__file__).resolve().parents[2],
                env=server_env() | ({"PYTHONPATH": str(tree)} if tree else {}),
                preexec_fn=die_with_parent,
            )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        while parse_line(line) is not None:  # a probe line before the port is bound
            line = self.process.stdout.readline()
        if not line.startswith("listening on "):
            self.stop()
            raise TargetError(f"the {kind} server did not start: {line!r} {self._tail()}")
        address = line.removeprefix("listening on ").strip().rstrip("/")
        self.url = address.replace("http://", "ws://") + ("/ws" if kind == "cuarenta" else "/")
        self._lag: list[tuple[float, float]] = []
        self._gc: list[tuple[float, int, float]] = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read_probe, daemon=True)
        self._reader.start()

    def __enter__(self) -> TargetProcess:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
        self.remove_log()

    def usage(self) -> Usage:
        """RSS (from ``/proc/PID/statm``) and user+system CPU seconds (``/proc/PID/stat``)."""
        self.check_alive()
        pid = self.process.pid
        resident = int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * PAGE_BYTES
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        cpu = (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime, stime
        return Usage(resident, cpu)

    def lag_between(self, start: float, end: float) -> list[float]:
        """The probe's lag samples (seconds) taken in [start, end) on the monotonic clock."""
        with self._lock:
            return [lag for when, lag in self._lag if start <= when < end]

    def gc_between(self, start: float, end: float) -> list[tuple[int, float]]:
        """The collector's pauses (generation, seconds) that ended in [start, end)."""
        with self._lock:
            return [(gen, pause) for when, gen, pause in self._gc if start <= when < end]

    def latest_lag_sample(self) -> float:
        """When the newest lag sample was taken (-inf before the first line arrives)."""
        with self._lock:
            return self._lag[-1][0] if self._lag else float("-inf")

    def check_alive(self) -> None:
        code = self.process.poll()
        if code is not None:
            raise TargetError(f"the {self.kind} server exited with code {code}: {self._tail()}")

    def stop(self) -> None:
        """Write the profile if one was asked for, then SIGTERM, and SIGKILL if that lingers.

        A clean exit is not waited for: when the load leaves tables mid-game, stand-in bots
        finish those games at full speed (invariant 5), and a server busy with them can take a
        minute to exit, which would measure nothing.
        """
        if self.process.poll() is None and self.profile is not None:
            self.process.send_signal(signal.SIGUSR2)
            deadline = time.monotonic() + PROFILE_TIMEOUT_S
            while not self.profile.exists() and time.monotonic() < deadline:
                time.sleep(0.1)
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(STOP_TIMEOUT_S)
        if self.process.stdout is not None:
            self.process.stdout.close()

    def _read_probe(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        try:
            for line in stdout:
                samples, pauses = parse_line(line), parse_gc(line)
                if samples or pauses:
                    with self._lock:
                        self._lag.extend(samples or ())
                        self._gc.extend(pauses)
        except (ValueError, OSError):
            return  # the pipe was closed by stop()

    def _tail(self) -> str:
        """The last lines the server wrote on stderr, for an error message."""
        return " | ".join(self.stderr_lines()[-5:])

    def stderr_lines(self) -> list[str]:
        """Everything the server logged on stderr so far (warnings and errors only)."""
        try:
            return self._stderr_path.read_text(errors="replace").splitlines()
        except OSError:
            return []

    def remove_log(self) -> None:
        self._stderr_path.unlink(missing_ok=True)
