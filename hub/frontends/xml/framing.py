"""The XML wire's framing without I/O: a 4-byte big-endian length, then that many bytes.

:class:`FrameReader` turns the byte stream into tokens that the protocol forwards
(it never feeds anything back into itself): a :class:`Frame` for each complete frame,
or one :class:`BadLength` for a declared length of 0 or above the limit, after which
the stream cannot be read on and the reader drops what it holds.  Nothing is
allocated for a declared length: the buffer only ever holds bytes that arrived, at
most ``max_length + 4`` of them once the frames they complete are taken.
:func:`.encoding.frame` writes a frame.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Frame:
    """One complete frame: the bytes of one document."""

    data: bytes


@dataclass(frozen=True, slots=True)
class BadLength:
    """A declared length of 0 or above the limit: the end of this stream."""

    length: int


class FrameReader:
    """Cuts a byte stream into :class:`Frame` tokens; refuses a bad declared length.

    :param max_length: the largest frame accepted (bytes, without the length).
    :ivar buffer: the bytes held for an unfinished frame.
    """

    __slots__ = ("buffer", "max_length")

    def __init__(self, max_length: int) -> None:
        self.max_length = max_length
        self.buffer = bytearray()

    @property
    def buffered(self) -> int:
        """How many bytes are held for an unfinished frame."""
        return len(self.buffer)

    def feed(self, data: bytes) -> Iterator[Frame | BadLength]:
        """Add ``data``; yield the tokens it completes, one at a time (a consumer that
        stops early leaves the rest buffered)."""
        buffer = self.buffer
        buffer += data
        while len(buffer) >= 4:
            length = int.from_bytes(buffer[:4], "big")
            if length == 0 or length > self.max_length:
                buffer.clear()
                yield BadLength(length)
                return
            end = 4 + length
            if len(buffer) < end:
                return
            frame = bytes(buffer[4:end])
            del buffer[:end]
            yield Frame(frame)

    def clear(self) -> None:
        """Drop what is held (the connection is closing)."""
        self.buffer.clear()
