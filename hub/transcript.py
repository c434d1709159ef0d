"""Transcripts: every line or frame in and out of every connection, per game.

One file per game, ``<data>/transcripts/<game id>.log``, one record per line::

    2026-11-29T11:04:14.123456Z c17 in  PLAY A1:B1
    2026-11-29T11:04:14.124001Z c18 out + MOVEOK

The content is escaped so that no byte sequence a client sends can forge a record:
backslash, control characters (newline, carriage return, tab, NUL, ESC...) and
anything that is not printable become ``\\\\``, ``\\n``, ``\\r``, ``\\t`` or ``\\xNN`` /
``\\uNNNN``; bytes that are not UTF-8 are written as ``\\xNN``.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from twisted.logger import Logger

DIRECTIONS = ("in", "out")
_GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_SIMPLE = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
#: printable ASCII but the backslash: written as it is (the common case, kept fast)
_PLAIN = re.compile("[ -\\[\\]-~]*")
_PLAIN_BYTES = re.compile(b"[ -\\[\\]-~]*")


def escape(content: str | bytes) -> str:
    """Make ``content`` safe for one transcript line (see the module docstring)."""
    if isinstance(content, bytes):
        if _PLAIN_BYTES.fullmatch(content):
            return content.decode("ascii")
        # Undecodable bytes become lone surrogates, written as \xNN below.
        text = content.decode("utf-8", errors="surrogateescape")
    else:
        if _PLAIN.fullmatch(content):
            return content
        text = content
    out = []
    for ch in text:
        if ch in _SIMPLE:
            out.append(_SIMPLE[ch])
            continue
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif ch.isprintable() and unicodedata.category(ch) not in ("Zl", "Zp"):
            out.append(ch)
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        else:
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
    return "".join(out)


def _timestamp(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


class Transcript:
    """The transcript of one game: an append-only file."""

    def __init__(self, path: Path, clock) -> None:
        self.path = path
        self._clock = clock
        self._file: IO[str] | None = None

    def record(self, conn: str, direction: str, content: str | bytes) -> None:
        """Append one record: connection ``conn`` sent (``in``) or got (``out``) ``content``."""
        if direction not in DIRECTIONS:
            raise ValueError(f"direction must be 'in' or 'out', not {direction!r}")
        if self._file is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "a", encoding="utf-8", buffering=1)  # noqa: SIM115
        conn_text = escape(str(conn)).replace(" ", "_") or "-"
        self._file.write(
            f"{_timestamp(self._clock.seconds())} {conn_text} {direction:<3} {escape(content)}\n"
        )

    def note(self, content: str) -> None:
        """A record written by the hub itself (game created, game over...)."""
        self.record("hub", "out", content)

    def read(self) -> str:
        """Everything recorded so far ("" if nothing)."""
        if self._file is not None:
            self._file.flush()
        try:
            return self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return ""

    def close(self) -> None:
        """Close the file; a later record opens it again."""
        if self._file is not None:
            self._file.close()
            self._file = None


class Transcripts:
    """Hands out the :class:`Transcript` of each game under ``<data>/transcripts``."""

    log = Logger()

    def __init__(self, directory: Path | None, clock) -> None:
        self.directory = directory
        self._clock = clock
        self._open: dict[str, Transcript] = {}

    def for_game(self, game_id: str) -> Transcript:
        """The transcript of ``game_id`` (created on first use)."""
        if not _GAME_ID.match(game_id):
            raise ValueError(f"not a game id: {game_id!r}")
        transcript = self._open.get(game_id)
        if transcript is None:
            if self.directory is None:
                raise RuntimeError("this hub keeps no transcripts (no data folder)")
            transcript = Transcript(self.directory / f"{game_id}.log", self._clock)
            self._open[game_id] = transcript
        return transcript

    def read(self, game_id: str) -> str | None:
        """The text of a game's transcript, also of a game that is gone; ``None`` if none."""
        if not _GAME_ID.match(game_id) or self.directory is None:
            return None
        if game_id in self._open:
            return self._open[game_id].read()
        path = self.directory / f"{game_id}.log"
        return path.read_text(encoding="utf-8") if path.is_file() else None

    def close(self, game_id: str | None = None) -> None:
        """Close one transcript, or all of them."""
        ids = [game_id] if game_id is not None else list(self._open)
        for gid in ids:
            transcript = self._open.pop(gid, None)
            if transcript is not None:
                transcript.close()
