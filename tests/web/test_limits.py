"""The web front end's Host allow-list (DNS rebinding), without sockets."""

from __future__ import annotations

import socket

import pytest

from hub.frontends.web.limits import (
    LOOPBACK_NAMES,
    HostPolicy,
    WebLimits,
    endpoint_names,
    host_name,
)


@pytest.mark.parametrize(
    ("header", "name"),
    [
        (b"127.0.0.1:8080", "127.0.0.1"),
        (b"Games.Example.ORG.", "games.example.org"),
        (b"evil.example:8080", "evil.example"),
        (b"[::1]:80", "::1"),
        (b"[::1]", "::1"),
        (b"", None),
        (None, None),
    ],
)
def test_the_host_name_of_a_host_header(header, name):
    assert host_name(header) == name


def test_loopback_names_and_the_connections_own_address_are_allowed():
    policy = HostPolicy([], ["192.0.2.7"])
    for host in ("localhost", "x.localhost", "127.0.0.1", "127.8.9.10", "::1", "192.0.2.7"):
        assert policy.allows(host, "192.0.2.7"), host
    for host in ("evil.example", "localhost.evil.example", "127.0.0.1.evil.example"):
        assert not policy.allows(host, "192.0.2.7"), host
    assert not policy.allows("192.0.2.8", "192.0.2.7")  # another address of the machine
    assert policy.names == LOOPBACK_NAMES | {"192.0.2.7"}  # no host name: not a wildcard
    assert policy.allows(None, "192.0.2.7")  # no Host header: no browser


def test_a_wildcard_endpoint_adds_this_machines_name_and_settings_add_more():
    wildcard = HostPolicy([], endpoint_names("tcp:8080"))
    assert endpoint_names("tcp:8080") == ["0.0.0.0"]
    assert wildcard.allows(socket.gethostname().lower(), "192.0.2.7")
    assert not wildcard.allows("evil.example", "192.0.2.7")
    limits = WebLimits(
        {"web_allowed_hosts": "games.example.org, Other.Example "},
        "tcp:8080:interface=192.0.2.7",
    )
    assert limits.hosts.allows("games.example.org", "192.0.2.7")
    assert limits.hosts.allows("other.example", "192.0.2.7")
    assert not limits.hosts.allows("evil.example", "192.0.2.7")
    assert WebLimits({"web_allowed_hosts": "*"}).hosts.allows("evil.example", "192.0.2.7")
