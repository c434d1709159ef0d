"""The hub's side of isolated plugins: which drop-ins are isolated, their factories,
and each game's worker process.

An :class:`IsolatedGame` answers the synchronous part of the game seam (``state``,
``view``, ``legal_actions``, ``result``) from the worker's last
:class:`~hub.plugins.isolation.wire.Update`, and sends every input (seat, leave, act, a timer
that is due) to the worker in order.  An action of a seat that has no legal action in
an up-to-date mirror (no call unanswered) is refused at once
(:class:`hub.model.IllegalAction`); any other goes to the worker, and one the game
refuses comes back to that seat as an ``error`` event (``{"reason"}``).

Every call has a deadline (``isolated_call_seconds``).  A worker that misses it, exits,
answers nonsense or breaks a rule of its sandbox is killed: its game ends at once with
an ``over`` event whose result names no winner and says why (as a game that times
out), the failure is logged and kept in :attr:`Isolation.incidents`, and the hub and
every other game go on.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import weakref
import zipfile
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twisted.internet import defer, error, protocol
from twisted.logger import Logger
from twisted.protocols import amp
from twisted.python.failure import Failure
from zope.interface import alsoProvides, implementer

from hub.interfaces import IGame, IGameFactory, IGameOptions, IGameRules, IWebAssets, IWebView
from hub.kit.board import Board
from hub.kit.events import MOVED
from hub.model import (
    GAME_OVER,
    OVER,
    SEAT_OPEN,
    STATE,
    WAITING,
    BadAction,
    Conflict,
    GameConfig,
    GameContext,
    GameError,
    GameEvent,
    GameOption,
    IllegalAction,
    NotFound,
)
from hub.optional_interfaces import ICatchesUp, IExhaustiveLegal, IFullViewAfter
from hub.plugins.files import IOwnFiles
from hub.plugins.isolation import wire

log = Logger()

#: ``isolate_plugins``: which drop-ins run isolated unless listed otherwise
MODES = ("unsigned", "all", "none")
#: bytes of a worker's standard error kept for the report of its end
STDERR_KEEP = 2048
#: failures kept in :attr:`Isolation.incidents`
INCIDENTS_KEEP = 100
#: seconds a kit game's search may take beyond the time it was given (its answer)
THINK_MARGIN = 1.0

#: game type name → the isolated kit game type loaded under it (the generic bots play
#: them through :meth:`IsolatedFactory.think`)
_KIT_TYPES: weakref.WeakValueDictionary[str, IsolatedFactory] = weakref.WeakValueDictionary()


def kit_types() -> list[str]:
    """The names of the isolated game types that their workers declared kit games."""
    return sorted(_KIT_TYPES)


def kit_type(name: str) -> IsolatedFactory | None:
    """The isolated kit game type loaded as ``name``, or ``None``."""
    return _KIT_TYPES.get(name)


@dataclass(frozen=True)
class IsolationSettings:
    """The settings of isolation (docs/settings.md, "Plugins").

    :ivar mode: ``unsigned`` (drop-ins without a trusted signature), ``all`` (every
        drop-in) or ``none``; built-ins always run in the hub.
    :ivar isolated: plugins isolated whatever ``mode`` says.
    :ivar in_process: plugins run in the hub whatever ``mode`` says.
    """

    mode: str = "unsigned"
    isolated: tuple[str, ...] = ()
    in_process: tuple[str, ...] = ()
    cpu_seconds: int = 300
    memory_mb: int = 1024
    call_seconds: float = 5.0
    start_seconds: float = 30.0
    max_games: int = 64

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> IsolationSettings:
        """The isolation settings among the hub's ``settings``.

        :raises ValueError: a value out of range.
        """
        made = cls(
            mode=str(settings.get("isolate_plugins", "unsigned")),
            isolated=tuple(settings.get("isolated_plugins", ())),
            in_process=tuple(settings.get("in_process_plugins", ())),
            cpu_seconds=int(settings.get("isolated_cpu_seconds", 300)),
            memory_mb=int(settings.get("isolated_memory_mb", 1024)),
            call_seconds=float(settings.get("isolated_call_seconds", 5.0)),
            start_seconds=float(settings.get("isolated_start_seconds", 30.0)),
            max_games=int(settings.get("isolated_games_max", 64)),
        )
        if made.mode not in MODES:
            raise ValueError(f"isolate_plugins must be one of {', '.join(MODES)}")
        both = set(made.isolated) & set(made.in_process)
        if both:
            raise ValueError(f"plugins both isolated and in process: {', '.join(sorted(both))}")
        if (
            min(made.cpu_seconds, made.memory_mb, made.max_games) < 1
            or min(made.call_seconds, made.start_seconds) <= 0
        ):
            raise ValueError("isolated_* limits must be positive")
        return made


@dataclass(frozen=True)
class Incident:
    """A worker the hub stopped: which plugin, which game (``""``: describing it), why."""

    plugin: str
    game_id: str
    reason: str


class _WorkerAddress:
    """The address of the other end of a worker's pipes (AMP asks for one)."""

    def __repr__(self) -> str:
        return "<isolated worker>"


