"""Plugs King Domino into the front ends that host it: the domino line protocol and the web.

On the domino front end (:class:`DominoAdapter`) player ids are seat + 1 and logins
:func:`wire_name`; the front end itself answers ``CONNECT``, ``LOGIN`` and ``OK``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from zope.interface import implementer

from hub.interfaces import IDominoAdapter, IWebAssets, IWebView
from hub.model import GAME_OVER, TURN, BadAction, GameEvent

from . import rules

_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def wire_name(name: str | None, seat: int) -> str:
    """A login as the domino protocol can carry it (no spaces, printable ASCII)."""
    cleaned = _SAFE.sub("", name or "")
    return cleaned or f"PLAYER{seat + 1}"


@implementer(IDominoAdapter)
class DominoAdapter:
    """Lines of the domino protocol ⇄ King Domino actions and events."""

    verbs = ("CHOOSE", "MOVE")

    def parse_command(self, verb: str, args: Sequence[str]) -> dict[str, Any]:
        """``CHOOSE n`` → ``{"choose": n}``; ``MOVE x y o`` → ``{"move": [x, y, o]}``.

        :raises BadAction: wrong verb or arguments.
        """
        try:
            numbers = [int(a) for a in args]
        except ValueError:
            raise BadAction(f"{verb} takes integers") from None
        if verb == "CHOOSE" and len(numbers) == 1:
            return {"choose": numbers[0]}
        if verb == "MOVE" and len(numbers) == 3:
            return {"move": numbers}
        raise BadAction(f"bad {verb} command")

    def render_event(self, event: GameEvent, seat: int) -> list[str]:
        """The lines the player at ``seat`` gets for ``event`` (without ``\\n``).

        The acting player's own ``chosen``/``placed`` give no line: the front end
        answers its command with ``OK``.
        """
        data = event.data
        kind = event.kind
        if kind == "start":
            order = " ".join(str(s + 1) for s in data["order"])
            dominoes = " ".join(str(d) for d in data["dominoes"])
            return [f"START {seat + 1} {order} {dominoes}"]
        if kind == TURN:
            if data["seat"] != seat:
                return []
            return ["YOUR CHOICE" if data["phase"] == rules.CHOOSE else "YOUR MOVE"]
        if kind == "chosen" and data["seat"] != seat:
            return [f"PLAYER CHOICE {data['seat'] + 1} {data['domino']}"]
        if kind == "placed" and data["seat"] != seat:
            x, y, o = data["move"]
            return [f"PLAYER MOVE {data['seat'] + 1} {x} {y} {o}"]
        if kind == "round":
            return [" ".join(["ROUND", *(str(d) for d in data["dominoes"])])]
        if kind == GAME_OVER:
            parts = ["GAME OVER RESULTS"]
            for entry in data["result"]["ranking"]:
                parts.append(f"{wire_name(entry['name'], entry['seat'])} {entry['points']}")
            return [" ".join(parts)]
        return []

    def removes(self, event: GameEvent, seat: int) -> bool:
        """Whether ``event`` removes ``seat`` from the game (→ close its connection)."""
        return event.kind == "removed" and event.data.get("seat") == seat


@implementer(IWebView, IWebAssets)
class WebView:
    """The page script that draws this game in the browser (``web.js`` here), its
    stylesheet (``web.css``)."""

    script = "web.js"
    styles = "web.css"
    history: str | None = None


#: front end → the adapter that lets it host King Domino
#: (:meth:`.server.KingDominoGameFactory.adapter`)
ADAPTERS: dict[str, type] = {"domino": DominoAdapter, "web": WebView}
