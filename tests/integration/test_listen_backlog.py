"""Issue 19 item 5: every front end listens with a production backlog (1024, a
setting; an endpoint's own ``backlog=`` wins), and a burst of 500 MNM connects, as a
course's clients make at a deadline, all get their banner."""

from __future__ import annotations

import selectors
import socket
import subprocess
import time

import pytest

from hub.service import DEFAULT_BACKLOG, with_backlog
from tests.hubprocess import HubProcess

LOOPBACK = "tcp:0:interface=127.0.0.1"
BURST = 500


@pytest.mark.parametrize(
    ("description", "expected"),
    [
        ("tcp:4000", "tcp:4000:backlog=1024"),
        ("tcp:0:interface=127.0.0.1", "tcp:0:interface=127.0.0.1:backlog=1024"),
        ("tcp6:4000", "tcp6:4000:backlog=1024"),
        ("ssl:4443:privateKey=k.pem", "ssl:4443:privateKey=k.pem:backlog=1024"),
        ("tcp:4000:backlog=64", "tcp:4000:backlog=64"),
        ("unix:/tmp/hub.sock", "unix:/tmp/hub.sock"),
    ],
)
def test_a_tcp_or_tls_endpoint_gets_the_backlog_unless_it_names_one(description, expected):
    assert with_backlog(description, DEFAULT_BACKLOG) == expected


def _listen_backlog(port: int) -> int:
    """The backlog of the socket listening on ``port`` (``ss``: Send-Q of a listener)."""
    out = subprocess.run(
        ["ss", "-Hltn", f"sport = :{port}"], capture_output=True, text=True, check=True
    ).stdout
    fields = out.split()
    assert fields, f"nothing listens on {port}"
    return int(fields[2])


def _somaxconn() -> int:
    with open("/proc/sys/net/core/somaxconn") as f:
        return int(f.read())


def test_front_ends_listen_with_the_backlog_and_500_mnm_connects_get_their_banner(tmp_path):
    hub = HubProcess(tmp_path, mnm=LOOPBACK, xml=LOOPBACK + ":backlog=77", web=LOOPBACK)
    hub.extra = ["--set", "mnm_prolog_timeout=120"]
    with hub:
        cap = _somaxconn()
        assert _listen_backlog(hub.ports["mnm"]) == min(DEFAULT_BACKLOG, cap)
        assert _listen_backlog(hub.ports["web"]) == min(DEFAULT_BACKLOG, cap)
        assert _listen_backlog(hub.ports["xml"]) == 77  # the endpoint's own
        banners = _burst(hub.ports["mnm"], BURST)
        assert banners == [b"+ MNM Gameserver v3.1 accepting connections"] * BURST
    assert hub.errors() == [], hub.log()[-3000:]


def _burst(port: int, count: int, seconds: float = 60.0) -> list[bytes]:
    """Open ``count`` connections at once, then read each one's first line (bounded)."""
    sockets = []
    for _ in range(count):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(("127.0.0.1", port))
        sockets.append(s)
    selector = selectors.DefaultSelector()
    got = {s.fileno(): b"" for s in sockets}
    for s in sockets:
        selector.register(s, selectors.EVENT_READ)
    deadline = time.monotonic() + seconds
    try:
        while selector.get_map() and time.monotonic() < deadline:
            for key, _ in selector.select(timeout=1.0):
                chunk = key.fileobj.recv(4096)  # type: ignore[union-attr]
                got[key.fd] += chunk
                if not chunk or b"\n" in got[key.fd]:
                    selector.unregister(key.fileobj)
    finally:
        selector.close()
        for s in sockets:
            s.close()
    return [got[fd].split(b"\n", 1)[0].rstrip(b"\r") for fd in got]