class _ToWorker:
    """The worker's standard input as the transport of the hub's AMP connection."""

    def __init__(self, process: Any) -> None:
        self.process = process

    def write(self, data: bytes) -> None:
        self.process.write(data)

    def writeSequence(self, data: list[bytes]) -> None:  # noqa: N802 - ITransport
        self.process.writeSequence(data)

    def loseConnection(self) -> None:  # noqa: N802 - ITransport
        self.process.closeStdin()

    def getPeer(self) -> _WorkerAddress:  # noqa: N802 - ITransport
        return _WorkerAddress()

    def getHost(self) -> _WorkerAddress:  # noqa: N802 - ITransport
        return _WorkerAddress()


class _Pipe(protocol.ProcessProtocol):
    """Joins a worker's standard input and output to an AMP connection; keeps the
    tail of its standard error."""

    def __init__(self, box: amp.AMP, ended: Callable[[str], None]) -> None:
        self.box = box
        self.ended = ended
        self.stderr = b""

    def connectionMade(self) -> None:  # noqa: N802 - Twisted's name
        self.box.makeConnection(_ToWorker(self.transport))  # type: ignore[arg-type]

    def childDataReceived(self, childFD: int, data: bytes) -> None:  # noqa: N802, N803
        if childFD == 1:
            self.box.dataReceived(data)
        elif childFD == 2:
            self.stderr = (self.stderr + data)[-STDERR_KEEP:]

    def processEnded(self, reason: Failure) -> None:  # noqa: N802 - Twisted's name
        self.box.connectionLost(reason)
        lines = self.stderr.decode("utf-8", "replace").strip().splitlines()
        value = reason.value
        if isinstance(value, error.ProcessTerminated) and value.signal is not None:
            why = f"the worker was killed by signal {value.signal}"
        elif isinstance(value, error.ProcessTerminated):
            why = f"the worker exited with status {value.exitCode}"
        else:
            why = "the worker exited"
        self.ended(f"{why}: {lines[-1]}" if lines else why)


