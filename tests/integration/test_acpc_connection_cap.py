"""The ACPC front end bounds its open connections (``acpc_max_per_address``,
``acpc_max_connections``), tried from outside on a real ``twistd -n gamehub``: past a
bound a program is told why and closed; a connection that goes makes room."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from tests.hubprocess import LOOPBACK, HubProcess


def _connect(port: int, source: str) -> tuple[socket.socket, str]:
    """A connection from ``source`` and its first line after a line the hub ignores
    with a warning (an accepted connection) or its refusal (a refused one)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=15, source_address=(source, 0))
    try:
        sock.sendall(b"not a version\r\n")
    except OSError:
        pass  # refused and closed already
    line = sock.makefile("rb").readline(1024).decode("ascii", "replace").strip()
    return sock, line


def test_the_acpc_port_refuses_past_its_bounds(tmp_path: Path):
    hub = HubProcess(tmp_path, acpc=LOOPBACK)
    hub.extra += ["--set", "acpc_max_per_address=3", "--set", "acpc_max_connections=5"]
    opened: list[socket.socket] = []
    with hub:
        port = hub.ports["acpc"]
        try:
            for _ in range(3):
                sock, line = _connect(port, "127.0.0.1")
                opened.append(sock)
                assert line.startswith("# warning"), line
            sock, line = _connect(port, "127.0.0.1")
            assert line == "# refused: too many connections from 127.0.0.1 (3 open)", line
            assert sock.recv(1) == b""  # closed
            sock.close()
            for _ in range(2):
                sock, line = _connect(port, "127.0.0.2")
                opened.append(sock)
                assert line.startswith("# warning"), line
            sock, line = _connect(port, "127.0.0.3")
            assert line == "# refused: too many connections (5 open); try again later", line
            sock.close()
            opened.pop(0).close()  # room for one again, once the hub saw it go
            for _ in range(100):
                sock, line = _connect(port, "127.0.0.3")
                if line.startswith("# warning"):
                    opened.append(sock)
                    break
                sock.close()
                time.sleep(0.05)
            else:
                raise AssertionError(line)
        finally:
            for sock in opened:
                sock.close()
    assert hub.errors() == [], hub.log()[-3000:]
