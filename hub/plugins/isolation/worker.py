"""An isolated game's worker: ``python -I -m hub.plugins.isolation.worker SPEC`` (SPEC: JSON).

Spawned by :mod:`hub.plugins.isolation.host` in an empty folder with an empty environment; it
locks itself in (:func:`hub.plugins.isolation.sandbox.enter`), imports the plugin from its own
copy, and serves the AMP commands of :mod:`hub.plugins.isolation.wire` on its standard input
and output: :class:`~hub.plugins.isolation.wire.Describe` once, or one game from
:class:`~hub.plugins.isolation.wire.Create` to :class:`~hub.plugins.isolation.wire.Stop`.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import random
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from twisted.internet import stdio
from twisted.internet.protocol import connectionDone
from twisted.protocols import amp
from twisted.python.failure import Failure
from zope.interface.exceptions import Invalid
from zope.interface.verify import verifyObject

import hub
from hub.interfaces import (
    IChipGameFactory,
    IGame,
    IGameFactory,
    IGameOptions,
    IGameRules,
    IWebAssets,
    IWebView,
)
from hub.kit.game import Game
from hub.kit.players import choose_move
from hub.model import GameConfig, GameContext, GameError, GameEvent
from hub.optional_interfaces import IExhaustiveLegal
from hub.plugins.isolation import sandbox, wire
from hub.plugins.packages import make_package
from hub.plugins.registry import explain_invalid

#: the private package the plugin is imported under
PACKAGE = "_gamehub_isolated"
#: why a chip game is not run isolated: its table money needs its chips at once
CHIPS_REFUSED = (
    "a game played for chips cannot run isolated: sign it with a trusted key or list it"
    " in in_process_plugins"
)


class KeyedRandom(random.Random):
    """A game's random source in a worker: SHA-256 of the hub's seed and a counter
    (unpredictable without the seed, which only the hub knows)."""

    def __init__(self, seed: bytes) -> None:
        self._key = bytes(seed)
        self._count = 0
        super().__init__(0)

    def seed(self, a: Any = None, version: int = 2) -> None:  # noqa: D102 - fixed by the key
        return None

    def _block(self) -> bytes:
        self._count += 1
        return hashlib.sha256(self._key + self._count.to_bytes(8, "big")).digest()

    def getrandbits(self, k: int) -> int:
        data = b""
        while len(data) * 8 < k:
            data += self._block()
        return int.from_bytes(data, "big") >> (len(data) * 8 - k) if k else 0

    def random(self) -> float:
        return self.getrandbits(53) / float(1 << 53)


class _Timer:
    """What ``callLater`` returns in a worker: the hub's clock runs it (``Fire``)."""

    def __init__(self, clock: WorkerClock, number: int, due: float, call: Callable[[], Any]):
        self.clock, self.number, self.due, self.call = clock, number, due, call
        self.cancelled = self.called = False

    def getTime(self) -> float:  # noqa: N802 - IDelayedCall
        return self.due

    def active(self) -> bool:
        return not (self.cancelled or self.called)

    def cancel(self) -> None:
        if self.active():
            self.cancelled = True
            self.clock.cancelled(self)

    def delay(self, seconds: float) -> None:
        self.reset(self.due - self.clock.now + seconds)

    def reset(self, seconds: float) -> None:
        if self.active():
            self.cancel()
            again = self.clock.callLater(seconds, self.call)
            self.number, self.due, self.cancelled = again.number, again.due, False
            self.clock.timers[self.number] = self


class WorkerClock:
    """The game's ``IClock`` in a worker: time is the hub's (each command says it),
    timers are kept here and fired by the hub."""

    def __init__(self) -> None:
        self.now = 0.0
        self.timers: dict[int, _Timer] = {}
        self._next = 1
        self.set: list[list[Any]] = []
        self.cancel: list[int] = []

    def seconds(self) -> float:
        return self.now

    def callLater(self, delay: float, f: Callable[..., Any], *args: Any, **kw: Any) -> _Timer:  # noqa: N802
        number, self._next = self._next, self._next + 1
        timer = _Timer(self, number, self.now + max(0.0, float(delay)), lambda: f(*args, **kw))
        self.timers[number] = timer
        self.set.append([number, max(0.0, float(delay))])
        return timer

    def cancelled(self, timer: _Timer) -> None:
        if self.timers.pop(timer.number, None) is not None:
            self.cancel.append(timer.number)

    def fire(self, number: int) -> None:
        timer = self.timers.pop(number, None)
        if timer is not None and timer.active():
            timer.called = True
            timer.call()


