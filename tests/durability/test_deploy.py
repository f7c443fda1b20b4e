"""The hosting files, checked by what this machine can check (no Docker engine runs here).

docker-compose.yml is parsed and held to what README's "Host a club table" promises: Redis with
append-only persistence on a volume, the server built from this repository in two replicas on
Redis, a proxy in front, health checks everywhere. Every ``CUARENTA_*`` variable they set must be
a real server setting. The Caddyfile is adapted by Caddy itself when it is installed (Debian's
``caddy``), else checked as text.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]

from server.config import Settings, env_of

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    return loaded


def test_redis_keeps_an_append_only_file_on_a_volume(compose: dict[str, Any]) -> None:
    redis = compose["services"]["redis"]
    command = redis["command"]
    assert command[command.index("--appendonly") + 1] == "yes"
    volume, mount = redis["volumes"][0].split(":")
    assert mount == "/data"
    assert volume in compose["volumes"]


def test_two_server_replicas_built_here_share_the_redis_store(compose: dict[str, Any]) -> None:
    server = compose["services"]["server"]
    assert server["build"] == "."
    assert server["deploy"]["replicas"] == 2
    assert server["environment"]["CUARENTA_STORE"] == "${CUARENTA_STORE:-redis://redis:6379/0}"
    assert server["depends_on"]["redis"]["condition"] == "service_healthy"
    assert "ports" not in server, "replicas are reached through the proxy only"


def test_the_replicas_place_tables_where_the_proxy_sends_their_sockets(
    compose: dict[str, Any],
) -> None:
    """One hop: the Caddyfile hashes a socket's table id over the replicas, and the replicas
    place each table's lease by the same hash (``server.cluster.membership``)."""
    assert compose["services"]["server"]["environment"]["CUARENTA_PLACEMENT"] == "rendezvous"
    caddyfile = (ROOT / "deploy" / "Caddyfile").read_text()
    assert "lb_policy header X-Cuarenta-Table" in caddyfile


def test_the_replicas_profile_adds_a_replica_and_three_sentinels_only_when_asked_for(
    compose: dict[str, Any],
) -> None:
    """``--profile replicas``: the store named by CUARENTA_STORE can be a redis+sentinel:// URL."""
    services = compose["services"]
    optional = {name for name, service in services.items() if "profiles" in service}
    assert optional == {"redis-replica", "sentinel-1", "sentinel-2", "sentinel-3"}
    assert all(services[name]["profiles"] == ["replicas"] for name in optional)
    assert "--replicaof" in services["redis-replica"]["command"]
    assert "sentinel monitor cuarenta redis 6379 2" in services["sentinel-3"]["command"][0]


def test_the_proxy_publishes_one_port_and_mounts_the_caddyfile(compose: dict[str, Any]) -> None:
    proxy = compose["services"]["proxy"]
    assert any(volume.startswith("./deploy/Caddyfile:") for volume in proxy["volumes"])
    assert len(proxy["ports"]) == 1
    assert (ROOT / "deploy" / "Caddyfile").is_file()


def test_every_service_has_a_health_check(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        assert service["healthcheck"]["test"], name
    assert "HEALTHCHECK" in (ROOT / "Dockerfile").read_text()


def test_every_cuarenta_variable_set_for_the_server_is_a_real_setting(
    compose: dict[str, Any],
) -> None:
    known = {env_of(item.name) for item in fields(Settings)}
    dockerfile = (ROOT / "Dockerfile").read_text()
    used = set(compose["services"]["server"]["environment"])
    used |= set(re.findall(r"\b(CUARENTA_[A-Z_]+)=", dockerfile))
    assert used <= known, used - known


def test_every_path_the_dockerfile_copies_exists() -> None:
    for line in (ROOT / "Dockerfile").read_text().splitlines():
        if line.startswith("COPY ") and "--from=" not in line:
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), source


def test_the_caddyfile_proxies_to_every_server_replica() -> None:
    caddyfile = ROOT / "deploy" / "Caddyfile"
    caddy = shutil.which("caddy")
    if caddy is None:  # Debian's caddy is optional here: check the text instead
        text = caddyfile.read_text()
        assert text.count("{") == text.count("}")
        assert "name server" in text
        assert "port 8765" in text
        return
    adapted = subprocess.run(
        [caddy, "adapt", "--config", str(caddyfile), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
        env={**os.environ, "CUARENTA_SITE": ":8080"},
    )
    config = json.loads(adapted.stdout)
    server = config["apps"]["http"]["servers"]["srv0"]
    assert server["listen"] == [":8080"]
    proxy = next(
        handler
        for route in server["routes"]
        for handler in route["handle"]
        if handler["handler"] == "reverse_proxy"
    )
    assert proxy["dynamic_upstreams"] == {
        "source": "a",
        "name": "server",
        "port": "8765",
        "refresh": 5_000_000_000,
    }
