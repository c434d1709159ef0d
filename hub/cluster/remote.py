"""A game of another hub as this hub's front ends list it: a small read-only record.

:func:`snapshot` turns a local game into a directory row (plain data, made on the
reactor thread); :class:`RemoteGame` is such a row of another hub, with the attributes
the front ends read from a listed game (``id``, ``type``, ``name``, ``variant``,
``state``, ``paused``, ``seats``, ``frontend``, ``factory.frontends``,
``observer_count``, ``watchers()``, ``to_json()``), so the lists need no case of their
own.  Playing one is refused here: the lobby raises :class:`hub.model.Elsewhere`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any


def snapshot(game: Any, hub_id: str, rev: int) -> dict[str, Any]:
    """The directory row of the local ``game`` (a ``hub.lobby.GameInstance``)."""
    return {
        "id": game.id,
        "hub": hub_id,
        "rev": rev,
        "type": game.type,
        "name": game.name,
        "state": game.state,
        "seats": [
            {"seat": s.index, "player": s.player, "kind": s.kind, "present": s.present}
            for s in game.seats
        ],
        "info": {
            "variant": game.variant,
            "frontend": game.frontend,
            "frontends": list(game.factory.frontends),
            "paused": game.paused,
            "observers": game.observer_count,
            "created": game.created,
        },
    }


@dataclass(frozen=True)
class RemoteSeat:
    """A seat of a remote game, as the directory summarises it."""

    index: int
    kind: str
    player: str | None
    present: bool

    @property
    def free(self) -> bool:
        """Whether nobody sits here yet."""
        return self.player is None

    def to_json(self) -> dict[str, Any]:
        """The seat as the JSON API shows it."""
        return {
            "seat": self.index,
            "player": self.player,
            "kind": self.kind,
            "present": self.present,
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


@dataclass(frozen=True)
class RemoteGame:
    """A game of another hub (read-only).

    :ivar hub: the id of the hub that runs it.
    :ivar endpoints: front end → ``{"host", "port", "tls"}`` that hub advertises.
    :ivar rev: the row's revision (a newer notice replaces an older record).
    """

    id: str
    hub: str
    rev: int
    type: str
    name: str
    state: str
    seats: tuple[RemoteSeat, ...]
    variant: str | None = None
    frontend: str = "web"
    factory: RemoteType = field(default_factory=lambda: RemoteType("", ()))
    paused: str | None = None
    observer_count: int = 0
    created: float = 0.0
    endpoints: dict[str, Any] = field(default_factory=dict)

    remote = True

    @classmethod
    def of(cls, row: dict[str, Any], endpoints: dict[str, Any] | None = None) -> RemoteGame:
        """The record of a directory row (``endpoints``: its hub's, when known)."""
        info = row.get("info") or {}
        seats = tuple(
            RemoteSeat(int(s["seat"]), str(s["kind"]), s.get("player"), bool(s.get("present")))
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
            variant=info.get("variant"),
            frontend=str(info.get("frontend") or "web"),
            factory=RemoteType(str(row["type"]), tuple(info.get("frontends") or ())),
            paused=info.get("paused"),
            observer_count=int(info.get("observers") or 0),
            created=float(info.get("created") or 0.0),
            endpoints=dict(endpoints or {}),
        )

    def watchers(self) -> list[str]:
        """Not summarised: nobody is listed."""
        return []

    @property
    def port(self) -> int | None:
        """The port of its front end on its own hub."""
        endpoint = self.endpoints.get(self.frontend) or {}
        port = endpoint.get("port")
        return int(port) if isinstance(port, int) else None

    def to_json(self, detail: bool = False) -> dict[str, Any]:
        """The record as the JSON API shows a game, with ``hub``, ``remote`` and that
        hub's ``endpoints``."""
        return {
            "id": self.id,
            "type": self.type,
            "variant": self.variant,
            "name": self.name,
            "frontend": self.frontend,
            "frontends": list(self.factory.frontends),
            "seats": [seat.to_json() for seat in self.seats],
            "state": self.state,
            "observers": self.observer_count,
            "watchers": [],
            "created": datetime.fromtimestamp(self.created, UTC).isoformat(),
            "paused": self.paused,
            "port": self.port,
            "hub": self.hub,
            "remote": True,
            "endpoints": dict(self.endpoints),
        }
