"""The client's address: the socket peer, or what a trusted proxy forwarded for."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from app.api.edges.client_address import client_address, forwarded_chain, parse_proxies, too_wide

PROXIES = parse_proxies(["10.0.0.0/8", "192.0.2.1", "2001:db8::/32"])


def xff(value: str) -> list[tuple[bytes, bytes]]:
    return [(b"x-forwarded-for", value.encode())]


def test_an_untrusted_peer_is_the_client_whatever_it_forwards() -> None:
    assert client_address("203.0.113.5", xff("198.51.100.1"), PROXIES) == "203.0.113.5"


def test_without_trusted_proxies_the_headers_are_never_read() -> None:
    assert client_address("10.0.0.1", xff("198.51.100.1"), ()) == "10.0.0.1"


def test_a_trusted_proxy_gives_the_right_most_untrusted_address() -> None:
    # given a client that wrote its own X-Forwarded-For, behind two trusted proxies
    headers = xff("1.1.1.1, 198.51.100.7, 10.0.0.2")

    # when the second proxy (10.0.0.3) relays it
    found = client_address("10.0.0.3", headers, PROXIES)

    # then the address the first proxy saw is the client, not the forged one
    assert found == "198.51.100.7"


def test_forwarded_is_read_when_there_is_no_x_forwarded_for() -> None:
    headers = [(b"Forwarded", b'for=198.51.100.9;proto=https, for="[2001:db8::5]:4711"')]

    assert forwarded_chain(headers) == ["198.51.100.9", "2001:db8::5"]
    assert client_address("192.0.2.1", headers, PROXIES) == "198.51.100.9"


def test_a_trusted_proxy_that_forwards_nothing_is_the_client() -> None:
    assert client_address("10.0.0.3", [], PROXIES) == "10.0.0.3"


def test_a_proxy_must_be_an_address_or_a_range() -> None:
    with pytest.raises(ValueError, match=r"not 'proxy\.example'"):
        parse_proxies(["proxy.example"])


addresses = st.ip_addresses(v=4).filter(
    lambda a: not any(a in n for n in PROXIES if isinstance(n, ipaddress.IPv4Network))
)


@given(
    forged=st.lists(st.one_of(addresses.map(str), st.text(max_size=12)), max_size=4),
    client=addresses,
    hops=st.integers(min_value=0, max_value=3),
)
def test_what_a_client_writes_before_its_own_address_never_matters(
    forged: list[str], client: ipaddress.IPv4Address, hops: int
) -> None:
    # given whatever the client put in X-Forwarded-For, then its real address appended by the
    # first trusted proxy and the addresses of further trusted proxies
    chain = [*(f.replace(",", "") for f in forged), str(client)]
    chain += [f"10.0.0.{n}" for n in range(hops)]

    # when the last trusted proxy relays the request
    found = client_address("10.9.9.9", xff(", ".join(chain)), PROXIES)

    # then the client is the address the first proxy saw
    assert found == str(client)


@pytest.mark.parametrize(
    "forwarded",
    ["not-an-address", "unknown", "203.0.113.7, evil.example", "_hidden", "203.0.113.7, 999.1.1.1"],
)
def test_a_forwarded_value_that_is_not_an_address_is_ignored(forwarded: str) -> None:
    # given a trusted proxy that forwarded a value which is not an address
    proxies = parse_proxies(["10.0.0.1"])
    # then the client is the right-most real address, or the proxy when there is none
    found = client_address("10.0.0.1", xff(forwarded), proxies)
    assert found in ("203.0.113.7", "10.0.0.1")
    assert found is not None and ipaddress.ip_address(found)


def test_trusting_every_address_is_told_apart() -> None:
    # given trusted ranges, two of which take in every address
    proxies = parse_proxies(["10.0.0.0/8", "0.0.0.0/0", "::/0"])
    # then exactly those are the ones a server warns about
    assert [str(n) for n in too_wide(proxies)] == ["0.0.0.0/0", "::/0"]


def test_basra_serve_warns_when_a_trusted_proxy_trusts_every_address(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from cli.cmd_serve import _access_settings

    for name in ("BASRA_TRUSTED_PROXIES", "BASRA_CORS_ORIGINS", "BASRA_RATE_LIMITS"):
        monkeypatch.setenv(name, "")  # restored after the test: the options write them
    summary = _access_settings([], ["0.0.0.0/0"], [])
    assert "warning: --trusted-proxy 0.0.0.0/0 trusts every address" in summary
    assert "warning" not in _access_settings([], ["10.0.0.1"], [])
