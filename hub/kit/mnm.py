"""The MNM adapter of every kit game that declares a board (:mod:`hub.kit.board`): no
adapter code in the game.  It reads only what the kit sends anyway (a view's
``board``, the ``play`` text of each legal action), so it hosts a game whose engine
runs in the hub's process and an isolated one alike."""

from __future__ import annotations

from collections.abc import Mapping

from zope.interface import implementer

from hub.interfaces import IMNMGameAdapter
from hub.model import BadAction, IllegalAction

from .board import JOIN, Board


@implementer(IMNMGameAdapter)
class KitMNMAdapter:
    """``+ PLAYING <board.kind>``; piece lists of ``2 × board.pieces``; a ``PLAY`` text
    is a field or fields joined by ``:``, and must be the ``play`` of a legal action;
    ``+ CAPTURE 0`` always (a game that removes pieces makes that a move of its own)."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.kind = board.kind
        self.default_names = board.names
        self._fields = frozenset(board.fields)

    def piece_list(self, view: Mapping[str, object]) -> list[list[str]]:
        """The view's ``board.pieces`` (every piece in hand when it has none)."""
        board = view.get("board")
        rows = board.get("pieces") if isinstance(board, Mapping) else None
        if not isinstance(rows, list) or len(rows) != 2:
            return [self.board.row(()), self.board.row(())]
        return [[str(p) for p in row] if isinstance(row, list) else [] for row in rows]

    def capture_count(self, turn: Mapping[str, object]) -> int:
        """No capture count: 0."""
        return 0

    def parse_move(self, text: str, turn: Mapping[str, object]) -> dict[str, object]:
        """The legal action whose ``play`` is ``text``, as the action ``{"move": …}``.

        :raises BadAction: a text that names no field of the board.
        :raises IllegalAction: fields that are no legal move now.
        """
        for part in text.split(JOIN):
            if part not in self._fields:
                raise BadAction(f"Invalid move: {(part or text)[:40]} is not a field")
        legal = turn.get("legal")
        for action in legal if isinstance(legal, list) else ():
            if isinstance(action, Mapping) and action.get("play") == text:
                return {"move": action.get("move")}
        raise IllegalAction(f"Invalid move: {text[:40]} is not a legal move now")

    def winners(self, result: Mapping[str, object]) -> list[bool]:
        """The result's ``winners``; a draw (no winner) counts as won by both."""
        won = result.get("winners")
        seats = set(won) if isinstance(won, list) else set()
        if not seats:
            return [True, True]
        return [0 in seats, 1 in seats]


__all__ = ["KitMNMAdapter"]
