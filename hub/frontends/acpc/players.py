"""The players of an ACPC match and its figures: who sits where (a program of the
protocol, an in-hub bot, an open seat), and each player's total, mbb/hand and its 95%
confidence interval."""

from __future__ import annotations

import math
import re
import secrets
from fractions import Fraction
from typing import Any

from hub.model import GameError

from .logs import hand_number
from .protocol import ACPCProtocol

_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,24}$")
#: most players at one match's table
MAX_PLAYERS = 10


class Player:
    """One player of a match: what sits there and, for a program, its connection."""

    def __init__(self, index: int, kind: str, name: str, bot: str | None = None) -> None:
        self.index = index
        self.kind = kind  #: ``acpc``, ``bot`` or ``open``
        self.name = name
        self.bot = bot
        self.connection: ACPCProtocol | None = None
        self.ready = False
        self.port: int | None = None
        self.listener: Any = None
        self.view: Any = None  #: its seat view at the current table
        self.total = Fraction(0)
        self.used = 0.0  #: seconds its replies took over the match
        self.used_hand = 0.0  #: ... in the current hand
        self.asked_at: float | None = None
        self.timer: Any = None
        #: a program's secret: it reads the program's own lines of the log
        self.key = secrets.token_urlsafe(24) if kind == "acpc" else None
        #: hand number → the last match state sent for it (the two latest hands)
        self.states: dict[int, str] = {}

    def remember(self, state: str) -> None:
        """A match state sent to the program (what it saw of its hand)."""
        hand = hand_number(state)
        if hand is not None:
            self.states[hand] = state
            for old in [h for h in self.states if h < hand - 1]:
                del self.states[old]

    @property
    def account(self) -> str:
        """The account a program plays with: ``acpc.<name>``."""
        return f"acpc.{self.name}"[:32]

    def to_json(self) -> dict[str, Any]:
        """The player as the match's JSON shows it."""
        return {
            "player": self.index,
            "kind": self.kind,
            "name": self.name,
            "bot": self.bot,
            "port": self.port,
            "connected": self.connection is not None,
            "total": number(self.total),
        }


def parse_players(specs: Any) -> list[Player]:
    """Players from their specs: ``acpc``, ``acpc:<name>``, ``bot:<name>``, ``open``.

    :raises hub.model.GameError: a spec is none of these, or two names are the same.
    """
    if not isinstance(specs, list) or not 2 <= len(specs) <= MAX_PLAYERS:
        raise GameError(f"'players' is a list of 2 to {MAX_PLAYERS} players", 400)
    players: list[Player] = []
    for index, spec in enumerate(specs):
        if not isinstance(spec, str):
            raise GameError(f"player {index}: expected a string", 400)
        kind, _, name = spec.partition(":")
        if kind == "acpc":
            name = name or f"p{index + 1}"
            players.append(Player(index, "acpc", name))
        elif kind == "bot" and name:
            players.append(Player(index, "bot", name, bot=name))
        elif spec == "open":
            players.append(Player(index, "open", f"open{index + 1}"))
        else:
            raise GameError(
                f"player {index}: {spec[:40]!r} is not 'acpc', 'acpc:<name>', "
                "'bot:<name>' or 'open'",
                400,
            )
        if not _NAME.match(players[-1].name):
            raise GameError(f"player {index}: a name is 1 to 24 of A-Z a-z 0-9 _ . -", 400)
    names = [p.name.lower() for p in players]
    if len(set(names)) != len(names):
        raise GameError("two players have the same name", 400)
    return players


def number(value: Fraction) -> int | float:
    """A total for JSON: an integer, or a float when it has a fraction (a split pot
    of the reference dealer pays half chips)."""
    return int(value) if value.denominator == 1 else float(value)


def summary(payoffs: list[Fraction], big_blind: int) -> dict[str, Any]:
    """Total, mbb/hand and the half-width of its 95% confidence interval."""
    n = len(payoffs)
    total = sum(payoffs, Fraction(0))
    if n == 0:
        return {"total": 0, "hands": 0, "mbb_per_hand": 0.0, "ci95": None}
    mbb = [1000.0 * float(p) / big_blind for p in payoffs]
    mean = sum(mbb) / n
    ci = None
    if n > 1:
        var = sum((x - mean) ** 2 for x in mbb) / (n - 1)
        ci = round(1.96 * math.sqrt(var / n), 1)
    return {"total": number(total), "hands": n, "mbb_per_hand": round(mean, 1), "ci95": ci}


__all__ = ["MAX_PLAYERS", "Player", "number", "parse_players", "summary"]
