"""Tournaments on a cluster of hubs (issue 31): each tournament is run by exactly one
hub, its **owner** (``owner_hub`` in the store); the others list it from the store.

- **Owner.** The hub where a tournament is created owns it; only the owner arms its
  start, pairs, creates the round's games, times the grace periods and records the
  results.  Every save names the owner and is refused by the store once another hub
  adopted the tournament (:class:`hub.store.errors.NotOwner`): a hub cut off from the
  database then stops running it here.
- **Any door.** A registration at any hub is checked there and written into the
  stored tournament in one transaction that locks its row (open, a place left, the
  name free: :meth:`hub.store.tournaments.TournamentsMixin.tournament_enter`); the
  owner closes registration the same way when it starts the tournament, so an entry
  and the start never cross.  A start asked for at another door is a notice to the
  owner; the door answers once the owner's change reaches it (at most
  :attr:`TournamentCluster.ask_seconds`).  Every change is announced on the cluster's
  channel (``{"op": "tournament", "hub": H, "id": T}``); each hub reads that
  tournament again (one read for the notices that came meanwhile) and tells its
  listeners (the web's live pages).  A network client's key (MNM, Domino) is routed
  by the owner: another door refuses it, naming the owner.
- **Adoption.** Every ``tournament_cluster_seconds`` (1 s) each hub adopts the
  tournaments under way whose owner's lease has ended (stopped, killed and recovered)
  or that their owner let go (a hub that stops lets go first, so another adopts at
  once): once each (:meth:`hub.store.tournaments.TournamentsMixin.tournament_adopt`).
  The new owner follows the round's games it runs (resumed here from their journal,
  by the cluster's takeover or a hand-over), and creates the round's games nobody has.
- **Games that run elsewhere.** A game of the round in progress that this hub does
  not run (it moved away, or is still moving here) is looked up in the store at each
  tick: its result once its history is written (a game's history is written before
  its journal goes), still ``live`` while a journal or a directory row has it, else
  ``lost`` and created again.  So a result reaches the tournament wherever its game
  ended, with no message between hubs.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Protocol, cast

from twisted.internet import defer, task
from twisted.logger import Logger

from hub.model import Conflict, Elsewhere, GameError
from hub.store.errors import NotOwner, StoreUnavailable

from .model import (
    CANCELLED,
    FINISHED,
    PENDING,
    PLAYING,
    REGISTERING,
    RUNNING,
    Entry,
    TGame,
    Tournament,
)


class Runner(Protocol):
    """What the cluster's part needs of the hub's runner
    (:class:`hub.tournaments.service.TournamentService`)."""

    tournaments: dict[str, Tournament]
    clock: Any
    hub: Any
    keep: int
    max_active: int

    def mine(self, t: Tournament) -> bool:
        """Whether this hub runs ``t``."""
        ...

    def know(self, t: Tournament) -> None:
        """Keep ``t`` as read from the store."""
        ...

    def tell(self, t: Tournament, change: str = "changed") -> None:
        """Tell the listeners."""
        ...

    def forget(self, t: Tournament) -> None:
        """Run ``t`` no more."""
        ...

    def arm_start(self, t: Tournament) -> None:
        """Arm the start timer."""
        ...

    def maybe_full(self, t: Tournament) -> None:
        """Start soon when full."""
        ...

    def start_soon(self, tournament_id: str) -> None:
        """Start it now (the owner)."""
        ...

    def follow(self, t: Tournament, g: TGame) -> bool:
        """Follow ``g``'s game when it runs here."""
        ...

    def followed(self, game_id: str) -> bool:
        """Whether ``game_id`` is followed here."""
        ...

    async def play_round(self, t: Tournament) -> None:
        """Create the round's missing games."""
        ...

    def game_ended(self, t: Tournament, g: TGame, factory: Any, result: Any) -> None:
        """``g`` is over."""
        ...

    async def saved(self) -> None:
        """Every save written."""
        ...

    def trim(self) -> None:
        """Forget the finished tournaments past ``tournament_keep``."""
        ...


class ClusterLink(Protocol):
    """What the tournaments need of the hub's cluster (:class:`hub.cluster.Cluster`)."""

    @property
    def hub_id(self) -> str:
        """This hub's id (its lease's)."""
        ...

    def on_notice(self, op: str, hear: Callable[[str], None]) -> None:
        """Call ``hear(text)`` with every notice of ``op``."""
        ...

    def route_to(self, hub_id: str, reason: str) -> Elsewhere:
        """An :class:`~hub.model.Elsewhere` naming ``hub_id`` and its front ends."""
        ...


