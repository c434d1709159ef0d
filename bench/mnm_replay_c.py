"""The C twin of :mod:`mnm_replay` (``bench/mnm_replay.c``): the same course-style
clients, the same lines, the same checks, without the interpreter's cost a packet.

The course's real clients are C programs, so this is also the more representative
load.  :func:`build` compiles it with the machine's C compiler (``$CC``, else ``cc``)
and ``-O2`` into a folder of the caller's (a temporary one); without a compiler, or
when the compilation fails, it says why and ``bench/cluster.py`` uses the Python
replay.  :func:`play` is :func:`mnm_replay.play` through the compiled program (one
pass, one process), for the tests.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

try:  # a script of bench/ (python bench/cluster.py) or the package (the tests)
    from mnm_replay import Order, Program, Recording, write_recordings
except ImportError:  # pragma: no cover - imported as bench.mnm_replay_c
    from bench.mnm_replay import Order, Program, Recording, write_recordings

SOURCE = Path(__file__).resolve().with_name("mnm_replay.c")


class NoProgram(Exception):
    """The C load generator cannot be built here (the message says why)."""


def build(folder: Path) -> Path:
    """Compile :data:`SOURCE` into ``folder``; the program.

    :raises NoProgram: no C compiler, or it failed (its first lines of errors)."""
    compiler = os.environ.get("CC") or "cc"
    found = shutil.which(compiler)
    if found is None:
        raise NoProgram(f"no C compiler ({compiler!r} is not on the PATH)")
    program = folder / "mnm_replay"
    try:
        done = subprocess.run(
            [found, "-O2", "-o", str(program), str(SOURCE)],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        raise NoProgram(f"{compiler} failed: {e}") from None
    if done.returncode != 0:
        errors = " ".join((done.stderr or done.stdout).strip().splitlines()[:3])
        raise NoProgram(f"{compiler} -O2 failed: {errors}")
    return program


def command(program: Path, recordings: Path, body: dict[str, Any]) -> list[str]:
    """The command of a C client process (``RECORDINGS BODY``, as the Python one)."""
    return [str(program), str(recordings), json.dumps(body)]


def play(
    program: Path,
    doors: Sequence[dict[str, int]],
    games: int,
    concurrency: int,
    recordings: Sequence[Recording],
    body: dict[str, Any],
    cross: bool = False,
    seconds: float = 180.0,
    first: int = 0,
) -> tuple[int, list[str]]:
    """:func:`mnm_replay.play` by the C ``program``: one pass, in a process of its own.
    Returns (games that ended as recorded, the failures' reasons)."""
    with tempfile.TemporaryDirectory(prefix="mnm-replay-") as folder:
        path = Path(folder) / "recordings"
        write_recordings(path, recordings)
        client = Program(command(program, path, body))
        try:
            pairs = tuple((door["web"], door["mnm"]) for door in doors)
            client.order(Order(pairs, games, concurrency, cross, seconds, first))
            answer = client.answer()
        finally:
            client.close()
    return int(answer["finished"]), list(answer["failures"])
