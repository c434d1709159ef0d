"""The MNM line protocol without I/O: client lines → :class:`Command`, server lines out.

Client lines are ASCII; a trailing ``\\r`` and trailing spaces are ignored (real
clients send ``THINKING `` and ``PLAYER ``).  Anything else that is not a command of
the protocol raises :class:`ProtocolError` with a reason for people.  Server lines
are built by the ``*_line`` functions (without the ``\\n``).
"""

from __future__ import annotations

import functools
import operator
import re
from collections.abc import Sequence
from dataclasses import dataclass

#: Longest line (without the newline) a client may send.
MAX_LINE = 1024
VERBS = ("VERSION", "ID", "PLAYER", "OKWAIT", "THINKING", "PLAY")
_PRINTABLE = re.compile(rb"^[\x20-\x7e]*$")
_VERSION = re.compile(r"^v?(\d{1,4})(?:\.(\d{1,6}))*$")
_GAME_ID = re.compile(r"^[a-z0-9]+$")


class ProtocolError(Exception):
    """The peer broke the protocol; ``reason`` is sent as ``- <reason>``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Command:
    """One client line: ``verb`` (one of :data:`VERBS`) and its argument text."""

    verb: str
    arg: str = ""


def _show(text: str) -> str:
    return text if len(text) <= 40 else text[:40] + "..."


#: lines up to this long are parsed once (a game's lines repeat: ``THINKING``, ``PLAY B3``)
SHORT_LINE = 32


def parse_line(raw: bytes) -> Command:
    """One line (without ``\\n``) → :class:`Command`.

    :raises ProtocolError: not ASCII, too long, empty or an unknown command.
    """
    if len(raw) <= SHORT_LINE:
        return _parse_short(bytes(raw))
    return _parse(raw)


@functools.lru_cache(maxsize=1024)  # bounded; a refused line raises and is not kept
def _parse_short(raw: bytes) -> Command:
    return _parse(raw)


def _parse(raw: bytes) -> Command:
    if raw.endswith(b"\r"):
        raw = raw[:-1]
    if len(raw) > MAX_LINE:
        raise ProtocolError(f"Line too long: more than {MAX_LINE} bytes")
    if not _PRINTABLE.match(raw):
        raise ProtocolError("Only printable ASCII characters are allowed")
    text = raw.decode("ascii").rstrip(" ")
    if not text:
        raise ProtocolError("Empty line: we expected a command")
    verb, _, arg = text.partition(" ")
    if verb not in VERBS:
        raise ProtocolError(f"Unknown command: {_show(verb)}")
    return Command(verb, arg.strip(" "))


def version_major(version: str) -> str:
    """``"3.1"`` → ``"3"``.

    :raises ProtocolError: not a version number.
    """
    match = _VERSION.match(version)
    if not match:
        raise ProtocolError("Client version not supported")
    return str(int(match.group(1)))


def check_client_version(client: str, server: str) -> None:
    """The client's major must equal the server's.

    :raises ProtocolError: ``Client version not supported``.
    """
    if version_major(client) != version_major(server):
        raise ProtocolError("Client version not supported")


def id_length(server_version: str) -> int:
    """Game-id length of a server major: 11 for 1.x, 13 for later ones."""
    return 11 if version_major(server_version) == "1" else 13


def check_game_id(text: str, server_version: str) -> str:
    """A well-formed game id for this server version.

    :raises ProtocolError: ``Not a valid game ID``.
    """
    if len(text) != id_length(server_version) or not _GAME_ID.match(text):
        raise ProtocolError("Not a valid game ID")
    return text


def parse_player(arg: str, seats: int = 2) -> int | None:
    """The optional player-number wish of ``PLAYER [n]``.

    :raises ProtocolError: ``Invalid player number``.
    """
    if not arg:
        return None
    if not arg.isdigit() or len(arg) > 3 or int(arg) >= seats:
        raise ProtocolError("Invalid player number")
    return int(arg)


def wire_name(name: str | None, default: str) -> str:
    """A player name as the protocol writes it: no spaces, printable ASCII."""
    text = (name or default).encode("ascii", "replace").decode("ascii")
    text = "".join(ch if 0x21 <= ord(ch) <= 0x7E else "_" for ch in text)
    return text[:64] or default


# -- server lines ------------------------------------------------------------------------


@functools.lru_cache(maxsize=64)  # the same line for every connection: one string
def banner_line(version: str) -> str:
    """``+ MNM Gameserver v3.1 accepting connections``."""
    return f"+ MNM Gameserver v{version} accepting connections"


@functools.lru_cache(maxsize=64)
def banner_lines(version: str, announcement: str) -> tuple[str, ...]:
    """What the server says first: the banner and, for major ≥ 3, the announcement."""
    if int(version_major(version)) >= 3:
        return (banner_line(version), announcement_line(announcement))
    return (banner_line(version),)


@functools.lru_cache(maxsize=64)
def announcement_line(text: str) -> str:
    """The extra v3 line; always starts with ``+ A``."""
    text = " ".join(text.split())
    if not text.startswith("A"):
        text = "Announcement: " + text
    return "+ " + text


def lines_prolog_game(kind: str, game_name: str) -> list[str]:
    """``+ PLAYING <kind>`` and ``+ <Game-Name>``."""
    return [f"+ PLAYING {kind}", "+ " + " ".join(game_name.split())]


def lines_players(
    me: int, my_name: str, total: int, others: Sequence[tuple[int, str, bool]]
) -> list[str]:
    """``+ YOU``, ``+ TOTAL``, one line per other player, ``+ ENDPLAYERS``."""
    out = [f"+ YOU {me} {my_name}", f"+ TOTAL {total}"]
    out += [f"+ {nr} {name} {1 if ready else 0}" for nr, name, ready in others]
    out.append("+ ENDPLAYERS")
    return out


@functools.lru_cache(maxsize=64)
def _piece_heads(player: int, count: int) -> tuple[str, ...]:
    """``+ PIECE<player>.<i> `` for each piece ``i`` of a row of ``count``."""
    return tuple(f"+ PIECE{player}.{i} " for i in range(count))


@functools.lru_cache(maxsize=4096)  # bounded; a row is often the one of the last position
def _piece_row(player: int, row: tuple[str, ...]) -> str:
    """The ``+ PIECE<player>.<i> <pos>`` lines of one player's pieces, joined."""
    return "\n".join(map(operator.add, _piece_heads(player, len(row)), row))


