"""Start a real ``twistd -n gamehub`` in a subprocess, on loopback ports it picks itself.

Usage::

    with HubProcess(tmp_path, web="tcp:0:interface=127.0.0.1") as hub:
        hub.get_json("/api/health")

The hub's log goes to ``<tmp>/hub.log``; :meth:`HubProcess.errors` lists the lines that
show an unhandled error or a traceback.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: the endpoint every test hub listens on: a free loopback port
LOOPBACK = "tcp:0:interface=127.0.0.1"
_LISTENING = re.compile(r"gamehub (\w+) front end listening on [^:]+:(\d+)")
#: the hub's own last start-up line (the store's "ready" comes earlier, before the front ends)
_READY = re.compile(r"gamehub \S+ ready: ")
_BAD = ("Unhandled", "Traceback", "CRITICAL", "[-] Unhandled Error")


class HubProcess:
    """A hub in a child process; a context manager that stops it with SIGTERM."""

    #: the API token every test hub runs with (``admin=True`` requests send it)
    TOKEN = "test-admin-token"

    def __init__(
        self,
        tmp: Path,
        *,
        data: Path | None = None,
        startup: float = 30.0,
        env: dict[str, str] | None = None,
        preexec_fn: Any = None,
        **frontends: str,
    ) -> None:
        self.tmp = Path(tmp)
        self.env = dict(env or {})
        self.preexec_fn = preexec_fn
        self.data = data or self.tmp / "data"
        self.log_path = self.tmp / "hub.log"
        self.startup = startup
        self.frontends = {
            "xml": "none",
            "mnm": "none",
            "domino": "none",
            "web": "none",
            "acpc": "none",
            "relay": "none",
        }
        self.frontends.update(frontends)
        self.extra: list[str] = []
        self.proc: subprocess.Popen | None = None
        self.ports: dict[str, int] = {}

    def command(self) -> list[str]:
        """The command line that starts the hub."""
        args = [
            sys.executable,
            "-c",
            "from twisted.scripts.twistd import run; run()",
            "-n",
            "--pidfile=",
            "gamehub",
            "--data",
            str(self.data),
        ]
        for name, description in self.frontends.items():
            args += [f"--{name}", description]
        if not any(a == "--api-token" for a in self.extra):
            args += ["--api-token", self.TOKEN]
        args += ["--set", "xml_check_output=true"]  # every document we send is validated
        return args + self.extra

    def start(self) -> HubProcess:
        """Start the hub and wait (bounded) until every front end asked for is bound.

        :raises RuntimeError: its process still runs (``with hub.start()`` would start a
            second one, which nothing stops)."""
        if self.proc is not None and self.proc.poll() is None:
            raise RuntimeError(f"the hub in {self.tmp} is already running: stop it first")
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.update(self.env)
        self.log_file = open(self.log_path, "w")  # noqa: SIM115
        self.proc = subprocess.Popen(
            self.command(),
            cwd=self.tmp,
            env=env,
            stdout=self.log_file,
            stderr=subprocess.STDOUT,
            preexec_fn=self.preexec_fn,
        )
        wanted = {name for name, d in self.frontends.items() if d != "none"}
        deadline = time.monotonic() + self.startup
        while time.monotonic() < deadline:
            self.ports = {m.group(1): int(m.group(2)) for m in _LISTENING.finditer(self.log())}
            if wanted <= set(self.ports) and _READY.search(self.log()):
                return self
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"the hub did not start; its log:\n{self.log()}")

    def log(self) -> str:
        """Everything the hub has logged so far."""
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def errors(self) -> list[str]:
        """Log lines that show an unhandled error or a traceback."""
        return [line for line in self.log().splitlines() if any(b in line for b in _BAD)]

    def url(self, path: str) -> str:
        """The web front end's URL of ``path``."""
        return f"http://127.0.0.1:{self.ports['web']}{path}"

    def request(
        self,
        method: str,
        path: str,
        body: object = None,
        raw: bytes | None = None,
        admin: bool = False,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, bytes, dict[str, str]]:
        """An HTTP request to the web front end: (status, body, headers); ``admin``
        sends the hub's API token."""
        data = raw if raw is not None else (None if body is None else json.dumps(body).encode())
        sent = dict(headers or {})
        if admin:
            sent["Authorization"] = f"Bearer {self.TOKEN}"
        req = urllib.request.Request(self.url(path), data=data, method=method, headers=sent)
        try:
            with urllib.request.urlopen(req, timeout=10) as response:
                return response.status, response.read(), dict(response.headers)
        except urllib.error.HTTPError as e:
            return e.code, e.read(), dict(e.headers)

    def get_json(self, path: str) -> object:
        """GET ``path`` and decode the JSON answer (which must be 200)."""
        status, body, _ = self.request("GET", path)
        assert status == 200, (status, body)
        return json.loads(body)

    def stop(self, sig: int = signal.SIGTERM) -> int | None:
        """Stop the hub with ``sig`` and wait (bounded) for it to exit."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        self.log_file.close()
        return self.proc.returncode

    def __enter__(self) -> HubProcess:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
