"""What every part of the kit shares: a JSON value and the refusal for people
(:class:`KitError`), below the engine (:mod:`hub.kit.engine`) and the board
(:mod:`hub.kit.board`), which both use them."""

from __future__ import annotations

from typing import TypeAlias

#: A JSON value: what crosses a wire (views, moves as sent, options).
Json: TypeAlias = None | bool | int | float | str | list["Json"] | dict[str, "Json"]


class KitError(Exception):
    """A refusal for people (a move that is not legal, a bad option, a bad text).

    :ivar reason: what was wrong, in words.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


__all__ = ["Json", "KitError"]
