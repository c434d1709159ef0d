"""A board a two-player kit game declares, so that the MNM line protocol can host it
(docs/plugins.md, "A board over MNM").  Pure data: no Twisted, no sockets.

A game declares ``board = kit.Board(kind, fields, pieces)`` and writes two engine
methods (:class:`~hub.kit.engine.Engine`): ``board_pieces(state)`` (where each
seat's pieces are: the ``PIECE`` lines of MNM's piece list) and ``board_move(move)``
(how a ``PLAY`` line writes the move).  The kit puts both in what it already sends (a
seat's view gets ``board``: ``{"pieces": …}``; each legal action a ``play`` text), so
the MNM front end hosts the game with the kit's one adapter
(:class:`hub.kit.mnm.KitMNMAdapter`), in the hub's process or isolated alike.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from .errors import Json, KitError

#: a piece not yet on the board (MNM's ``A``) and one taken off it (``C``)
IN_HAND = "A"
CAPTURED = "C"
#: what joins the fields of one move in a ``PLAY`` line (``PLAY A1:B1``)
JOIN = ":"
_WORD = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
_FIELD = re.compile(r"^[A-Za-z0-9]{1,8}$")
#: most pieces a player may have in a piece list (MNM's ``PIECE<p>.<i>``)
MAX_PIECES = 99


@dataclass(frozen=True)
class Board:
    """What the MNM protocol needs to know of a two-player board game.

    :ivar kind: the game kind a client is told (``+ PLAYING <kind>``; no spaces).
    :ivar fields: the board's positions as the protocol names them (``A0``, ``B3``...;
        letters and digits, never ``A`` or ``C`` alone: those mean in hand, captured).
    :ivar pieces: pieces per player in the piece list (rows shorter than that are
        filled with ``A``: not yet placed).
    :ivar names: the players' names when nobody gave one (no spaces).
    :raises KitError: a declaration the protocol cannot carry.
    """

    kind: str
    fields: tuple[str, ...]
    pieces: int
    names: tuple[str, str] = ("white", "black")

    def __post_init__(self) -> None:
        if not _WORD.match(self.kind):
            raise KitError(f"a board's kind is a word of letters and digits, not {self.kind!r}")
        bad = [f for f in self.fields if not _FIELD.match(f) or f in (IN_HAND, CAPTURED)]
        if bad or not self.fields or len(set(self.fields)) != len(self.fields):
            raise KitError(f"a board's fields are distinct names like A0 (not {bad or 'these'})")
        if not 1 <= self.pieces <= MAX_PIECES:
            raise KitError(f"a board has 1 to {MAX_PIECES} pieces per player")
        if len(self.names) != 2 or not all(_WORD.match(n) for n in self.names):
            raise KitError("a board names its two players with one word each")

    def row(self, placed: Sequence[str]) -> list[str]:
        """One player's piece list: ``placed`` (fields, ``A`` or ``C``) filled with ``A``.

        :raises KitError: a position that is not a field, or too many pieces.
        """
        row = [str(p) for p in placed]
        if len(row) > self.pieces:
            raise KitError(f"a player has at most {self.pieces} pieces on this board")
        for position in row:
            if position not in (IN_HAND, CAPTURED) and position not in self.fields:
                raise KitError(f"{position!r} is not a field of the board")
        return row + [IN_HAND] * (self.pieces - len(row))

    def to_json(self) -> dict[str, Json]:
        """The declaration as JSON (an isolated game's worker describes it so)."""
        return {
            "kind": self.kind,
            "fields": list(self.fields),
            "pieces": self.pieces,
            "names": list(self.names),
        }

    @classmethod
    def from_json(cls, data: Json) -> Board:
        """The declaration :meth:`to_json` wrote.

        :raises KitError: not one.
        """
        if not isinstance(data, dict):
            raise KitError("a board is a JSON object")
        fields, names, pieces = data.get("fields"), data.get("names"), data.get("pieces")
        if not isinstance(fields, list) or not isinstance(names, list) or len(names) != 2:
            raise KitError("a board has a list of fields and two names")
        if isinstance(pieces, bool) or not isinstance(pieces, int):
            raise KitError("a board's pieces is a whole number")
        return cls(
            str(data.get("kind")), tuple(map(str, fields)), pieces, (str(names[0]), str(names[1]))
        )


__all__ = ["CAPTURED", "IN_HAND", "JOIN", "Board"]
