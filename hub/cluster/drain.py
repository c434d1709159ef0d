"""A hub that stops, or is drained, hands its games to the other hubs (issue 31).

:class:`Handover` is the cluster's side of :meth:`hub.play.resume.Journaling.hand_over`:

- **SIGTERM** (the hub stops): once every game that can move was sealed (its clock
  stands still, a ``pause`` entry ends its journal), their journals and directory rows
  go to the live hubs in turn, least loaded first, in one transaction, which tells
  each hub which games to resume (the notice ``resume``);
- **``gamehub cluster drain HUB``** (the notice ``drain`` naming a hub): that hub does
  the same with its running games and runs on (without them) until it is stopped;
- **a hub told ``resume``** makes those games again from their journal
  (:meth:`hub.play.resume.Journaling.resume`) and runs them on; a door whose client's
  splice the old hub closed follows the game there (:mod:`hub.cluster.moves`).

Chip tables do not move (their chips go back when their hub stops, as before); a
stopping hub with no other live hub keeps its games in the journal for the next hub
to start (or for itself, restarted).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from twisted.internet import defer
from twisted.logger import Logger


class Movable(Protocol):
    """A game that can move (:class:`hub.play.game.GameInstance`)."""

    @property
    def id(self) -> str:
        """Its id."""
        ...


class Mover(Protocol):
    """What :class:`Handover` needs of the hub's journal (:class:`hub.play.resume.Journaling`)."""

    def movable(self) -> Sequence[Movable]:
        """The games that can move."""
        ...

    async def hand_over(self, games: Sequence[str], hubs: Sequence[str]) -> list[str]:
        """Hand ``games`` to ``hubs``."""
        ...

    async def resume(self, games: Sequence[str] | None = None) -> list[str]:
        """Resume this hub's journaled ``games``."""
        ...


class Members(Protocol):
    """What :class:`Handover` needs of :class:`hub.cluster.Cluster`."""

    members: dict[str, dict[str, Any]]

    @property
    def hub_id(self) -> str:
        """This hub's id."""
        ...


def _load(member: Mapping[str, Any]) -> tuple[int, int]:
    load = member.get("load") or {}
    return int(load.get("games") or 0), int(load.get("players") or 0)


class Handover:
    """Games handed over between the hubs of a cluster (module text)."""

    log = Logger()

    def __init__(self, cluster: Members, journal: Mover) -> None:
        self.cluster = cluster
        self.journal = journal

    def hubs(self) -> list[str]:
        """The other live hubs, least loaded first."""
        me = self.cluster.hub_id
        live = [(h, m) for h, m in self.cluster.members.items() if m.get("live") and h != me]
        return [h for h, m in sorted(live, key=lambda hm: (_load(hm[1]), hm[0]))]

    async def hand_over(self, games: Sequence[str]) -> list[str]:
        """Hand ``games`` to the other live hubs (none: they stay in the journal)."""
        hubs = self.hubs()
        if not games:
            return []
        if not hubs:
            self.log.warn(
                "cluster: no other live hub to take {n} game(s); they wait in the journal",
                n=len(games),
            )
            return []
        try:
            return await self.journal.hand_over(games, hubs)
        except Exception as e:
            self.log.error(
                "cluster: handing {n} game(s) over failed ({e}); they wait in the journal",
                n=len(games),
                e=e,
            )
            return []

    async def drain(self) -> list[str]:
        """Hand every game that can move to the other hubs."""
        games = [g.id for g in self.journal.movable()]
        self.log.info("cluster: draining: {n} game(s) to hand over", n=len(games))
        return await self.hand_over(games)

    def notice(self, op: str, text: str) -> None:
        """A ``resume`` or ``drain`` notice of the cluster's channel."""
        try:
            message = json.loads(text)
            hub, to = str(message["hub"]), str(message.get("to") or "")
            games = [str(g) for g in message.get("games") or []]
        except (ValueError, KeyError, TypeError):
            return
        me = self.cluster.hub_id
        d: defer.Deferred[Any] | None = None
        if op == "resume" and to == me and games:
            self.log.info("cluster: hub {hub} hands over {n} game(s)", hub=hub, n=len(games))
            d = defer.ensureDeferred(self.journal.resume(games))
        elif op == "drain" and hub == me:
            d = defer.ensureDeferred(self.drain())
        if d is not None:
            d.addErrback(lambda f: self.log.failure("cluster: a hand-over failed", f))


__all__ = ["Handover", "Members", "Mover"]
