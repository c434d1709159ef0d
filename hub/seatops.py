"""The hub's seat operations, typed: take a seat, leave it, add a bot.

They are requests to the hub, never actions of a game: a game's actions are its own
mappings (:meth:`hub.interfaces.IGame.act`), and a game may name an action
``take_seat`` if it likes.  A front end's wire message for one of these (a table game's
``takeseat``, the generic payload's ``<takeseat/>``) is read by the game's adapter into
one of these objects (:meth:`hub.interfaces.IXMLGameAdapter.parse_action` returns an
action mapping or a :data:`SeatOperation`), and the front end carries it out through
the hub's seating (``IHub.take_seat``, ``IHub.leave_seat``, ``IHub.add_bot``), which
moves a chip table's buy-in through the ledger first.

Plugins may import this module (as :mod:`hub.model`); it imports nothing of the hub.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class TakeSeat:
    """Sit down (from one's own seat at a chip table: add chips).

    :ivar seat: the seat wanted (``None``: the first free one).
    :ivar buyin: a chip table's buy-in, decimal text (``None``: its default).
    """

    seat: int | None = None
    buyin: str | None = None


@dataclass(frozen=True)
class LeaveSeat:
    """Leave one's seat (a chip table cashes the stack out)."""


@dataclass(frozen=True)
class AddBot:
    """Seat the in-hub bot ``bot`` (at ``seat``, else the first free one; with
    ``buyin`` at a chip table)."""

    bot: str
    seat: int | None = None
    buyin: str | None = None


#: what a player may ask of the hub about seats
SeatOperation = TakeSeat | LeaveSeat | AddBot
#: what a front end's adapter reads from a message: a game action or a seat operation
Parsed = Mapping[str, Any] | SeatOperation


class SeatingHub(Protocol):
    """The one way a front end creates games and seats players: the hub's seating
    (``hub.service.Seating``: a chip table's money moves through the ledger first, a
    new game gets its rating pool and, in a cluster, its row)."""

    async def create_game(
        self,
        type_name: str,
        name: str | None = None,
        variant: str | None = None,
        seats: Any = None,
        options: Any = None,
        creator: str | None = None,
    ) -> Any:
        """Create a game (a ``hub.play.game.GameInstance``)."""

    async def take_seat(
        self,
        game: Any,
        player: str,
        seat: int | None = None,
        kind: str = "client",
        buyin: Any = None,
        observe: Any = None,
    ) -> int:
        """Seat ``player`` in ``game``; returns the seat."""


__all__ = ["AddBot", "LeaveSeat", "Parsed", "SeatOperation", "SeatingHub", "TakeSeat"]
