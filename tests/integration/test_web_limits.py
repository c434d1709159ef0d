"""The web front end's limits, tried from outside on a real ``twistd -n gamehub``:
huge bodies, slow clients, connection and stream caps, DNS rebinding, game creation."""

from __future__ import annotations

import http.client
import json
import socket
import time

import pytest

from tests.hubprocess import LOOPBACK, HubProcess

HEADER_TIMEOUT = BODY_TIMEOUT = 2


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("limits")
    (tmp / "spool").mkdir()
    running = HubProcess(tmp, web=LOOPBACK, env={"TMPDIR": str(tmp / "spool")})
    running.extra = [
        "--set",
        f"web_header_timeout={HEADER_TIMEOUT}",
        "--set",
        f"web_body_timeout={BODY_TIMEOUT}",
        "--set",
        "create_burst=5",
        "--set",
        "create_rate=0.01",
        "--set",
        "web_chat_burst=5",
        "--set",
        "web_chat_rate=0.01",
    ]
    running.spool = tmp / "spool"
    with running:
        yield running
    assert running.errors() == [], running.log()[-3000:]


def _connect(hub, source: str = "127.0.0.1", timeout: float = 15) -> socket.socket:
    return socket.create_connection(
        ("127.0.0.1", hub.ports["web"]), timeout=timeout, source_address=(source, 0)
    )


def _read_all(sock: socket.socket) -> bytes:
    data = b""
    while True:
        try:
            chunk = sock.recv(65536)
        except (ConnectionResetError, TimeoutError):
            break
        if not chunk:
            break
        data += chunk
    return data


def _status(response: bytes) -> int:
    return int(response.split(b" ", 2)[1]) if response.startswith(b"HTTP/1.1 ") else 0


def _games(hub) -> list:
    return hub.get_json("/api/games")


def test_a_gigabyte_content_length_is_refused_before_any_body(hub):
    """Only the headers are sent: the 413 comes at once, nothing is spooled to disk."""
    before = len(_games(hub))
    sock = _connect(hub)
    sock.sendall(
        b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 1073741824\r\n\r\n"
    )
    answer = _read_all(sock)  # no body sent: the hub answers and closes
    sock.close()
    assert _status(answer) == 413 and b"larger than 65536 bytes" in answer
    assert list(hub.spool.iterdir()) == []
    assert len(_games(hub)) == before


def test_a_chunked_body_over_the_limit_is_refused(hub):
    sock = _connect(hub)
    sock.sendall(
        b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
    )
    chunk = b"x" * 16384
    try:
        for _ in range(8):
            sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    except OSError:
        pass  # refused and closed while we were still sending
    answer = _read_all(sock)
    sock.close()
    assert _status(answer) == 413
    assert list(hub.spool.iterdir()) == []


def _drip(sock: socket.socket, byte: bytes, seconds: float) -> bytes:
    """Send ``byte`` every 0.25 s until the hub answers (at most ``seconds`` + 10 s);
    then everything it sends until it closes."""
    answer = b""
    try:
        for _ in range(int(seconds * 4) + 40):
            sock.sendall(byte)
            time.sleep(0.25)
            sock.setblocking(False)
            try:
                answer += sock.recv(65536)
            except BlockingIOError:
                pass
            finally:
                sock.setblocking(True)
            if answer:
                break
    except OSError:
        pass  # closed while we were sending
    sock.settimeout(5)
    answer += _read_all(sock)
    sock.close()
    return answer


def test_header_slowloris_is_closed_within_the_header_timeout(hub):
    sock = _connect(hub, timeout=HEADER_TIMEOUT + 10)
    sock.sendall(b"GET /api/health HTTP/1.1\r\n")
    answer = _drip(sock, b"X", HEADER_TIMEOUT)
    assert _status(answer) == 408 and b"request headers" in answer


