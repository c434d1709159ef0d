"""Transcripts: every line or frame in and out of every connection, per game.

One file per game, ``<data>/transcripts/<game id>.log``, one record per line::

    2026-11-29T11:04:14.123456Z c17 in  PLAY A1:B1
    2026-11-29T11:04:14.124001Z x18~alice#0 out <?xml ...><message>...</message>
    2026-11-29T11:04:14.124090Z hub out seat 0 taken by alice (client)

The second field names who the line belongs to: the connection (``c17``, ``x18``,
``web:alice``, ``hub`` for the hub's own notes), then ``~owner`` when the connection
belongs to an account (or a web guest, ``~!guest-…``), then ``#seat`` when the line
is private to that seat (a frame carrying its hole cards, a private draw); ``lobby*16``
is one document sent alike to 16 connections of the lobby (a lobby update or chat line,
recorded once; who was logged in then is in the lobby's records).  Readers
are filtered by :func:`hub.connections.transcript_access.visible` (see
``docs/privacy.md``).

The content is escaped so that no byte sequence a client sends can forge a record:
backslash, control characters (newline, carriage return, tab, NUL, ESC...) and
anything that is not printable become ``\\\\``, ``\\n``, ``\\r``, ``\\t`` or ``\\xNN`` /
``\\uNNNN``; bytes that are not UTF-8 are written as ``\\xNN``.

Writing is off the hot path: records are buffered and written when the buffer fills,
on a timer and on close; the file is opened only for each write, so a hub holds no
descriptor for a transcript between writes and none for a finished game.  Files rotate
by size (``<id>.log.1`` is the newest rotated part); each connection has a recording
cap, after which one marker line says what was dropped.
"""

from __future__ import annotations

import functools
import os
import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twisted.internet.interfaces import IReactorTime
from twisted.logger import Logger

from hub.connections.deadlines import Deadlines

DIRECTIONS = ("in", "out")
_GAME_ID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
#: names of transcripts that are not games (admin only)
LOBBY_PREFIX = "lobby-"
_SIMPLE = (("\\", "\\\\"), ("\n", "\\n"), ("\r", "\\r"), ("\t", "\\t"))
#: the connection name of the hub's own notes
HUB = "hub"
FILE_MODE = 0o600
DIR_MODE = 0o700


