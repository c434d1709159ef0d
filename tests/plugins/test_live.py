"""Plugins against a running ``twistd -n gamehub`` on real loopback sockets.

``test_write_zip_and_drop_a_plugin`` performs exactly the steps of docs/plugins.md
("Write, zip and drop a plugin").
"""

from __future__ import annotations

import hashlib
import http.client
import json
import shutil
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from twisted.internet.task import Clock

from hub.plugins.registry import LOADED, Registry
from tests.hubprocess import ROOT, HubProcess
from tests.support import wait_until

from .helpers import FIXTURES

#: The acceptance bound: a dropped plugin is listed within this many seconds.
PICKUP_SECONDS = 5.0


@pytest.fixture
def hub(tmp_path):
    with HubProcess(tmp_path, web="tcp:0:interface=127.0.0.1") as running:
        yield running


def plugins(hub: HubProcess) -> dict[str, dict]:
    return {p["name"]: p for p in hub.get_json("/plugins/index.json")["plugins"]}


def wait_for(hub: HubProcess, check, what: str) -> dict[str, dict]:
    """Poll the index (bounded by PICKUP_SECONDS) until ``check(index)`` holds."""
    seen: list[dict[str, dict]] = [{}]

    def found() -> bool:
        seen[0] = plugins(hub)
        return bool(check(seen[0]))

    try:
        wait_until(found, what, PICKUP_SECONDS, step=0.1)
        return seen[0]
    except AssertionError as e:
        raise AssertionError(f"{e}: {seen[0]}") from None