class Worker:
    """One worker process: spawned in an empty folder of its own, removed at its end."""

    def __init__(self, isolation: Isolation, stage: Path, spec: Mapping[str, Any]) -> None:
        self.isolation = isolation
        self.box = amp.AMP()
        self.workdir = Path(tempfile.mkdtemp(prefix="gamehub-worker-"))
        self.done = False
        self._watchers: list[Callable[[str], None]] = []
        self.pipe = _Pipe(self.box, self._ended)
        settings = isolation.settings
        full = dict(
            spec,
            cpu_seconds=settings.cpu_seconds,
            memory_bytes=settings.memory_mb << 20,
            package=str(stage),
        )
        isolation.reactor.spawnProcess(
            self.pipe,
            sys.executable,
            [sys.executable, "-I", "-B", "-m", "hub.plugins.isolation.worker", json.dumps(full)],
            env={"LANG": "C.UTF-8"},
            path=str(self.workdir),
            childFDs={0: "w", 1: "r", 2: "r"},
        )

    def when_ended(self, watcher: Callable[[str], None]) -> None:
        self._watchers.append(watcher)

    def _ended(self, reason: str) -> None:
        self.done = True
        shutil.rmtree(self.workdir, ignore_errors=True)
        for watcher in self._watchers:
            watcher(reason)

    def call(self, command: type[amp.Command], seconds: float, **kw: Any) -> defer.Deferred[Any]:
        """``command`` with a deadline: a late answer is a :class:`defer.TimeoutError`."""
        d: defer.Deferred[Any] = self.box.callRemote(command, **kw)
        return d.addTimeout(seconds, self.isolation.reactor)

    def kill(self) -> None:
        if not self.done:
            try:
                self.pipe.transport.signalProcess("KILL")  # type: ignore[union-attr]
            except error.ProcessExitedAlready:
                pass


def _stage(package_path: Path, module: str) -> tuple[Path, str]:
    """Copy a drop-in's package to a folder of its own (what the worker may read):
    ``(the folder or archive to import from, the module below it)``."""
    stage = Path(tempfile.mkdtemp(prefix="gamehub-plugin-"))
    if package_path.is_file():
        target = stage / package_path.name
        shutil.copyfile(package_path, target)
        return target, module
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    if (package_path / "__init__.py").is_file():
        shutil.copytree(package_path, stage / package_path.name, ignore=ignore)
        return stage, module
    shutil.copytree(package_path, stage / "package", ignore=ignore)
    return stage / "package", module


class Isolation:
    """Decides which drop-ins run isolated and starts their workers.

    :param reactor: spawns the workers and times their calls.
    """

    def __init__(self, settings: IsolationSettings, reactor: Any) -> None:
        self.settings = settings
        self.reactor = reactor
        self.games = 0
        #: workers the hub stopped (bounded: the oldest go first)
        self.incidents: deque[Incident] = deque(maxlen=INCIDENTS_KEEP)

    def isolates(self, name: str, signed: bool) -> bool:
        """Whether the drop-in ``name`` (``signed``: by a trusted key) runs isolated."""
        if name in self.settings.isolated:
            return True
        if name in self.settings.in_process:
            return False
        return self.settings.mode == "all" or (self.settings.mode == "unsigned" and not signed)

    def report(self, plugin: str, game_id: str, reason: str) -> None:
        self.incidents.append(Incident(plugin, game_id, reason))
        log.error(
            "Isolated plugin {plugin} stopped (game {game}): {reason}",
            plugin=plugin,
            game=game_id or "-",
            reason=reason,
        )

    async def describe(
        self, name: str, package_path: Path, module: str, attr: str, seconds: float | None = None
    ) -> IsolatedFactory:
        """Load the drop-in ``name`` in a worker and make its factory; the worker has
        ``seconds`` (default ``isolated_start_seconds``) to start and import it.

        :raises GameError: the worker could not load it (the reason says why).
        """
        seconds = seconds or self.settings.start_seconds
        root, module = _stage(package_path, module)
        worker = Worker(self, root, {"module": module, "object": attr})
        ended: list[str] = []
        worker.when_ended(ended.append)
        try:
            answer = await worker.call(wire.Describe, seconds)
            described = answer["factory"]
            if "error" in described:
                raise GameError(str(described["error"]))
            factory = IsolatedFactory(self, root, module, attr, described)
        except Exception as e:  # noqa: BLE001 - any failure: the plugin is not loaded
            worker.kill()
            if not ended:
                await _ended(worker)
            shutil.rmtree(root if root.is_dir() else root.parent, ignore_errors=True)
            if isinstance(e, GameError):
                reason = e.reason
            elif isinstance(e, defer.TimeoutError):
                reason = f"import did not finish within its time limit of {seconds:g} s"
            else:
                reason = ended[0] if ended else f"{type(e).__name__}: {e}"
            self.report(name, "", reason)
            raise GameError(reason) from None
        worker.box.callRemote(wire.Stop)
        return factory


