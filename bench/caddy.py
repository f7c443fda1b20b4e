"""Debian's ``caddy`` running the repository's ``deploy/Caddyfile`` in front of local processes.

The compose deployment and this harness share the one Caddyfile: here its upstreams are static
(``CUARENTA_UPSTREAMS=static``, the servers' ``127.0.0.1:PORT`` addresses), there dynamic (the
addresses ``server`` resolves to). Used by ``tests/deploy`` and ``cuarenta bench routing``.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CADDYFILE = ROOT / "deploy" / "Caddyfile"
START_TIMEOUT_S = 20.0


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Caddy:
    """One caddy process on a free loopback port; ``reload`` changes its upstreams."""

    def __init__(self, upstreams: Sequence[str], home: Path) -> None:
        self.port, self.admin = free_port(), f"127.0.0.1:{free_port()}"
        self.home = home
        self.upstreams = list(upstreams)
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def env(self) -> dict[str, str]:
        return {
            **os.environ,
            "HOME": str(self.home),  # caddy keeps its autosaved config and data under it
            "XDG_CONFIG_HOME": str(self.home / "config"),
            "XDG_DATA_HOME": str(self.home / "data"),
            "CUARENTA_SITE": f"http://127.0.0.1:{self.port}",  # plain HTTP
            "CUARENTA_CADDY_ADMIN": self.admin,
            "CUARENTA_UPSTREAMS": "static",
            "CUARENTA_STATIC_UPSTREAMS": " ".join(self.upstreams),
        }

    def start(self) -> None:
        caddy = shutil.which("caddy")
        assert caddy is not None, "caddy is not installed"
        self.process = subprocess.Popen(
            [caddy, "run", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
            env=self.env(),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_listening(self.port, self.process)

    def reload(self, upstreams: Sequence[str]) -> None:
        """Load the Caddyfile again with these upstreams (open sockets are kept)."""
        self.upstreams = list(upstreams)
        caddy = shutil.which("caddy")
        assert caddy is not None
        admin = ("--address", self.admin)
        subprocess.run(
            [caddy, "reload", "--config", str(CADDYFILE), "--adapter", "caddyfile", *admin],
            env=self.env(),
            check=True,
            capture_output=True,
            timeout=START_TIMEOUT_S,
        )

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=START_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


@contextlib.contextmanager
def running(upstreams: Sequence[str], home: Path) -> Iterator[Caddy]:
    proxy = Caddy(upstreams, home)
    proxy.start()
    try:
        yield proxy
    finally:
        proxy.stop()


def _wait_listening(port: int, process: subprocess.Popen[bytes]) -> None:
    """Until the port accepts a connection (a deadline; it polls a condition)."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"caddy exited with {process.returncode}")
        with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
            return
        time.sleep(0.05)
    raise RuntimeError("caddy did not start listening")