def escape(content: str | bytes) -> str:
    """Make ``content`` safe for one transcript line (see the module docstring).

    Common frames take a few C-speed passes (``replace``, ``isprintable``); only text
    with other non-printable characters goes through a per-character loop.
    """
    if isinstance(content, bytes):
        if content.isascii():
            text = content.decode("ascii")
        else:  # undecodable bytes become lone surrogates, written as \xNN below
            text = content.decode("utf-8", errors="surrogateescape")
    else:
        text = content
    if "\\" not in text and text.isprintable():  # the common line: nothing to escape
        return text
    for raw, escaped in _SIMPLE:
        if raw in text:
            text = text.replace(raw, escaped)
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch.isprintable():
            out.append(ch)
            continue
        code = ord(ch)
        if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte (surrogateescape)
            out.append(f"\\x{code - 0xDC00:02x}")
        elif code <= 0xFF:
            out.append(f"\\x{code:02x}")
        else:
            out.append(f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
    return "".join(out)


@functools.lru_cache(maxsize=4096)  # the same few names on every record
def owner_token(name: str) -> str:
    """``name`` as it appears after ``~`` in a record (no space, ``~``, ``#`` or ``%``)."""
    text = escape(name)
    for raw, quoted in (("%", "%25"), (" ", "%20"), ("~", "%7E"), ("#", "%23")):
        if raw in text:
            text = text.replace(raw, quoted)
    return text.lower()


@functools.lru_cache(maxsize=4096)
def _conn_token(conn: str) -> str:
    text = escape(str(conn))
    for raw, quoted in (("%", "%25"), (" ", "%20"), ("~", "%7E"), ("#", "%23")):
        if raw in text:
            text = text.replace(raw, quoted)
    return text or "-"


@functools.lru_cache(maxsize=4096)
def _tag(conn: str, direction: str) -> bytes:
    """`` <conn> <direction> `` of a record that names no owner and no seat (made once
    per connection and direction)."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be 'in' or 'out', not {direction!r}")
    return _encode(f" {_conn_token(conn)} {direction:<3} ")


@functools.lru_cache(maxsize=4096)  # a connection's few tags, on each of its records
def record_tag(
    conn: str, direction: str, owner: str | None = None, seat: int | None = None
) -> bytes:
    """`` <who> <direction> `` of a record of ``conn``: ``who`` is the connection, then
    ``~owner`` when it belongs to an account, then ``#seat`` when the record is private
    to that seat (see the module docstring); for :meth:`Transcript.tagged`."""
    if direction not in DIRECTIONS:
        raise ValueError(f"direction must be 'in' or 'out', not {direction!r}")
    who = _conn_token(conn)
    if owner:
        who += "~" + owner_token(owner)
    if seat is not None:
        who += f"#{int(seat)}"
    return _encode(f" {who} {direction:<3} ")


@functools.lru_cache(maxsize=256)
def _broadcast_tag(count: int) -> bytes:
    """`` lobby*<count> out `` of a record sent alike to ``count`` connections
    (:meth:`Transcript.broadcast`)."""
    return _encode(f" lobby*{int(count)} out ")


def _encode(text: str) -> bytes:
    """Escaped text as the file holds it (UTF-8; undecodable input bytes as they came)."""
    return text.encode("utf-8", "surrogateescape")


#: the bytes a line's content may hold without an escape: printable ASCII but ``\\``
_PLAIN = bytes(b for b in range(0x20, 0x7F) if b != 0x5C)
#: the same, and ``\n`` between the lines of a block
_PLAIN_BLOCK = _PLAIN + b"\n"


def escaped(content: str | bytes) -> bytes:
    """:func:`escape` of ``content`` as the file's bytes; a line with nothing to escape
    (the common one) is taken as it is."""
    if isinstance(content, bytes):
        rest = content.translate(None, _PLAIN)
        if not rest:
            return content
        if not rest.strip(b"\n"):  # only line breaks (our XML documents have one)
            return content.replace(b"\n", b"\\n")
    elif "\\" not in content and content.isprintable():
        return _encode(content)
    return _encode(escape(content))


#: seconds within which records share a time stamp (:class:`_Stamp`)
SHARED_STAMP = 0.0005
#: ``"000"`` … ``"999"``: a stamp's microseconds are two of these (no format spec)
_THREE_DIGITS = tuple(f"{n:03d}" for n in range(1000))


class _Stamp:
    """ISO 8601 time stamps with microseconds; the date part is built once a second.

    A stamp costs more to format than the record it heads, and one line in brings
    several records (the line, the answer, the other player's request): a record made
    within :data:`SHARED_STAMP` seconds after the last stamped one gets the same stamp.
    So a stamp is at most that early, and stamps never go backwards in a file.
    """

    def __init__(self) -> None:
        self._second: int | None = None
        self._prefix = ""
        #: the time of the last stamp made, and that stamp
        self.last = float("-inf")
        self.text = b""

    def __call__(self, seconds: float) -> bytes:
        if 0.0 <= seconds - self.last < SHARED_STAMP:
            return self.text
        whole = int(seconds)
        if whole > seconds:  # before 1970: int() rounds towards zero
            whole -= 1
        micro = round((seconds - whole) * 1_000_000)
        if micro >= 1_000_000:
            whole, micro = whole + 1, micro - 1_000_000
        if whole != self._second:
            self._second = whole
            self._prefix = time.strftime("%Y-%m-%dT%H:%M:%S.", time.gmtime(whole))
        digits = _THREE_DIGITS
        self.last = seconds
        self.text = text = f"{self._prefix}{digits[micro // 1000]}{digits[micro % 1000]}Z".encode()
        return text


@dataclass(frozen=True)
class TranscriptSettings:
    """Limits of the transcripts (hub settings ``transcript_*``, docs/settings.md).

    :ivar flush_seconds: buffered records are written at most this long after the first.
    :ivar buffer_bytes: records are written at once when this many are waiting.
    :ivar max_bytes: a file larger than this is rotated.
    :ivar keep_rotated: rotated parts kept per transcript (older ones are deleted).
    :ivar max_per_connection: bytes one connection may have recorded in one
        transcript; after that its lines are dropped (one marker line says so).
    """

    flush_seconds: float = 1.0
    buffer_bytes: int = 64 * 1024
    max_bytes: int = 16 * 1024 * 1024
    keep_rotated: int = 2
    max_per_connection: int = 2 * 1024 * 1024

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> TranscriptSettings:
        """The settings named ``transcript_<field>`` in ``options`` (else defaults)."""
        defaults = cls()
        return cls(
            flush_seconds=float(options.get("transcript_flush_seconds", defaults.flush_seconds)),
            buffer_bytes=int(options.get("transcript_buffer_bytes", defaults.buffer_bytes)),
            max_bytes=int(options.get("transcript_max_bytes", defaults.max_bytes)),
            keep_rotated=int(options.get("transcript_keep_rotated", defaults.keep_rotated)),
            max_per_connection=int(
                options.get("transcript_max_per_connection", defaults.max_per_connection)
            ),
        )


#: seconds between two writes of the transcripts whose time has come (their records
#: wait at most this much longer than ``flush_seconds``)
FLUSH_GRANULARITY = 0.05

#: transcripts written in one turn of the reactor at most (about 35 µs each at 2,500
#: games): a sweep with more goes on in the next turn, after the messages that came
FLUSH_BATCH = 32


def flusher_for(clock: IReactorTime, settings: TranscriptSettings) -> Deadlines[Transcript]:
    """One timer for many transcripts: each is written ``settings.flush_seconds`` after
    its first waiting record (to within :data:`FLUSH_GRANULARITY`), without a
    ``DelayedCall`` made a second for each game (at 2,500 games those, with their bound
    methods, were a fifth of what the collector walked); :data:`FLUSH_BATCH` of them in
    a turn of the reactor."""
    return Deadlines(
        clock, settings.flush_seconds, Transcript._timed_flush, FLUSH_GRANULARITY, FLUSH_BATCH
    )


class Transcript:
    """The transcript of one game (or of a lobby): an append-only, rotated file.

    :param path: the file (``<name>.log``).
    :param clock: ``IReactorTime`` (timer for flushing; time stamps).
    """

    log = Logger()

    def __init__(
        self,
        path: Path,
        clock: Any,
        settings: TranscriptSettings | None = None,
        stamp: _Stamp | None = None,
        flusher: Deadlines[Transcript] | None = None,
    ) -> None:
        self.path = path
        self._clock = clock
        self.settings = settings or TranscriptSettings()
        #: the timer that writes records waiting: its :class:`Transcripts`' one for all
        #: (a transcript on its own has its own)
        self._flusher = flusher if flusher is not None else flusher_for(clock, self.settings)
        self._buffer_bytes = self.settings.buffer_bytes
        self._cap = self.settings.max_per_connection
        self._seconds = clock.seconds
        self._stamp = stamp or _Stamp()
        #: the records waiting to be written, as the file's bytes
        self._lines: list[bytes] = []
        self._pending = 0
        #: whether this transcript waits in the flusher
        self._queued = False
        self._size: int | None = None
        #: connection → bytes recorded; connection → [lines, bytes] dropped
        self._recorded: dict[str, int] = {}
        self._dropped: dict[str, list[int]] = {}

    def record(
        self,
        conn: str,
        direction: str,
        content: str | bytes,
        *,
        owner: str | None = None,
        seat: int | None = None,
    ) -> None:
        """Append one record: ``conn`` sent (``in``) or got (``out``) ``content``.

        :param owner: the account (or ``!guest`` name) the connection belongs to; its
            player may read the line.
        :param seat: the line is private to this seat (it carries the seat's private
            information); only the owner and admins read it.
        """
        # raises ValueError for another direction
        tag = (
            _tag(conn, direction)
            if not owner and seat is None
            else record_tag(conn, direction, owner, seat)
        )
        self.tagged(conn, tag, escaped(content))

    def tagged(self, conn: str, tag: bytes, text: bytes) -> None:
        """:meth:`record` of ``text``, escaped already (:func:`escaped`), with the
        record's ``tag`` (`` <who> <direction> ``) made already: a connection's lines
        come here with the tags it keeps (:class:`ConnectionRecord`)."""
        stamp, now = self._stamp, self._seconds()
        # (the stamp of the last record, when shared: :class:`_Stamp`, without a call)
        head = stamp.text if 0.0 <= now - stamp.last < SHARED_STAMP else stamp(now)
        line = b"".join((head, tag, text, b"\n"))
        size = len(line)
        if conn != HUB:
            used = self._recorded.get(conn, 0) + size
            if used > self._cap:
                self._drop(conn, tag, size)
                return
            self._recorded[conn] = used
        self._lines.append(line)
        self._pending += size
        if self._pending >= self._buffer_bytes or not self._queued:
            self._appended()

    def broadcast(self, count: int, text: bytes) -> None:
        """One record of ``text`` (escaped already, :func:`escaped`) sent alike to
        ``count`` connections at once (a lobby update, a lobby chat line): its ``who``
        is ``lobby*<count>``, once for all of them (a record a copy would make the
        lobby's transcript grow with the lobby's size at every line said).  It is the
        hub's record: no connection's recording cap counts it."""
        self.tagged(HUB, _broadcast_tag(count), text)

    def record_lines(self, conn: str, direction: str, lines: list[str]) -> None:
        """:meth:`record` for each of ``lines`` (a connection's lines written at once:
        one time stamp, one buffer append)."""
        if lines:
            tag = _tag(conn, direction)  # raises ValueError for another direction
            body = b"\n".join([escaped(line) for line in lines])
            self.tagged_block(conn, tag, body + b"\n", True)

    def record_block(self, conn: str, direction: str, block: bytes, plain: bool = False) -> None:
        """Lines of ``conn`` as they went over the wire at once (each ends in ``\\n``):
        one record per line, as :meth:`record` would write each (one time stamp, one
        buffer append; a block with nothing to escape is joined at C speed).

        :param plain: the caller knows the block has nothing to escape (its lines are
            escaped already, or printable ASCII without backslashes): it is not scanned."""
        self.tagged_block(conn, _tag(conn, direction), block, plain)

    def tagged_block(self, conn: str, tag: bytes, block: bytes, plain: bool = False) -> None:
        """:meth:`record_block` of the wire's bytes with the records' ``tag`` made
        already (:meth:`tagged`)."""
        stamp, now = self._stamp, self._seconds()
        head = stamp.text if 0.0 <= now - stamp.last < SHARED_STAMP else stamp(now)
        prefix = head + tag
        body = block[:-1] if block[-1:] == b"\n" else block
        if plain or not body.translate(None, _PLAIN_BLOCK):  # nothing to escape
            text = b"".join((prefix, body.replace(b"\n", b"\n" + prefix), b"\n"))
        else:
            text = b"".join([prefix + escaped(line) + b"\n" for line in body.split(b"\n")])
        size = len(text)
        if conn != HUB:
            used = self._recorded.get(conn, 0) + size
            if used > self._cap:  # as :meth:`record` would, line by line
                for line in body.split(b"\n"):
                    self.tagged(conn, tag, line if plain else escaped(line))
                return
            self._recorded[conn] = used
        self._lines.append(text)
        self._pending += size
        if self._pending >= self._buffer_bytes or not self._queued:
            self._appended()

    def _drop(self, conn: str, tag: bytes, size: int) -> None:
        dropped = self._dropped.get(conn)
        if dropped is None:
            self._dropped[conn] = [1, size]
            who = tag.split()[0].split(b"#")[0].decode("utf-8", "surrogateescape")
            text = f"{who} reached the recording cap of {self._cap} bytes"
            self.tagged(
                HUB, _tag(HUB, "out"), _encode(f"{text}; its further lines are not recorded")
            )
        else:
            dropped[0] += 1
            dropped[1] += size

    def end_connection(self, conn: str) -> None:
        """``conn`` is gone: write how much of it was dropped, forget its counters."""
        self._recorded.pop(conn, None)
        dropped = self._dropped.pop(conn, None)
        if dropped is not None:
            self.note(f"{conn}: {dropped[0]} lines ({dropped[1]} bytes) were not recorded")

    def note(self, content: str) -> None:
        """A record written by the hub itself (game created, game over...)."""
        self.record(HUB, "out", content)

    def _appended(self) -> None:
        """Records were added: write them if the buffer is full, else make sure the
        timer that writes them runs."""
        if self._pending >= self.settings.buffer_bytes:
            self.flush()
        elif not self._queued:
            self._queued = True
            self._flusher.start(self)

    def _timed_flush(self) -> None:
        """The flusher's handler: this transcript's first waiting record is
        ``flush_seconds`` old."""
        self._queued = False
        try:
            self.flush()
        except Exception:
            self.log.failure("transcript {path}: write failed", path=str(self.path))

    def flush(self) -> None:
        """Write what is buffered (the file is open only for this write)."""
        if self._queued:
            self._queued = False
            self._flusher.cancel(self)
        if not self._lines:
            return
        data = b"".join(self._lines)
        self._lines.clear()
        self._pending = 0
        if self._size is None:
            self.path.parent.mkdir(mode=DIR_MODE, parents=True, exist_ok=True)
            try:
                self._size = self.path.stat().st_size
            except FileNotFoundError:
                self._size = 0
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, FILE_MODE)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
        finally:
            os.close(fd)
        self._size += len(data)
        if self._size > self.settings.max_bytes:
            self._rotate()

    def _rotate(self) -> None:
        keep = self.settings.keep_rotated
        if keep <= 0:
            self.path.unlink(missing_ok=True)
        else:
            parts = rotated_paths(self.path, keep)
            parts[-1].unlink(missing_ok=True)  # the oldest part goes
            for n in range(keep - 1, 0, -1):  # .n becomes .n+1
                if parts[n - 1].exists():
                    parts[n - 1].replace(parts[n])
            self.path.replace(parts[0])
        self._size = 0

    def paths(self) -> list[Path]:
        """The files of this transcript, oldest first (after writing what is buffered)."""
        self.flush()
        return existing_parts(self.path, self.settings.keep_rotated)

    def read(self) -> str:
        """Everything recorded so far ("" if nothing); for tests and tools."""
        return "".join(p.read_text(encoding="utf-8", errors="replace") for p in self.paths())

    def close(self) -> None:
        """Write what is buffered; a later record starts buffering again."""
        self.flush()

    @property
    def buffered(self) -> int:
        """Records waiting to be written."""
        return len(self._lines)


def rotated_paths(path: Path, count: int) -> list[Path]:
    """``<path>.1`` … ``<path>.<count>`` (newest first)."""
    return [path.with_name(f"{path.name}.{n}") for n in range(1, count + 1)]


def existing_parts(path: Path, keep: int) -> list[Path]:
    """The existing files of a transcript, oldest first: rotated parts, then ``path``."""
    parts = [p for p in reversed(rotated_paths(path, keep)) if p.is_file()]
    if path.is_file():
        parts.append(path)
    return parts


class ConnectionRecord:
    """One line connection's records in its game's transcript (the MNM and Domino
    front ends): what it says and is told before it has a game is kept (at most
    :attr:`EARLY` records of at most :attr:`EARLY_BYTES` in all) and written once it
    has one.

    :ivar conn_id: the connection's name in the transcript (set before recording).
    """

    #: records kept while the connection has no game yet
    EARLY = 512
    #: most bytes (characters) of those records kept (a relay's frames are large)
    EARLY_BYTES = 256 * 1024

    __slots__ = ("_attached", "_early", "_early_bytes", "_tags", "_transcript", "conn_id")

    def __init__(self, conn_id: str) -> None:
        self.conn_id = conn_id
        self._transcript: Transcript | None = None
        self._attached = False
        #: direction → the tag of this connection's records (made when it attaches)
        self._tags: dict[str, bytes] = {}
        #: direction, content, direction, content... (no tuple per record)
        self._early: list[str | bytes] = []
        self._early_bytes = 0

    def attach(self, transcript: Transcript | None) -> None:
        """The connection joined a game with ``transcript`` (``None``: it keeps none):
        write the early records there."""
        self._transcript, self._attached = transcript, True
        self._tags = {direction: _tag(self.conn_id, direction) for direction in DIRECTIONS}
        early, self._early, self._early_bytes = self._early, [], 0
        if transcript is not None:
            for direction, content in zip(early[::2], early[1::2], strict=True):
                transcript.record(self.conn_id, direction, content)  # type: ignore[arg-type]

    def detach(self) -> None:
        """The connection has no game any more: keep its records again."""
        self._transcript, self._attached = None, False

    def record(self, direction: str, content: str | bytes) -> None:
        """One line in (``in``) or out (``out``)."""
        transcript = self._transcript
        if transcript is not None:
            if type(content) is not bytes or content.translate(None, _PLAIN):
                content = escaped(content)  # (a line in that needs none is taken as it came)
            transcript.tagged(self.conn_id, self._tags[direction], content)
        elif not self._attached and len(self._early) < 2 * self.EARLY:
            if direction not in DIRECTIONS:
                raise ValueError(f"direction must be 'in' or 'out', not {direction!r}")
            if self._early_bytes + len(content) > self.EARLY_BYTES:
                return  # beyond what is kept before the game
            self._early += (direction, content)
            self._early_bytes += len(content)

    def record_plain(self, direction: str, text: bytes) -> None:
        """:meth:`record` of a line known to need no escape (a constant of the
        protocol: printable ASCII without a backslash)."""
        transcript = self._transcript
        if transcript is not None:
            transcript.tagged(self.conn_id, self._tags[direction], text)
        else:
            self.record(direction, text)

    def record_lines(self, direction: str, lines: list[str]) -> None:
        """:meth:`record` for each of ``lines``, written at once."""
        if self._transcript is not None:
            self._transcript.record_lines(self.conn_id, direction, lines)
        else:
            for line in lines:
                self.record(direction, line)

    def record_block(self, direction: str, block: bytes, plain: bool = False) -> None:
        """Lines as they went over the wire at once (each ends in ``\\n``), one record
        each (:meth:`Transcript.tagged_block`; ``plain``: nothing to escape, known)."""
        transcript = self._transcript
        if transcript is not None:
            transcript.tagged_block(self.conn_id, self._tags[direction], block, plain)
        else:
            for line in block.removesuffix(b"\n").split(b"\n"):
                self.record(direction, line)

    def note(self, text: str) -> None:
        """A note of the hub about this connection (only once it has a game)."""
        if self._transcript is not None:
            self._transcript.note(f"{self.conn_id}: {text}")

    def end(self) -> None:
        """The connection is gone (:meth:`Transcript.end_connection`)."""
        if self._transcript is not None:
            self._transcript.end_connection(self.conn_id)


class Transcripts:
    """Hands out the :class:`Transcript` of each live game under ``<data>/transcripts``.

    Only live games' transcripts are kept here (:meth:`release` forgets one); reading
    works for every transcript on disk.
    """

    log = Logger()

    def __init__(
        self, directory: Path | None, clock: Any, settings: TranscriptSettings | None = None
    ) -> None:
        self.directory = directory
        self._clock = clock
        self.settings = settings or TranscriptSettings()
        self._stamp = _Stamp()
        self._live: dict[str, Transcript] = {}
        #: transcripts with records waiting to be written, live or not, in the order of
        #: their first waiting record: one timer writes them all
        self._flusher = flusher_for(clock, self.settings)

    @property
    def live_count(self) -> int:
        """How many transcripts are live (kept in memory)."""
        return len(self._live)

    def for_game(self, game_id: str) -> Transcript:
        """The transcript of ``game_id`` (created on first use)."""
        transcript = self._live.get(game_id)  # a live one's id was checked when it came
        if transcript is None:
            if not _GAME_ID.match(game_id):
                raise ValueError(f"not a game id: {game_id!r}")
            if self.directory is None:
                raise RuntimeError("this hub keeps no transcripts (no data folder)")
            transcript = Transcript(
                self.directory / f"{game_id}.log",
                self._clock,
                self.settings,
                self._stamp,
                self._flusher,
            )
            self._live[game_id] = transcript
        return transcript

    def for_lobby(self, frontend: str) -> Transcript:
        """The lobby transcript of a front end (``lobby-<frontend>``; admin only)."""
        return self.for_game(LOBBY_PREFIX + frontend)

    def paths(self, name: str) -> list[Path] | None:
        """The files of transcript ``name``, oldest first; ``None`` if there are none."""
        if not _GAME_ID.match(name) or self.directory is None:
            return None
        live = self._live.get(name)
        if live is not None:
            live.flush()
        parts = existing_parts(self.directory / f"{name}.log", self.settings.keep_rotated)
        return parts or None

    def read(self, name: str) -> str | None:
        """The text of a transcript, also of a game that is gone; ``None`` if none."""
        parts = self.paths(name)
        if parts is None:
            return None
        return "".join(p.read_text(encoding="utf-8", errors="replace") for p in parts)

    def release(self, name: str) -> None:
        """The game is no longer live: write its transcript and forget it."""
        transcript = self._live.pop(name, None)
        if transcript is not None:
            transcript.close()

    def flush(self) -> None:
        """Write every buffered record (of live transcripts and released ones)."""
        for transcript in self._flusher.keys() + list(self._live.values()):
            try:
                transcript.flush()
            except OSError:
                self.log.failure("transcript {path}: write failed", path=str(transcript.path))

    def close(self, name: str | None = None) -> None:
        """Release one transcript, or write and forget all of them (the hub stops)."""
        if name is not None:
            self.release(name)
            return
        self.flush()
        self._live.clear()


def is_lobby(name: str) -> bool:
    """Whether transcript ``name`` is a lobby's (admin only), not a game's."""
    return name.startswith(LOBBY_PREFIX)