def _ended(worker: Worker) -> defer.Deferred[None]:
    d: defer.Deferred[None] = defer.Deferred()
    worker.when_ended(lambda reason: d.callback(None) if not d.called else None)
    return d


def _option(data: Mapping[str, Any]) -> GameOption:
    fields = dict(data)
    fields["choices"] = tuple(fields.get("choices", ()))
    fields["variants"] = tuple(fields.get("variants", ()))
    return GameOption(**fields)


@implementer(IGameFactory, IGameOptions, IOwnFiles)
class IsolatedFactory:
    """A game type whose code runs only in workers; its games are :class:`IsolatedGame`.
    It brings no front-end adapter: front ends use their generic ones."""

    def __init__(
        self,
        isolation: Isolation,
        package: Path,
        module: str,
        attr: str,
        described: Mapping[str, Any],
    ) -> None:
        self.isolation = isolation
        self.package, self.module, self.attr = package, module, attr
        self.name = str(described["name"])
        self.summary = str(described["summary"])
        self.variants = tuple(described["variants"])
        self.min_seats = int(described["min_seats"])
        self.max_seats = int(described["max_seats"])
        self.default_seats = int(described["default_seats"])
        self.frontends = tuple(described["frontends"])
        self.options = tuple(_option(o) for o in described["options"])
        #: what of the sandbox is in force (``landlock ABI n`` or why not)
        self.protection = str(described["protection"])
        #: the files it declared: ``script``, ``styles``, ``history`` (its web view),
        #: ``rules``
        self.files: dict[str, str] = dict(described.get("files", {}))
        if "rules" in self.files:
            self.rules = self.files["rules"]
            alsoProvides(self, IGameRules)
        #: a game of the kit (its worker says so): hosted with the kit's XML payloads,
        #: played by the generic bots
        self.kit = described.get("kit") is True
        #: over XML a kit game's whole view follows the start and every move
        self.snapshot_kinds: frozenset[str] = frozenset({MOVED, STATE}) if self.kit else frozenset()
        if self.kit:
            alsoProvides(self, IFullViewAfter)
        key = described.get("legal_key")
        #: its legal actions are all it accepts (``IExhaustiveLegal``): the key naming one
        self.legal_key: str | None = key if isinstance(key, str) and key else None
        if self.legal_key is not None:
            alsoProvides(self, IExhaustiveLegal)
        #: a kit game's board (:mod:`hub.kit.board`): played over MNM with the kit's adapter
        self.board: Board | None = None
        if self.kit and described.get("board") is not None:
            self.board = Board.from_json(described["board"])
        #: the worker that runs the kit's search for the generic bots (started on the
        #: first :meth:`think`, replaced when it ends)
        self._thinker: Worker | None = None
        self._thought = False
        stage = package if package.is_dir() else package.parent
        weakref.finalize(self, shutil.rmtree, stage, True)
        if self.kit:
            _KIT_TYPES[self.name] = self

    def read_file(self, path: str) -> bytes | None:
        """The plugin's file ``path`` (below its server module's package), from the
        hub's copy of it (the worker runs no code for this)."""
        package = self.module.rpartition(".")[0].replace(".", "/")
        inside = f"{package}/{path}" if package else path
        try:
            if self.package.is_dir():
                return (self.package / inside).read_bytes()
            with zipfile.ZipFile(self.package) as archive:
                return archive.read(inside)
        except (OSError, KeyError, zipfile.BadZipFile):
            return None

    def create(self, config: GameConfig, context: GameContext) -> IsolatedGame:
        if self.isolation.games >= self.isolation.settings.max_games:
            raise Conflict("too many isolated games are running; try again later")
        return IsolatedGame(self, config, context)

    def adapter(self, frontend: str) -> object | None:
        """The web view its files declare; for a kit game over XML none (the generic
        payloads and a whole view after every move: ``IFullViewAfter``), over MNM the kit's board
        adapter when it declares a board (:class:`hub.kit.mnm.KitMNMAdapter`); for
        every other front end ``None``: they host an isolated game with their generic
        adapter."""
        if frontend == "mnm" and self.board is not None:
            from hub.kit.mnm import KitMNMAdapter

            return KitMNMAdapter(self.board)
        if frontend != "web" or "script" not in self.files:
            return None
        return StagedWebView(self)

    def think(
        self,
        seat: int,
        policy: str,
        view: Mapping[str, Any],
        legal: list[Mapping[str, Any]],
        seconds: float,
        seed: bytes,
    ) -> defer.Deferred[Any]:
        """The move (as JSON) the kit's ``policy`` plays for ``seat`` from its ``view``
        and ``legal`` actions, searched in a worker of this type (the sandbox and its
        limits of a game's worker) within ``seconds``.  The Deferred fails when the
        worker cannot answer in time or at all (it is then stopped; the next call
        starts another).

        :raises GameError: not a kit game."""
        if not self.kit:
            raise GameError(f"{self.name} is not a kit game")
        thinker = self._thinker
        if thinker is None or thinker.done:
            thinker = self._thinker = Worker(
                self.isolation, self.package, {"module": self.module, "object": self.attr}
            )
            weakref.finalize(self, thinker.kill)
            self._thought = False
        settings = self.isolation.settings
        allowance = THINK_MARGIN if self._thought else settings.start_seconds
        d = thinker.call(
            wire.Think,
            seconds + allowance,
            seat=seat,
            policy=policy,
            view=dict(view),
            legal=[dict(a) for a in legal],
            budget=float(seconds),
            seed=seed,
        )

        def answered(answer: Mapping[str, Any]) -> Any:
            self._thought = True
            move = answer["move"]
            if isinstance(move, dict) and "violation" in move:
                thinker.kill()
                reason = f"refused: {move['violation']}"
                self.isolation.report(self.name, "", reason)
                raise GameError(reason)
            if not isinstance(move, dict) or "move" not in move:
                raise GameError(str(move.get("error") if isinstance(move, dict) else move))
            return move["move"]

        def failed(failure: Failure) -> Failure:
            if not failure.check(GameError):
                self.isolation.report(self.name, "", f"its search failed: {failure.value!r}")
                thinker.kill()
            return failure

        return d.addCallback(answered).addErrback(failed)


