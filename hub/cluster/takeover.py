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

:class:`ResumeGames` (the cluster's) resumes the recovered hub's games from their
journal (:mod:`hub.play.journal`) on the survivor that recovered it: in the recovery's
transaction their journals, directory rows and chip tables (with their chips) become
the survivor's, and after the commit it makes them again and runs them on (a chip
table's hand in progress is settled once, at its end).  What has no journal (a game of
a hub without one, a journal given up past its bound) is aborted, and such a chip
table's chips go back (its hand in progress void), as :class:`AbortAndRefund` (the
fallback, and the part of it that stays) does.
"""

from __future__ import annotations

from collections.abc import Sequence
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


class Resumer(Protocol):
    """What :class:`ResumeGames` needs of the hub (:class:`hub.play.resume.Journaling`)."""

    started: bool

    async def resume(self, games: Sequence[str] | None = None) -> list[str]:
        """Resume this hub's journaled ``games``."""
        ...

    def release(self, games: Sequence[str]) -> None:
        """Let ``games`` go without touching their journal or table."""
        ...


class ResumeGames(AbortAndRefund):
    """The cluster's takeover: the dead hubs' games resume here from their journal;
    the rest is :class:`AbortAndRefund`'s (chip tables refunded, unjournaled games
    aborted)."""

    def __init__(self, cluster: ClusterParts, resumer: Resumer) -> None:
        super().__init__(cluster)
        self.resumer = resumer

    def claim(
        self, cur: _Cursor, hubs: list[str], tables: list[str], key: str, now: float
    ) -> Claim:
        """The journals of ``hubs`` and their directory rows become this hub's; then
        :meth:`AbortAndRefund.claim` for the rest."""
        store = self.cluster.store
        kept, refunded = store.tables_resume(cur, tables)  # with their chips: resumed
        claimed = store.journal_claim(cur, hubs) if hubs else []
        for game_id in claimed:
            if game_id in refunded:  # (its journal is stale: the table is void)
                store.journal_delete(cur, game_id)
        games = sorted(set(kept) | {g for g in claimed if g not in refunded})
        if games:
            store.directory_adopt(cur, games)
        claim = super().claim(cur, hubs, refunded, key, now)
        return Claim(claim.refunds, (claim.detail, games))

    def claimed(self, hubs: list[str], claim: Claim) -> None:
        """Tell the cluster; resume the games claimed (once this hub's journal has
        started: at the hub's own start it resumes them itself)."""
        aborted, games = claim.detail or ({}, [])
        super().claimed(hubs, Claim(claim.refunds, aborted))
        if games and self.resumer.started:
            d = defer.ensureDeferred(self.resumer.resume(games))
            d.addCallback(lambda ids: self._resumed(hubs, ids))
            d.addErrback(lambda f: self.log.failure("cluster: resuming the games failed", f))

    def _resumed(self, hubs: list[str], ids: list[str]) -> None:
        self.log.info(
            "cluster: {n} game(s) of hub {hubs} resumed here: {games}",
            n=len(ids),
            hubs=", ".join(hubs),
            games=", ".join(ids),
        )

    def taken(self, old_hub: str) -> defer.Deferred[set[str]]:
        """As :meth:`AbortAndRefund.taken`, and the games whose journal is another
        hub's now."""
        lobby = self.cluster.hub.lobby
        here = {game.id for game in lobby.games()}
        d = super().taken(old_hub)
        journals = self.cluster.store.journal_games()

        def both(rows: set[str]) -> defer.Deferred[set[str]]:
            return journals.addCallback(
                lambda owners: rows | {g for g in here if owners.get(g, old_hub) != old_hub}
            )

        return d.addCallback(both)

    def surrender(self, games: set[str]) -> None:
        """Let them go (their journal and chip table are the resuming hub's: neither
        is touched), then remove them."""
        self.resumer.release(sorted(games))
        super().surrender(games)
