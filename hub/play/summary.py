"""Small summaries of finished games: what a retired game keeps in memory
(:meth:`hub.play.game.GameInstance.retire`; docs/performance.md, "memory").

A finished game keeps its final views, public and per seat.  Most of a seat's view is
the public one (a board, a move list): :func:`share_equal` makes the seat's view reuse
the public view's values where they are equal, so a seat costs only what differs.
"""

from __future__ import annotations

from typing import Any


def share_equal(public: Any, view: Any) -> Any:
    """``view`` with every top-level value equal to the public view's replaced by the
    public one's (the same object, kept once); ``view`` itself when either is not a
    mapping."""
    if not isinstance(public, dict) or not isinstance(view, dict):
        return view
    shared: dict[Any, Any] = {}
    for key, value in view.items():
        other = public.get(key, shared)
        shared[key] = other if other is not shared and other == value else value
    return shared