def _plain(value: Any) -> Any:
    """``value`` as JSON (a view or an action: mappings, sequences, numbers, text)."""
    return json.loads(json.dumps(value, default=str))


class Worker(amp.AMP):
    """Serves one plugin's factory and (after ``Create``) one game of it."""

    def __init__(self, factory: Any, protection: str, refused: str = "") -> None:
        super().__init__()
        self.factory = factory
        #: why the plugin could not be loaded (``Describe`` says it)
        self.refused = refused
        self.protection = protection
        self.clock = WorkerClock()
        self.game: Any = None
        self.events: list[list[Any]] = []

    @wire.Describe.responder
    def describe(self) -> dict[str, Any]:
        if self.refused:
            return {"factory": {"error": self.refused}}
        try:
            return {"factory": self._describe()}
        except Exception as e:  # noqa: BLE001 - the plugin's code failed: say why
            return {"factory": {"error": f"cannot describe it: {type(e).__name__}: {e}"}}

    def _describe(self) -> dict[str, Any]:
        f = self.factory
        if IChipGameFactory.providedBy(f):
            return {"error": CHIPS_REFUSED}
        options = [o.to_json() for o in f.options] if IGameOptions.providedBy(f) else []
        web = f.adapter("web") if "web" in tuple(f.frontends) else None
        files: dict[str, Any] = {}
        if IWebView.providedBy(web):
            files["script"] = web.script
        if IWebAssets.providedBy(web):
            files["styles"], files["history"] = web.styles, web.history
        if IGameRules.providedBy(f):
            files["rules"] = f.rules
        return {
            "name": str(f.name),
            "summary": str(f.summary),
            "variants": [str(v) for v in f.variants],
            "min_seats": int(f.min_seats),
            "max_seats": int(f.max_seats),
            "default_seats": int(f.default_seats),
            "frontends": [str(x) for x in f.frontends],
            "options": options,
            "protection": self.protection,
            "files": {k: v for k, v in files.items() if isinstance(v, str)},
            # a game of the kit: the hub hosts it with the kit's own front-end helpers
            "kit": isinstance(f, Game),
            "legal_key": str(f.legal_key) if IExhaustiveLegal.providedBy(f) else None,
            # a kit game's board: the hub hosts it over MNM with the kit's adapter
            "board": f.board.to_json() if isinstance(f, Game) and f.board else None,
        }

    def _emit(self, event: GameEvent) -> None:
        seats = sorted(event.seats) if event.seats is not None else None
        self.events.append([event.kind, _plain(dict(event.data)), seats])

    def _run(self, now: float, call: Callable[[], Any]) -> dict[str, Any]:
        self.clock.now = now
        update = wire.Update()
        try:
            call()
        except GameError as e:
            update.error = [type(e).__name__, e.reason, e.code]
        except PermissionError as e:  # the sandbox refused something
            update.violation = f"refused by the sandbox: {e}"
        except Exception as e:  # noqa: BLE001 - a broken game: the hub ends it
            update.violation = f"the game failed: {type(e).__name__}: {e}"
        if sandbox.VIOLATIONS:
            update.violation = sandbox.VIOLATIONS[0]
        update.events, self.events = self.events, []
        update.set_timers, self.clock.set = self.clock.set, []
        update.cancel_timers, self.clock.cancel = self.clock.cancel, []
        game = self.game
        if game is not None and update.violation is None:
            update.state = str(game.state)
            public = _plain(game.view(None))
            update.views[""] = public
            for seat in range(int(game.seats)):
                view = _plain(game.view(seat))
                if view != public:
                    update.views[str(seat)] = view
                legal = _plain(list(game.legal_actions(seat)))
                if legal:
                    update.legal[str(seat)] = legal
            update.result = _plain(game.result())
        return {"update": update.to_json()}

    @wire.Create.responder
    def create(self, config: Mapping[str, Any], seed: bytes, now: float) -> dict[str, Any]:
        def make() -> None:
            context = GameContext(
                clock=self.clock, emit=self._emit, rng=KeyedRandom(seed), game_id=config["id"]
            )
            game_config = GameConfig(
                config["name"], config["variant"], config["seats"], config["options"]
            )
            game = self.factory.create(game_config, context)
            verifyObject(IGame, game)
            self.game = game

        return self._run(now, make)

    @wire.SeatPlayer.responder
    def seat_player(self, seat: int, name: str, now: float) -> dict[str, Any]:
        return self._run(now, lambda: self.game.seat_player(seat, name))

    @wire.Leave.responder
    def leave(self, seat: int, now: float) -> dict[str, Any]:
        return self._run(now, lambda: self.game.leave(seat))

    @wire.Act.responder
    def act(self, seat: int, action: Mapping[str, Any], now: float) -> dict[str, Any]:
        return self._run(now, lambda: self.game.act(seat, action))

    @wire.Fire.responder
    def fire(self, timer: int, now: float) -> dict[str, Any]:
        return self._run(now, lambda: self.clock.fire(timer))

    @wire.Think.responder
    def think(
        self,
        seat: int,
        policy: str,
        view: Mapping[str, Any],
        legal: list[Mapping[str, Any]],
        budget: float,
        seed: bytes,
    ) -> dict[str, Any]:
        if not isinstance(self.factory, Game):
            return {"move": {"error": "not a game of the kit"}}
        try:
            move = choose_move(self.factory, policy, view, legal, seat, KeyedRandom(seed), budget)
        except Exception as e:  # noqa: BLE001 - the game's code failed: the hub falls back
            return {"move": {"error": f"{type(e).__name__}: {e}"}}
        if sandbox.VIOLATIONS:
            return {"move": {"violation": sandbox.VIOLATIONS[0]}}
        return {"move": {"move": _plain(move)}}

    @wire.Stop.responder
    def stop(self) -> dict[str, Any]:
        if self.game is not None:
            self.game.stop()
        from twisted.internet import reactor

        reactor.callLater(0, reactor.stop)  # type: ignore[attr-defined]
        return {}

    def connectionLost(self, reason: Failure = connectionDone) -> None:  # noqa: N802 - Twisted's name
        from twisted.internet import reactor

        super().connectionLost(reason)
        if reactor.running:  # type: ignore[attr-defined]
            reactor.stop()  # type: ignore[attr-defined]


