"""Real ``gamehub p2p`` peer processes on loopback, for the integration tests."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    """A loopback port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Peer:
    """One ``gamehub p2p`` process; its output in ``<tmp>/<name>.log`` (or a pipe)."""

    def __init__(self, tmp: Path, name: str | None, args: list[str], pipe: bool = False) -> None:
        self.tmp = tmp
        self.label = name or "anonymous"
        self.history = tmp / f"{self.label}.jsonl"
        self.log_path = tmp / f"{self.label}.log"
        command = [sys.executable, "-c", "from hub.cli import main; raise SystemExit(main())"]
        command += ["p2p", "--history", str(self.history), *args]
        if name is not None:
            command += ["--name", name]
        env = dict(os.environ)
        env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
        self.out = None if pipe else open(self.log_path, "w")  # noqa: SIM115
        self.proc = subprocess.Popen(
            command,
            cwd=tmp,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE if pipe else self.out,
            stderr=subprocess.STDOUT,
            text=True,
            bufsize=1,
        )
        self.lines: list[str] = []

    def read_until(self, needle: str, seconds: float = 60.0) -> str:
        """Read the piped output line by line until one holds ``needle`` (bounded)."""
        assert self.proc.stdout is not None
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            if needle in line:
                return line
        raise AssertionError(f"{self.label} never said {needle!r}:\n{''.join(self.lines)}")

    def say(self, line: str) -> None:
        """Type a line at the peer's terminal."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait(self, seconds: float = 120.0) -> int:
        """The exit status (the process is killed past ``seconds``)."""
        try:
            return self.proc.wait(seconds)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"{self.label} did not end:\n{self.log()}") from None

    def kill(self, sig: int = signal.SIGKILL) -> None:
        """Send ``sig`` (kill -9 by default)."""
        if self.proc.poll() is None:
            self.proc.send_signal(sig)

    def close(self) -> None:
        """Make sure the process is gone."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(10)
        if self.out is not None:
            self.out.close()

    def log(self) -> str:
        """What it printed."""
        if self.out is None:
            return "".join(self.lines)
        return self.log_path.read_text(errors="replace")

    def notes(self, kind: str) -> list[dict[str, Any]]:
        """The history file's notes of ``kind``."""
        if not self.history.exists():
            return []
        lines = [json.loads(line) for line in self.history.read_text().splitlines() if line]
        return [line for line in lines if line["note"] == kind]
