"""The tournament runner: creates tournaments, takes registrations, starts rounds as
lobby games on the right front ends, waits for their results and keeps everything in
the store.

Life of a tournament: ``registering`` (entries come in; it starts at ``starts_at``,
when full if ``start_when_full``, or when told) → ``running`` (round after round: the
round's games are created with every seat reserved for its entrant, bots seated at
once; an entrant not seated within ``grace`` seconds loses that game by forfeit) →
``finished`` (standings with tie-breaks).  A finished game's ranking is the hub's
(:func:`hub.ratings.service.ranks_of`: the game's ``IRatedGameFactory`` or the
default from scores and winners), so the runner knows no game.

Network clients reach their games through :class:`hub.play.routes.Routes`: an entry's
secret key is an MNM Game-ID, an entrant's name a Domino login; the connection waits
until the entrant's next game exists (at most ``tournament_route_wait`` seconds).

On restart the stored tournaments are read back; the games of the round in progress
that the hub resumed from their journal (:mod:`hub.play.resume`) go on and are followed
again (a seat still waiting for its entrant gets a new grace period); those that
could not be resumed are created again (a new grace period), while the round's
finished games keep their results.

On a cluster of hubs each tournament is run by one hub, its owner (:mod:`.cluster`):
the others list it from the store, take registrations for it into the store and ask
its owner to start it; a tournament whose owner stopped or died is adopted by another
live hub, which follows the round's games wherever they run.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from typing import Any

from twisted.internet import defer
from twisted.logger import Logger

from hub.connections import fields, names
from hub.interfaces import IGameOptions, ITournamentStore, IWholeTournamentFactory
from hub.model import OVER, WAITING, BadAction, Conflict, GameError, NotFound
from hub.play.routes import Routed
from hub.ratings.service import ranks_of

from .cluster import ClusterLink, TournamentCluster
from .model import (
    BYE,
    CANCELLED,
    DONE,
    ENTRY_FRONTENDS,
    ENTRY_KINDS,
    FINISHED,
    FORMATS,
    PENDING,
    PLAYING,
    REGISTERING,
    RUNNING,
    Entry,
    TGame,
    Tournament,
)

#: the settings of the runner and their defaults (docs/settings.md)
DEFAULTS: dict[str, Any] = {
    "tournament_max_entrants": 64,
    "tournament_max_rounds": 20,
    "tournament_max_active": 20,
    "tournament_max_per_account": 3,
    "tournament_keep": 100,
    "tournament_grace": 60.0,
    "tournament_route_wait": 600.0,
    "tournament_cluster_seconds": 1.0,
}
_KEY_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
#: the fields of a new tournament (``POST /api/tournaments``)
SPEC_FIELDS = {
    "type", "format", "name", "variant", "options", "rounds", "max_entrants", "min_entrants",
    "starts_at", "start_when_full", "grace", "table_size", "rated", "bots",
    "withdraw_forfeits",
}  # fmt: skip


class TournamentService:
    """The tournaments of one hub (see the module docstring).

    :param hub: the hub (an ``IHub``): its lobby, registry, store, seating, routes.
    :param options: the hub's settings (:data:`DEFAULTS` are read from them).
    :param cluster: the hub's cluster (``None``: a single hub, which runs every
        tournament of its store).
    """

    log = Logger()

    def __init__(
        self,
        hub: Any,
        options: Mapping[str, Any] | None = None,
        cluster: ClusterLink | None = None,
    ) -> None:
        self.hub = hub
        self.clock = hub.reactor
        settings = dict(DEFAULTS)
        settings.update({k: v for k, v in dict(options or {}).items() if k in DEFAULTS})
        self.max_entrants = int(settings["tournament_max_entrants"])
        self.max_rounds = int(settings["tournament_max_rounds"])
        self.max_active = int(settings["tournament_max_active"])
        self.max_per_account = int(settings["tournament_max_per_account"])
        self.keep = int(settings["tournament_keep"])
        self.grace = float(settings["tournament_grace"])
        self.route_wait = float(settings["tournament_route_wait"])
        self.tournaments: dict[str, Tournament] = {}
        self._timers: dict[Any, Any] = {}
        self._by_game: dict[str, tuple[str, int, int]] = {}
        self._waiting: dict[tuple[str, str], list[defer.Deferred[Routed]]] = {}
        self._listeners: list[Callable[[str, Tournament], Any]] = []
        self._saving: set[defer.Deferred[Any]] = set()
        #: the latest record of each tournament whose previous save is still running
        #: (one save of a tournament at a time, in order; at most one waits)
        self._next: dict[str, dict[str, Any]] = {}
        self._writing: set[str] = set()
        self._counter = 0
        self._stopped = False
        #: where tournaments are kept (a store that keeps them), else nowhere
        self.store = hub.store if ITournamentStore.providedBy(hub.store) else None
        #: on a cluster, which tournaments this hub runs, and the others' (:mod:`.cluster`)
        self.cluster = (
            TournamentCluster(
                self, cluster, self.store, float(settings["tournament_cluster_seconds"])
            )
            if cluster is not None and self.store is not None
            else None
        )
        hub.lobby.on_game_over(self._game_over)
        if hub.routes is not None:
            hub.routes.add(self.route)

    # -- life ---------------------------------------------------------------------

    async def start(self) -> None:
        """Read the stored tournaments back; go on with those under way."""
        if self.store is None:
            return
        if self.cluster is not None:
            await self.cluster.start()
            return
        for record in await self.store.load_tournaments():
            t = Tournament.from_record(record)
            self.tournaments[t.id] = t
            self._counter = max(self._counter, _number(t.id))
        for t in list(self.tournaments.values()):
            if t.state == REGISTERING:
                self.arm_start(t)
            elif t.state == RUNNING:
                for g in t.round_games(t.round):
                    if g.state in (PENDING, PLAYING) and not self.follow(t, g):
                        g.state, g.game_id = PENDING, None  # lost with the old lobby
                await self.play_round(t)

    def follow(self, t: Tournament, g: TGame) -> bool:
        """Whether ``g``'s game was resumed from its journal (:mod:`hub.play.resume`, before
        this start): it goes on, followed again; a seat still waiting for its entrant
        has a new grace period."""
        if g.state != PLAYING or g.game_id is None:
            return False
        try:
            game = self.hub.lobby.get(g.game_id)
        except GameError:
            return False
        if game.state == OVER:
            return False
        self._by_game[game.id] = (t.id, g.round, g.board)
        if game.state == WAITING:
            self._timers[("grace", game.id)] = self.clock.callLater(
                float(t.settings.get("grace") or self.grace), self._grace_over, game.id
            )
        return True

    def mine(self, t: Tournament) -> bool:
        """Whether this hub runs ``t`` (a single hub runs them all)."""
        return self.cluster is None or t.owner == self.cluster.here

    def followed(self, game_id: str) -> bool:
        """Whether this hub follows ``game_id`` as a game of a tournament it runs."""
        return game_id in self._by_game

    async def release(self) -> None:
        """(A hub of a cluster that stops, before its games move.)  Stop running the
        tournaments and let the next live hub adopt them at once."""
        if self.cluster is not None:
            await self.stop()
            await self.cluster.release()

    def stop(self) -> defer.Deferred[Any]:
        """Cancel the timers and the waiting connections; fires once saved."""
        if self.cluster is not None:
            self.cluster.stop()
        self._stopped = True
        if self.hub.routes is not None:
            self.hub.routes.remove(self.route)
        for timer in self._timers.values():
            if timer.active():
                timer.cancel()
        self._timers.clear()
        for waiters in self._waiting.values():
            for d in waiters:
                if not d.called:
                    d.errback(GameError("the hub is stopping", 503))
        self._waiting.clear()
        return defer.ensureDeferred(self.saved())

    async def saved(self) -> None:
        """Fires once every save asked for so far is written (or failed)."""
        while self._saving:
            await defer.DeferredList(list(self._saving))

    def add_listener(self, listener: Callable[[str, Tournament], Any]) -> None:
        """Call ``listener(change, tournament)`` on every change (``created``,
        ``changed``, ``removed``): the web's live pages."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[str, Tournament], Any]) -> None:
        """Stop calling ``listener``."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def know(self, t: Tournament) -> None:
        """Keep ``t`` (read from the store) among this hub's tournaments."""
        self.tournaments[t.id] = t
        self._counter = max(self._counter, _number(t.id))

    def _changed(self, t: Tournament, change: str = "changed") -> None:
        self._save(t)
        self.tell(t, change)

    def tell(self, t: Tournament, change: str = "changed") -> None:
        """Tell the listeners of a change of ``t`` (without saving it)."""
        for listener in list(self._listeners):
            try:
                listener(change, t)
            except Exception:
                self.log.failure("tournament listener failed")

    def _save(self, t: Tournament) -> None:
        if self.store is None or self._stopped or not self.mine(t):
            return
        record = t.to_record()
        if t.id in self._writing:  # written after the save under way, not beside it
            self._next[t.id] = record
            return
        self._write(t.id, record, in_order=self.cluster is not None)

    def _write(self, tournament_id: str, record: dict[str, Any], in_order: bool = True) -> None:
        """Save ``record``; ``in_order`` (a cluster, whose other hubs read the rows): the
        next save of the tournament waits for this one."""
        assert self.store is not None
        if in_order:
            self._writing.add(tournament_id)
        d = self.store.save_tournament(record)
        if self.cluster is not None:
            d.addErrback(self.cluster.not_saved, tournament_id)
        d.addErrback(
            lambda f: self.log.warn(
                "tournament {t} not saved: {e}", t=tournament_id, e=f.getErrorMessage()
            )
        )
        self._saving.add(d)

        def written(_: Any) -> None:
            self._writing.discard(tournament_id)
            later = self._next.pop(tournament_id, None)
            if later is not None:
                self._write(tournament_id, later)
            self._saving.discard(d)

        d.addBoth(written)

    # -- creating and registering -----------------------------------------------------

    def get(self, tournament_id: str) -> Tournament:
        """The tournament with this id.

        :raises hub.model.NotFound: there is none.
        """
        t = self.tournaments.get(tournament_id) if isinstance(tournament_id, str) else None
        if t is None:
            raise NotFound(f"no tournament {str(tournament_id)[:40]!r}")
        return t

    def listed(self) -> list[Tournament]:
        """Every tournament, newest first."""
        return sorted(self.tournaments.values(), key=lambda t: (-t.created, t.id))

    def create(
        self, spec: Mapping[str, Any], creator: str | None = None, admin: bool = False
    ) -> Tournament:  # long: one check per field
        """A new tournament from ``spec`` (``POST /api/tournaments``): ``type``,
        ``format``, ``name``, ``variant``, ``options``, ``rounds``, ``max_entrants``,
        ``min_entrants``, ``starts_at``, ``start_when_full``, ``grace``, ``table_size``,
        ``rated``, ``withdraw_forfeits`` (true unless false: an entrant who loses a game
        by forfeit is withdrawn), ``bots`` (bot names to register at once).  ``creator``
        is the account that asks (``None``: loopback or the API token); one that is not
        an ``admin`` has at most ``tournament_max_per_account`` under way.

        :raises hub.model.GameError: 400 for a bad field, 409 too many tournaments
            (of the hub, or of the account).
        """
        if not isinstance(spec, Mapping):
            raise BadAction("a tournament is a JSON object")
        unknown = set(spec) - SPEC_FIELDS
        if unknown:
            raise BadAction(f"unknown field(s): {', '.join(sorted(map(str, unknown)))}")
        bots = spec.get("bots") or []
        if not isinstance(bots, list) or not all(isinstance(b, str) for b in bots):
            raise BadAction("'bots' is a list of bot names")
        active = [t for t in self.tournaments.values() if t.state in (REGISTERING, RUNNING)]
        if creator is not None and not admin:
            key = creator.lower()
            mine = [t for t in active if str(t.settings.get("creator") or "").lower() == key]
            if len(mine) >= self.max_per_account:
                raise Conflict(
                    f"{creator} has {len(mine)} tournaments under way already (at most"
                    f" {self.max_per_account} an account); start or finish one first",
                    409,
                )
        if len(active) >= self.max_active:
            raise Conflict(f"{self.max_active} tournaments are under way already", 409)
        factory = self.hub.registry.game_factory(spec.get("type"))
        withdraw = spec.get("withdraw_forfeits", True)
        if not isinstance(withdraw, bool):
            raise BadAction("'withdraw_forfeits' is true or false")
        fmt = spec.get("format", "swiss")
        if fmt not in FORMATS:
            raise BadAction(f"'format' is one of {', '.join(FORMATS)}")
        if fmt in ("round-robin", "swiss") and not factory.min_seats <= 2 <= factory.max_seats:
            raise BadAction(f"{factory.name} is not a two-player game: use rotation")
        if fmt == "sit-and-go" and not IWholeTournamentFactory.providedBy(factory):
            raise BadAction(f"{factory.name} does not play a whole tournament in one game")
        table_size = _int(spec, "table_size", int(factory.max_seats), 2, int(factory.max_seats))
        if fmt == "sit-and-go":
            table_size = int(factory.max_seats)
        limit = min(self.max_entrants, table_size) if fmt == "sit-and-go" else self.max_entrants
        max_entrants = _int(spec, "max_entrants", limit, 2, limit)
        smallest = 2 if fmt != "rotation" else int(factory.min_seats)
        settings = {
            "variant": spec.get("variant"),
            "options": _game_options(factory, spec.get("options")),
            "rounds": _int(spec, "rounds", None, 1, self.max_rounds),
            "max_entrants": max_entrants,
            "min_entrants": _int(spec, "min_entrants", max(2, smallest), 2, max_entrants),
            "starts_at": _float(spec, "starts_at"),
            "start_when_full": bool(spec.get("start_when_full", True)),
            "grace": _float(spec, "grace") or self.grace,
            "table_size": table_size,
            "smallest": smallest,
            "rated": bool(spec.get("rated", False)),
            "withdraw_forfeits": withdraw,
            "creator": creator,
        }
        tid = self._new_id()
        name = spec.get("name") or f"{factory.name} {fmt} {self._counter}"
        fields.GAME_NAME.check(name)
        t = Tournament(tid, name, str(factory.name), str(fmt), settings, self.clock.seconds())
        t.owner = None if self.cluster is None else self.cluster.here
        self.tournaments[tid] = t
        for bot in bots:
            self._register(t, bot, "bot", "hub", bot)
        self.trim()
        self._changed(t, "created")
        self.arm_start(t)
        if t.full and settings["start_when_full"]:
            self.clock.callLater(0, self.start_soon, t.id)
        return t

    def _new_id(self) -> str:
        """The next tournament's id: ``t<n>``, on a cluster with this hub's mark
        (``t<n>-<6 characters of the hub id>``: unique among the hubs)."""
        self._counter += 1
        if self.cluster is None:
            return f"t{self._counter}"
        return f"t{self._counter}-{self.cluster.here[:6]}"

    def register(
        self,
        tournament_id: str,
        name: str,
        kind: str = "client",
        frontend: str = "mnm",
        bot: str | None = None,
    ) -> Entry:
        """Enter ``name`` (an account's name for ``account``, the player name of a
        network ``client``, or for a ``bot`` the in-hub bot ``bot``); returns the entry
        (its ``key`` is the MNM Game-ID of the entrant's games).

        :raises hub.model.GameError: 409 not open or full or the name taken, 400 bad.
        """
        t = self.get(tournament_id)
        entry = self._register(t, name, kind, frontend, bot)
        self._changed(t)
        self.maybe_full(t)
        return entry

    async def enter(
        self,
        tournament_id: str,
        name: str,
        kind: str = "client",
        frontend: str = "mnm",
        bot: str | None = None,
    ) -> Entry:
        """:meth:`register` at any hub of a cluster (``POST …/entries``): the entry is
        checked here, written into the stored tournament (the row locked: registration
        open, a place left, the name free) and its owner is told.  On a single hub,
        :meth:`register`.

        :raises hub.model.GameError: as :meth:`register`.
        """
        if self.cluster is None:
            return self.register(tournament_id, name, kind, frontend, bot)
        if tournament_id not in self.tournaments:  # made at another door a moment ago
            await self.cluster.look_up(tournament_id)
        t = self.get(tournament_id)
        entry = self._new_entry(t, name, kind, frontend, bot)
        return await self.cluster.enter(t, entry)

    def maybe_full(self, t: Tournament) -> None:
        """Start ``t`` soon if it is full and starts when full (its owner only)."""
        if t.full and t.settings["start_when_full"] and self.mine(t):
            self.clock.callLater(0, self.start_soon, t.id)

    def _register(
        self, t: Tournament, name: str, kind: str, frontend: str, bot: str | None
    ) -> Entry:
        entry = self._new_entry(t, name, kind, frontend, bot)
        t.entries.append(entry)
        return entry

    def _new_entry(
        self, t: Tournament, name: str, kind: str, frontend: str, bot: str | None
    ) -> Entry:
        if t.state != REGISTERING:
            raise Conflict(f"tournament {t.id} is not open for registration")
        if t.full:
            raise Conflict(f"tournament {t.id} is full")
        if kind not in ENTRY_KINDS or frontend not in ENTRY_FRONTENDS:
            raise BadAction(
                f"an entry is one of {', '.join(ENTRY_KINDS)} on one of {', '.join(ENTRY_FRONTENDS)}"
            )
        if kind == "bot":
            factory = self.hub.registry.bot_factory(bot)
            if t.game_type not in tuple(factory.games):
                raise BadAction(f"bot {bot} does not play {t.game_type}")
            name = _unused(str(bot), {e.name for e in t.entries})
            frontend = "hub"
        fields.SEATED_NAME.check(name)
        if " " in name:
            raise BadAction("a player name has no spaces")
        if kind == "client" and names.reserved(name):  # a bot's, a guest's, an admin's
            raise BadAction(f"{name}: {names.reserved(name)}")
        if t.entry_named(name) is not None:
            raise Conflict(f"{name} is registered already")
        key = "".join(secrets.choice(_KEY_ALPHABET) for _ in range(self.hub.lobby.id_length))
        return Entry(f"e{len(t.entries) + 1}", name, kind, frontend, bot, key)

    def trim(self) -> None:
        """Forget (and delete from the store) the finished tournaments past
        ``tournament_keep``, oldest first."""
        over = [t for t in self.tournaments.values() if t.state in (FINISHED, CANCELLED)]
        over.sort(key=lambda t: (t.finished or 0.0, t.id))
        while len(over) > self.keep:
            t = over.pop(0)
            del self.tournaments[t.id]
            if self.store is not None:
                self.store.delete_tournament(t.id).addErrback(lambda f: None)
            for listener in list(self._listeners):
                listener("removed", t)

    # -- starting ---------------------------------------------------------------------

    def arm_start(self, t: Tournament) -> None:
        at = t.settings.get("starts_at")
        if at is not None and t.state == REGISTERING and self.mine(t):
            delay = max(0.0, float(at) - self.clock.seconds())
            self._timers[("start", t.id)] = self.clock.callLater(delay, self.start_soon, t.id)

    def start_soon(self, tournament_id: str) -> None:
        t = self.tournaments.get(tournament_id)
        if t is None or t.state != REGISTERING or not self.mine(t) or self._stopped:
            return
        d = defer.ensureDeferred(self.start_tournament(t.id))
        d.addErrback(
            lambda f: self.log.warn(
                "tournament {t} did not start: {e}", t=t.id, e=f.getErrorMessage()
            )
        )

    async def start_tournament(self, tournament_id: str) -> Tournament:
        """Start now: close registration, pair round 1 and create its games; with
        fewer than ``min_entrants`` the tournament is cancelled.

        :raises hub.model.GameError: 409 already started.
        """
        t = self.get(tournament_id)
        if t.state != REGISTERING:
            raise Conflict(f"tournament {t.id} has started already")
        if self.cluster is not None and not self.mine(t):
            return await self.cluster.ask_start(t)
        timer = self._timers.pop(("start", t.id), None)
        if timer is not None and timer.active():
            timer.cancel()
        if self.cluster is not None:  # registration closed in the store: every entry
            await self.saved()  # (its row written first)
            await self.cluster.close(t)
        if len(t.entries) < int(t.settings["min_entrants"]):
            t.state, t.finished = CANCELLED, self.clock.seconds()
            self._changed(t)
            raise Conflict(f"tournament {t.id} has too few entrants: cancelled")
        t.state = RUNNING
        await self._next_round(t)
        return t

    async def _next_round(self, t: Tournament) -> None:
        if t.round >= t.total_rounds:
            t.state, t.finished = FINISHED, self.clock.seconds()
            self._changed(t)
            self._fail_waiters(t, "the tournament is over")
            self.log.info("tournament {t} finished", t=t.id)
            self.trim()
            return
        t.round += 1
        try:
            t.games.extend(t.pair(t.round, int(t.settings.get("smallest", 2))))
        except ValueError as e:
            t.state, t.finished = CANCELLED, self.clock.seconds()
            self._changed(t)
            self.log.warn("tournament {t} cancelled: {e}", t=t.id, e=str(e))
            return
        await self.play_round(t)

    async def play_round(self, t: Tournament) -> None:
        for g in t.round_games(t.round):
            if g.state == PENDING and g.game_id is None:
                try:
                    await self._create_game(t, g)
                except GameError as e:
                    self.log.warn("tournament {t}: game not created: {e}", t=t.id, e=e.reason)
                    g.finish([0] * len(g.entries))  # nobody can play it: a draw
        self._changed(t)
        await self._round_maybe_over(t)

    async def _create_game(self, t: Tournament, g: TGame) -> None:
        entries = [t.entry(e) for e in g.entries]
        game = await self.hub.create_game(
            t.game_type,
            name=f"{t.name} r{g.round} b{g.board}"[:64],
            variant=t.settings.get("variant"),
            seats=["open"] * len(entries),
            options=t.settings.get("options") or {},
            creator=f"tournament {t.id}",
            seat_bots=False,
            rated=t.settings.get("rated", False),
        )
        g.game_id, g.state = game.id, PLAYING
        self._by_game[game.id] = (t.id, g.round, g.board)
        for seat, entry in enumerate(entries):
            assert entry is not None
            game.seats[seat].reserved = entry.name
        for seat, entry in enumerate(entries):
            assert entry is not None
            if entry.kind == "bot":
                if game.chips is not None:  # seated under a name the table money picks
                    game.seats[seat].reserved = None
                    await self.hub.add_bot(game, entry.bot, seat)
                else:
                    game.seat_bot(seat, entry.bot, player=entry.name)
        self._timers[("grace", game.id)] = self.clock.callLater(
            float(t.settings.get("grace") or self.grace), self._grace_over, game.id
        )
        for entry in entries:
            assert entry is not None
            self._wake(t, entry)

    def _grace_over(self, game_id: str) -> None:
        """The grace period ended: if someone is not seated, the game is over: the
        absent lose by forfeit (the present tie first)."""
        self._timers.pop(("grace", game_id), None)
        found = self._game_of(game_id)
        if found is None:
            return
        t, g = found
        try:
            game = self.hub.lobby.get(game_id)
        except GameError:
            game = None
        if game is not None and game.state != WAITING:
            return
        if game is None and self.cluster is not None:
            return  # it moved to another hub: its end is learnt from the store (.cluster)
        absent = tuple(game is None or game.seats[i].free for i in range(len(g.entries)))
        g.forfeit(absent)
        self._by_game.pop(game_id, None)
        self.log.info("tournament {t} game {g}: forfeit by {who}", t=t.id, g=game_id, who=absent)
        if t.settings.get("withdraw_forfeits", True):  # (lichess withdraws them too)
            for entry_id, away in zip(g.entries, absent, strict=True):
                entry = t.entry(entry_id)
                if away and entry is not None and not entry.withdrawn:
                    entry.withdrawn = True
                    self.log.info("tournament {t}: {who} withdrawn", t=t.id, who=entry.name)
        if game is not None:
            self.hub.lobby.remove(game_id)
        self._changed(t)
        defer.ensureDeferred(self._round_maybe_over(t)).addErrback(self._failed, t.id)

    def _game_over(self, game: Any, event: Any) -> None:
        found = self._game_of(game.id)
        if found is None:
            return
        self.game_ended(found[0], found[1], game.factory, game.result())

    def game_ended(self, t: Tournament, g: TGame, factory: Any, result: Any) -> None:
        """``g`` of ``t`` is over with ``result`` (its game's ``result()``, here or, on a
        cluster, as another hub wrote it into the history): it counts."""
        if g.game_id is not None:
            self._by_game.pop(g.game_id, None)
            timer = self._timers.pop(("grace", g.game_id), None)
            if timer is not None and timer.active():
                timer.cancel()
        ranks = ranks_of(factory, result, len(g.entries))
        if ranks is None or len(ranks) != len(g.entries):
            ranks = [0] * len(g.entries)
        g.finish(ranks)
        self._changed(t)
        defer.ensureDeferred(self._round_maybe_over(t)).addErrback(self._failed, t.id)

    def forget(self, t: Tournament) -> None:
        """This hub runs ``t`` no more (another hub adopted it): its timers stop, its
        games are not followed here."""
        for game_id, where in list(self._by_game.items()):
            if where[0] == t.id:
                del self._by_game[game_id]
                timer = self._timers.pop(("grace", game_id), None)
                if timer is not None and timer.active():
                    timer.cancel()
        timer = self._timers.pop(("start", t.id), None)
        if timer is not None and timer.active():
            timer.cancel()

    def _failed(self, failure: Any, tournament_id: str) -> None:
        self.log.failure("tournament {t} failed", failure, t=tournament_id)

    def _game_of(self, game_id: str) -> tuple[Tournament, TGame] | None:
        where = self._by_game.get(game_id)
        if where is None:
            return None
        t = self.tournaments.get(where[0])
        if t is None or t.state != RUNNING:
            return None
        for g in t.round_games(where[1]):
            if g.board == where[2] and g.game_id == game_id and g.state == PLAYING:
                return t, g
        return None

    async def _round_maybe_over(self, t: Tournament) -> None:
        if t.state == RUNNING and t.round_over() and not self._stopped and self.mine(t):
            await self._next_round(t)

    # -- routes: network clients to their games --------------------------------------

    def route(self, frontend: str, key: str) -> defer.Deferred[Routed] | None:
        """The game a routed key leads to (:class:`hub.play.routes.Routes`): on ``mnm`` an
        entry's secret key, on ``domino`` the name of an entrant registered for
        ``domino``, in a tournament not over.  A key of a tournament that is over is
        refused (an MNM key always, a Domino login for ``tournament_route_wait`` seconds
        after the end; then the name joins the public queue again)."""
        for t in self.tournaments.values():
            if t.state not in (REGISTERING, RUNNING):
                continue
            if frontend == "mnm":
                entry = t.entry_keyed(key)
            elif frontend == "domino":
                entry = t.entry_named(key)
                entry = entry if entry is not None and entry.frontend == "domino" else None
            else:
                entry = None
            if entry is not None and self.cluster is not None and not self.mine(t):
                return defer.fail(self.cluster.elsewhere(t))  # (MNM: passed through)
            if entry is not None:
                return self._route(t, entry)
        now = self.clock.seconds()
        for t in self.tournaments.values():
            if frontend == "mnm" and t.entry_keyed(key) is not None:
                return defer.fail(NotFound("the tournament is over"))
            recent = t.finished is not None and now - t.finished < self.route_wait
            entry = t.entry_named(key) if frontend == "domino" and recent else None
            if entry is not None and entry.frontend == "domino":
                return defer.fail(NotFound("the tournament is over"))
        return None

    def _route(self, t: Tournament, entry: Entry) -> defer.Deferred[Routed]:
        d: defer.Deferred[Routed] = defer.Deferred(lambda d: self._forget(t, entry, d))
        self._waiting.setdefault((t.id, entry.id), []).append(d)
        timer = self.clock.callLater(self.route_wait, self._too_late, t, entry, d)
        d.addBoth(lambda r: (timer.cancel() if timer.active() else None, r)[1])
        self._wake(t, entry)
        return d

    def _forget(self, t: Tournament, entry: Entry, d: defer.Deferred[Routed]) -> None:
        waiters = self._waiting.get((t.id, entry.id), [])
        if d in waiters:
            waiters.remove(d)

    def _too_late(self, t: Tournament, entry: Entry, d: defer.Deferred[Routed]) -> None:
        self._forget(t, entry, d)
        if not d.called:
            d.errback(Conflict(f"no game for you within {self.route_wait:g} seconds"))

    def _wake(self, t: Tournament, entry: Entry) -> None:
        """Send a waiting connection of ``entry`` to its game, if it has one now."""
        waiters = self._waiting.get((t.id, entry.id))
        g = t.current_game(entry.id) if t.state == RUNNING else None
        if not waiters or g is None or g.game_id is None:
            return
        try:
            game = self.hub.lobby.get(g.game_id)
        except GameError:
            return
        seat = g.entries.index(entry.id)
        back = game.awaiting.get(seat) == entry.name  # a resumed game's seat waiting for it
        if game.state == OVER or not (game.seats[seat].free or back):
            return
        d = waiters.pop(0)
        d.callback(Routed(game, seat, entry.name))

    def _fail_waiters(self, t: Tournament, reason: str) -> None:
        for (tid, _), waiters in list(self._waiting.items()):
            if tid == t.id:
                while waiters:
                    waiters.pop(0).errback(NotFound(reason))


