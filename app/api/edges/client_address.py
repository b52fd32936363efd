"""The client's address: the socket peer, or the address a trusted proxy forwarded for.

A proxy in front of the API is the socket peer of every request it relays; the client it
relays for is named in ``X-Forwarded-For`` (or ``Forwarded``), which anyone can write. So the
headers are read only when the peer is a configured trusted proxy, and then from the right:
each proxy appends the address it received from, so the right-most address that is not a
trusted proxy is the first one no trusted party vouches for past (docs/api.md, "CORS and
limits").
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Sequence
from typing import TypeAlias

Network: TypeAlias = ipaddress.IPv4Network | ipaddress.IPv6Network
"""One trusted address or range."""


def parse_proxies(values: Iterable[str]) -> tuple[Network, ...]:
    """Addresses or CIDR ranges (``10.0.0.1``, ``10.0.0.0/8``, ``::1``); ValueError on others."""
    networks: list[Network] = []
    for value in values:
        text = value.strip()
        if not text:
            continue
        try:
            networks.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            raise ValueError(
                f"a trusted proxy must be an IP address or a CIDR range, not {text!r}"
            ) from None
    return tuple(networks)


def _address(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _trusted(text: str, proxies: Sequence[Network]) -> bool:
    address = _address(text)
    return address is not None and any(address in network for network in proxies)


def _forwarded_for(value: str) -> list[str]:
    """The ``for=`` of each element of a ``Forwarded`` header (RFC 7239), ports dropped."""
    found: list[str] = []
    for element in value.split(","):
        for pair in element.split(";"):
            name, _, raw = pair.strip().partition("=")
            if name.strip().lower() != "for":
                continue
            text = raw.strip().strip('"')
            if text.startswith("["):  # "[2001:db8::1]:4711"
                text = text[1:].partition("]")[0]
            elif text.count(":") == 1:  # "192.0.2.60:8080"
                text = text.partition(":")[0]
            found.append(text)
    return found


def forwarded_chain(headers: Iterable[tuple[bytes, bytes]]) -> list[str]:
    """The addresses a request was forwarded for, left to right: X-Forwarded-For, else Forwarded."""
    xff: list[str] = []
    rfc: list[str] = []
    for name, value in headers:
        lowered = name.lower()
        if lowered == b"x-forwarded-for":
            xff.extend(part.strip() for part in value.decode("latin-1").split(","))
        elif lowered == b"forwarded":
            rfc.extend(_forwarded_for(value.decode("latin-1")))
    return [entry for entry in (xff or rfc) if entry]


def client_address(
    peer: str | None, headers: Iterable[tuple[bytes, bytes]], proxies: Sequence[Network]
) -> str | None:
    """The client's address: ``peer`` unless it is a trusted proxy (then what it forwarded for)."""
    if peer is None or not proxies or not _trusted(peer, proxies):
        return peer
    # A forwarded value that is not an address (a name, "unknown", garbage) vouches for
    # nothing: it is ignored, so no client can pick the key its limits are counted under.
    chain = [address for address in map(_address, forwarded_chain(headers)) if address]
    for address in reversed(chain):
        if not any(address in network for network in proxies):
            return address.compressed
    return chain[0].compressed if chain else peer  # every hop trusted: the first one asked


def too_wide(proxies: Sequence[Network]) -> list[Network]:
    """The trusted ranges that take in every address of their kind (``0.0.0.0/0``, ``::/0``):
    with one, any client can name its own address by sending ``X-Forwarded-For``."""
    return [network for network in proxies if network.prefixlen == 0]
