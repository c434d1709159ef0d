"""The ACPC line protocol without I/O: bytes → lines, lines → what the program said.

:class:`LineFramer` cuts the byte stream into lines (``\\r\\n``, or a bare ``\\n`` as
the competition's example player ends its version line) and never holds more than
``max_length + 1`` bytes of one: a longer line becomes one :class:`Overlong` token as
soon as it passes the limit, and the rest of it is dropped as it streams in.
:func:`parse` tells a version line, a comment and a reply apart; what a reply means is
the game adapter's business (:class:`hub.interfaces.IACPCSeatView`).  Every line the
server writes that is not a match state is a comment (:func:`comment`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: the protocol version this front end speaks
VERSION = (2, 0, 0)
#: a line longer than this (without its line end) is dropped
MAX_LENGTH = 1024
#: how much of a dropped line the transcript keeps
KEEP = 64

_VERSION = re.compile(r"^VERSION:([0-9]{1,4})\.([0-9]{1,4})\.([0-9]{1,4})$")


@dataclass(frozen=True, slots=True)
class Line:
    """One complete line, without its line end."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Overlong:
    """A line over the limit; ``head`` is its first bytes (for the transcript)."""

    head: bytes


@dataclass(frozen=True, slots=True)
class Version:
    """``VERSION:<major>.<minor>.<revision>``."""

    numbers: tuple[int, int, int]

    @property
    def compatible(self) -> bool:
        """Whether the major version is ours."""
        return self.numbers[0] == VERSION[0]


@dataclass(frozen=True, slots=True)
class Comment:
    """A line starting with ``#`` or ``;``, or an empty line: ignored."""


@dataclass(frozen=True, slots=True)
class Reply:
    """Any other printable ASCII line: a reply to a match state (the adapter reads it)."""

    text: str


@dataclass(frozen=True, slots=True)
class Invalid:
    """A line that is not text at all, and why."""

    reason: str


class LineFramer:
    """Cuts bytes into :class:`Line` and :class:`Overlong` tokens with a bounded buffer."""

    def __init__(self, max_length: int = MAX_LENGTH) -> None:
        self.max_length = max_length
        self._buffer = bytearray()
        self._discarding = False

    @property
    def buffered(self) -> int:
        """Bytes held for an unfinished line (never more than ``max_length + 2``)."""
        return len(self._buffer)

    def feed(self, data: bytes) -> list[Line | Overlong]:
        """The tokens ``data`` completes."""
        out: list[Line | Overlong] = []
        limit = self.max_length + 1  # room for a trailing \r
        while data:
            end = data.find(b"\n")
            chunk = data if end < 0 else data[:end]
            data = b"" if end < 0 else data[end + 1 :]
            if not self._discarding:
                self._buffer += chunk[: limit + 1 - len(self._buffer)]
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


def parse(line: bytes) -> Version | Comment | Reply | Invalid:
    """What one line from a program is."""
    try:
        text = line.decode("ascii")
    except UnicodeDecodeError:
        return Invalid("not ASCII")
    if text == "" or text[0] in "#;":
        return Comment()
    if not text.isprintable():
        return Invalid("control characters")
    match = _VERSION.match(text)
    if match is not None:
        major, minor, revision = (int(g) for g in match.groups())
        return Version((major, minor, revision))
    return Reply(text)


def comment(text: str) -> str:
    """A server line that is not a match state: ``# <text>`` (one line, printable)."""
    flat = "".join(ch if ch.isprintable() else " " for ch in text)
    return "# " + flat


def encode(text: str) -> bytes:
    """One server line on the wire (``\\r\\n`` ended)."""
    return text.encode("ascii", "replace") + b"\r\n"