def load(spec: Mapping[str, Any]) -> Any:
    """Import the plugin's factory from its copy (``spec["package"]``).

    :raises ValueError: it cannot be imported or is no game factory (the reason, as
        the registry words it for a plugin in the hub's process).
    """
    module, attr_path = str(spec["module"]), str(spec["object"])
    make_package(PACKAGE, [str(spec["package"])])
    importlib.invalidate_caches()
    try:
        obj: Any = importlib.import_module(f"{PACKAGE}.{module}")
        for attr in attr_path.split("."):
            obj = getattr(obj, attr)  # the plugin's attribute path, from its .meta
        if isinstance(obj, type):
            obj = obj()
    except Exception as e:
        text = f"{type(e).__name__}: {e}".replace(PACKAGE + ".", "")
        raise ValueError(f"cannot load {module}:{attr_path}: {text}") from None
    try:
        verifyObject(IGameFactory, obj)
    except Invalid as e:
        text = f"{module}:{attr_path} does not implement IGameFactory: {explain_invalid(e)}"
        raise ValueError(text) from None
    return obj


def main(argv: list[str]) -> None:
    spec = json.loads(argv[1])
    protection = sandbox.enter(
        int(spec["cpu_seconds"]),
        int(spec["memory_bytes"]),
        Path(spec["package"]),
        Path.cwd(),
        extra=[Path(hub.__file__).parent],
    )
    try:
        factory, refused = load(spec), ""
    except ValueError as e:
        factory, refused = None, str(e)
    from twisted.internet import reactor  # after enter(): it opens file descriptors

    stdio.StandardIO(Worker(factory, protection, refused))
    reactor.run()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main(sys.argv)
