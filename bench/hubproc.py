"""A real ``twistd -n gamehub`` for the benchmarks: started in a temporary folder with
the front ends asked for on loopback, its ports read from its log, games made through
``POST /api/games``, stopped (and its folder removed) at the end.

    with Hub(frontends=("mnm",)) as hub:
        game = hub.create_game({"type": "nmmorris", "seats": ["open", "open"]})
        ... hub.ports["mnm"], hub.pid ...
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from bench.common import ROOT, twistd_command

LISTENING = re.compile(r"gamehub (\w+) front end listening on [^:]+:(\d+)")
TOKEN = "bench-token"
#: limits a benchmark's one client would hit at once
UNLIMITED = {"xml_rate": 1e9, "xml_burst": 1e9, "chat_rate": 10**9, "create_rate": 1e9,
             "create_burst": 1e9}  # fmt: skip


class Hub:
    """One hub process (a context manager).

    :param frontends: the front ends that listen (the web front end always does).
    :param settings: ``--set`` settings (after :data:`UNLIMITED`).
    :param profile: write a cProfile of the hub's CPU time there when it stops.
    :param trace: write :mod:`bench.reactor_trace`'s figures there when it stops.
    :param root: the checkout whose code the hub runs (default: this one; another
        worktree's for an A/B of two versions, :mod:`bench.mnm_ab`).
    :ivar ports: front end → its port.
    """

    def __init__(
        self,
        frontends: Iterable[str] = ("xml",),
        settings: Mapping[str, Any] | None = None,
        profile: str | None = None,
        root: str = ROOT,
        trace: str | None = None,
    ) -> None:
        self.root = root
        self.frontends = tuple(frontends)
        self.settings = {**UNLIMITED, **(settings or {})}
        self.profile = profile
        self.trace = trace
        self.ports: dict[str, int] = {}
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def pid(self) -> int:
        """The hub's process id."""
        assert self.proc is not None
        return self.proc.pid

    def __enter__(self) -> Hub:
        self._tmp = tempfile.TemporaryDirectory(prefix="gamehub-bench-")
        tmp = Path(self._tmp.name)
        loopback = "tcp:0:interface=127.0.0.1"
        args = [*twistd_command(self.profile, self.trace), "-n", "--pidfile=", "gamehub",
                "--data", str(tmp / "data"), "--web", loopback, "--api-token", TOKEN]  # fmt: skip
        for name in known_frontends():  # every front end not asked for is off (no default ports)
            if name == "web":
                continue
            args += [f"--{name}", loopback if name in self.frontends else "none"]
        for key, value in self.settings.items():
            args += ["--set", f"{key}={value}"]
        log_path = tmp / "hub.log"
        with open(log_path, "w") as log:
            env = dict(os.environ, PYTHONPATH=self.root)
            self.proc = subprocess.Popen(
                args, cwd=tmp, stdout=log, stderr=subprocess.STDOUT, env=env
            )
        wanted = {"web", *self.frontends}
        deadline = time.monotonic() + float(os.environ.get("GAMEHUB_BENCH_START", 60))
        while time.monotonic() < deadline and not wanted <= set(self.ports):
            time.sleep(0.1)
            self.ports = {m[1]: int(m[2]) for m in LISTENING.finditer(log_path.read_text())}
            if self.proc.poll() is not None:
                break
        if not wanted <= set(self.ports):
            text = log_path.read_text()[-3000:]
            self.__exit__(None, None, None)
            raise SystemExit("the hub did not start:\n" + text)
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.proc is not None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def api(self, method: str, path: str, body: Any = None) -> Any:
        """One call of the web API (as the admin token); its JSON answer."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(
            f"http://127.0.0.1:{self.ports['web']}{path}", data, method=method,
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {TOKEN}"},
        )  # fmt: skip
        with urllib.request.urlopen(req, timeout=30) as answer:
            return json.loads(answer.read() or b"null")

    def create_game(self, spec: Mapping[str, Any]) -> dict[str, Any]:
        """``POST /api/games``: the new game's JSON."""
        return self.api("POST", "/api/games", dict(spec))

    def game(self, game_id: str) -> dict[str, Any]:
        """``GET /api/games/<id>``."""
        return self.api("GET", f"/api/games/{game_id}")


def known_frontends() -> list[str]:
    """Every front end of this build (the relay's, ACPC's... as they come)."""
    from hub.frontends import FRONTENDS as known

    return list(known)
