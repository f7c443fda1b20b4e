"""Server settings: one frozen value, read from flags with ``CUARENTA_*`` environment defaults."""

from __future__ import annotations

import argparse
import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from server.clubs.names import ClubNameError, club_slugs, parse_clubs
from server.core.table import RefereeConfig
from server.disk import MIB, DiskLimits

WEB_ROOT = Path(__file__).resolve().parent.parent / "clients" / "web"


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything an operator can tune: each field has a flag and a ``CUARENTA_*`` variable."""

    host: str = "127.0.0.1"
    port: int = 8765
    store: str = "memory"  # "memory", a redis://, redis+cluster:// or redis+sentinel:// URL
    grace_s: float = 60.0  # a disconnected person keeps the seat this long (invariant 5)
    claim_window_s: float = 15.0  # the R10 claim window
    bot_delay_s: float = 0.6  # bot pacing at tables with people; all-bot tables never wait
    away_turn_s: float = 5.0  # an absent person's turn waits this long before the stand-in plays
    stand_in_level: int = 3  # the bot that plays for an absent or timed-out person
    bot_workers: int = 2  # process pool for search bots (levels >= 4)
    learned_stand_in: int = 1  # 1: the learned policy plays for people, not stand_in_level
    learned_under_load: int = 1  # 1: it answers search levels while every worker is busy
    bot_budget_s: float = 1.0  # the most one search-bot decision may take (server.bots)
    review_samples: int = 8  # deals each decision of a finished game's review is searched on
    max_frame_bytes: int = 8 * 1024
    send_queue: int = 256  # frames (4 KB each) a slow client may leave unread before it is dropped
    commands_per_s: float = 20.0  # per connection, burst 40
    chat_per_min: float = 12.0  # per connection, burst 5
    hello_timeout_s: float = 10.0  # a connection that has not said hello by then is closed
    connections_per_address: int = 32  # open WebSockets from one client address (0: no cap)
    tables_per_min: float = 10.0  # tables one client address may create a minute (0: any)
    allowed_origins: tuple[str, ...] = field(default_factory=tuple)  # besides the same origin
    trusted_proxies: tuple[str, ...] = field(default_factory=tuple)  # their X-Forwarded-For
    lease_s: float = 10.0  # Redis: a table's owner renews its lease; a peer takes over after this
    store_timeout_s: float = 5.0  # Redis: a command unanswered this long has failed
    resolve_s: float = 10.0  # Redis: an unanswered commit is read back this long at most
    store_wait: int = 1  # Sentinel: replicas that must hold a move before it is acknowledged
    store_wait_timeout_s: float = 0.0  # Sentinel: how long a commit waits for them (0: timeout)
    table_ttl_s: float = 7 * 24 * 3600.0  # a table not written for this long expires
    record_ttl_s: float = 90 * 24 * 3600.0  # a finished game's record is kept this long (0: ever)
    idle_unload_s: float = 600.0  # a table idle this long leaves memory (0: never)
    placement: str = "first"  # Redis: "first" (where first opened) or "rendezvous" (hashed)
    web_root: Path = WEB_ROOT
    log_format: str = "auto"  # auto (console in a terminal, else JSON), json, console
    log_level: str = "info"
    clubs: tuple[str, ...] = field(default_factory=tuple)  # their slugs: links /t/<slug>
    push_contact: str = "mailto:host@cuarenta.invalid"  # Web Push's VAPID "sub": who runs it
    push_key_file: str = ""  # the VAPID private key's file ("": kept in the store)
    push_loopback: int = 0  # 1: push endpoints on 127.0.0.1 are allowed (a test's service)
    clock_offset_s: float = 0.0  # added to the server's clock: a test lets hours pass (0: real)
    disk_dir: str = ""  # the folder whose disk holds the data ("": Redis's own, if it is here)
    disk_low_percent: float = 5.0  # free space below this share or below disk_low_mb: low
    disk_low_mb: float = 1024.0
    disk_full_percent: float = 1.0  # below this share or below disk_full_mb: full (503)
    disk_full_mb: float = 200.0

    def __post_init__(self) -> None:
        """Keep clubs by their slugs (``server.clubs.names``): one spelling for every link."""
        object.__setattr__(self, "clubs", club_slugs(self.clubs))

    def referee_config(self) -> RefereeConfig:
        """The referee's share of these settings.

        A test builds one the same way: ``Settings(grace_s=1).referee_config()``.
        """
        return RefereeConfig(
            grace_s=self.grace_s,
            claim_window_s=self.claim_window_s,
            bot_delay_s=self.bot_delay_s,
            away_turn_s=self.away_turn_s,
            stand_in_level=self.stand_in_level,
            chat_per_min=self.chat_per_min,
        )

    def disk_limits(self) -> DiskLimits:
        """When the data's disk counts as low, and as full (``server.disk``)."""
        return DiskLimits(
            self.disk_low_percent,
            int(self.disk_low_mb * MIB),
            self.disk_full_percent,
            int(self.disk_full_mb * MIB),
        )