class ClusterTournamentStore(Protocol):
    """The store's part (:class:`hub.store.tournaments.TournamentsMixin`)."""

    def load_tournaments(
        self, ids: list[str] | None = None, limit: int | None = None
    ) -> defer.Deferred[list[dict[str, Any]]]:
        """Stored tournaments."""
        ...

    def tournament_enter(self, tournament_id: str, entry: dict[str, Any]) -> defer.Deferred[str]:
        """Add an entry; fires with its id."""
        ...

    def tournament_close(self, tournament_id: str, owner: str) -> defer.Deferred[dict[str, Any]]:
        """Close registration; fires with the record."""
        ...

    def tournament_adopt(self) -> defer.Deferred[list[str]]:
        """Adopt the tournaments nobody runs."""
        ...

    def tournament_release(self, owner: str) -> defer.Deferred[list[str]]:
        """Let go of ``owner``'s tournaments."""
        ...

    def tournament_ask(self, tournament_id: str) -> defer.Deferred[None]:
        """Ask the owner to start it."""
        ...

    def game_fates(self, games: list[str]) -> defer.Deferred[dict[str, Any]]:
        """Over (with the result), live or lost."""
        ...


class TournamentCluster:
    """Which tournaments this hub runs, and the others' (the module's text).

    :param runner: the hub's :class:`~hub.tournaments.service.TournamentService`.
    :param link: the hub's cluster (:class:`ClusterLink`).
    :param store: the store (:class:`ClusterTournamentStore`).
    :param seconds: how often orphans are adopted and games elsewhere looked up
        (``tournament_cluster_seconds``).
    """

    log = Logger()
    #: how long a door waits for the owner to start a tournament asked for there
    ask_seconds = 10.0

    def __init__(self, runner: Runner, link: ClusterLink, store: Any, seconds: float) -> None:
        self.runner = runner
        self.link = link
        self.store = cast(ClusterTournamentStore, store)
        self.seconds = seconds
        self._loop: task.LoopingCall | None = None
        self._ticking = False
        self._pending: set[str] = set()
        self._loading = False
        self._asking: dict[str, list[defer.Deferred[Tournament]]] = {}
        link.on_notice("tournament", self.notice)

    @property
    def here(self) -> str:
        """This hub's id."""
        return self.link.hub_id

    @property
    def bound(self) -> int:
        """The most tournaments read at once: the finished kept and those under way."""
        return self.runner.keep + 2 * self.runner.max_active

    # -- life ---------------------------------------------------------------------

    async def start(self) -> None:
        """Adopt the orphans, read the tournaments (bounded), run this hub's; then
        tick."""
        await self.store.tournament_adopt()
        for record in await self.store.load_tournaments(limit=self.bound):
            self.runner.know(Tournament.from_record(record))
        for t in list(self.runner.tournaments.values()):
            if self.runner.mine(t):
                await self.take_up(t)
        self._loop = task.LoopingCall(self.tick)
        self._loop.clock = self.runner.clock
        self._loop.start(self.seconds, now=False).addErrback(
            lambda f: self.log.failure("tournaments: the cluster's watch stopped", f)
        )

    def stop(self) -> None:
        """Tick no more; a start still asked for is answered now."""
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        self._loop = None
        for tid in list(self._asking):
            self._answer(tid)

    async def release(self) -> None:
        """Let go of this hub's tournaments under way (the hub stops)."""
        try:
            ids = await self.store.tournament_release(self.here)
        except Exception as e:  # its lease ends with it: they are adopted then
            self.log.warn("tournaments: not let go: {e}", e=e)
            return
        if ids:
            self.log.info("tournaments {ids} let go for another hub", ids=", ".join(ids))

    async def take_up(self, t: Tournament) -> None:
        """Run ``t`` here (created before, or adopted): its start armed, or its round
        followed and its missing games created."""
        runner = self.runner
        if t.state == REGISTERING:
            runner.arm_start(t)
            runner.maybe_full(t)
        elif t.state == RUNNING:
            for g in t.round_games(t.round):
                if g.state == PLAYING and g.game_id is not None:
                    runner.follow(t, g)  # resumed here; else looked up (check)
            await runner.play_round(t)
            await self.check(t)

    # -- ticks: adoption, games elsewhere ----------------------------------------------

    def tick(self) -> None:
        """Adopt what nobody runs; look up the games of this hub's rounds that run
        elsewhere.  One tick at a time."""
        if self._ticking:
            return
        self._ticking = True
        d = defer.ensureDeferred(self._tick())
        d.addErrback(lambda f: f.trap(StoreUnavailable))
        d.addErrback(lambda f: self.log.failure("tournaments: the cluster's tick failed", f))
        d.addBoth(self._ticked)

    def _ticked(self, _: Any) -> None:
        self._ticking = False

    async def _tick(self) -> None:
        for tid in await self.store.tournament_adopt():
            await self.adopt(tid)
        for t in list(self.runner.tournaments.values()):
            if self.runner.mine(t) and t.state == RUNNING:
                await self.check(t)

    async def look_up(self, tournament_id: str) -> None:
        """Read ``tournament_id`` from the store if this hub has not heard of it yet
        (another hub made it a moment ago, its notice still on the way)."""
        if tournament_id in self.runner.tournaments:
            return
        records = await self.store.load_tournaments([tournament_id])
        if records and tournament_id not in self.runner.tournaments:
            self.runner.know(Tournament.from_record(records[0]))

    async def adopt(self, tournament_id: str) -> None:
        """This hub adopted ``tournament_id``: read it and run it."""
        records = await self.store.load_tournaments([tournament_id])
        if not records:
            return
        t = Tournament.from_record(records[0])
        old = self.runner.tournaments.get(t.id)
        self.log.info(
            "tournament {t} adopted (its hub {old} is gone or let it go)",
            t=t.id,
            old=old.owner if old is not None else "?",
        )
        self.runner.know(t)
        self.runner.tell(t)
        await self.take_up(t)

    async def check(self, t: Tournament) -> None:
        """Look up the games of ``t``'s round that this hub does not follow: over
        (their result counts), live (wait), lost (created again)."""
        runner = self.runner
        away = []
        for g in t.round_games(t.round):
            if g.state != PLAYING or g.game_id is None:
                continue
            if runner.followed(g.game_id) and self._runs_here(g.game_id):
                continue
            if not runner.follow(t, g):
                away.append(g)
        if not away:
            return
        fates = await self.store.game_fates([str(g.game_id) for g in away])
        lost = 0
        for g in away:
            if t.state != RUNNING or not runner.mine(t) or g.state != PLAYING:
                continue  # changed meanwhile
            fate = fates.get(str(g.game_id))
            if isinstance(fate, tuple):
                try:
                    factory = runner.hub.registry.game_factory(fate[1])
                except GameError:
                    factory = None
                runner.game_ended(t, g, factory, fate[2])
            elif fate == "lost":
                self.log.warn("tournament {t}: game {g} was lost; made again", t=t.id, g=g.game_id)
                g.state, g.game_id, lost = PENDING, None, lost + 1
        if lost:
            await runner.play_round(t)

    def _runs_here(self, game_id: str) -> bool:
        try:
            self.runner.hub.lobby.get(game_id)
        except GameError:
            return False
        return True

    # -- any door: registrations, starts, keys -------------------------------------------

    def elsewhere(self, t: Tournament) -> GameError:
        """Why an entrant's key of ``t`` (run by another hub) is not routed here: an
        :class:`~hub.model.Elsewhere` naming its owner and how to reach it (an MNM
        door passes the connection through: the owner routes the key), or 503 while
        nobody runs it (being adopted)."""
        if t.owner is None:
            return GameError(f"tournament {t.id} is being taken over by another hub", 503)
        return self.link.route_to(t.owner, f"tournament {t.id} runs on hub {t.owner}")

    async def enter(self, t: Tournament, entry: Entry) -> Entry:
        """Write ``entry`` (checked here) into the stored ``t``; the owner hears it."""
        if self.runner.mine(t):
            await self.runner.saved()  # (a tournament made a moment ago: its row first)
        entry.id = await self.store.tournament_enter(t.id, entry.to_json(private=True))
        self._add_entries(self.runner.tournaments.get(t.id), [entry])
        return entry

    async def close(self, t: Tournament) -> None:
        """(The owner, starting ``t``.)  Close registration in the store; every entry
        any hub wrote is ``t``'s now.

        :raises hub.model.GameError: 409 another hub runs it, or it started already.
        """
        try:
            record = await self.store.tournament_close(t.id, self.here)
        except NotOwner:
            self.runner.forget(t)
            self._reload(t.id)
            raise
        self._add_entries(t, Tournament.from_record(record).entries, tell=False)

    async def ask_start(self, t: Tournament) -> Tournament:
        """(Another hub runs ``t``.)  Ask its owner to start it; fires with ``t`` as
        the owner's change shows it (at most :attr:`ask_seconds`).

        :raises hub.model.GameError: 409 cancelled (too few entrants), 503 the owner
            did not start it in time.
        """
        waiting: defer.Deferred[Tournament] = defer.Deferred()
        self._asking.setdefault(t.id, []).append(waiting)
        timer = self.runner.clock.callLater(self.ask_seconds, self._answer, t.id)
        try:
            await self.store.tournament_ask(t.id)
            fresh = await waiting
        finally:
            if timer.active():
                timer.cancel()
        if fresh.state == CANCELLED:
            raise Conflict(f"tournament {t.id} has too few entrants: cancelled")
        if fresh.state == REGISTERING:
            raise GameError(
                f"tournament {t.id} is run by hub {fresh.owner or '(none: being adopted)'},"
                " which did not start it in time; try again",
                503,
            )
        return fresh

    def _answer(self, tournament_id: str) -> None:
        t = self.runner.tournaments.get(tournament_id)
        for waiting in self._asking.pop(tournament_id, []):
            if not waiting.called and t is not None:
                waiting.callback(t)

    def _add_entries(self, t: Tournament | None, entries: list[Entry], tell: bool = True) -> None:
        if t is None or t.state != REGISTERING:
            return
        added = [e for e in entries if t.entry(e.id) is None]
        t.entries.extend(added)
        if added and tell:
            self.runner.tell(t)
            self.runner.maybe_full(t)

    # -- notices ------------------------------------------------------------------------

    def notice(self, text: str) -> None:
        """A tournament changed (another hub's save, an entry, an adoption), or its
        owner is asked to start it."""
        try:
            message = json.loads(text)
            tid, hub = str(message["id"]), str(message["hub"])
        except (ValueError, KeyError, TypeError):
            return
        if message.get("start"):
            t = self.runner.tournaments.get(tid)
            if t is not None and self.runner.mine(t):
                self.runner.start_soon(tid)
            return
        if hub != self.here:
            self._reload(tid)

    def _reload(self, tournament_id: str) -> None:
        if len(self._pending) < self.bound:
            self._pending.add(tournament_id)
        if not self._loading:
            self._loading = True
            d = defer.ensureDeferred(self._load())
            d.addErrback(lambda f: f.trap(StoreUnavailable))
            d.addErrback(lambda f: self.log.failure("tournaments: reading changes failed", f))
            d.addBoth(self._loaded)

    def _loaded(self, _: Any) -> None:
        self._loading = False

    async def _load(self) -> None:
        while self._pending:
            ids, self._pending = sorted(self._pending), set()
            records = {r["id"]: r for r in await self.store.load_tournaments(ids)}
            for tid in ids:
                self._apply(tid, records.get(tid))

    def _apply(self, tid: str, record: dict[str, Any] | None) -> None:
        """What another hub changed of ``tid`` (``None``: it is gone)."""
        runner = self.runner
        t = runner.tournaments.get(tid)
        if record is None:
            if t is not None and not runner.mine(t):
                del runner.tournaments[tid]
                runner.tell(t, "removed")
            return
        fresh = Tournament.from_record(record)
        if t is not None and runner.mine(t):
            if fresh.owner == self.here:
                self._add_entries(t, fresh.entries)  # registered at another door
                return
            self.log.warn("tournament {t} is run by hub {hub} now", t=tid, hub=fresh.owner)
            runner.forget(t)
        elif fresh.owner == self.here:
            return  # adopted by this hub a moment ago: the adoption runs it
        runner.know(fresh)
        runner.tell(fresh)
        if fresh.state != REGISTERING:
            self._answer(tid)
        if fresh.state in (FINISHED, CANCELLED):
            runner.trim()  # (a hub that only lists keeps no more than one that runs)

    def not_saved(self, failure: Any, tournament_id: str) -> None:
        """A save refused: another hub runs the tournament now (this hub was cut off
        from the database and recovered); it is not run here any more."""
        failure.trap(NotOwner)
        t = self.runner.tournaments.get(tournament_id)
        if t is not None and self.runner.mine(t):
            self.log.warn("tournament {t}: {e}; not run here any more", t=t.id, e=failure.value)
            self.runner.forget(t)
            t.owner = None
        self._reload(tournament_id)


__all__ = ["ClusterLink", "ClusterTournamentStore", "TournamentCluster"]