def _game_options(factory: Any, options: Any) -> dict[str, Any]:
    """The games' options, the ranges of those the type declares checked now (each game
    checks them all again when it is created; bots may read more)."""
    checked = fields.check_options(options)
    if not IGameOptions.providedBy(factory):
        return checked
    declared = {o.name: o for o in factory.options}
    for name, value in checked.items():
        option = declared.get(name)
        if option is None:
            continue
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        low, high = option.minimum, option.maximum
        if number and ((low is not None and value < low) or (high is not None and value > high)):
            raise BadAction(f"option {name}: from {low} to {high}")
    return checked


def _int(spec: Mapping[str, Any], key: str, default: Any, low: int, high: int) -> Any:
    value = spec.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise BadAction(f"'{key}' is a whole number from {low} to {high}")
    return value


def _float(spec: Mapping[str, Any], key: str) -> float | None:
    value = spec.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise BadAction(f"'{key}' is a number of seconds")
    return float(value)


def _unused(base: str, taken: set[str]) -> str:
    name, n = base, 2
    while name in taken:
        name, n = f"{base}-{n}", n + 1
    return name


def _number(tournament_id: str) -> int:
    digits = tournament_id[1:].partition("-")[0]
    return int(digits) if digits.isdigit() else 0


__all__ = ["DEFAULTS", "TournamentService", "BYE", "DONE"]
