"""A hub's games outlive its process (issue 31): :class:`Journaling` journals every
game of the lobby (:mod:`hub.play.journal`), lets them go when the hub stops, and resumes
the games whose journal is this hub's when it starts (a restart) or takes one over
(another hub died or was drained).

- **Start.** After the plugins are loaded and before any front end listens, the hub
  adopts the journals of hubs whose lease has ended (:meth:`hub.store.journal.JournalMixin.journal_adopt`:
  its own previous life, stopped or killed; on a cluster, a hub stopped with games
  running) and resumes each.  A running hub of a cluster adopts them now and then too
  (:meth:`Journaling.adopt`): those a hub left when no other could take them.
- **Stop.** Before the front ends close their connections (which would leave seats),
  every running game is sealed (:meth:`hub.play.journal.Funnel.seal`: a ``pause`` entry, its
  clock stands still) and the writer drains; the games then stop here without ending
  and wait in the store for the next hub.
- **Chip tables** move with their chips: a recovery keeps a journaled table open for
  the hub that resumes it (:class:`hub.store.journal.ResumeTables`, a cluster's
  :class:`hub.cluster.takeover.ResumeGames`), the table money follows it again with
  its seats' accounts, and a hand whose settlement the journal does not show is given
  to it again (settled once: the ledger is keyed by hand).  Only a table that cannot
  be resumed (its journal lost) is void and its chips go back, once.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any, Protocol

from twisted.internet import defer
from twisted.logger import Logger

from hub.interfaces import IChipGameFactory
from hub.model import OVER, GameError
from hub.play.game import GameInstance
from hub.play.journal import MOVING, Journal, JournalStore, JournalWriter
from hub.play.lobby import Lobby
from hub.store.journal import ResumeTables
from hub.store.store import Store


class ResumeStore(JournalStore, Protocol):
    """What :class:`Journaling` needs of the store (:class:`hub.store.journal.JournalMixin`)."""

    def journal_adopt(self) -> defer.Deferred[list[str]]:
        """Take over the journals of ended hubs."""
        ...

    def journal_read(self, games: Sequence[str] | None = None) -> defer.Deferred[list[Journal]]:
        """This hub's journals."""
        ...

    def journal_hand(self, games: dict[str, str]) -> defer.Deferred[list[str]]:
        """Hand journals over."""
        ...

    def close_table(self, game_id: str) -> defer.Deferred[dict[str, Decimal]]:
        """Return a table's chips to their accounts and close it."""
        ...


