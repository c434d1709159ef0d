"""Reading a transcript (:mod:`hub.connections.transcript`) with permissions: which
records a reader may see (:class:`Access`, :func:`visible`, policy: ``docs/privacy.md``)
and the visible records of its files streamed block by block (:func:`stream`), never a
whole file in memory.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from pathlib import Path

#: bytes read at a time when streaming a transcript
BLOCK = 64 * 1024


@dataclass(frozen=True)
class Access:
    """What one reader may see of a transcript (policy: docs/privacy.md).

    :ivar admin: everything.
    :ivar owners: owner tokens (:func:`hub.connections.transcript.owner_token`) of the reader: lines of these
        connections, private ones included.
    :ivar public: the game is over: lines that are neither private to a seat nor
        lobby lines.
    """

    admin: bool = False
    owners: frozenset[str] = frozenset()
    public: bool = False

    @property
    def nothing(self) -> bool:
        """Whether no line at all can be visible."""
        return not (self.admin or self.owners or self.public)


def visible(line: bytes, access: Access) -> bool:
    """Whether the record ``line`` may be shown to the reader ``access``."""
    if access.admin:
        return True
    first = line.find(b" ")
    second = line.find(b" ", first + 1)
    if first < 0 or second < 0:
        return False
    who = line[first + 1 : second]
    head, hash_, _seat = who.partition(b"#")
    _conn, tilde, owner = head.partition(b"~")
    if tilde and access.owners and owner.decode("ascii", "replace") in access.owners:
        return True
    return access.public and not hash_


def stream(parts: list[Path], access: Access, tail: int | None = None) -> Iterator[bytes]:
    """The visible records of a transcript's files, in chunks of about :data:`BLOCK`.

    Reads block by block (never a whole file); with ``tail``, only the last ``tail``
    visible records.  Yields ``b""`` now and then while it scans without finding
    anything, so a caller can give the reactor a turn.
    """
    if access.nothing:
        return
    start_index, start_offset = 0, 0
    if tail is not None:
        found = yield from _tail_start(parts, access, tail)
        if found is None:
            return
        start_index, start_offset = found
    for index in range(start_index, len(parts)):
        offset = start_offset if index == start_index else 0
        yield from _forward(parts[index], offset, access)


def _forward(path: Path, offset: int, access: Access) -> Iterator[bytes]:
    try:
        f = open(path, "rb")  # noqa: SIM115
    except FileNotFoundError:
        return
    with f:
        f.seek(offset)
        carry = b""
        while True:
            block = f.read(BLOCK)
            if not block:
                break
            if access.admin:
                yield block
                continue
            lines = (carry + block).split(b"\n")
            carry = lines.pop()
            yield b"".join(line + b"\n" for line in lines if line and visible(line, access))
        if carry and not access.admin and visible(carry, access):
            yield carry + b"\n"


def _tail_start(
    parts: list[Path], access: Access, tail: int
) -> Generator[bytes, None, tuple[int, int] | None]:
    """Where the last ``tail`` visible records begin (reads backwards, block by block)."""
    if tail <= 0:
        return None
    found = 0
    best: tuple[int, int] | None = None
    for index in reversed(range(len(parts))):
        try:
            f = open(parts[index], "rb")  # noqa: SIM115
        except FileNotFoundError:
            continue
        with f:
            position = f.seek(0, os.SEEK_END)
            carry = b""
            while position > 0:
                start = max(0, position - BLOCK)
                f.seek(start)
                data = f.read(position - start) + carry
                position = start
                segments = data.split(b"\n")
                carry = segments.pop(0) if start > 0 else b""
                offset = start + len(carry) + (1 if start > 0 else 0)
                starts = []
                for segment in segments:
                    starts.append((offset, segment))
                    offset += len(segment) + 1
                for line_start, segment in reversed(starts):
                    if segment and visible(segment, access):
                        found += 1
                        best = (index, line_start)
                        if found >= tail:
                            return best
                yield b""
    return best


__all__ = ["BLOCK", "Access", "stream", "visible"]
