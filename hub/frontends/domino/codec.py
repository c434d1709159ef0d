"""The domino line protocol without I/O: bytes → tokens → commands, text → bytes.

:class:`LineFramer` (:mod:`hub.connections.lines`) cuts the byte stream into lines and never holds more than
``max_length + 1`` bytes of a line: a longer message becomes one :class:`Overlong`
token as soon as it passes the limit, and the rest of it is dropped as it streams in
until its newline.  :func:`parse` turns one line into a :class:`Login`, a
:class:`Command` or an :class:`Invalid` with the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from hub.connections import fields
from hub.connections.lines import KEEP, Line, LineFramer, Overlong

#: A message longer than this (without its ``\n``) is invalid.
MAX_LENGTH = 250

_VERB = re.compile(r"^[A-Z]+$")


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


__all__ = ["KEEP", "MAX_LENGTH", "Command", "Invalid", "Line", "LineFramer", "Login", "Overlong",
           "encode", "parse"]  # fmt: skip
