"""Bots in seats: the driver that plays a seat of a lobby game with an in-hub bot
(:class:`hub.interfaces.IBot`), and the runners that let a bot think (in the
reactor's thread pool in the hub, inline in tests).
"""

from __future__ import annotations

import hashlib
import secrets
import types
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from twisted.internet import defer
from twisted.logger import Logger
from zope.interface import implementer

from hub.interfaces import IGameObserver
from hub.model import (
    GAME_OVER,
    OVER,
    SHUFFLE,
    TURN,
    GameConfig,
    GameError,
    GameEvent,
    LiveGame,
    contribution,
)
from hub.optional_interfaces import IDeferredBot
from hub.play.seats import Seat


class DrivenGame(Protocol):
    """What a driver uses of the game it plays a seat of (:class:`hub.play.game.GameInstance`)."""

    @property
    def id(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def config(self) -> GameConfig: ...
    @property
    def seats(self) -> Sequence[Seat]: ...
    def act(self, seat: int, action: Mapping[str, Any]) -> None: ...
    def legal_actions(self, seat: int) -> list[Mapping[str, Any]]: ...
    def view(self, seat: int | None = None) -> Mapping[str, Any]: ...


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


class LoadMargin:
    """How much of a decision's time the hub keeps back from its bots: what an answer
    costs besides the bot's own thinking (waiting for a worker thread, the interpreter
    shared with the reactor and the other bots, bringing the answer back), measured on
    every answer, so that a bot answers in time on a loaded machine too.

    The margin is ``floor + share * total`` or, when answers came back later than
    that, one and a half times the 90th percentile of the last :attr:`KEPT` overheads;
    never more than :attr:`MOST` of the decision's time (a rarer delay is what the
    driver's guard is for, :attr:`BotDriver.GUARD`).
    """

    KEPT = 64
    MOST = 0.6

    def __init__(self, floor: float = 0.02, share: float = 0.1) -> None:
        self.floor = floor
        self.share = share
        self._seen: deque[float] = deque(maxlen=self.KEPT)
        #: answers the drivers had to play for their bots (:meth:`BotDriver._answer_for`)
        self.guarded = 0

    def observe(self, overhead: float) -> None:
        """An answer came back ``overhead`` seconds later than its bot's thinking."""
        self._seen.append(max(0.0, overhead))

    def margin(self, total: float) -> float:
        """Seconds to keep back from a decision of ``total`` seconds."""
        keep = self.floor + self.share * total
        if self._seen:
            seen = sorted(self._seen)
            keep = max(keep, 1.5 * seen[int(0.9 * (len(seen) - 1))])
        return min(keep, self.MOST * total)


@implementer(IGameObserver)
class BotDriver:
    """Plays one seat with an in-hub bot: on each ``turn`` event for its seat it asks
    the bot (through the runner, normally a worker thread) and plays the answer.  When
    the game announces a shared shuffle (:data:`hub.model.SHUFFLE`) it adds the bot's
    own 32 bytes of entropy, as a player's page does: from :mod:`secrets`, or, when the
    game's options have a ``bot_seed`` (reproducible bots), ``SHA-256(bot_seed, seat,
    hand number)``, so a seeded game repeats.

    The bot is given the time left of the decision when it starts thinking, less the
    :class:`LoadMargin` (``deadline`` of :meth:`hub.interfaces.IBot.choose`), and is
    expected to stop thinking by then (the built-in bots measure their own time).  If
    the answer has not come back by the last moment (:attr:`GUARD`), the driver plays
    the first legal action for it: a bot never loses on time while the hub runs.  A
    late, failing or illegal answer is logged and dropped.
    """

    log = Logger()
    #: the share of a decision's time (at least 30 ms) before its end at which the
    #: driver answers for a bot that did not
    GUARD = 0.05

    def __init__(
        self,
        game: DrivenGame,
        seat: int,
        bot: Any,
        runner: BotRunner,
        clock,
        deadline: float = 2.0,
        margin: LoadMargin | None = None,
    ) -> None:
        self.game = game
        self.seat = seat
        self.bot = bot
        self._runner = runner
        self._clock = clock
        self._deadline = deadline
        self._margin = margin if margin is not None else LoadMargin()
        self._turn = 0
        self._pending: Any = None
        self._guard: Any = None
        self._entropy: Any = None  # the contribution to the announced shuffle, to come

    def game_event(self, game: LiveGame, event: GameEvent) -> None:
        """React to ``turn`` events for this seat; stop at the end of the game."""
        if event.kind == TURN and event.data.get("seat") == self.seat:
            self._turn += 1
            self._cancel_guard()
            if self._pending is None or not self._pending.active():
                self._pending = self._clock.callLater(
                    0, self._think, self._turn, event, self._clock.seconds()
                )
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
        self._cancel_guard()
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

    def _cancel_guard(self) -> None:
        if self._guard is not None and self._guard.active():
            self._guard.cancel()
        self._guard = None

    def _think(self, turn: int, event: GameEvent, since: float) -> None:
        self._pending = None
        if turn != self._turn or self.game.state == OVER:
            return
        legal = list(event.data.get("legal") or self.game.legal_actions(self.seat))
        if not legal:
            return
        total = float(event.data.get("timeleft_ms", self._deadline * 1000)) / 1000.0
        total = min(total, self._deadline * 10)
        due = since + total
        guard = max(0.03, self.GUARD * total)
        if total > 2 * guard:
            wait = due - guard - self._clock.seconds()
            if wait <= 0:  # the reactor itself ran late: no time is left to think
                self._answer_for(turn, legal)
                return
            self._guard = self._clock.callLater(wait, self._answer_for, turn, legal)
        view = self.game.view(self.seat)
        keep = self._margin.margin(total)
        clock = self._clock

        def think(bot: Any) -> tuple[Any, float]:  # in the runner (a worker thread)
            started = clock.seconds()
            left = max(0.01, due - started - keep)
            action = bot.choose(view, legal, left)
            return action, clock.seconds() - started

        if IDeferredBot.providedBy(self.bot):  # it thinks in another process
            started = clock.seconds()
            left = max(0.01, due - started - keep)
            d: defer.Deferred[tuple[Mapping[str, Any], float]] = defer.maybeDeferred(
                self.bot.choose_later, view, legal, left
            ).addCallback(lambda action: (action, clock.seconds() - started))
        else:
            # bound to the bot, as its ``choose`` would be: the runner's timing names it
            d = self._runner(types.MethodType(think, self.bot))
        d.addCallback(self._play, turn, since)
        d.addErrback(self._failed)

    def _answer_for(self, turn: int, legal: list[Mapping[str, Any]]) -> None:
        """The bot did not answer in time: the first legal action, played for it."""
        self._guard = None
        if turn != self._turn or self.game.state == OVER:
            return
        self._turn += 1  # the bot's answer, when it comes, is too late
        self._margin.guarded += 1
        self.log.warn(
            "bot {bot} at seat {seat} of game {game} did not answer in time: played for it",
            bot=self.game.seats[self.seat].bot,
            seat=self.seat,
            game=self.game.id,
        )
        self._act(dict(legal[0]))

    def _play(self, answer: tuple[Mapping[str, Any], float], turn: int, since: float) -> None:
        action, thought = answer
        self._margin.observe(self._clock.seconds() - since - thought)
        if turn != self._turn or self.game.state == OVER:
            return  # too late: the turn moved on
        self._cancel_guard()
        self._act(action)

    def _act(self, action: Mapping[str, Any]) -> None:
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
