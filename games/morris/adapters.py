"""Plugs the morris game into the front ends that host it: the MNM line protocol and the web."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zope.interface import implementer

from hub.interfaces import IMNMGameAdapter, IWebAssets, IWebView
from hub.model import BadAction
from hub.optional_interfaces import IMNMCurrentPieces

from . import rules

#: the fields of the board as a move names them (``A0`` ... ``C7``)
_FIELDS = frozenset(rules.point_name(p) for p in range(rules.POINTS))


@implementer(IMNMGameAdapter, IMNMCurrentPieces)
class MorrisMNMAdapter:
    """``+ PLAYING NMMorris``: piece lists of 2×9 pieces, moves ``B3``/``A1:B1``/``C5``."""

    kind = "NMMorris"
    default_names = rules.DEFAULT_NAMES

    def piece_list(self, view: Mapping[str, Any]) -> list[list[str]]:
        """``view["pieces"]`` as it is: ``A`` in hand, ``A0``..``C7``, ``C`` captured."""
        return [list(row) for row in view["pieces"]]

    def current_pieces(self, game: Any, seat: int | None) -> Sequence[Sequence[str]]:
        """:meth:`piece_list` of the game's view now, without building the whole view
        (the game's shared list: the caller only reads it)."""
        if isinstance(getattr(game, "engine", None), rules.MorrisState):
            pieces: Sequence[Sequence[str]] = game.current_pieces()  # a running game's shared list
            return pieces
        return self.piece_list(game.view(seat))  # a finished game's summary

    def capture_count(self, turn: Mapping[str, Any]) -> int:
        """Pieces the mover must capture now."""
        return int(turn.get("capture", 0))

    def parse_move(self, text: str, turn: Mapping[str, Any]) -> dict[str, Any]:
        """Check the form of the move; the game checks whether it is legal."""
        parts = text.split(":")
        if len(parts) > 2:
            raise BadAction(f"Invalid move: {text[:40]} is neither a field nor FROM:TO")
        for part in parts:
            if part not in _FIELDS:
                raise BadAction(f"Invalid move: {part[:40]} is not a field")
        if len(parts) == 2 and self.capture_count(turn):
            raise BadAction("Invalid move: you must name an opponent piece to capture")
        return {"move": text}

    def winners(self, result: Mapping[str, Any]) -> list[bool]:
        """A draw counts as won by both (``PLAYER0WON Yes`` and ``PLAYER1WON Yes``)."""
        if result.get("draw"):
            return [True, True]
        won = set(result.get("winners", ()))
        return [0 in won, 1 in won]


@implementer(IWebView, IWebAssets)
class WebView:
    """The page script that draws this game in the browser (``web.js`` here), its
    stylesheet (``web.css``)."""

    script = "web.js"
    styles = "web.css"
    history: str | None = None


#: front end → the adapter that lets it host morris (:meth:`.server.MorrisGameFactory.adapter`)
ADAPTERS: dict[str, type] = {"mnm": MorrisMNMAdapter, "web": WebView}
