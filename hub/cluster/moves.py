"""Where a game went: a door's spliced connections follow their game to its new hub.

A game moves when its hub hands it over (a drain, a stop) or dies and another hub
resumes it from its journal (issue 31): its directory row then names the new hub.  A
door whose splice to the old owner closed without the game's end
(:class:`hub.cluster.splice.Follow`) asks :class:`Moves` where the game is now and
passes the client's connection through to that hub (a *re-splice*): the client keeps
its connection.

:class:`Moves` answers from this hub's view of the directory at once when the game is
already listed on another hub, else waits (at most ``cluster_follow_seconds``, 20 s:
longer than the grace after which a dead hub's games are taken over) for the view to
change: a row of the game on another hub (a notice, or a lookup), the game
appearing in this hub's own lobby (it moved here), or :meth:`Moves.moved` — **the hook**
a hand-over calls when it knows where a game went before any notice says so.  A game
that ends (``over``), is aborted or stays where it was is not followed (``None``): the
door closes the client as before.  Domino clients reach a queue, not a game: theirs
are followed by the player's name (the game of the other hub where that name is
seated).

Bounded: at most ``cluster_follow_max`` (4096) waits at once (beyond: ``None`` at once);
each wait ends by its deadline; every timer is cancelled when its wait ends.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from twisted.internet import defer
from twisted.logger import Logger

from hub.model import OVER
from hub.store.cluster import ABORTED

#: the settings of the moves, with their defaults
DEFAULTS: dict[str, Any] = {"cluster_follow_seconds": 20.0, "cluster_follow_max": 4096}

#: a front end's route to a hub: (host, port, TLS)
Route = tuple[str, int, bool]
#: where a game went: (hub id, the route to its front end)
Place = tuple[str, Route]


@dataclass(frozen=True)
class Seen:
    """A game as this hub sees it: its hub, its state, who is seated."""

    game_id: str
    hub: str
    state: str
    players: frozenset[str]

    @property
    def ended(self) -> bool:
        """Over or aborted: not to be followed."""
        return self.state in (OVER, ABORTED)


@dataclass(eq=False)
class _Wait:
    """One splice waiting for its game (or its player's game) to show up elsewhere."""

    frontend: str
    old_hub: str
    game_id: str | None = None
    player: str | None = None
    done: defer.Deferred[Place | None] = field(default_factory=defer.Deferred)
    timer: Any = None


class Moves:
    """The waits of this door's splices (see the module's docstring).

    :param clock: ``IReactorTime``.
    :param find: game id → how this hub sees it (listed by another hub, or in this
        hub's lobby), or ``None``.
    :param games: the games of the other hubs as this hub sees them (the waits by
        player look there).
    :param route: ``(hub id, front end) →`` the route to that hub's front end, or
        ``None`` when it does not advertise one.
    """

    log = Logger()

    def __init__(
        self,
        clock: Any,
        find: Callable[[str], Seen | None],
        games: Callable[[], Iterable[Seen]],
        route: Callable[[str, str], Route | None],
        options: Any = (),
    ) -> None:
        conf = dict(DEFAULTS)
        conf.update({k: v for k, v in dict(options).items() if k in DEFAULTS})
        self.clock = clock
        self._find = find
        self._games = games
        self._route = route
        self.seconds = float(conf["cluster_follow_seconds"])
        self.most = max(0, int(conf["cluster_follow_max"]))
        self._waits: list[_Wait] = []
        #: waits answered with a new hub, and without one (metrics, tests)
        self.followed = 0
        self.lost = 0

    # -- what a splice asks ----------------------------------------------------------------

    def game(self, game_id: str, old_hub: str, frontend: str) -> defer.Deferred[Place | None]:
        """Where ``game_id``, last run by ``old_hub``, runs now (``None``: it does not
        run elsewhere)."""
        return self._wait(_Wait(frontend, old_hub, game_id=game_id))

    def player(self, name: str, old_hub: str, frontend: str) -> defer.Deferred[Place | None]:
        """Where the game in which ``name`` is seated runs now (``None``: none on
        another hub than ``old_hub``)."""
        return self._wait(_Wait(frontend, old_hub, player=name))

    # -- what tells it -----------------------------------------------------------------------

    def moved(self, game_id: str, hub_id: str) -> None:
        """**The hook**: ``game_id`` runs on ``hub_id`` now (a hand-over that knows it
        before the directory says so)."""
        for wait in list(self._waits):
            if wait.game_id == game_id and hub_id != wait.old_hub:
                self._answer(wait, self._place(hub_id, wait.frontend))

    def seen(self, game: Seen) -> None:
        """A game was listed or changed (a row of another hub, or a game of this hub's
        lobby): the waits it answers end.  (A game that leaves the view is no answer:
        it may come back on its new hub.)"""
        for wait in list(self._waits):
            if not self._concerns(wait, game):
                continue
            if game.ended:
                self._answer(wait, None)
            elif game.hub != wait.old_hub:
                self._answer(wait, self._place(game.hub, wait.frontend))

    @property
    def waiting(self) -> int:
        """How many waits run now."""
        return len(self._waits)

    # -- the waits --------------------------------------------------------------------------

    def _place(self, hub_id: str, frontend: str) -> Place | None:
        route = self._route(hub_id, frontend)
        return None if route is None else (hub_id, route)

    def _wait(self, wait: _Wait) -> defer.Deferred[Place | None]:
        known, route = self._now(wait)
        if known:
            self._count(route)
            return defer.succeed(route)
        if len(self._waits) >= self.most:
            self.lost += 1
            return defer.succeed(None)
        self._waits.append(wait)
        wait.timer = self.clock.callLater(self.seconds, self._answer, wait, None)
        return wait.done

    def _now(self, wait: _Wait) -> tuple[bool, Place | None]:
        """What the view says already: ``(True, route)``, ``(True, None)`` (ended), or
        ``(False, None)``: not known yet."""
        if wait.game_id is not None:
            game = self._find(wait.game_id)
            if game is None or (game.hub == wait.old_hub and not game.ended):
                return False, None
            return True, None if game.ended else self._place(game.hub, wait.frontend)
        for game in self._games():
            if game.hub != wait.old_hub and not game.ended and self._concerns(wait, game):
                return True, self._place(game.hub, wait.frontend)
        return False, None

    @staticmethod
    def _concerns(wait: _Wait, game: Seen) -> bool:
        if wait.game_id is not None:
            return game.game_id == wait.game_id
        return wait.player in game.players

    def _answer(self, wait: _Wait, route: Place | None) -> None:
        if wait not in self._waits:
            return
        self._waits.remove(wait)
        if wait.timer is not None and wait.timer.active():
            wait.timer.cancel()
        self._count(route)
        wait.done.callback(route)

    def _count(self, route: Place | None) -> None:
        if route is None:
            self.lost += 1
        else:
            self.followed += 1

    def stop(self) -> None:
        """End every wait (``None``: the clients are closed as before)."""
        for wait in list(self._waits):
            self._answer(wait, None)
