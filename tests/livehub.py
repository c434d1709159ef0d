"""Run a real hub in a child process for integration tests (real loopback sockets).

``python -m tests.livehub DATA_DIR OPTIONS_JSON`` starts a :class:`hub.service.HubService`
with the domino and web front ends on ``tcp:0`` (127.0.0.1), the King Domino game and
its bots, prints the bound ports as one JSON line and runs until SIGTERM.  The hub's log
goes to ``DATA_DIR/hub.log``.  :func:`start` / :class:`LiveHub` do this from a test.
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _serve(data_dir: Path, options: dict) -> None:
    from twisted.internet import reactor, task
    from twisted.logger import globalLogBeginner, textFileLogObserver

    from bots.kingdomino import GreedyBotFactory, MonteCarloBotFactory, RandomBotFactory
    from games.kingdomino.server import KingDominoGameFactory
    from hub.service import HubService
    from tests.support import DictRegistry

    log = open(data_dir / "hub.log", "a", encoding="utf-8")  # noqa: SIM115
    globalLogBeginner.beginLoggingTo([textFileLogObserver(log)], redirectStandardIO=False)
    registry = DictRegistry(
        games=[KingDominoGameFactory()],
        bots=[RandomBotFactory(), GreedyBotFactory(), MonteCarloBotFactory()],
    )
    endpoints = {
        "domino": "tcp:0:interface=127.0.0.1",
        "web": "tcp:0:interface=127.0.0.1",
    }
    service = HubService(reactor, data_dir, endpoints, registry, options=options)
    service.startService()
    reactor.addSystemEventTrigger("before", "shutdown", service.stopService)

    def ready() -> None:
        if {"domino", "web"} <= set(service.bound_ports):
            print(json.dumps(service.bound_ports), flush=True)
            loop.stop()

    loop = task.LoopingCall(ready)
    loop.start(0.05)
    reactor.run()


class LiveHub:
    """A hub child process: ``ports``, ``log_path``, ``health()``, ``post_game()``."""

    def __init__(self, data_dir: Path, options: dict | None = None, timeout: float = 30):
        self.data_dir = Path(data_dir)
        self.log_path = self.data_dir / "hub.log"
        env = dict(os.environ, PYTHONPATH=str(ROOT))
        self.process = subprocess.Popen(
            [
                *(sys.executable, "-m", "tests.livehub", str(data_dir)),
                json.dumps({"xml_check_output": True, **(options or {})}),  # validate output
            ],
            cwd=str(ROOT),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        assert self.process.stdout is not None
        ready, _, _ = select.select([self.process.stdout], [], [], timeout)
        line = self.process.stdout.readline() if ready else b""
        if not line:
            self.stop()
            raise RuntimeError(f"hub did not start: {self.log()}")
        self.ports: dict[str, int] = json.loads(line)

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.ports['web']}{path}"

    def health(self) -> dict:
        with urllib.request.urlopen(self.url("/api/health"), timeout=10) as r:
            return json.loads(r.read())

    def post_game(self, body: dict) -> dict:
        request = urllib.request.Request(
            self.url("/api/games"),
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=10) as r:
            return json.loads(r.read())

    def get(self, path: str) -> str:
        with urllib.request.urlopen(self.url(path), timeout=10) as r:
            return r.read().decode()

    def log(self) -> str:
        try:
            return self.log_path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + 15
            while self.process.poll() is None and time.monotonic() < deadline:
                time.sleep(0.05)
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait(5)
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


if __name__ == "__main__":
    _serve(Path(sys.argv[1]), json.loads(sys.argv[2]))
