"""Bots in seats: the driver that plays a seat of a lobby game with an in-hub bot
(:class:`hub.interfaces.IBot`), and the runners that let a bot think (in the
reactor's thread pool in the hub, inline in tests).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from twisted.internet import defer
from twisted.logger import Logger
from zope.interface import implementer

from hub.interfaces import IGameObserver
from hub.model import (
    GAME_OVER,
    OVER,
    SHUFFLE,
    TURN,
    GameError,
    GameEvent,
    contribution,
)

if TYPE_CHECKING:
    from hub.game import GameInstance

BotRunner = Callable[..., defer.Deferred]


def run_inline(function: Callable[..., Any], *args: Any) -> defer.Deferred:
    """A bot runner that calls the bot at once (tests, trivial bots)."""
    return defer.maybeDeferred(function, *args)


def thread_runner(reactor) -> BotRunner:
    """A bot runner that thinks in the reactor's thread pool, off the reactor thread."""
    from twisted.internet.threads import deferToThreadPool

    def run(function: Callable[..., Any], *args: Any) -> defer.Deferred:
        return deferToThreadPool(reactor, reactor.getThreadPool(), function, *args)

    return run


@implementer(IGameObserver)
class BotDriver:
    """Plays one seat with an in-hub bot: on each ``turn`` event for its seat it asks
    the bot (through the runner, normally a worker thread) and plays the answer.  When
    the game announces a shared shuffle (:data:`hub.model.SHUFFLE`) it adds the bot's
    own 32 bytes of entropy, as a player's page does: from :mod:`secrets`, or, when the
    game's options have a ``bot_seed`` (reproducible bots), ``SHA-256(bot_seed, seat,
    hand number)``, so a seeded game repeats.

    A late, failing or illegal answer is logged and dropped: the game's own timer then
    treats the seat like a player who did not answer.
    """

    log = Logger()

    def __init__(
        self,
        game: GameInstance,
        seat: int,
        bot: Any,
        runner: BotRunner,
        clock,
        deadline: float = 2.0,
    ) -> None:
        self.game = game
        self.seat = seat
        self.bot = bot
        self._runner = runner
        self._clock = clock
        self._deadline = deadline
        self._turn = 0
        self._pending: Any = None
        self._entropy: Any = None  # the contribution to the announced shuffle, to come

    def game_event(self, game: GameInstance, event: GameEvent) -> None:
        """React to ``turn`` events for this seat; stop at the end of the game."""
        if event.kind == TURN and event.data.get("seat") == self.seat:
            self._turn += 1
            if self._pending is None or not self._pending.active():
                self._pending = self._clock.callLater(0, self._think, self._turn, event)
        elif event.kind == SHUFFLE:
            if self._entropy is None or not self._entropy.active():
                number = event.data.get("number")
                self._entropy = self._clock.callLater(0, self._contribute, number)
        elif event.kind == GAME_OVER:
            self.cancel()

    def cancel(self) -> None:
        """Forget any scheduled thinking."""
        self._turn += 1
        if self._pending is not None and self._pending.active():
            self._pending.cancel()
        self._pending = None
        if self._entropy is not None and self._entropy.active():
            self._entropy.cancel()
        self._entropy = None

    def _contribute(self, number: Any) -> None:
        self._entropy = None
        if self.game.state == OVER:
            return
        seed = self.game.config.options.get("bot_seed")
        if seed is None:
            value = secrets.token_bytes(32)
        else:
            value = hashlib.sha256(f"bot entropy {seed} {self.seat} {number}".encode()).digest()
        try:
            self.game.act(self.seat, contribution(value, number))
        except GameError as e:  # the deal came first, or the table takes none
            self.log.debug("bot at seat {seat}: no contribution: {reason}", seat=self.seat,
                           reason=e.reason)  # fmt: skip

    def _think(self, turn: int, event: GameEvent) -> None:
        self._pending = None
        if turn != self._turn or self.game.state == OVER:
            return
        legal = list(event.data.get("legal") or self.game.legal_actions(self.seat))
        if not legal:
            return
        deadline = float(event.data.get("timeleft_ms", self._deadline * 1000)) / 1000.0
        view = self.game.view(self.seat)
        d = self._runner(self.bot.choose, view, legal, min(deadline, self._deadline * 10))
        d.addCallback(self._play, turn)
        d.addErrback(self._failed)

    def _play(self, action: Mapping[str, Any], turn: int) -> None:
        if turn != self._turn or self.game.state == OVER:
            return  # too late: the turn moved on
        try:
            self.game.act(self.seat, action)
        except GameError as e:
            self.log.warn(
                "bot {bot} at seat {seat} of game {game} played an illegal action "
                "{action!r}: {reason}",
                bot=self.game.seats[self.seat].bot,
                seat=self.seat,
                game=self.game.id,
                action=action,
                reason=e.reason,
            )

    def _failed(self, failure) -> None:
        self.log.failure(
            "bot at seat {seat} of game {game} failed", failure, seat=self.seat, game=self.game.id
        )
