"""What the cluster does with a hub it recovered, and what that hub gives up: the one
place a journal of the games replaces (issue 31).

Two sides of one event:

- **the survivor** that recovers a dead (or cut-off) hub runs :meth:`Takeover.claim`
  in the recovery's transaction (:mod:`hub.store.takeover`: exactly once, however many
  hubs recover at once) and :meth:`Takeover.claimed` on its reactor after the commit;
- **the hub that was recovered although it lives** (a partition: its lease was ended,
  :mod:`hub.store.lease`) asks :meth:`Takeover.taken` which of its games the cluster
  took, gives them up (:meth:`Takeover.surrender`) and then rejoins as a new member
  (:meth:`hub.cluster.Cluster.rejoin`), keeping the games nobody took.

:class:`AbortAndRefund` is the fallback while games are not journaled: the tables'
chips go back (the hands in progress are void), the games read ``aborted`` in the
directory, and the recovered hub removes its copies.  A takeover that resumes the games
from their journal replaces it (``Cluster.takeover``) and keeps the same four calls.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol

from twisted.internet import defer
from twisted.logger import Logger

from hub.store.takeover import Claim

if TYPE_CHECKING:
    from hub.store.base import _Cursor


class Takeover(Protocol):
    """A cluster's takeover: :class:`hub.store.takeover.Takeover` (the survivor's side)
    and the recovered hub's side."""

    def claim(
        self, cur: _Cursor, hubs: list[str], tables: list[str], key: str, now: float
    ) -> Claim:
        """See :meth:`hub.store.takeover.Takeover.claim`."""
        ...

    def claimed(self, hubs: list[str], claim: Claim) -> None:
        """See :meth:`hub.store.takeover.Takeover.claimed`."""
        ...

    def taken(self, old_hub: str) -> defer.Deferred[set[str]]:
        """(The recovered hub.)  The ids of its games the cluster took over when it
        recovered ``old_hub`` (this hub's ended lease)."""
        ...

    def surrender(self, games: set[str]) -> None:
        """(The recovered hub.)  Give ``games`` up: they run here no more."""
        ...


class ClusterParts(Protocol):
    """What :class:`AbortAndRefund` needs of :class:`hub.cluster.Cluster`."""

    store: Any
    hub: Any

    def hubs_gone(self, hubs: list[str], aborted: dict[str, int]) -> None:
        """After the commit of a recovery that ended ``hubs``' leases."""
        ...


class AbortAndRefund:
    """The fallback takeover: refund the tables, abort the games.

    In the recovery's transaction the dead hubs' tables give their chips back (one
    ``refund`` row each: :meth:`hub.store.tables.TablesMixin.refund_tables`) and close,
    their games read ``aborted`` in the directory, their member rows end and every hub
    is told (:meth:`hub.store.cluster.ClusterMixin.abort_hubs`).  A recovered hub that
    lives removes its copies of those games and of its chip tables.
    """

    log = Logger()

    def __init__(self, cluster: ClusterParts) -> None:
        self.cluster = cluster

    def claim(
        self, cur: _Cursor, hubs: list[str], tables: list[str], key: str, now: float
    ) -> Claim:
        """Refund and close ``tables``; abort ``hubs``' games."""
        store = self.cluster.store
        refunds = store.refund_tables(cur, tables, key, now)
        aborted = store.abort_hubs(cur, hubs, now) if hubs else {}
        return Claim(refunds, aborted)

    def claimed(self, hubs: list[str], claim: Claim) -> None:
        """Tell the cluster (log, the directory's view)."""
        if hubs:
            self.cluster.hubs_gone(hubs, dict(claim.detail or {}))

    def taken(self, old_hub: str) -> defer.Deferred[set[str]]:
        """The games the directory listed as ``old_hub``'s (now aborted), and every
        chip table (the recovery took every open table of that lease)."""
        lobby = self.cluster.hub.lobby
        chip_games = {game.id for game in lobby.games() if game.chips is not None}
        d = self.cluster.store.directory_rows(hubs=[old_hub])
        return d.addCallback(lambda rows: {str(r["id"]) for r in rows} | chip_games)

    def surrender(self, games: set[str]) -> None:
        """Remove them from the lobby (their engines, bots and timers stop)."""
        lobby = self.cluster.hub.lobby
        here = {game.id for game in lobby.games()}
        for game_id in sorted(games & here):
            self.log.warn(
                "cluster: game {game} was taken over by the cluster while this hub was"
                " cut off from the database; it ends here",
                game=game_id,
            )
            lobby.remove(game_id)
