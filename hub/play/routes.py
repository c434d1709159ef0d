"""Routes: a player known to a front end by a key (an MNM Game-ID, a Domino login)
whom the hub seats in a game it picks, such as a tournament's current round.

A front end that reads a key the lobby does not know asks :meth:`Routes.route`; a
resolver (the tournaments, :mod:`hub.tournaments.service`) answers with a
``Deferred`` that fires with a :class:`Routed` once the player's game is there (the
front end then seats them at that seat under that name), or fails with a
:class:`hub.model.GameError` (nothing more to play).  ``None``: the key is not routed;
the front end goes on as before.  The front end cancels the ``Deferred`` when the
connection goes first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from twisted.internet import defer


@dataclass(frozen=True)
class Routed:
    """Where a routed player plays: the lobby game, their seat, the name to sit under."""

    game: Any
    seat: int
    name: str


#: a resolver: ``(front end, key)`` → ``Deferred[Routed]``, or ``None`` (not mine)
Resolver = Callable[[str, str], "defer.Deferred[Routed] | None"]


class Routes:
    """The hub's resolvers of routed keys, asked in the order they were added."""

    def __init__(self) -> None:
        self._resolvers: list[Resolver] = []

    def add(self, resolver: Resolver) -> None:
        """Ask ``resolver`` too."""
        self._resolvers.append(resolver)

    def remove(self, resolver: Resolver) -> None:
        """Ask ``resolver`` no more."""
        if resolver in self._resolvers:
            self._resolvers.remove(resolver)

    def route(self, frontend: str, key: str) -> defer.Deferred[Routed] | None:
        """The game ``key`` leads to on ``frontend`` (a ``Deferred``), or ``None``."""
        for resolver in list(self._resolvers):
            found = resolver(frontend, key)
            if found is not None:
                return found
        return None