class Journaling:
    """The lobby's journal: writer, resume, seal (module text).

    :param lobby: the hub's lobby.
    :param store: the store (:class:`ResumeStore`).
    :param reactor: ``IReactorTime``.
    :param options: the hub's settings (``journal_max_entries``, ``journal_max_waiting``,
        ``journal_flush_ms``).
    """

    log = Logger()

    def __init__(
        self, lobby: Lobby, store: ResumeStore, reactor: Any, options: dict[str, Any]
    ) -> None:
        self.lobby = lobby
        self.store = store
        self.writer = JournalWriter(
            store,
            reactor,
            max_entries=int(options.get("journal_max_entries", 100_000)),
            max_waiting=int(options.get("journal_max_waiting", 200_000)),
            interval=float(options.get("journal_flush_ms", 20)) / 1000,
        )
        self.sealed = False
        #: the games let go (sealed): their journal stays for the next hub
        self.kept: set[str] = set()
        #: whether :meth:`start` ran (games claimed before are resumed by it)
        self.started = False
        #: games resumed here since the start, and the entries they replayed
        self.resumed: dict[str, int] = {}
        lobby.journal = self.writer
        lobby.add_listener(self)
        if isinstance(store, Store) and store.takeover is None:
            store.takeover = ResumeTables(store)  # a single hub's (a cluster puts its own)

    # -- ILobbyListener ---------------------------------------------------------------

    def lobby_changed(self, change: str, game: GameInstance) -> None:
        """A game removed before it ended: its journal goes (an ended game's goes once
        its history is written: :meth:`history_written`)."""
        if change == "removed" and game.state != OVER:
            self._drop(game.id)

    def history_written(self, game_id: str) -> None:
        """The game ended and its history is in the store."""
        self._drop(game_id)

    def _drop(self, game_id: str) -> None:
        if game_id not in self.kept:  # a sealed game waits for its next hub
            self.writer.drop(game_id)

    # -- start ------------------------------------------------------------------------

    async def start(self) -> list[str]:
        """Adopt the journals of ended hubs and resume every game whose journal is
        this hub's.  Returns the ids resumed."""
        await self._adopt()
        self.started = True
        return await self.resume()

    async def adopt(self) -> list[str]:
        """(A running hub of a cluster, now and then.)  Adopt and resume the journals
        that ended hubs left with nobody to take them (a hub stopped while no other
        was live, or its hand-over failed).  Returns the ids resumed."""
        if not self.started or self.sealed:
            return []
        adopted = await self._adopt()
        return await self.resume(adopted) if adopted else []

    async def _adopt(self) -> list[str]:
        adopted = await self.store.journal_adopt()
        if adopted:
            self.log.info("journal: {n} games of stopped or dead hubs taken over", n=len(adopted))
        return adopted

    async def resume(self, games: Sequence[str] | None = None) -> list[str]:
        """Resume this hub's journaled games (``games`` only, when given) that do not
        run here yet."""
        journals = await self.store.journal_read(games)
        out = []
        for journal in journals:
            game_id = journal.header.game_id
            if game_id in {g.id for g in self.lobby.games()}:
                continue
            if self._resume_one(journal):
                out.append(game_id)
        return out

    def _resume_one(self, journal: Journal) -> bool:
        header = journal.header
        try:
            factory = self.lobby.registry.game_factory(header.type)
        except GameError as e:
            self.log.error(
                "journal: game {game} ({type}) cannot be resumed: {e}; its journal is dropped",
                game=header.game_id,
                type=header.type,
                e=e.reason,
            )
            self.writer.drop(header.game_id)
            return False
        try:
            game, resumed = self.lobby.resume(journal)
        except Exception:
            self.log.failure("journal: game {game} could not be resumed", game=header.game_id)
            self.writer.drop(header.game_id)
            if IChipGameFactory.providedBy(factory):  # void: its chips go back, once
                d = self.store.close_table(header.game_id)
                d.addErrback(lambda f: self.log.failure("journal: closing the table failed", f))
            return False
        self.resumed[game.id] = resumed.entries
        for n, why in resumed.refused:
            self.log.warn(
                "journal: game {game}: entry {n} refused on replay ({why})",
                game=game.id,
                n=n,
                why=why,
            )
        self.log.info(
            "journal: game {game} ({type}) resumed: {n} entries, state {state}",
            game=game.id,
            type=game.type,
            n=resumed.entries,
            state=game.state,
        )
        return True

    # -- stop -------------------------------------------------------------------------

    def movable(self) -> list[GameInstance]:
        """The games that can move to another hub: not over, journaled here."""
        return [g for g in self.lobby.games() if g.state != OVER and self.writer.journaled(g.id)]

    def _seal(self, games: Sequence[GameInstance]) -> list[str]:
        for game in games:
            game.pause(MOVING)  # its players see a pause (a paused event), not an error
            game.funnel.seal()
            self.writer.forget(game.id)
            self.kept.add(game.id)
        return [g.id for g in games]

    async def seal(self, timeout: float = 10.0) -> list[str]:
        """The hub stops: every game that can move stands still and is left to its
        journal (for the next hub: :meth:`hand_over`, or this one restarted); the
        writer drains.  Returns their ids."""
        sealed = self._seal(self.movable())
        self.sealed = True
        await self.writer.drain(timeout)
        if sealed:
            self.log.info("journal: {n} running games left to their journal", n=len(sealed))
        return sealed

    def release(self, games: Sequence[str]) -> None:
        """``games`` were taken over by another hub while this one was cut off: they
        stop here without a word to their journal or their table (another hub's now)."""
        for game in self.lobby.games():
            if game.id in games:
                game.funnel.release()
                self.writer.forget(game.id)
                self.kept.add(game.id)

    async def hand_over(self, games: Sequence[str], hubs: Sequence[str]) -> list[str]:
        """Hand ``games`` (sealed: :meth:`seal`, or now) to ``hubs`` in turn, which
        resume them from their journal; they stop here.  Returns those handed over."""
        if not hubs:
            return []
        here = {g.id: g for g in self.lobby.games()}
        self._seal([here[g] for g in games if g in here and g not in self.kept])
        await self.writer.drain()
        given = await self.store.journal_hand(
            {game_id: hubs[i % len(hubs)] for i, game_id in enumerate(sorted(games))}
        )
        for game_id in given:  # its connections here end: a door follows it
            self.lobby.remove(game_id, moved=True)
        if given:
            self.log.info(
                "journal: {n} game(s) handed to hub(s) {hubs}", n=len(given), hubs=", ".join(hubs)
            )
        return list(given)


__all__ = ["Journaling", "ResumeStore"]
