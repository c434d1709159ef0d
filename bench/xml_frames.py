"""XML frames per server CPU-second: the hub's XML front end against a bare Twisted
``Int32StringReceiver`` that parses each frame with lxml and echoes it (issue 19's
first row; goal: ratio ≥ 0.25).

Both servers run in their own process on loopback; one client here sends the same
mix (a ``gamelist`` request and a lobby chat line, one at a time, waiting for each
answer) to each in turn, round by round, and reads the server's CPU time (user +
system, from ``/proc``) around each pass.  The rate is frames answered per second of
the server's CPU, so the client's own cost does not count.

    python bench/xml_frames.py [--frames 2000] [--rounds 5] [--games 10]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from common import ROOT, Figure, report

#: a bare server: one frame in, parsed with lxml, the same frame out
BARE = r"""
import sys
from lxml import etree
from twisted.internet import reactor
from twisted.internet.protocol import Factory
from twisted.protocols.basic import Int32StringReceiver

class Echo(Int32StringReceiver):
    MAX_LENGTH = 1 << 20
    def connectionMade(self):
        self.transport.setTcpNoDelay(True)
    def stringReceived(self, data):
        etree.fromstring(data, etree.XMLParser(resolve_entities=False, no_network=True))
        self.sendString(data)

port = reactor.listenTCP(0, Factory.forProtocol(Echo), interface="127.0.0.1")
print(port.getHost().port, flush=True)
reactor.run()
"""

LISTENING = re.compile(r"gamehub (\w+) front end listening on [^:]+:(\d+)")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of process ``pid``."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class Frames:
    """A blocking client of 4-byte-length frames."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""

    def send(self, document: bytes) -> None:
        self.sock.sendall(len(document).to_bytes(4, "big") + document)

    def read(self) -> bytes:
        while True:
            if len(self.buffer) >= 4:
                n = int.from_bytes(self.buffer[:4], "big")
                if len(self.buffer) >= 4 + n:
                    frame, self.buffer = self.buffer[4 : 4 + n], self.buffer[4 + n :]
                    return frame
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buffer += chunk

    def answer(self, document: bytes) -> bytes:
        """Send a request and read frames until its response (updates skipped)."""
        self.send(document)
        while True:
            frame = self.read()
            if b"<response" in frame or not frame.startswith(b"<?xml"):
                return frame


def request(sid: int, body: str) -> bytes:
    return f'<message sessionid="{sid}"><request>{body}</request></message>'.encode()


def mix(sid: int) -> list[bytes]:
    """The two requests of the mix: the game list and a lobby chat line."""
    return [
        request(sid, '<lobby><gamelist gametype="hello"/></lobby>'),
        request(
            sid, '<game gameid="0"><chat sender="bench"><message>hello all</message></chat></game>'
        ),
    ]


def start_hub(tmp: Path, games: int) -> tuple[subprocess.Popen, int, int]:
    settings = {"xml_rate": 1e9, "xml_burst": 1e9, "chat_rate": 10**9, "create_rate": 1e9,
                "create_burst": 1e9}  # fmt: skip
    args = [sys.executable, "-c", "from twisted.scripts.twistd import run; run()", "-n",
            "--pidfile=", "gamehub", "--data", str(tmp / "data"), "--xml",
            "tcp:0:interface=127.0.0.1", "--web", "tcp:0:interface=127.0.0.1", "--mnm", "none",
            "--domino", "none", "--api-token", "bench-token"]  # fmt: skip
    for key, value in settings.items():
        args += ["--set", f"{key}={value}"]
    for name in ("acpc",):  # front ends that may not exist in this checkout
        args += [f"--{name}", "none"] if _has_option(name) else []
    log = open(tmp / "hub.log", "w")  # noqa: SIM115
    env = dict(os.environ, PYTHONPATH=ROOT)
    proc = subprocess.Popen(args, cwd=tmp, stdout=log, stderr=subprocess.STDOUT, env=env)
    deadline = time.monotonic() + 60
    ports: dict[str, int] = {}
    while time.monotonic() < deadline and not {"xml", "web"} <= set(ports):
        time.sleep(0.1)
        ports = {m[1]: int(m[2]) for m in LISTENING.finditer((tmp / "hub.log").read_text())}
    if not {"xml", "web"} <= set(ports):
        proc.kill()
        raise SystemExit("the hub did not start:\n" + (tmp / "hub.log").read_text()[-3000:])
    for _ in range(games):  # a lobby of a few games for the game list
        body = json.dumps({"type": "hello", "seats": ["open", "open"]}).encode()
        req = urllib.request.Request(
            f"http://127.0.0.1:{ports['web']}/api/games", body, method="POST",
            headers={"Content-Type": "application/json", "Authorization": "Bearer bench-token"},
        )  # fmt: skip
        urllib.request.urlopen(req, timeout=10).read()
    return proc, ports["xml"], ports["web"]


def _has_option(name: str) -> bool:
    sys.path.insert(0, ROOT)
    from hub.frontends import FRONTENDS

    return name in FRONTENDS


def hub_client(port: int) -> tuple[Frames, int]:
    client = Frames(port)
    client.read()  # the info greeting
    account = '<accountmanagement><create accountname="bench" password="bench-pw" accounttype="0"/></accountmanagement>'
    client.answer(request(0, account))
    answer = client.answer(
        request(
            0, '<authentication><login accountname="bench" password="bench-pw"/></authentication>'
        )
    )
    sid = int(re.search(rb'sessionid="(\d+)"', answer).group(1))  # type: ignore[union-attr]
    return client, sid


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--frames", type=int, default=2000, help="frames a pass (default 2000)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--games", type=int, default=10, help="games in the lobby's list")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp_dir:
        tmp = Path(tmp_dir)
        hub, xml_port, _ = start_hub(tmp, args.games)
        bare = subprocess.Popen([sys.executable, "-c", BARE], stdout=subprocess.PIPE)
        try:
            bare_port = int(bare.stdout.readline())  # type: ignore[union-attr]
            ours, sid = hub_client(xml_port)
            echo = Frames(bare_port)
            requests = mix(sid)
            contenders = {
                "gamehub XML": (hub.pid, ours, requests),
                "bare Int32StringReceiver+lxml": (bare.pid, echo, requests),
            }
            figures = {name: Figure(name, "frames/CPU-s") for name in contenders}
            for warm in (True,) + (False,) * args.rounds:
                for name, (pid, client, docs) in contenders.items():
                    n = args.frames // 5 if warm else args.frames
                    before = cpu_seconds(pid)
                    for i in range(n):
                        client.answer(docs[i % len(docs)])
                    used = cpu_seconds(pid) - before
                    if not warm:
                        figures[name].rates.append(n / max(used, 1e-3))
            print(f"{args.frames} frames a pass, {args.rounds} rounds, {args.games} games listed")
            report(
                "XML frames per server CPU-second (game list + lobby chat)",
                figures,
                ours="gamehub XML",
                goals={"bare Int32StringReceiver+lxml": "≥ 0.25"},
            )
        finally:
            hub.terminate()
            bare.terminate()
            hub.wait(30)
            bare.wait(30)


if __name__ == "__main__":
    main()