def block_move(move_time_ms: int, capture: int, pieces: Sequence[Sequence[str]]) -> str:
    """A move request as the text that goes over the wire: ``+ MOVE``, ``+ CAPTURE``
    (always), then :func:`lines_piecelist`, each line ending in ``\\n``.  Each player's
    lines are made once a row of positions (a move changes one player's row, so the
    other's comes from the last request)."""
    per = max(map(len, pieces), default=0)
    parts = [
        f"+ MOVE {int(move_time_ms)}\n+ CAPTURE {int(capture)}\n+ PIECELIST {len(pieces)},{per}"
    ]
    for p, row in enumerate(pieces):
        if row:
            parts.append(_piece_row(p, tuple(row)))
    parts.append("+ ENDPIECELIST\n")
    return "\n".join(parts)


def lines_piecelist(pieces: Sequence[Sequence[str]]) -> list[str]:
    """``+ PIECELIST 2,9``, ``+ PIECE<p>.<i> <pos>`` each, ``+ ENDPIECELIST``."""
    per = max((len(row) for row in pieces), default=0)
    out = [f"+ PIECELIST {len(pieces)},{per}"]
    for p, row in enumerate(pieces):
        out += [f"+ PIECE{p}.{i} {pos}" for i, pos in enumerate(row)]
    out.append("+ ENDPIECELIST")
    return out


def lines_gameover(pieces: Sequence[Sequence[str]], won: Sequence[bool]) -> list[str]:
    """``+ GAMEOVER``, the piece list, ``+ PLAYERnWON Yes|No`` each, ``+ QUIT``."""
    out = ["+ GAMEOVER"] + lines_piecelist(pieces)
    out += [f"+ PLAYER{n}WON {'Yes' if w else 'No'}" for n, w in enumerate(won)]
    out.append("+ QUIT")
    return out


def error_line(reason: str) -> str:
    """``- <reason>`` (one line, printable ASCII)."""
    text = " ".join(reason.split()).encode("ascii", "replace").decode("ascii")
    return "- " + (text or "Error")


VERSION_ACCEPTED = "+ Client version accepted - please send Game-ID to join"
WAIT = "+ WAIT"
OKTHINK = "+ OKTHINK"
MOVEOK = "+ MOVEOK"
