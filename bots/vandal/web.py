"""Attacks on the web front end: malformed requests, bodies over any limit, forged
``Host`` and ``Origin``, slow headers and bodies, many streams, pipelined floods."""

from __future__ import annotations

import json
import time
from collections import Counter

from .core import ATTACKS, Conn, Vandal, with_conn


def _http(path: str, method: str = "GET", host: str = "127.0.0.1", **headers: str) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}"]
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _status(conn: Conn, timeout: float) -> str:
    """The status code of the next answer (``closed`` or ``(nothing)`` without one)."""
    line = conn.line(timeout)
    if line is None:
        return "closed" if conn.closed else "(nothing)"
    parts = line.split(" ", 2)
    return parts[1] if len(parts) > 1 and parts[0].startswith("HTTP/") else line[:40]


HOSTILE_HTTP = [
    b"\r\n\r\n",
    b"GARBAGE\r\n\r\n",
    b"GET /api/health HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n",
    b"GET /%00%ff/../../etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    b"GET /static/../../hub/tap.py HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\n{{{{{",
    b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n",
    b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"x" * 20000 + b"\r\n\r\n",
    b"GET /api/games/" + b"a" * 5000 + b"/transcript?tail=-5 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
]


def web_malformed(v: Vandal) -> str:
    def body(conn: Conn) -> str:
        request = v.rng.choice(HOSTILE_HTTP)
        conn.send(request)
        answer = _status(conn, v.timeout())
        if answer.startswith("2") and b"../" in request:
            return f"ACCEPTED path {answer}"
        return answer

    return with_conn(v, body)


def web_oversized(v: Vandal) -> str:
    """A body declared far over any limit: refused before it is sent."""

    def body(conn: Conn) -> str:
        size = v.rng.choice([10**6, 2**30, 2**40])
        conn.send(_http("/api/games", "POST", Content_Type="application/json",
                        Content_Length=str(size)))  # fmt: skip
        answer = _status(conn, v.timeout())
        return f"ACCEPTED body of {size} bytes: {answer}" if answer.startswith("2") else answer

    return with_conn(v, body)


def web_forged(v: Vandal) -> str:
    """Writes that a page of another site could make: a foreign ``Host`` (DNS
    rebinding) or a foreign ``Origin``; a 2xx answer is a cheat accepted."""

    def body(conn: Conn) -> str:
        data = json.dumps({"type": "hello", "seats": ["open"]})
        host, origin = v.rng.choice(
            [
                ("evil.example:8080", "http://evil.example:8080"),
                ("127.0.0.1", "http://evil.example"),
            ]
        )
        conn.send(
            _http(
                "/api/games",
                "POST",
                host,
                Origin=origin,
                Content_Type="application/json",
                Content_Length=str(len(data)),
            )  # fmt: skip
            + data.encode()
        )
        answer = _status(conn, v.timeout())
        return f"ACCEPTED {host} from {origin}: {answer}" if answer.startswith("2") else answer

    return with_conn(v, body)


#: how long one slow web request drips (longer than the default header deadline)
SLOW_SECONDS = 15.0


def web_slow(v: Vandal) -> str:
    """Headers or a body one byte at a time, for at most :data:`SLOW_SECONDS` (beyond a
    hub's usual deadlines) and the time left."""

    def body(conn: Conn) -> str:
        if v.rng.random() < 0.5:
            conn.send(b"GET /api/health HTTP/1.1\r\n")
            drip = b"X"
        else:
            conn.send(_http("/api/games", "POST", Content_Length="1000") + b"{")
            drip = b" "
        stop = time.monotonic() + SLOW_SECONDS
        while v.left() > 0.1 and time.monotonic() < stop and conn.send(drip):
            answer = _status(conn, v.timeout(0.25))
            if answer != "(nothing)":
                return answer
        return "still open when the time was up"

    return with_conn(v, body)


def web_streams(v: Vandal) -> str:
    """Open many live event streams at once: the hub answers 200 up to its caps."""
    held: list[Conn] = []
    counts: Counter[str] = Counter()
    try:
        for _ in range(v.rng.randrange(50, 201)):
            if v.left() <= 0:
                break
            conn = v.connect()
            held.append(conn)
            conn.send(_http("/api/lobby/events", Accept="text/event-stream"))
            counts[_status(conn, v.timeout())] += 1
    finally:
        for conn in held:
            conn.close()
    return ", ".join(f"{status} x{n}" for status, n in counts.most_common(3))


def web_flood(v: Vandal) -> str:
    """Hundreds of pipelined requests on one connection."""

    def body(conn: Conn) -> str:
        conn.send(_http("/api/health") * v.rng.randrange(100, 501))
        answers = 0
        while _status(conn, v.timeout(0.5)) == "200":
            answers += 1
            while conn.line(v.timeout(0.5)) not in (None, ""):
                pass  # the headers
            if not conn.line(v.timeout(0.5)):  # the body: one line of JSON
                break
        return f"{answers} answers{', closed' if conn.closed else ''}"

    return with_conn(v, body)


ATTACKS["web"] = [web_malformed, web_oversized, web_forged, web_streams, web_flood, web_slow]
