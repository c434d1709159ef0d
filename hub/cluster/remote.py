"""A game of another hub as this hub's front ends list it: a small read-only record.

:func:`snapshot` turns a local game into a directory row (plain data, made on the
reactor thread): its columns (id, type, name, state, seats) and, as ``info``, the rest
of what the JSON API shows of it (``GameInstance.to_json``).  :class:`RemoteGame` is
such a row of another hub, with the attributes the front ends read from a listed game
(``id``, ``type``, ``name``, ``variant``, ``state``, ``paused``, ``seats``,
``frontend``, ``factory.frontends``, ``observer_count``, ``watchers()``,
``to_json()``), so the lists need no case of their own.  Playing one is refused here:
the lobby raises :class:`hub.model.Elsewhere`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from hub.play.lobby import Seat

#: what a row holds in columns of its own rather than in ``info``
_COLUMNS = ("id", "type", "name", "state", "seats")


def snapshot(game: Any, hub_id: str, rev: int) -> dict[str, Any]:
    """The directory row of the local ``game`` (a ``hub.play.lobby.GameInstance``)."""
    shown = game.to_json()
    return {
        "hub": hub_id,
        "rev": rev,
        **{key: shown[key] for key in _COLUMNS},
        "info": {key: value for key, value in shown.items() if key not in _COLUMNS},
    }


#: what a hub's JSON of a game adds that is not the game's (:meth:`RemoteGame.to_json`)
_NOT_INFO = ("port", "hub", "remote", "endpoints", "rated", "seat", "view")


def row_of(shown: dict[str, Any], hub_id: str) -> dict[str, Any] | None:
    """The directory row of a game as its hub's JSON API answered it (revision 0:
    the owner's own row, whenever it arrives, is newer); ``None`` if it is not one."""
    if not all(isinstance(shown.get(key), str) for key in ("id", "type", "name", "state")):
        return None
    if not isinstance(shown.get("seats"), list):
        return None
    return {
        "hub": hub_id,
        "rev": 0,
        **{key: shown[key] for key in _COLUMNS},
        "info": {k: v for k, v in shown.items() if k not in _COLUMNS and k not in _NOT_INFO},
    }


@dataclass(frozen=True)
class RemoteType:
    """What a remote game's record says of its type: its name and front ends.  It
    offers no adapter: the game is played on its own hub."""

    name: str
    frontends: tuple[str, ...]

    def adapter(self, frontend: str) -> None:
        """No front end of this hub plays a remote game."""
        return None


def _seconds(text: Any) -> float:
    try:
        return datetime.fromisoformat(str(text)).timestamp()
    except ValueError:
        return 0.0


@dataclass(frozen=True)
class RemoteGame:
    """A game of another hub (read-only).

    :ivar hub: the id of the hub that runs it.
    :ivar rev: the row's revision (a newer notice replaces an older record).
    :ivar info: the rest of what its own hub's JSON API shows of it.
    :ivar endpoints: front end → ``{"host", "port", "tls"}`` that hub advertises.
    """

    id: str
    hub: str
    rev: int
    type: str
    name: str
    state: str
    seats: tuple[Seat, ...]
    info: dict[str, Any] = field(default_factory=dict)
    endpoints: dict[str, Any] = field(default_factory=dict)

    remote = True

    @classmethod
    def of(cls, row: dict[str, Any], endpoints: dict[str, Any] | None = None) -> RemoteGame:
        """The record of a directory row (``endpoints``: its hub's, when known)."""
        seats = tuple(
            Seat(int(s["seat"]), str(s["kind"]), s.get("player"), present=bool(s.get("present")))
            for s in row.get("seats") or ()
        )
        return cls(
            id=str(row["id"]),
            hub=str(row["hub"]),
            rev=int(row["rev"]),
            type=str(row["type"]),
            name=str(row["name"]),
            state=str(row["state"]),
            seats=seats,
            info=dict(row.get("info") or {}),
            endpoints=dict(endpoints or {}),
        )

    @property
    def variant(self) -> str | None:
        """Its variant."""
        return self.info.get("variant")

    @property
    def frontend(self) -> str:
        """The front end it is played on."""
        return str(self.info.get("frontend") or "web")

    @property
    def factory(self) -> RemoteType:
        """Its type, as far as the record knows it."""
        return RemoteType(self.type, tuple(self.info.get("frontends") or ()))

    @property
    def awaiting(self) -> tuple[str, ...]:
        """(A resumed game) the players whose seats wait for them to come back."""
        return tuple(str(name) for name in self.info.get("awaiting") or ())

    @property
    def paused(self) -> str | None:
        """Why it deals no new hand, if it is paused."""
        return self.info.get("paused")

    @property
    def observer_count(self) -> int:
        """How many follow it on its own hub."""
        return int(self.info.get("observers") or 0)

    @property
    def created(self) -> float:
        """When it was created (seconds since the epoch)."""
        return _seconds(self.info.get("created"))

    def watchers(self) -> list[str]:
        """Who watches it on its own hub."""
        return list(self.info.get("watchers") or ())

    @property
    def port(self) -> int | None:
        """The port of its front end on its own hub."""
        endpoint = self.endpoints.get(self.frontend) or {}
        port = endpoint.get("port")
        return int(port) if isinstance(port, int) else None

    def to_json(self, detail: bool = False) -> dict[str, Any]:
        """The game as its own hub's JSON API shows it (without the view), with
        ``hub``, ``remote``, that hub's ``endpoints`` and the ``port`` there."""
        return {
            "id": self.id,
            "type": self.type,
            "name": self.name,
            "state": self.state,
            "seats": [seat.to_json() for seat in self.seats],
            **self.info,
            "port": self.port,
            "hub": self.hub,
            "remote": True,
            "endpoints": dict(self.endpoints),
        }
