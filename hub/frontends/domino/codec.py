"""The domino line protocol without I/O: bytes → tokens → commands, text → bytes.

:class:`LineFramer` cuts the byte stream into lines and never holds more than
``max_length + 1`` bytes of a line: a longer message becomes one :class:`Overlong`
token as soon as it passes the limit, and the rest of it is dropped as it streams in
until its newline.  :func:`parse` turns one line into a :class:`Login`, a
:class:`Command` or an :class:`Invalid` with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hub import fields

#: A message longer than this (without its ``\n``) is invalid.
MAX_LENGTH = 250
#: How much of a discarded message the transcript keeps.
KEEP = 64

_VERB = re.compile(r"^[A-Z]+$")


@dataclass(frozen=True, slots=True)
class Line:
    """One complete line (without ``\\n`` or a trailing ``\\r``)."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Overlong:
    """A message over the limit; ``head`` is its first bytes (for the transcript)."""

    head: bytes


@dataclass(frozen=True, slots=True)
class Login:
    """``LOGIN <name>``."""

    name: str


@dataclass(frozen=True, slots=True)
class Command:
    """A game command: an upper-case verb and its arguments (``CHOOSE 7``)."""

    verb: str
    args: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Invalid:
    """A line that is no command at all, and why."""

    reason: str


class LineFramer:
    """Cuts bytes into :class:`Line` and :class:`Overlong` tokens with a bounded buffer."""

    def __init__(self, max_length: int = MAX_LENGTH) -> None:
        self.max_length = max_length
        self._buffer = bytearray()
        self._discarding = False

    @property
    def buffered(self) -> int:
        """Bytes held for an unfinished line (never more than ``max_length + 1``)."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[Line | Overlong]:
        """Tokens completed by ``data``."""
        out: list[Line | Overlong] = []
        limit = self.max_length + 1  # one more for a trailing \r
        while data:
            end = data.find(b"\n")
            chunk = data if end < 0 else data[:end]
            data = b"" if end < 0 else data[end + 1 :]
            if not self._discarding:
                room = limit + 1 - len(self._buffer)
                self._buffer += chunk[:room]
                if len(self._buffer) > limit or (
                    len(self._buffer) == limit and not self._buffer.endswith(b"\r")
                ):
                    out.append(Overlong(bytes(self._buffer[:KEEP])))
                    self._buffer.clear()
                    self._discarding = True
            if end >= 0:
                if self._discarding:
                    self._discarding = False
                else:
                    line = bytes(self._buffer)
                    self._buffer.clear()
                    out.append(Line(line[:-1] if line.endswith(b"\r") else line))
        return out


def parse(line: bytes) -> Login | Command | Invalid:
    """One line → what the client asked for."""
    try:
        text = line.decode("ascii")
    except UnicodeDecodeError:
        return Invalid("not ASCII")
    if not text.isprintable():
        return Invalid("control characters")
    words = text.split(" ")
    verb, args = words[0], words[1:]
    if verb == "LOGIN":
        if len(args) != 1 or not fields.PLAYER_NAME.ok(args[0]):
            return Invalid("LOGIN takes one non-empty login without spaces")
        return Login(args[0])
    if not _VERB.match(verb) or any(a == "" for a in args):
        return Invalid("not a command")
    return Command(verb, tuple(args))


def encode(text: str) -> bytes:
    """One server line on the wire."""
    return text.encode("ascii", "replace") + b"\n"
