"""A sans-I/O framer of text lines with a bounded buffer, for the line front ends.

:class:`LineFramer` cuts a byte stream into :class:`Line` tokens (``\\n`` ended, a
trailing ``\\r`` removed) and never holds more than ``max_length + 2`` bytes of one: a
longer line becomes one :class:`Overlong` token as soon as it passes the limit, and the
rest of it is dropped as it streams in, until its newline (the h11 way: bytes in,
tokens out, no I/O).
"""

from __future__ import annotations

from dataclasses import dataclass

#: how much of a dropped line an :class:`Overlong` token keeps (for transcripts)
KEEP = 64


@dataclass(frozen=True, slots=True)
class Line:
    """One complete line (without ``\\n`` or a trailing ``\\r``)."""

    data: bytes


@dataclass(frozen=True, slots=True)
class Overlong:
    """A line over the limit; ``head`` is its first bytes (for the transcript)."""

    head: bytes


class LineFramer:
    """Cuts bytes into :class:`Line` and :class:`Overlong` tokens with a bounded buffer.

    :param max_length: the longest line taken, without its line end.
    """

    def __init__(self, max_length: int) -> None:
        self.max_length = max_length
        self._buffer = bytearray()
        self._discarding = False

    @property
    def buffered(self) -> int:
        """Bytes held for an unfinished line (never more than ``max_length + 2``)."""
        return len(self._buffer)

    def drain(self) -> bytes:
        """The unfinished line, for a receiver that takes the stream over (a pass-through):
        its bytes, or while a line is being dropped, a line just over the limit so that
        the receiver drops the rest too."""
        held = b"x" * (self.max_length + 2) if self._discarding else bytes(self._buffer)
        self._buffer.clear()
        self._discarding = False
        return held

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