HELP: Mapping[str, str] = {
    "host": "address to listen on",
    "port": "TCP port (0 picks a free one; the address is printed on stdout)",
    "store": "where tables live: memory (default), redis://HOST:PORT/DB, "
    "redis+cluster://HOST:PORT (any node of a Redis Cluster), or "
    "redis+sentinel://HOST:PORT[,HOST:PORT...]/SERVICE[/DB] (a primary with replicas, failed over "
    "by Redis Sentinel; a move is acknowledged once a replica holds it)",
    "grace_s": "seconds a disconnected player keeps the seat",
    "claim_window_s": "seconds the R10 claim window stays open",
    "bot_delay_s": "pause before a bot acts at a table with people (all-bot tables: none)",
    "away_turn_s": "seconds a disconnected player's turn waits before the stand-in bot plays",
    "stand_in_level": "bot level playing for absent or timed-out players",
    "bot_workers": "processes for search bots (levels 4 and up)",
    "learned_stand_in": "1: the learned policy (no search) plays for absent or timed-out "
    "players in place of stand_in_level; 0: stand_in_level plays",
    "learned_under_load": "1: while every bot worker is searching, a search level's decision is "
    "the learned policy's at once; 0: it waits for a worker",
    "bot_budget_s": "seconds one search-bot decision may take at most, from the request "
    "(each level has its own budget below it: 4: 0.3, 5 and 6: 0.5)",
    "review_samples": "deals each decision of a finished game's review is searched on (fewer: "
    "a quicker, rougher review on a slow machine; at least 1)",
    "max_frame_bytes": "largest inbound WebSocket frame (bigger: close 1009)",
    "send_queue": "frames (4 KB each) a slow client may leave unread before it is dropped",
    "commands_per_s": "inbound messages per second per connection",
    "chat_per_min": "chat lines per minute per connection",
    "hello_timeout_s": "seconds a new connection has to send hello before it is closed "
    "(1008; 0: no deadline)",
    "connections_per_address": "open WebSocket connections from one client address; the next "
    "one is closed with 1008 (0: no cap)",
    "tables_per_min": "tables one client address may create per minute, in bursts of as many "
    "(then: error rate_limited; 0: no limit)",
    "allowed_origins": "comma-separated browser origins (https://host[:port]) that may open a "
    "WebSocket besides the page's own; * allows any (others: HTTP 403)",
    "trusted_proxies": "comma-separated addresses or networks (CIDR) of reverse proxies whose "
    "X-Forwarded-For / X-Real-IP names the client; nobody else's is believed",
    "lease_s": "seconds a table's owner holds its lease before another process may take over",
    "store_timeout_s": "seconds a Redis command may take before it counts as failed (a move "
    "whose commit was not answered is then read back before anyone hears of it)",
    "resolve_s": "seconds an unanswered commit is read back while Redis is away before its "
    "mover is told storage is unavailable",
    "store_wait": "redis+sentinel://: replicas that must hold a move before its mover is told "
    "it was made (0: no wait: faster, but a failover may lose acknowledged moves); the URL's "
    "?wait=N, when given, wins",
    "store_wait_timeout_s": "redis+sentinel://: seconds a commit waits for those replicas "
    "before it counts as uncertain and is read back (0: the store timeout); the URL's "
    "?wait_timeout=S, when given, wins",
    "table_ttl_s": "seconds a table (finished or abandoned) is kept after its last move",
    "record_ttl_s": "seconds a finished game's record stays downloadable, also after its table "
    "expired (0: for ever)",
    "idle_unload_s": "seconds a table with nobody connected and nothing due stays in memory "
    "before it is unloaded (its state stays stored; 0: never)",
    "placement": "Redis: which process owns a table: first (the first to open it) or "
    "rendezvous (hashed over the live processes, as deploy/Caddyfile routes its sockets)",
    "web_root": "folder of the web client's static files",
    "log_format": "auto, json or console",
    "log_level": "debug, info, warning or error",
    "clubs": "comma-separated club names; each has a table with the stable link /t/<slug> and "
    "a page /c/<slug> (the slug: the name in lower case, accents dropped, spaces as -; "
    '"Club Loja" -> club-loja)',
    "push_contact": "Web Push: a mailto: or https: URL push services may reach the host at",
    "push_key_file": "Web Push: file of the server's VAPID private key, made at the first start "
    "(empty: kept in the store; the memory store then makes a new one each start)",
    "push_loopback": "Web Push: 1 lets browsers subscribe push endpoints on 127.0.0.1 (tests)",
    "disk_dir": "folder whose disk holds the data, watched for free space (/readyz and the "
    "host's page; empty: Redis's own folder when it is on this machine)",
    "disk_low_percent": "free space below this percentage of the disk (or below --disk-low-mb) "
    "is low: /readyz says so, the host's page shows it",
    "disk_low_mb": "free MiB below which (or below --disk-low-percent) the disk is low",
    "disk_full_percent": "free space below this percentage (or below --disk-full-mb) is full: "
    "/readyz answers 503",
    "disk_full_mb": "free MiB below which (or below --disk-full-percent) the disk is full",
    "clock_offset_s": "seconds added to the server's clock, for tests that let hours pass "
    "between restarts (0 for every real server)",
}