def test_body_slowloris_is_closed_within_the_body_timeout(hub):
    sock = _connect(hub, timeout=BODY_TIMEOUT + 10)
    sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{")
    answer = _drip(sock, b" ", BODY_TIMEOUT)
    assert _status(answer) == 408 and b"the body" in answer


def _open_stream(hub, source: str) -> tuple[socket.socket, int, bytes]:
    """A lobby event stream from ``source``: the socket, the status and (when refused)
    the answer's body."""
    sock = _connect(hub, source)
    sock.sendall(b"GET /api/lobby/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(4096)
        if not chunk:
            break
        head += chunk
    status = _status(head)
    body = head.split(b"\r\n\r\n", 1)[-1]
    if status != 200:
        body += _read_all(sock) if b"connection: close" in head.lower() else b""
        length = [int(line.split(b":")[1]) for line in head.lower().split(b"\r\n")
                  if line.startswith(b"content-length:")]  # fmt: skip
        while length and len(body) < length[0]:
            chunk = sock.recv(4096)
            if not chunk:
                break
            body += chunk
    return sock, status, body


def test_the_600th_stream_from_one_address_is_refused_while_another_gets_one(hub):
    """The streams of one address stop at web_max_streams_per_address (128), below its
    connection cap (256) and the global stream cap (1000): the refusals are the stream
    cap's; another address still opens one."""
    held, refusals, last = [], [], 0
    try:
        for _ in range(600):
            sock, last, body = _open_stream(hub, "127.0.0.1")
            if last == 200:
                held.append(sock)
            else:
                refusals.append(body)
                sock.close()
        assert last == 503  # the 600th
        assert len(held) == 128 and len(refusals) == 600 - 128
        assert all(b"too many live streams from 127.0.0.1" in body for body in refusals)
        other, status, _ = _open_stream(hub, "127.0.0.2")
        assert status == 200
        other.close()
    finally:
        for sock in held:
            sock.close()
    assert hub.get_json("/api/health")["status"] == "ok"


@pytest.mark.parametrize(
    ("method", "path"),
    [
        (b"PUT", b"/"),
        (b"DELETE", b"/game/abc"),
        (b"PXST", b"/"),
        (b"PATCH", b"/api/games"),
        (b"BREW", b"/api/chat"),
    ],
)
def test_a_method_an_address_does_not_take_is_405_with_its_allow_list(hub, method, path):
    """Whatever the method, a client's mistake is a 4xx (twisted.web alone would answer
    501, a server fault, for methods other than GET, HEAD and POST on a page)."""
    sock = _connect(hub)
    sock.sendall(
        method + b" " + path + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    answer = _read_all(sock)
    sock.close()
    head = answer.split(b"\r\n\r\n", 1)[0].lower()
    assert _status(answer) == 405, answer[:200]
    allow = [line for line in head.split(b"\r\n") if line.startswith(b"allow:")]
    assert allow and (b"get" in allow[0] or b"post" in allow[0]), head
    assert method.lower() not in allow[0]
    assert hub.get_json("/api/health")["status"] == "ok"


def test_a_rebinding_request_is_refused_and_creates_nothing(hub):
    before = len(_games(hub))
    conn = http.client.HTTPConnection("127.0.0.1", hub.ports["web"], timeout=15)
    conn.request(
        "POST",
        "/api/games",
        body=json.dumps({"type": "hello", "seats": ["open"]}),
        headers={
            "Host": "evil.example:8080",
            "Origin": "http://evil.example:8080",
            "Content-Type": "application/json",
        },
    )
    response = conn.getresponse()
    body = response.read()
    conn.close()
    assert 400 <= response.status < 500 and b"host name" in body
    assert len(_games(hub)) == before
    for host in ("evil.example", "127.0.0.1.evil.example"):
        status, _, _ = hub.request("GET", "/api/health", headers={"Host": host})
        assert status == 400
    for host in (f"localhost:{hub.ports['web']}", "127.0.0.1", "[::1]:80", "x.localhost"):
        status, _, _ = hub.request("GET", "/api/health", headers={"Host": host})
        assert status == 200, host


def _post_game(hub, source: str, cookie: str | None = None, csrf: str | None = None) -> int:
    conn = http.client.HTTPConnection(
        "127.0.0.1", hub.ports["web"], timeout=15, source_address=(source, 0)
    )
    headers = {"Content-Type": "application/json"}
    if cookie:
        headers |= {"Cookie": cookie, "X-CSRF-Token": csrf or ""}
    conn.request("POST", "/api/games", json.dumps({"type": "hello"}), headers)
    response = conn.getresponse()
    response.read()
    conn.close()
    return response.status


def _guest(hub, source: str) -> tuple[http.client.HTTPConnection, dict[str, str]]:
    """A connection from ``source`` with a new guest session; the headers of its
    writes (cookie, CSRF token)."""
    conn = http.client.HTTPConnection(
        "127.0.0.1", hub.ports["web"], timeout=15, source_address=(source, 0)
    )
    conn.request("GET", "/api/session")
    response = conn.getresponse()
    csrf = json.loads(response.read())["csrf"]
    cookie = response.getheader("Set-Cookie").split(";")[0]
    return conn, {"Cookie": cookie, "X-CSRF-Token": csrf, "Content-Type": "application/json"}


def _log_in(hub, source: str, name: str) -> tuple[str, str]:
    conn, headers = _guest(hub, source)
    body = json.dumps({"name": name, "password": "pw-creator-1"})
    conn.request("POST", "/api/accounts", body, headers)
    response = conn.getresponse()
    answer = json.loads(response.read())
    conn.close()
    assert response.status == 201, answer
    return response.getheader("Set-Cookie").split(";")[0], answer["csrf"]


def test_game_creation_is_rate_limited_per_address_and_per_account(hub):
    statuses = [_post_game(hub, "127.0.0.3") for _ in range(7)]
    assert statuses[:5] == [201] * 5 and statuses[5:] == [429, 429]
    assert _post_game(hub, "127.0.0.4") == 201  # another address
    cookie, csrf = _log_in(hub, "127.0.0.5", "creator")
    statuses = [_post_game(hub, f"127.0.0.{6 + n}", cookie, csrf) for n in range(7)]
    assert statuses[:5] == [201] * 5 and statuses[5:] == [429, 429]  # the same account


def _guest_says(hub, source: str, text: str, path: str = "/api/chat") -> int:
    """A new guest session from ``source`` says ``text``; the answer's status."""
    conn, headers = _guest(hub, source)
    conn.request("POST", path, json.dumps({"text": text}), headers)
    response = conn.getresponse()
    response.read()
    conn.close()
    return response.status


def test_chat_is_rate_limited_per_address_whatever_the_guest_names(hub):
    """Each guest session has a name of its own (and the chat service's limit per
    speaker); one address still says at most web_chat_burst lines, table or lobby."""
    assert _post_game(hub, "127.0.0.22") == 201
    game_id = hub.get_json("/api/games")[0]["id"]
    statuses = [_guest_says(hub, "127.0.0.20", f"flood {n}") for n in range(4)]
    statuses += [_guest_says(hub, "127.0.0.20", f"flood {n}", f"/api/games/{game_id}/chat")
                 for n in range(4, 7)]  # fmt: skip
    assert statuses == [200] * 5 + [429, 429]
    assert _guest_says(hub, "127.0.0.21", "another address") == 200
    conn = http.client.HTTPConnection("127.0.0.1", hub.ports["web"], timeout=15)
    conn.request("GET", "/api/lobby/events", headers={"Accept": "text/event-stream"})
    response = conn.getresponse()
    snapshot = b""
    while b"event: snapshot" not in snapshot or not snapshot.endswith(b"\n\n"):
        snapshot += response.read1(65536)
    conn.close()
    said = [t for t in (f"flood {n}" for n in range(7)) if t.encode() in snapshot]
    assert said == [f"flood {n}" for n in range(4)] and b"another address" in snapshot


def test_connections_over_the_per_address_cap_get_503(tmp_path):
    small = HubProcess(tmp_path, web=LOOPBACK)
    small.extra = ["--set", "web_max_per_address=10"]
    with small:
        held = [_connect(small) for _ in range(10)]
        try:
            extra = _connect(small)
            assert _status(_read_all(extra)) == 503
            extra.close()
            other = _connect(small, "127.0.0.2")
            other.sendall(
                b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            )
            assert _status(_read_all(other)) == 200
            other.close()
        finally:
            for sock in held:
                sock.close()
        time.sleep(0.5)
        assert small.get_json("/api/health")["status"] == "ok"  # the count went back down
    assert small.errors() == []
