"""The seats of a lobby game: what each seat is for and who sits there.

Seat specifications (``open``, ``human``, ``bot:<name>``, ``client``) are read by
:func:`parse_seats`; :func:`unused_name` gives the names bots play under.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from hub.model import (
    BadAction,
)

#: Seat kinds: ``open`` (any client may take it), ``human`` (reserved for a web
#: player), ``bot`` (played by an in-hub bot), ``client`` (taken by a network client).
SEAT_KINDS = ("open", "human", "bot", "client")


@dataclass
class Seat:
    """One seat of a game.

    :ivar kind: one of :data:`SEAT_KINDS`.
    :ivar player: the name of who sits there, ``None`` while free.
    :ivar bot: the bot plugin's name for ``bot`` seats.
    :ivar present: ``False`` once the player left or was removed.
    :ivar spec: the kind the seat was created as (``open``, ``human``, ``bot``); a seat
        the game opens again (:data:`hub.model.SEAT_OPEN`) goes back to it.
    :ivar reserved: the only player name that may take the seat (a tournament's
        pairing), ``None``: anyone.
    """

    index: int
    kind: str
    player: str | None = None
    bot: str | None = None
    present: bool = True
    spec: str = ""
    reserved: str | None = None

    def __post_init__(self) -> None:
        if not self.spec:
            self.spec = self.kind

    def reopen(self) -> bool:
        """Nobody sits here any more: the seat is as it was created (seats created for
        a bot stay the bot's). Returns whether it was reset."""
        if self.spec == "bot":
            return False
        self.player, self.kind, self.bot, self.present = None, self.spec, None, True
        return True

    def allows(self, player: str | None) -> bool:
        """Whether ``player`` may take the seat (``None``: a player not named yet)."""
        return self.reserved is None or self.reserved == player

    @property
    def free(self) -> bool:
        """Whether nobody sits here yet."""
        return self.player is None

    def to_json(self) -> dict[str, Any]:
        """The seat as the JSON API shows it (``reserved``: only for a reserved seat)."""
        data: dict[str, Any] = {
            "seat": self.index,
            "player": self.player,
            "kind": self.kind,
            "present": self.present,
        }
        if self.reserved is not None:
            data["reserved"] = self.reserved
        return data


def unused_name(base: str, taken: set[Any]) -> str:
    """``base``, or ``base-2``, ``base-3``...: the first not in ``taken``."""
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name


def parse_seats(specs: Sequence[Any]) -> list[Seat]:
    """Seats from their specs: ``open``, ``human`` or ``bot:<name>``.

    :raises hub.model.BadAction: a spec is none of these.
    """
    seats = []
    for index, spec in enumerate(specs):
        if not isinstance(spec, str):
            raise BadAction(f"seat {index}: expected a string, not {type(spec).__name__}")
        if spec in ("open", "human"):
            seats.append(Seat(index, spec))
        elif spec.startswith("bot:") and re.fullmatch(r"[a-z0-9-]{1,64}", spec[4:]):
            seats.append(Seat(index, "bot", bot=spec[4:]))
        else:
            raise BadAction(
                f"seat {index}: {spec[:40]!r} is not a seat; use 'open', 'human' or 'bot:<name>'"
            )
    return seats
