"""The edge of the server: who may open a socket, from where, and how many.

- ``OriginPolicy``: a browser's WebSocket upgrade is accepted from the page's own origin (the
  ``Origin`` header's host and port equal the request's ``Host``), from the origins of the
  allow-list (``--allowed-origins``; ``*`` allows any) or without an ``Origin`` (not a browser:
  the terminal and bot clients). Anything else is refused with HTTP 403, so a page on another
  site cannot open a socket to a player's table with the player's browser.
- ``client_address``: the address limits count by. Behind a proxy every connection comes from
  the proxy; its ``X-Forwarded-For`` (else ``X-Real-IP``) names the client, and is believed only
  when the peer is one of ``--trusted-proxies`` (anyone else could write the header).
- ``AddressLimits``: open connections per address (past the cap: close 1008), sockets per
  address still in their opening handshake, counted from the TCP accept (past the same cap:
  HTTP 429 and closed at once, see ``server.http``), tables created per minute per address
  (past it: ``rate_limited``) and games replayed per minute per address (``/replayed``, past
  it: HTTP 429).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from websockets.datastructures import Headers

from server.core.seating import TokenBucket

Network = ipaddress.IPv4Network | ipaddress.IPv6Network
DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}
WEB_SCHEME = {"http": "http", "ws": "http", "https": "https", "wss": "https"}
CANONICAL_PORT = re.compile(r"(?:\[[^\]]*\]|[^:\[\]]*)(?::[1-9][0-9]{0,4})?")
"""A netloc with no port, or a port of digits without a leading zero (IPv6 hosts bracketed)."""
MAX_TRACKED = 10_000
"""Addresses whose table bucket is kept; full (idle) buckets are forgotten beyond this."""
REPLAYS_PER_MIN = 30.0
"""Games one address may have replayed a minute (each costs milliseconds of the loop's CPU)."""


def _single(headers: Headers, name: str) -> str | None:
    """A header's one value; None when absent or repeated (a repeated Origin is refused)."""
    values = headers.get_all(name)
    return values[0].strip() if len(values) == 1 else None


def _host_port(netloc: str, default_port: int | None) -> tuple[str, int | None] | None:
    """``host[:port]`` as (lower-cased host, port or the scheme's default); None if malformed.

    A port is written as browsers write it: digits without a leading zero (``:08765`` or an
    empty ``:`` is no origin a browser sends)."""
    if not CANONICAL_PORT.fullmatch(netloc):
        return None
    try:
        parts = urlsplit("//" + netloc)
        host, port = parts.hostname, parts.port
    except ValueError:
        return None
    if not host or parts.username is not None or parts.path not in ("", "/"):
        return None
    return host.lower(), port if port is not None else default_port


def _origin_key(origin: str) -> tuple[str, str, int | None] | None:
    """(scheme, host, port) of an origin such as ``https://club.example:8443``; ``ws``/``wss``
    are written as ``http``/``https`` (the same origin)."""
    try:
        parts = urlsplit(origin.strip())
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in DEFAULT_PORTS:
        return None
    found = _host_port(parts.netloc, DEFAULT_PORTS[scheme])
    return None if found is None else (WEB_SCHEME[scheme], *found)


def request_scheme(peer: str, headers: Headers, proxies: Sequence[Network]) -> str | None:
    """The scheme the browser used, when known: a trusted proxy's ``X-Forwarded-Proto``.

    The server itself speaks plain HTTP; behind a proxy it cannot tell a TLS page from a plain
    one unless the proxy says so, and nobody else is believed."""
    if not trusted(peer, proxies):
        return None
    said = _single(headers, "X-Forwarded-Proto")
    scheme = said.split(",")[0].strip().lower() if said else ""
    return WEB_SCHEME.get(scheme)


@dataclass(frozen=True, slots=True)
class OriginPolicy:
    """Which browser origins may open a WebSocket (module docstring)."""

    allowed: tuple[str, ...] = ()

    @property
    def any(self) -> bool:
        return "*" in self.allowed

    def allows(self, headers: Headers, scheme: str | None = None) -> bool:
        """True if the upgrade with these request headers may proceed.

        ``scheme``: the page's own scheme when known (``request_scheme``): the Origin's must
        be the same, and a ``Host`` without a port means that scheme's default port. Unknown,
        the ``Host`` is read with the Origin's own default port (a TLS proxy in front)."""
        if not headers.get_all("Origin"):
            return True  # not a browser: a browser always sends Origin on a WebSocket upgrade
        if self.any:
            return True
        origin = _single(headers, "Origin")
        key = _origin_key(origin) if origin is not None else None
        if key is None:
            return False  # "null" (a sandboxed page, a file), repeated or malformed
        if key in {_origin_key(each) for each in self.allowed}:
            return True
        host = _single(headers, "Host")
        origin_scheme, origin_host, origin_port = key
        if scheme is not None and scheme != origin_scheme:
            return False  # a plain-HTTP page may not open the TLS site's sockets, nor the reverse
        page_scheme = scheme or origin_scheme
        same = _host_port(host, DEFAULT_PORTS[page_scheme]) if host is not None else None
        return same == (origin_host, origin_port)


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def trusted(address: str, proxies: Sequence[Network]) -> bool:
    """True if ``address`` is one of the trusted reverse proxies (``--trusted-proxies``)."""
    ip = _ip(address)
    return ip is not None and any(ip in network for network in proxies)


def client_address(peer: str, headers: Headers, proxies: Sequence[Network]) -> str:
    """The client's address: the socket's peer, or what a trusted proxy says it forwarded.

    ``X-Forwarded-For`` is read from the right (each proxy appends the address it saw): the
    first entry that is not itself a trusted proxy is the client. Only a trusted peer's header
    is read at all; an untrusted peer's is ignored, whatever it says.
    """
    if not trusted(peer, proxies):
        return peer
    forwarded = [
        part.strip()
        for value in headers.get_all("X-Forwarded-For")
        for part in value.split(",")
        if part.strip()
    ]
    for hop in reversed(forwarded):
        if _ip(hop) is None:
            return peer  # a malformed chain: count the proxy itself, never a made-up name
        if not trusted(hop, proxies):
            return str(_ip(hop))
    real = _single(headers, "X-Real-IP")
    if not forwarded and real is not None and _ip(real) is not None:
        return str(_ip(real))
    return str(_ip(forwarded[0])) if forwarded else peer


@dataclass(slots=True)
class AddressLimits:
    """Per-address counters: open connections and tables created per minute (0: no limit)."""

    connections_per_address: int
    tables_per_min: float
    open: dict[str, int] = field(default_factory=dict)
    opening: dict[str, int] = field(default_factory=dict)  # sockets not yet upgraded
    tables: dict[str, TokenBucket] = field(default_factory=dict)

    def start_opening(self, address: str) -> bool:
        """Count a socket accepted from ``address`` until its upgrade ends; False past the cap.

        Counted from the TCP accept, so requests left half-sent cannot hold a file descriptor
        each: an address has at most as many sockets in their opening handshake as it may
        hold open connections.
        """
        count = self.opening.get(address, 0)
        if self.connections_per_address and count >= self.connections_per_address:
            return False
        self.opening[address] = count + 1
        return True

    def end_opening(self, address: str) -> None:
        _decrement(self.opening, address)

    def opening_refusal(self) -> bytes:
        """The whole HTTP answer to a socket past the opening cap (sent before it is closed)."""
        body = (
            "too many connections opening from your address "
            f"(limit {self.connections_per_address})\n"
        ).encode()
        head = (
            "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain; charset=utf-8\r\n"
            f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
        )
        return head.encode() + body

    def connect(self, address: str) -> bool:
        """Count a new connection from ``address``; False (nothing counted) past the cap."""
        count = self.open.get(address, 0)
        if self.connections_per_address and count >= self.connections_per_address:
            return False
        self.open[address] = count + 1
        return True

    def disconnect(self, address: str) -> None:
        _decrement(self.open, address)

    replays_per_min: float = REPLAYS_PER_MIN
    replays: dict[str, TokenBucket] = field(default_factory=dict)

    def allow_table(self, address: str, now: float) -> bool:
        """Take one table creation from ``address``'s bucket (burst: a minute's worth)."""
        return _take(self.tables, address, self.tables_per_min, now)

    def allow_replay(self, address: str, now: float) -> bool:
        """Take one replayed game (``/replayed``: a whole game through the engine) likewise."""
        return _take(self.replays, address, self.replays_per_min, now)


def _take(buckets: dict[str, TokenBucket], address: str, per_min: float, now: float) -> bool:
    """One token from ``address``'s bucket of ``per_min`` a minute (0: no limit)."""
    if not per_min:
        return True
    bucket = buckets.get(address)
    if bucket is None:
        if len(buckets) >= MAX_TRACKED:
            _forget_idle(buckets, now)
        bucket = buckets[address] = TokenBucket(rate=per_min / 60, burst=max(1.0, per_min))
    return bucket.allow(now)


def _forget_idle(buckets: dict[str, TokenBucket], now: float) -> None:
    """Drop the buckets that have filled up again: forgetting them changes nothing."""
    for address, bucket in list(buckets.items()):
        if bucket.tokens + (now - bucket.stamp) * bucket.rate >= bucket.burst:
            del buckets[address]


def _decrement(counts: dict[str, int], address: str) -> None:
    count = counts.get(address, 0) - 1
    if count > 0:
        counts[address] = count
    else:
        counts.pop(address, None)
