"""The lobby: every live game of the hub (:class:`Lobby`), created, listed, kept for a
while when finished and removed.

Pure Python objects driven by an injected clock; no sockets, no wire formats. Every
front end creates and finds games through a :class:`Lobby`; each game is a
:class:`hub.play.game.GameInstance` (its seats: :mod:`hub.play.seats`; its bots:
:mod:`hub.play.botdriver`), whose names stay importable from here.
"""

from __future__ import annotations

import random
import secrets
import string
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from twisted.internet import defer
from twisted.logger import Logger

from hub.connections import fields
from hub.interfaces import ILobbyListener, LobbyGame
from hub.model import BadAction, ByName, GameConfig, GameError, GameEvent, NotFound
from hub.optional_interfaces import IFollowsMoves
from hub.play.botdriver import BotDriver, BotRunner, LoadMargin, run_inline, thread_runner
from hub.play.game import GameInstance
from hub.play.gamelog import LoggedEvent
from hub.play.journal import Journal, JournalWriter
from hub.play.replay import Resumed, go_live, replay
from hub.play.seats import SEAT_KINDS, Seat, parse_seats
from hub.play.seeded import SEED_BYTES, new_seed

_ID_ALPHABET = string.ascii_lowercase + string.digits


class Lobby:
    """Every game instance of the hub.

    :param registry: finds game and bot factories by name (``hub.plugins.registry.Registry``).
    :param clock: ``IReactorTime`` (``task.Clock`` in tests).
    :param transcripts: a ``hub.connections.transcript.Transcripts``, or ``None`` for none.
    :param bot_runner: how bots think: :func:`thread_runner` in the hub,
        :func:`run_inline` (the default) in tests.
    :param id_length: length of game ids (13; 11 for MNM v1 hubs).
    :param keep_finished: seconds a finished game stays listed before it is removed.
    :param keep_finished_count: most finished games listed; the oldest go first.
    :param retire_after: seconds a finished game keeps its engine before only a summary
        of it is kept (:meth:`GameInstance.retire`).
    :param event_log: events each game keeps for late viewers and replays (the oldest
        go first).
    :param unattended_seconds: game time a chip table with no person seated plays on
        before it closes (:meth:`GameInstance._check_attended`); ``None`` (a lobby of
        tests or of a ladder): it plays on.
    """

    log = Logger()

    def __init__(
        self,
        registry: Any,
        clock,
        *,
        transcripts: Any = None,
        bot_runner: BotRunner = run_inline,
        rng: random.Random | None = None,
        id_length: int = 13,
        keep_finished: float = 3600.0,
        keep_finished_count: int = 500,
        retire_after: float = 5.0,
        bot_deadline: float = 2.0,
        event_log: int = 5000,
        unattended_seconds: float | None = None,
    ) -> None:
        self.registry = registry
        self.event_log = event_log
        #: seconds a chip table with no person seated plays on before it closes
        self.unattended_seconds = unattended_seconds
        self.clock = clock
        self.transcripts = transcripts
        self.bot_runner = bot_runner
        self.bot_deadline = bot_deadline
        #: what the bots' answers cost besides their thinking, measured (the hub's load)
        self.bot_margin = LoadMargin()
        self._rng = rng
        self.id_length = id_length
        self.keep_finished = keep_finished
        self.keep_finished_count = keep_finished_count
        self.retire_after = retire_after
        self._games: dict[str, GameInstance] = {}
        self._listeners: list[Any] = []
        #: finished games, oldest first → their removal and retirement timers
        self._finished: OrderedDict[str, tuple[Any, Any]] = OrderedDict()
        self._trim: Any = None
        self._over_hooks: list[Callable[[GameInstance, GameEvent], Any]] = []
        self._counter = 0
        #: the hub's table money (:class:`hub.play.money.TableMoney`), when chips are real:
        #: chip tables are then created, and seats at them taken, through it
        self.money: Any = None
        #: ``(game id) → GameError or None``: why a game that is not here cannot be
        #: played here (it runs on another hub, :mod:`hub.cluster`); :meth:`get`
        #: raises it instead of ``NotFound``
        self.elsewhere: Callable[[Any], GameError | None] | None = None
        #: ``(game id) → Deferred``: look for a game this hub has not heard of yet
        #: (another hub created it a moment ago, :mod:`hub.cluster.lookup`); fires once
        #: :meth:`get` knows it, if it can; :meth:`find` asks it before ``NotFound``
        self.look_up: Callable[[str], defer.Deferred[Any]] | None = None
        #: ``(game id, player, old hub, front end) → Deferred``: where a door's spliced
        #: game runs now that its hub let it go (:meth:`hub.cluster.Cluster.follow`)
        self.follow: Callable[..., defer.Deferred[Any]] | None = None
        #: ``(player, front end) → (hub id, route) or None``: the other hub whose running
        #: game keeps a seat for ``player`` (:meth:`hub.cluster.Cluster.kept_seat`)
        self.kept_seat: Callable[[str, str], tuple[str, tuple[str, int, bool]] | None] | None = None
        #: ``(owner hub, front end, transport, replay, skip) → bool``: give a client's
        #: socket to the game's hub on this machine (:mod:`hub.cluster.handoff`)
        self.hand_off: Callable[[str, str, Any, bytes, int], bool] | None = None
        #: where every game's inputs are journaled (:mod:`hub.play.journal`), or ``None``
        self.journal: JournalWriter | None = None
        #: game type → the last start view made (:meth:`shared_start`)
        self._starts: dict[str, dict[str, Any]] = {}
        #: the games here whose seats wait for players to come back, by player
        #: (:meth:`kept_for`, kept by :meth:`awaits`)
        self._kept = ByName()
        #: ids of sealed games (:meth:`create_game`'s ``sealed``): the operator's alone
        #: until :meth:`unseal` (a duplicate ACPC match's tables until the match ends)
        self.sealed: set[str] = set()

    def shared_start(self, game_type: str, view: dict[str, Any]) -> dict[str, Any]:
        """``view`` (a new game's public view before anything happened, read only), or
        the last one of ``game_type`` when equal: the games of a type mostly start
        alike, and each live game keeps its start view for its replay (issue 36)."""
        last = self._starts.get(game_type)
        if last is not None and last == view:
            return last
        self._starts[game_type] = view
        return view

    # -- ids and randomness ---------------------------------------------------------------

    def new_id(self) -> str:
        """A fresh game id: ``id_length`` characters ``[a-z0-9]`` from a CSPRNG."""
        while True:
            if self._rng is not None:
                gid = "".join(self._rng.choice(_ID_ALPHABET) for _ in range(self.id_length))
            else:
                gid = "".join(secrets.choice(_ID_ALPHABET) for _ in range(self.id_length))
            if gid not in self._games:
                return gid

    def game_seed(self) -> bytes:
        """The seed of a new game's random source (:mod:`hub.play.seeded`): from the
        operating system's CSPRNG, or from the lobby's ``rng`` in tests."""
        if self._rng is not None:
            return self._rng.randbytes(SEED_BYTES)
        return new_seed()

    # -- games ----------------------------------------------------------------------------

    def create_game(
        self,
        type_name: str,
        name: str | None = None,
        variant: str | None = None,
        seats: Sequence[Any] | None = None,
        options: Mapping[str, Any] | None = None,
        creator: str | None = None,
        seat_bots: bool = True,
        sealed: bool = False,
    ) -> GameInstance:
        """Create a game of type ``type_name``; see the JSON API's ``POST /api/games``.

        :param sealed: the game is the operator's alone until :meth:`unseal`: never
            listed nor found by :meth:`get` (every route of a front end), its stored
            hands, replay, transcript and seeds refused (docs/privacy.md).

        :param seat_bots: seat the bots of ``bot:<name>`` seats now (``False``: they
            stand until the caller seats them with :meth:`GameInstance.seat_bots`: after
            the creator sat down, so the bots do not start without them, or once the
            table money funded them).
        :raises hub.model.GameError: unknown type or bot, bad variant, seats or name.
        """
        if not isinstance(type_name, str):
            raise BadAction("'type' must be a game type name")
        factory = self.registry.game_factory(type_name)
        variants = list(factory.variants)
        if variant is None:
            variant = variants[0] if variants else None
        elif variant not in variants:
            offered = ", ".join(variants) or "none"
            raise BadAction(f"{type_name} has no variant {variant!r} (variants: {offered})")
        if seats is None:
            seats = ["open"] * int(factory.default_seats)
        if not isinstance(seats, (list, tuple)):
            raise BadAction('\'seats\' must be a list such as ["open", "bot:random"]')
        if not factory.min_seats <= len(seats) <= factory.max_seats:
            raise BadAction(
                f"{type_name} is played with {factory.min_seats} to {factory.max_seats} "
                f"seats, not {len(seats)}"
            )
        seat_records = parse_seats(seats)
        for seat in seat_records:
            if seat.kind == "bot":
                bot_factory = self.registry.bot_factory(seat.bot)
                if type_name not in tuple(bot_factory.games):
                    raise BadAction(f"bot {seat.bot} does not play {type_name}")
        self._counter += 1
        if name is None:
            name = f"{type_name} {self._counter}"
        fields.GAME_NAME.check(name)
        options = fields.check_options(options)
        config = GameConfig(
            name=name, variant=variant, seats=len(seat_records), options=dict(options)
        )
        game = GameInstance(self, self.new_id(), factory, config, seat_records, creator)
        if sealed:
            self.sealed.add(game.id)
            if self.journal is not None:  # a resumed copy would be public: it is not kept
                self.journal.drop(game.id)
        self._games[game.id] = game
        if game.transcript is not None:
            game.transcript.note(
                f"game created: type={type_name} variant={variant} name={name!r} "
                f"seats={list(seats)} creator={creator}"
            )
        self._notify("created", game)
        if seat_bots:
            try:
                game.seat_bots()
            except BaseException:
                self.remove(game.id)
                raise
        return game

    def resume(self, journal: Journal) -> tuple[GameInstance, Resumed]:
        """Make a game again from its ``journal`` (:mod:`hub.play.journal`): the same id,
        factory, config, seats and seed, its entries given again in order, then live
        (its bots re-attached, its clock running on from where it stood).

        :raises hub.model.GameError: its type is not here, or its header is not valid.
        """
        header, data = journal.header, journal.header.data
        if header.game_id in self._games:
            raise BadAction(f"game {header.game_id} runs here already")
        factory = self.registry.game_factory(header.type)
        seats = parse_seats(list(data["seats"]))
        config = GameConfig(
            name=str(data["name"]),
            variant=data.get("variant"),
            seats=len(seats),
            options=dict(data.get("options") or {}),
        )
        game = GameInstance(
            self,
            header.game_id,
            factory,
            config,
            seats,
            data.get("creator"),
            seed=bytes.fromhex(header.seed),
            replay_from=float(data["start"]),
        )
        game.created = float(data.get("created") or game.created)
        resumed = replay(game, journal.entries)
        if self.journal is not None:
            self.journal.reopen(game.id, len(journal.entries))
        game.transcript = self.transcripts.for_game(game.id) if self.transcripts else None
        if game.transcript is not None:
            game.transcript.note(f"game resumed from its journal: {resumed.entries} entries")
        self._games[game.id] = game
        self._notify("created", game)
        go_live(game, resumed)
        return game, resumed

    def get(self, game_id: str, *, sealed: bool = False) -> GameInstance:
        """The game with id ``game_id`` (a sealed one only with ``sealed``: the
        operator's own routes).

        :raises hub.model.NotFound: there is none (or it is sealed).
        """
        game = self._games.get(game_id) if isinstance(game_id, str) else None
        if game is not None and game_id in self.sealed and not sealed:
            raise NotFound(f"no game with id {game_id[:40]!r}")
        if game is None:
            elsewhere = self.elsewhere(game_id) if self.elsewhere is not None else None
            if elsewhere is not None:
                raise elsewhere
            raise NotFound(f"no game with id {str(game_id)[:40]!r}")
        return game

    def find(self, game_id: str) -> defer.Deferred[LobbyGame]:
        """As :meth:`get`, but a game id not known here is looked up once more
        (:attr:`look_up`) before it is refused: fires with the game, or fails with
        what :meth:`get` raises then."""
        try:
            return defer.succeed(self.get(game_id))
        except NotFound as e:
            if self.look_up is None or not isinstance(game_id, str):
                return defer.fail(e)
        d = self.look_up(game_id)
        d.addCallback(lambda _: self.get(game_id))
        return d

    def awaits(self, game: GameInstance) -> None:
        """The players ``game``'s seats wait for (:attr:`GameInstance.awaiting`: a
        resumed game's people coming back) changed, or the game left: index them."""
        here = self._games.get(game.id) is game
        self._kept.file(game.id, game.awaiting.values() if here else ())

    def __len__(self) -> int:
        """How many games are here (sealed ones too)."""
        return len(self._games)

    def __contains__(self, game_id: object) -> bool:
        """Whether the game ``game_id`` is here (sealed or not): not removed."""
        return game_id in self._games

    def finished(self) -> list[GameInstance]:
        """The finished games kept here (``keep_finished_count`` at most), oldest
        first, but the sealed ones."""
        return [self._games[gid] for gid in self._finished if gid not in self.sealed]

    def kept_for(self, player: str) -> list[GameInstance]:
        """The games here (sealed ones too) with a seat waiting for ``player`` to come
        back, found without a look at every game (a login asks on each try)."""
        return [self._games[game_id] for game_id in self._kept.under(player)]

    def games(self, type_name: str | None = None) -> list[GameInstance]:
        """Every game (of one type), oldest first, sealed ones too (the hub's own use)."""
        return [g for g in self._games.values() if type_name is None or g.type == type_name]

    def listed(self) -> list[GameInstance]:
        """Every game the front ends may show: :meth:`games` but the sealed ones."""
        return [g for g in self._games.values() if g.id not in self.sealed]

    def unseal(self, game_id: str) -> None:
        """Game ``game_id`` is no longer sealed: listed, found, its records readable."""
        if game_id in self.sealed:
            self.sealed.discard(game_id)
            game = self._games.get(game_id)
            if game is not None:
                self._notify("changed", game)

    def remove(self, game_id: str, moved: bool = False) -> None:
        """Remove a game: stop its engine and bots, close its transcript.  ``moved``:
        it runs on another hub now; its observers that follow moves are told so
        (:class:`hub.optional_interfaces.IFollowsMoves`)."""
        game = self._games.pop(game_id, None)
        if game is None:
            return
        for timer in self._finished.pop(game_id, ()):
            if timer.active():
                timer.cancel()
        self.awaits(game)
        dropped = game.stop()
        for observer in dropped if moved else ():
            if IFollowsMoves.providedBy(observer):
                observer.game_moved(game)
        if self.transcripts is not None:
            self.transcripts.close(game_id)
        self._notify("removed", game)

    def stop(self) -> None:
        """Remove every game (the hub is stopping)."""
        if self._trim is not None and self._trim.active():
            self._trim.cancel()
        self._trim = None
        for game_id in list(self._games):
            self.remove(game_id)

    # -- notifications ----------------------------------------------------------------------

    def add_listener(self, listener: Any) -> None:
        """Tell ``listener`` (an :class:`ILobbyListener`) of every change to the list."""
        self._listeners.append(listener)

    def remove_listener(self, listener: Any) -> None:
        """Stop telling ``listener``."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def on_game_over(self, hook: Callable[[GameInstance, GameEvent], Any]) -> None:
        """Call ``hook(game, event)`` when a game ends (history, statistics)."""
        self._over_hooks.append(hook)

    def changed(self, game: GameInstance) -> None:
        """A game's seats, observers or state changed."""
        if game.id in self._games:
            self._notify("changed", game)

    def game_over(self, game: GameInstance, event: GameEvent) -> None:
        """A game ended: run the hooks; schedule its retirement and its removal from
        the list; remove the oldest finished games beyond ``keep_finished_count``."""
        for hook in list(self._over_hooks):
            try:
                d = defer.maybeDeferred(hook, game, event)
                d.addErrback(lambda f: self.log.failure("game-over hook failed", f))
            except Exception:
                self.log.failure("game-over hook failed")
        if self.transcripts is not None:
            self.transcripts.release(game.id)  # the game object keeps it for late lines
        if game.id in self._games and game.id not in self._finished:
            self._finished[game.id] = (
                self.clock.callLater(self.keep_finished, self.remove, game.id),
                self.clock.callLater(self.retire_after, self._retire, game.id),
            )
            if len(self._finished) > max(0, self.keep_finished_count) and self._trim is None:
                self._trim = self.clock.callLater(0, self._remove_excess)

    def _remove_excess(self) -> None:
        self._trim = None
        while len(self._finished) > max(0, self.keep_finished_count):
            self.remove(next(iter(self._finished)))

    def _retire(self, game_id: str) -> None:
        game = self._games.get(game_id)
        if game is None:
            return
        money = self.money
        if game.chips is not None and money is not None and money.busy(game_id):
            # a hand or the table's chips still wait for the ledger, and settling a hand
            # needs the engine: retire once the table money is done with the table
            money.idle(game_id).addCallback(lambda _: self._retire(game_id))
            return
        try:
            game.retire()
        except Exception:
            self.log.failure("retiring finished game {game} failed", game=game_id)

    @property
    def finished_count(self) -> int:
        """How many finished games are kept."""
        return len(self._finished)

    def _notify(self, change: str, game: GameInstance) -> None:
        for listener in list(self._listeners):
            try:
                listener.lobby_changed(change, game)
            except Exception:
                self.log.failure("lobby listener {listener!r} failed", listener=listener)


__all__ = [
    "SEAT_KINDS",
    "BotDriver",
    "GameInstance",
    "ILobbyListener",
    "Lobby",
    "LoggedEvent",
    "Seat",
    "parse_seats",
    "run_inline",
    "thread_runner",
]
