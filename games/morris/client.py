"""The client side of Nine Men's Morris: what a client downloads to play it over MNM.

:class:`Connector` is the MNM client protocol as a pure state machine (no I/O): feed
it each server line (banner, ``+ PLAYING NMMorris``, ``+ MOVE``, ``+ CAPTURE``, the
piece list, ``+ OKTHINK``, ``+ GAMEOVER``…) and send the lines it returns; when a move
is wanted it holds a :class:`MoveRequest` (the piece list, whose turn, the captures
due and the time) for a thinker.  No imports from the hub: it runs anywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_BANNER = re.compile(r"^\+ MNM Gameserver v(\d+)\.(\S+) accepting connections$")
_PIECE = re.compile(r"^\+ PIECE(\d+)\.(\d+) (\S+)$")


class ConnectorError(Exception):
    """The server said ``- …`` or sent something this client does not understand."""


@dataclass
class MoveRequest:
    """What the thinker needs: the piece list, our number, captures, time in ms."""

    pieces: list[list[str]]
    me: int
    capture: int
    time_ms: int


@dataclass
class Connector:
    """The MNM client protocol as a state machine (no I/O).

    Feed each server line to :meth:`line`; it returns the lines to send.  When a move
    is wanted, :attr:`request` is set; hand the thinker's answer to :meth:`move`.
    """

    game_id: str
    player: int | None = None
    kind: str = "NMMorris"
    state: str = "banner"
    me: int | None = None
    name: str = ""
    request: MoveRequest | None = None
    won: list[bool] = field(default_factory=list)
    finished: bool = False
    _pieces: list[list[str]] = field(default_factory=lambda: [[], []])
    _move_ms: int = 3000
    _capture: int = 0
    _okthink: bool = False
    _answer: str | None = None

    def line(self, text: str) -> list[str]:
        """One server line (without newline) → lines to send."""
        text = text.rstrip("\r")
        if text.startswith("- "):
            raise ConnectorError(f"the server refused: {text[2:]}")
        if not text.startswith("+ "):
            raise ConnectorError(f"not a server line: {text[:60]!r}")
        return self.STATES[self.state](self, text)

    def _on_banner(self, text: str) -> list[str]:
        match = _BANNER.match(text)
        if not match:
            raise ConnectorError(f"not an MNM server: {text[:60]!r}")
        self.state = "version"
        return [f"VERSION {match.group(1)}.0"]

    def _on_version(self, text: str) -> list[str]:
        if text.startswith("+ Client version accepted"):
            self.state = "playing"
            return [f"ID {self.game_id}"]
        return []  # the v3 announcement line(s)

    def _on_playing(self, text: str) -> list[str]:
        if text != f"+ PLAYING {self.kind}":
            raise ConnectorError(f"this bot plays {self.kind}, not {text[10:]!r}")
        self.state = "gamename"
        return []

    def _on_gamename(self, text: str) -> list[str]:
        self.state = "you"
        return ["PLAYER" if self.player is None else f"PLAYER {self.player}"]

    def _on_you(self, text: str) -> list[str]:
        parts = text.split()
        if len(parts) < 3 or parts[1] != "YOU":
            raise ConnectorError(f"expected + YOU, got {text[:60]!r}")
        self.me, self.name = int(parts[2]), " ".join(parts[3:])
        self.state = "players"
        return []

    def _on_players(self, text: str) -> list[str]:
        if text == "+ ENDPLAYERS":
            self.state = "idle"
        return []

    def _on_idle(self, text: str) -> list[str]:
        if text == "+ WAIT":
            return ["OKWAIT"]
        if text.startswith("+ MOVE "):
            self._move_ms = int(text[7:])
            self.state = "capture"
            return []
        if text == "+ GAMEOVER":
            self.state = "over_list"
            return []
        if text == "+ MOVEOK":
            return []
        raise ConnectorError(f"unexpected line {text[:60]!r}")

    def _on_capture(self, text: str) -> list[str]:
        if not text.startswith("+ CAPTURE "):
            raise ConnectorError("CAPTURE must follow MOVE")
        self._capture = int(text[10:])
        self.state = "move_list"
        return []

    def _piece_line(self, text: str) -> bool:
        if text.startswith("+ PIECELIST "):
            self._pieces = [[], []]
            return False
        if text == "+ ENDPIECELIST":
            return True
        match = _PIECE.match(text)
        if not match:
            raise ConnectorError(f"bad piece line {text[:60]!r}")
        player = int(match.group(1))
        while len(self._pieces) <= player:
            self._pieces.append([])
        self._pieces[player].append(match.group(3))
        return False

    def _on_move_list(self, text: str) -> list[str]:
        if self._piece_line(text):
            assert self.me is not None
            self.request = MoveRequest(
                [list(r) for r in self._pieces], self.me, self._capture, self._move_ms
            )
            self._okthink, self._answer = False, None
            self.state = "thinking"
            return ["THINKING"]
        return []

    def _on_thinking(self, text: str) -> list[str]:
        if text != "+ OKTHINK":
            if text == "+ GAMEOVER":  # a server that ends the game at once
                self.request = None
                self.state = "over_list"
                return []
            raise ConnectorError(f"expected + OKTHINK, got {text[:60]!r}")
        self._okthink = True
        return self._maybe_play()

    def move(self, text: str) -> list[str]:
        """The thinker's answer to :attr:`request`."""
        if self.request is None:
            return []
        self._answer = text
        return self._maybe_play()

    def _maybe_play(self) -> list[str]:
        if self._okthink and self._answer is not None:
            answer, self._answer, self.request = self._answer, None, None
            self.state = "idle"
            return [f"PLAY {answer}"]
        return []

    def _on_over_list(self, text: str) -> list[str]:
        if self._piece_line(text):
            self.state = "over_won"
        return []

    def _on_over_won(self, text: str) -> list[str]:
        match = re.match(r"^\+ PLAYER(\d+)WON (Yes|No)$", text)
        if match:
            self.won.append(match.group(2) == "Yes")
            return []
        if text == "+ QUIT":
            self.finished = True
            self.state = "done"
            return []
        raise ConnectorError(f"unexpected line {text[:60]!r}")

    def _on_done(self, text: str) -> list[str]:
        return []

    #: state → how a line is read in it: the dispatch table
    STATES = {
        "banner": _on_banner,
        "version": _on_version,
        "playing": _on_playing,
        "gamename": _on_gamename,
        "you": _on_you,
        "players": _on_players,
        "idle": _on_idle,
        "capture": _on_capture,
        "move_list": _on_move_list,
        "thinking": _on_thinking,
        "over_list": _on_over_list,
        "over_won": _on_over_won,
        "done": _on_done,
    }