@implementer(IWebView, IWebAssets, IOwnFiles)
class StagedWebView:
    """An isolated plugin's web view: the paths it declared, read from the hub's copy."""

    def __init__(self, factory: IsolatedFactory) -> None:
        self.factory = factory
        self.script = factory.files.get("script")
        self.styles = factory.files.get("styles")
        self.history = factory.files.get("history")

    def read_file(self, path: str) -> bytes | None:
        return self.factory.read_file(path)


_ERRORS: dict[str, type[GameError]] = {
    "BadAction": BadAction,
    "IllegalAction": IllegalAction,
    "NotFound": NotFound,
    "Conflict": Conflict,
}


@implementer(IGame, ICatchesUp)
class IsolatedGame:
    """One game of an isolated plugin, as the hub sees it (see the module's text)."""

    def __init__(self, factory: IsolatedFactory, config: GameConfig, context: GameContext):
        self.factory = factory
        self.context = context
        self.seats = config.seats
        self.state = WAITING
        self._views: dict[str, Any] = {"": {}}
        self._legal: dict[str, list[Any]] = {}
        self._result: Any = None
        self._timers: dict[int, Any] = {}
        self._stopped = False
        #: calls sent and not answered yet (the mirror may be behind the game)
        self._pending = 0
        isolation = factory.isolation
        isolation.games += 1
        self.worker = Worker(
            isolation, factory.package, {"module": factory.module, "object": factory.attr}
        )
        self.worker.when_ended(self._ended)
        #: calls wait for the one before (the worker answers in order anyway)
        self._queue: defer.Deferred[None] = defer.succeed(None)
        plain = {
            "id": context.game_id,
            "name": config.name,
            "variant": config.variant,
            "seats": config.seats,
            "options": json.loads(json.dumps(dict(config.options), default=str)),
        }
        seed = context.rng.getrandbits(256).to_bytes(32, "big")
        self._send(wire.Create, isolation.settings.start_seconds, config=plain, seed=seed)

    # -- the seam ------------------------------------------------------------------

    def seat_player(self, seat: int, name: str) -> None:
        self._check_running()
        self._send(wire.SeatPlayer, seat=seat, name=name, on_error_seat=seat)

    def leave(self, seat: int) -> None:
        if not self._stopped:
            self._send(wire.Leave, seat=seat)

    def act(self, seat: int, action: Mapping[str, Any]) -> None:
        self._check_running()
        if not self._pending:  # judged on a fresh answer
            legal = self._legal.get(str(seat))
            if not legal:
                raise IllegalAction("you have nothing to do now")
            self._judge(action, legal)
        self._legal.pop(str(seat), None)  # until the worker answers
        self._send(wire.Act, seat=seat, action=dict(action), on_error_seat=seat)

    def legal_actions(self, seat: int) -> list[Mapping[str, Any]]:
        return list(self._legal.get(str(seat), []))

    def caught_up(self) -> defer.Deferred[None]:
        """Fires once the worker answered every call sent so far (``ICatchesUp``)."""
        if not self._pending:
            return defer.succeed(None)
        d: defer.Deferred[None] = defer.Deferred()

        def fire(result: Any) -> Any:
            d.callback(None)
            return result

        self._queue.addBoth(fire)
        return d

    def _judge(self, action: Mapping[str, Any], legal: list[Any]) -> None:
        """Refuse at once an action that is none of the ``legal`` ones of a game type
        that declares them exhaustive (:class:`IExhaustiveLegal`)."""
        key = self.factory.legal_key
        if key is None:
            return
        if not isinstance(action, Mapping) or key not in action:
            raise BadAction(f"an action is {{{key!r}: …}}, one of the legal ones")
        sent = json.loads(json.dumps(action[key], default=str))
        if not any(isinstance(a, Mapping) and a.get(key) == sent for a in legal):
            raise IllegalAction(f"{sent!r} is not a legal move now")

    def view(self, seat: int | None = None) -> Any:
        key = "" if seat is None else str(seat)
        return self._views.get(key, self._views[""])

    def result(self) -> Any:
        return self._result

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self._cancel_timers()
        if not self.worker.done:
            self.worker.box.callRemote(wire.Stop)
            self.factory.isolation.reactor.callLater(1.0, self.worker.kill)

    # -- the worker ----------------------------------------------------------------

    def _check_running(self) -> None:
        if self._stopped or self.state == OVER:
            raise IllegalAction("the game is over")

    def _send(
        self,
        command: type[amp.Command],
        seconds: float | None = None,
        on_error_seat: int | None = None,
        **kw: Any,
    ) -> None:
        deadline = seconds or self.factory.isolation.settings.call_seconds
        self._pending += 1

        def call(_: Any) -> defer.Deferred[Any] | None:
            if self._stopped or self.worker.done:
                return None
            kw["now"] = float(self.context.clock.seconds())
            d = self.worker.call(command, deadline, **kw)
            d.addCallbacks(self._apply, self._failed, callbackArgs=(on_error_seat,))
            return d.addErrback(self._broken)

        def answered(_: Any) -> None:
            self._pending -= 1

        self._queue.addCallback(call).addBoth(answered)

    def _apply(self, answer: Mapping[str, Any], seat: int | None) -> None:
        if self._stopped:
            return
        try:
            update = wire.Update.from_json(answer["update"])
        except (ValueError, TypeError, KeyError) as e:
            self._fail(str(e))
            return
        if update.violation is not None:
            self._fail(f"refused: {update.violation}")
            return
        was = self.state
        self.state = OVER if update.state == OVER else update.state
        self._views = update.views if "" in update.views else {"": {}, **update.views}
        self._legal = update.legal
        self._result = update.result
        clock = self.context.clock
        for number in update.cancel_timers:
            timer = self._timers.pop(int(number), None)
            if timer is not None and timer.active():
                timer.cancel()
        for number, delay in update.set_timers:
            self._timers[int(number)] = clock.callLater(float(delay), self._fire, int(number))
        if update.error is not None and seat is not None:
            kind, reason, code = update.error
            self.context.emit(GameEvent("error", {"reason": str(reason)}, frozenset({seat})))
            if kind == "Conflict" or int(code) == 409:
                self.context.emit(GameEvent(SEAT_OPEN, {"seat": seat}))
        for kind, data, seats in update.events:
            self.context.emit(
                GameEvent(str(kind), data or {}, None if seats is None else frozenset(seats))
            )
        if self.state != was and not any(e[0] == STATE for e in update.events):
            self.context.emit(GameEvent(STATE, {"state": self.state}))

    def _broken(self, failure: Failure) -> None:
        """The hub's side failed on an answer (a bug): end the game, keep the queue."""
        log.failure("isolated game {game}: an answer failed", failure, game=self.context.game_id)
        self._fail(f"the hub could not apply its answer: {failure.getErrorMessage()}")

    def _fire(self, number: int) -> None:
        self._timers.pop(number, None)
        self._send(wire.Fire, timer=number)

    def _failed(self, failure: Failure) -> None:
        if failure.check(defer.TimeoutError, defer.CancelledError):
            self._fail("it did not answer in time")
        elif failure.check(amp.RemoteAmpError, amp.UnknownRemoteError):
            self._fail(f"it failed: {failure.getErrorMessage()}")
        elif failure.check(error.ConnectionDone, error.ConnectionLost, error.ProcessTerminated):
            pass  # the worker ended: _ended says how
        elif not self.worker.done:
            self._fail(f"{type(failure.value).__name__}: {failure.getErrorMessage()}")

    def _ended(self, reason: str) -> None:
        self.factory.isolation.games -= 1
        if not self._stopped and self.state != OVER:
            self._fail(reason)

    def _fail(self, reason: str) -> None:
        """End the game at once, as a timeout does: no winner, the reason said."""
        if self._stopped or self.state == OVER:
            self.worker.kill()
            return
        self.factory.isolation.report(self.factory.name, self.context.game_id, reason)
        self.worker.kill()
        self._cancel_timers()
        self._legal = {}
        self.state = OVER
        self._result = {
            "winners": [],
            "scores": [0] * self.seats,
            "summary": f"the game's plugin was stopped: {reason}",
            "reason": "plugin stopped",
        }
        self.context.emit(GameEvent(STATE, {"state": OVER}))
        self.context.emit(GameEvent(GAME_OVER, {"result": self._result}))

    def _cancel_timers(self) -> None:
        for timer in self._timers.values():
            if timer.active():
                timer.cancel()
        self._timers.clear()


__all__ = [
    "Incident",
    "IsolatedFactory",
    "IsolatedGame",
    "Isolation",
    "IsolationSettings",
    "kit_type",
    "kit_types",
]
