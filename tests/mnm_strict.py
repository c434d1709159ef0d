"""A strict MNM client for the tests, modelled on the course's C clients.

It checks what those clients check: every line starts with ``+ `` (or ``- ``, which
ends everything), the banner's ``+ MNM Gameserver v`` prefix and major version (v2
clients compare the whole banner), in v3 mode exactly two lines after connecting (the
second starting ``+ A``), ``+ PLAYING NMMorris``, the fixed ``+ TOTAL 2``,
``+ CAPTURE`` right after every ``+ MOVE``, ``+ PIECELIST 2,9`` with 18 ``PIECE``
lines in order, ``+ OKTHINK`` after ``THINKING``, ``+ MOVEOK`` after ``PLAY``, and
``GAMEOVER`` … ``+ QUIT`` followed by the server closing the connection.
Blocking sockets with timeouts: every wait is bounded.
"""

from __future__ import annotations

import re
import socket
from collections.abc import Callable

PIECE = re.compile(r"^\+ PIECE([01])\.([0-8]) (A|C|[ABC][0-7])$")


class ServerError(Exception):
    """The server sent ``- <reason>`` (or broke the protocol as the client sees it)."""


class StrictClient:
    """One connection; ``mode`` is ``v1``, ``v2`` or ``v3`` (how the prolog is read)."""

    def __init__(
        self,
        port: int,
        version: str = "3.1",
        mode: str = "v3",
        timeout: float = 20,
        kind: str = "NMMorris",
    ):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.file = self.sock.makefile("rb")
        self.version = version
        self.mode = mode
        #: the game kind the prolog must announce (``+ PLAYING <kind>``)
        self.kind = kind
        self.received: list[str] = []
        self.sent: list[str] = []

    def close(self) -> None:
        self.file.close()
        self.sock.close()

    def send(self, line: str) -> None:
        self.sent.append(line)
        self.sock.sendall(line.encode("ascii") + b"\n")

    def read(self) -> str:
        raw = self.file.readline(2048)
        if not raw:
            raise ServerError("connection closed by the server")
        assert raw.endswith(b"\n"), raw
        text = raw[:-1].decode("ascii")
        self.received.append(text)
        if text.startswith("- "):
            raise ServerError(text)
        assert text.startswith("+ "), text
        return text

    def expect(self, line: str) -> None:
        got = self.read()
        assert got == line, (got, line)

    def at_eof(self) -> bool:
        return self.file.readline(2048) == b""

    # -- prolog -----------------------------------------------------------------------

    def prolog(self, game_id: str, player: int | None = None) -> tuple[int, str]:
        banner = self.read()
        major = self.version.split(".")[0]
        assert banner.startswith("+ MNM Gameserver v" + major + "."), banner
        if self.mode == "v2":
            assert banner == f"+ MNM Gameserver v{self.version} accepting connections"
        if self.mode == "v3":
            assert self.read().startswith("+ A")
        self.send(f"VERSION {major}.0")
        self.expect("+ Client version accepted - please send Game-ID to join")
        self.send(f"ID {game_id}")
        self.expect(f"+ PLAYING {self.kind}")
        self.game_name = self.read()[2:]
        self.send("PLAYER " if player is None else f"PLAYER {player}")
        you = re.match(r"^\+ YOU ([01]) (\S+)$", self.read())
        assert you, self.received[-1]
        self.expect("+ TOTAL 2")
        self.others = []
        while True:
            line = self.read()
            if line == "+ ENDPLAYERS":
                break
            other = re.match(r"^\+ ([01]) (\S+) ([01])$", line)
            assert other, line
            self.others.append((int(other.group(1)), other.group(2), other.group(3) == "1"))
        assert len(self.others) == 1
        self.me = int(you.group(1))
        return self.me, you.group(2)

    # -- game ---------------------------------------------------------------------------

    def piecelist(self) -> list[list[str]]:
        self.expect("+ PIECELIST 2,9")
        pieces: list[list[str]] = [[], []]
        for p in range(2):
            for i in range(9):
                m = PIECE.match(self.read())
                assert m and int(m.group(1)) == p and int(m.group(2)) == i, self.received[-1]
                pieces[p].append(m.group(3))
        self.expect("+ ENDPIECELIST")
        return pieces

    def play(self, think: Callable[[list[list[str]], int, int], str]) -> list[bool]:
        """Play until the game is over; ``think(pieces, me, capture)`` → move text.
        Returns ``[player0won, player1won]``."""
        while True:
            line = self.read()
            if line == "+ WAIT":
                self.send("OKWAIT")
            elif line.startswith("+ MOVE "):
                assert int(line[7:]) > 0
                cap = re.match(r"^\+ CAPTURE ([0-9])$", self.read())
                assert cap, self.received[-1]
                pieces = self.piecelist()
                self.send("THINKING ")
                self.expect("+ OKTHINK")
                self.send("PLAY " + think(pieces, self.me, int(cap.group(1))))
                self.expect("+ MOVEOK")
            elif line == "+ GAMEOVER":
                self.final = self.piecelist()
                won = []
                for n in range(2):
                    m = re.match(rf"^\+ PLAYER{n}WON (Yes|No)$", self.read())
                    assert m, self.received[-1]
                    won.append(m.group(1) == "Yes")
                self.expect("+ QUIT")
                assert self.at_eof()
                return won
            else:
                raise AssertionError(f"unexpected line {line!r}")
