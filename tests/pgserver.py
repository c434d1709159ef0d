"""A PostgreSQL server of a test's own, in a temporary folder, that the test may stop
and start again (a database outage), made with the machine's PostgreSQL binaries
(``initdb``, ``pg_ctl`` under ``/usr/lib/postgresql/*/bin`` or on ``PATH``).

PostgreSQL refuses to run as root: run as root, the server runs as the ``postgres``
user (``runuser``), which then owns the folder.  :func:`temp_postgres` says why when it
cannot make one (a test then skips with that reason).
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def _binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), reverse=True)
    if found:
        return Path(found[0]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class TempPostgres:
    """One server: :attr:`dsn`; :meth:`stop` and :meth:`start` it; :meth:`remove`."""

    def __init__(self, binaries: Path, folder: Path, prefix: list[str]) -> None:
        self.binaries = binaries
        self.folder = folder
        self.data = folder / "data"
        self.prefix = prefix
        self.port = _free_port()
        self.dsn = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.prefix, *args], capture_output=True, text=True, timeout=timeout, check=False
        )

    def initdb(self) -> str | None:
        """Create the cluster; returns why it failed, or ``None``."""
        r = self._run(
            str(self.binaries / "initdb"),
            "-D",
            str(self.data),
            "-A",
            "trust",
            "-U",
            "postgres",
            "-E",
            "UTF8",
            "--no-sync",
        )
        return None if r.returncode == 0 else (r.stderr or r.stdout).strip()

    def start(self) -> None:
        """Start the server (waits until it accepts connections)."""
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder}"
            " -c fsync=off -c full_page_writes=off -c max_connections=50"
        )
        r = self._run(
            str(self.binaries / "pg_ctl"),
            "-D",
            str(self.data),
            "-o",
            options,
            "-l",
            str(self.folder / "server.log"),
            "-w",
            "-t",
            "60",
            "start",
        )
        if r.returncode != 0:
            raise RuntimeError(f"pg_ctl start failed: {r.stderr or r.stdout}\n{self.log()}")

    def stop(self, mode: str = "fast") -> None:
        """Stop the server (``fast``: its sessions are cut, as in an outage)."""
        r = self._run(str(self.binaries / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")
        if r.returncode != 0:
            raise RuntimeError(f"pg_ctl stop failed: {r.stderr or r.stdout}")

    def running(self) -> bool:
        r = self._run(str(self.binaries / "pg_ctl"), "-D", str(self.data), "status")
        return r.returncode == 0

    def log(self) -> str:
        path = self.folder / "server.log"
        try:
            return path.read_text(errors="replace")
        except OSError:
            return ""

    def remove(self) -> None:
        """Stop (if running) and delete everything."""
        try:
            if self.running():
                self.stop("immediate")
        finally:
            shutil.rmtree(self.folder, ignore_errors=True)


def temp_postgres() -> TempPostgres | str:
    """A started server of its own, or the reason there can be none here."""
    binaries = _binaries()
    if binaries is None:
        return "no PostgreSQL binaries (initdb, pg_ctl) under /usr/lib/postgresql/*/bin or on PATH"
    folder = Path(tempfile.mkdtemp(prefix="gamehub-pg-"))
    prefix: list[str] = []
    if os.geteuid() == 0:
        runuser = shutil.which("runuser")
        try:
            user = pwd.getpwnam("postgres")
        except KeyError:
            user = None
        if runuser is None or user is None:
            shutil.rmtree(folder, ignore_errors=True)
            return "running as root, and there is no postgres user (with runuser) to run a server"
        os.chown(folder, user.pw_uid, user.pw_gid)
        prefix = [runuser, "-u", "postgres", "--"]
    server = TempPostgres(binaries, folder, prefix)
    why = server.initdb()
    if why is not None:
        server.remove()
        return f"initdb failed: {why}"
    try:
        server.start()
    except (RuntimeError, subprocess.TimeoutExpired) as e:
        server.remove()
        return str(e)
    return server