FLAG_NAMES: Mapping[str, str] = {
    "grace_s": "grace",
    "claim_window_s": "claim-window",
    "bot_delay_s": "bot-delay",
    "bot_budget_s": "bot-budget",
    "away_turn_s": "away-turn",
    "lease_s": "lease",
    "store_timeout_s": "store-timeout",
    "resolve_s": "resolve",
    "store_wait_timeout_s": "store-wait-timeout",
    "table_ttl_s": "table-ttl",
    "record_ttl_s": "record-ttl",
    "idle_unload_s": "idle-unload",
    "hello_timeout_s": "hello-timeout",
    "clock_offset_s": "clock-offset",
}


def flag_of(name: str) -> str:
    return "--" + FLAG_NAMES.get(name, name.replace("_", "-"))


def env_of(name: str) -> str:
    return "CUARENTA_" + FLAG_NAMES.get(name, name).replace("-", "_").upper()


def add_arguments(parser: argparse.ArgumentParser, env: Mapping[str, str] | None = None) -> None:
    """Add one flag per setting; its default comes from ``CUARENTA_*`` or the built-in value."""
    env = os.environ if env is None else env
    defaults = Settings()
    for item in fields(Settings):
        default = env.get(env_of(item.name))
        if default is None:
            value = getattr(defaults, item.name)
            default = ",".join(value) if isinstance(value, tuple) else str(value)
        parser.add_argument(
            flag_of(item.name),
            dest=item.name,
            default=default,
            metavar=item.name.upper().removesuffix("_S"),
            help=f"{HELP[item.name]} (env {env_of(item.name)}; default %(default)s)",
        )


def from_args(args: argparse.Namespace) -> Settings:
    """Build settings from parsed flags, converting each to its field's type."""
    values: dict[str, Any] = {}
    defaults = Settings()
    for item in fields(Settings):
        raw = getattr(args, item.name)
        current = getattr(defaults, item.name)
        if item.name == "clubs":
            values[item.name] = _clubs(str(raw))
        elif isinstance(current, tuple):
            values[item.name] = tuple(part.strip() for part in str(raw).split(",") if part.strip())
        elif isinstance(current, Path):
            values[item.name] = Path(raw)
        else:
            values[item.name] = type(current)(raw)
    settings = Settings(**values)
    if settings.review_samples < 1:
        samples = settings.review_samples
        raise SystemExit(f"cuarenta serve: --review-samples must be 1 or more, not {samples}")
    try:
        trusted_networks(settings)
    except ValueError as exc:
        raise SystemExit(f"cuarenta serve: {exc}") from None
    return settings


def _clubs(raw: str) -> tuple[str, ...]:
    try:
        return parse_clubs(raw)
    except ClubNameError as exc:
        raise SystemExit(f"cuarenta serve: {exc}") from None


def trusted_networks(
    settings: Settings,
) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """``trusted_proxies`` as networks (an address: a network of one); ValueError if malformed."""
    networks = []
    for entry in settings.trusted_proxies:
        try:
            networks.append(ipaddress.ip_network(entry.strip(), strict=False))
        except ValueError:
            raise ValueError(f"--trusted-proxies: not an address or network: {entry!r}") from None
    return tuple(networks)
