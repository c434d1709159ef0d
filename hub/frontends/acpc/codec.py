"""The ACPC line protocol without I/O: bytes → lines, lines → what the program said.

:class:`LineFramer` (:mod:`hub.connections.lines`, shared with the domino front end) cuts the byte stream into lines (``\\r\\n``, or a bare ``\\n`` as
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
from decimal import Decimal
from fractions import Fraction

from hub.connections.lines import KEEP, Line, LineFramer, Overlong

#: the protocol version this front end speaks
VERSION = (2, 0, 0)
#: a line longer than this (without its line end) is dropped
MAX_LENGTH = 1024

_VERSION = re.compile(r"^VERSION:([0-9]{1,4})\.([0-9]{1,4})\.([0-9]{1,4})$")


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


def log_number(value: Fraction | Decimal | int) -> str:
    """A payoff or total as the reference dealer's log prints it: ``%.6f`` with the
    trailing zeros (then a trailing point) removed: ``2.5``, ``-40``, ``0``."""
    text = f"{float(value):.6f}".rstrip("0")
    return text[:-1] if text.endswith(".") else text


def encode(text: str) -> bytes:
    """One server line on the wire (``\\r\\n`` ended)."""
    return text.encode("ascii", "replace") + b"\r\n"


__all__ = ["KEEP", "MAX_LENGTH", "VERSION", "Comment", "Invalid", "Line", "LineFramer",
           "Overlong", "Reply", "Version", "comment", "encode", "parse"]  # fmt: skip
