"""What a front end may use of the hub's part in a cluster (:class:`ClusterDoor`):
``hub.cluster.Cluster`` sits above the seams (it imports them), so :class:`hub.interfaces.IHub`
names it by what it offers; ``None`` on a single hub.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from hub.model import LiveGame


class ClusterDoor(Protocol):
    """The cluster as a front end's door uses it: logins on a client's behalf between
    hubs, the other hubs' addresses, and the directory asked for a game made a moment ago
    at another door."""

    def ticket(self, target: str, name: str) -> str:
        """A login for account ``name`` on hub ``target`` (``hub.cluster.credential``)."""
        ...

    def trusts(self, name: str, given: str, peer: str) -> bool:
        """Whether ``given`` is a live hub's good ticket for ``name`` here."""
        ...

    def is_hub_address(self, peer: str) -> bool:
        """Whether ``peer`` is an address another live hub advertises."""
        ...

    def look_up_recent(self, key: str, match: Callable[[LiveGame], bool]) -> Awaitable[object]:
        """Ask the directory for the game ``match`` accepts among the rows the other hubs
        wrote lately (``key``: a front end's own name of it, such as an XML wire id);
        done once it is in this hub's view, or known not to be."""
        ...

    def adopt(self, shown: object, hub_id: str) -> None:
        """Add the game ``shown`` (its JSON as its owner ``hub_id`` answered its creation
        through this hub) to this hub's view at once."""
        ...


__all__ = ["ClusterDoor"]