def gamehub(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """Run the ``gamehub`` console command from this checkout."""
    return subprocess.run(
        [sys.executable, "-c", "import sys; from hub.cli import main; sys.exit(main())", *args],
        cwd=cwd,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_write_zip_and_drop_a_plugin(hub, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    # 1. Copy the hello package under a new name and rename the game in server.py.
    shutil.copytree(
        ROOT / "games" / "hello", work / "greet", ignore=shutil.ignore_patterns("__pycache__")
    )
    server = work / "greet" / "server.py"
    text = server.read_text()
    assert text.count('name = "hello"') == 1
    server.write_text(text.replace('name = "hello"', 'name = "greet"'))
    # 2. Zip the package folder.
    subprocess.run(
        [sys.executable, "-m", "zipfile", "-c", "greet-1.0.0.zip", "greet"], cwd=work, check=True
    )
    digest = hashlib.sha256((work / "greet-1.0.0.zip").read_bytes()).hexdigest()
    # 3. Write its .meta.
    (work / "greet.meta").write_text(
        "[plugin]\n"
        'name = "greet"\n'
        'kind = "game"\n'
        'version = "1.0.0"\n'
        'summary = "hello, renamed"\n'
        'package = "greet-1.0.0.zip"\n'
        'server = "greet.server:HelloGameFactory"\n'
        'client = "greet.client"\n'
        'frontends = ["xml", "web"]\n'
        f'sha256 = "{digest}"\n'
    )
    # 4. Drop the archive, then the .meta, into the running hub's data folder.
    shutil.copy(work / "greet-1.0.0.zip", hub.data / "plugins" / "greet-1.0.0.zip")
    shutil.copy(work / "greet.meta", hub.data / "plugins" / "meta" / "greet.meta")
    # 5. It is listed as loaded within 5 seconds...
    index = wait_for(hub, lambda i: i.get("greet", {}).get("status") == "loaded", "greet loaded")
    assert index["greet"]["sha256"] == digest
    assert index["greet"]["url"] == "/plugins/greet/greet-1.0.0.zip"
    # ... and a game of it can be created.
    status, body, _ = hub.request("POST", "/api/games", {"type": "greet", "seats": ["open"]})
    assert status == 201, body
    game = json.loads(body)
    assert game["type"] == "greet"
    # 6. Deleting the .meta removes it from the index; the running game stays.
    (hub.data / "plugins" / "meta" / "greet.meta").unlink()
    wait_for(hub, lambda i: "greet" not in i, "greet removed")
    assert hub.get_json(f"/api/games/{game['id']}")["type"] == "greet"
    status, body, _ = hub.request("POST", "/api/games", {"type": "greet"})
    assert status == 404
    assert hub.errors() == []


def test_missing_method_listed_failed_and_hub_keeps_serving(hub, tmp_path):
    shutil.copytree(FIXTURES / "nomethod", hub.data / "plugins" / "nomethod")
    (hub.data / "plugins" / "meta" / "nomethod.meta").write_text(
        '[plugin]\nname = "nomethod"\nkind = "game"\nversion = "1.0"\n'
        'package = "nomethod"\nserver = "nomethod.server:NoCreateFactory"\n'
    )
    # imports run off the reactor thread: the plugin is "loading" until its import ends
    index = wait_for(
        hub,
        lambda i: i.get("nomethod", {}).get("status") not in (None, "loading"),
        "nomethod's import ended",
    )
    assert index["nomethod"]["status"] == "failed"
    assert "missing method create" in index["nomethod"]["reason"]
    assert index["hello"]["status"] == "loaded"
    assert hub.get_json("/api/health")["status"] == "ok"
    status, _, _ = hub.request("POST", "/api/games", {"type": "hello"})
    assert status == 201
    assert "missing method create" in hub.log()
    assert hub.get_json("/api/plugins") == hub.get_json("/plugins/index.json")


def test_fetch_from_a_running_hub(hub, tmp_path):
    into = tmp_path / "client"
    done = gamehub("fetch", "hello", "--hub", hub.url(""), "--into", str(into), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    index = plugins(hub)
    package = into / "plugins" / index["hello"]["file"]
    assert hashlib.sha256(package.read_bytes()).hexdigest() == index["hello"]["sha256"]
    registry = Registry(into, Clock(), None)
    registry.load()
    assert [(r.name, r.status) for r in registry.plugins()] == [("hello", LOADED)]

    done = gamehub("fetch", "nothing", "--hub", hub.url(""), "--into", str(into), cwd=tmp_path)
    assert done.returncode == 1 and "no plugin 'nothing'" in done.stderr


#: ``/plugins`` itself is the web front end's plugins page (spec web.md), not a listing
PLUGINS_PAGE = ("/plugins", "/plugins/")
TRAVERSALS = [
    "/plugins/hello/",
    "/plugins/../hub.log",
    "/plugins/%2e%2e/hub.log",
    "/plugins/hello/..%2f..%2fhub.log",
    "/plugins/hello/%2e%2e%2f%2e%2e%2fhub.log",
    "/plugins/hello/..\\..\\hub.log",
    "/plugins/hello/%5c..%5chub.log",
    "/plugins/hello/%00",
    "/plugins/hello/hello-1.0.0.zip%00.meta",
    "/plugins/meta/hello.meta",
]


def test_traversal_over_the_wire(hub):
    for path in TRAVERSALS:
        connection = http.client.HTTPConnection("127.0.0.1", hub.ports["web"], timeout=10)
        connection.putrequest("GET", path, skip_accept_encoding=True)
        connection.endheaders()
        response = connection.getresponse()
        body = response.read()
        connection.close()
        assert response.status == 404, (path, response.status)
        assert b"twistd" not in body
    for path in PLUGINS_PAGE:
        status, body, headers = hub.request("GET", path)
        assert status == 200 and headers["Content-Type"].startswith("text/html"), path
        assert b"/static/plugins.js" in body and b".zip" not in body  # the page, no listing
    assert hub.errors() == []


class _BadServer:
    """A stdlib HTTP server that serves a true index, then a package cut short
    (``tamper=False``) or with one byte changed (``tamper=True``)."""

    def __init__(self, package: bytes, tamper: bool = False) -> None:
        self.package = package
        self.tamper = tamper
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        self.sock.settimeout(30)
        for _ in range(4):
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                request = conn.recv(65536).decode("latin-1")
                path = request.split(" ")[1] if " " in request else ""
                if path == "/plugins/index.json":
                    entry = {
                        "name": "cut",
                        "kind": "game",
                        "status": "loaded",
                        "file": "cut-1.zip",
                        "url": "/plugins/cut/cut-1.zip",
                        "meta_url": "/plugins/cut/cut.meta",
                        "size": len(self.package),
                        "sha256": hashlib.sha256(self.package).hexdigest(),
                    }
                    body = json.dumps({"plugins": [entry]}).encode()
                    conn.sendall(
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(body) + body
                    )
                else:
                    body = bytearray(self.package)
                    if self.tamper:
                        body[len(body) // 3] ^= 0x20
                    else:
                        del body[len(body) // 2 :]
                    head = (
                        b"HTTP/1.1 200 OK\r\nContent-Type: application/zip\r\n"
                        b"Connection: close\r\nContent-Length: %d\r\n\r\n" % len(self.package)
                    )
                    conn.sendall(head + bytes(body))
                    conn.shutdown(socket.SHUT_WR)
                    while conn.recv(65536):
                        pass
                    return

    def close(self) -> None:
        self.sock.close()
        self.thread.join(timeout=10)


@pytest.mark.parametrize(("tamper", "words"), [(False, "interrupted"), (True, "digest mismatch")])
def test_interrupted_or_tampered_download_leaves_nothing(tmp_path, tamper, words):
    server = _BadServer(bytes(range(256)) * 4096, tamper)
    try:
        into = tmp_path / "client"
        (into / "plugins" / "meta").mkdir(parents=True)
        done = gamehub(
            "fetch",
            "cut",
            "--hub",
            f"http://127.0.0.1:{server.port}",
            "--into",
            str(into),
            cwd=tmp_path,
        )
    finally:
        server.close()
    assert done.returncode == 1
    assert words in done.stderr
    assert sorted(p.name for p in into.rglob("*")) == ["meta", "plugins"]
