"""A game's log of events (:class:`LoggedEvent`, kept by :class:`hub.play.game.GameInstance`
for late viewers and replays)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from hub.model import TURN, EventData


def deadline_of(turn: LoggedEvent) -> float | None:
    """When a logged turn must be answered: its time plus its ``timeleft_ms``."""
    left = turn.data.get("timeleft_ms")
    if isinstance(left, int | float) and not isinstance(left, bool):
        return turn.at + left / 1000.0
    return None


class LoggedEvent(NamedTuple):
    """One event in a game's log (:meth:`GameInstance.events_for`); a named tuple (one
    is made for every event of every game).

    :ivar at: the clock's time when it happened.
    :ivar kind: the event's kind.
    :ivar data: its data as the game gave it (a ``turn`` event's ``legal`` list is
        never read from the log: :meth:`public_data` leaves it out).
    :ivar seats: as :attr:`hub.model.GameEvent.seats`: ``None`` for a public event.
    :ivar to: for a private event, who sat at each of its seats then (a later occupant
        of the seat never sees it).
    """

    at: float
    kind: str
    data: Mapping[str, Any]
    seats: frozenset[int] | None = None
    to: tuple[tuple[int, str | None], ...] = ()

    def public_data(self) -> dict[str, Any]:
        """The data as the log shows it: a copy, a ``turn`` event's without ``legal``
        (a game may build that list only when it is read)."""
        data = self.data
        if self.kind == TURN:
            if isinstance(data, EventData):  # (one call where a mapping's copy makes many)
                return data.copy("legal")
            return {k: data[k] for k in data if k != "legal"}
        if type(data) is dict:
            return data.copy()
        if isinstance(data, EventData):
            return data.copy()
        return dict(data)

    def to_json(self, since: float = 0.0) -> dict[str, Any]:
        """``{"at": ms since ``since``, "kind", "data"}`` (:meth:`public_data`)."""
        return {"at": int((self.at - since) * 1000), "kind": self.kind, "data": self.public_data()}


__all__ = ["LoggedEvent", "deadline_of"]
