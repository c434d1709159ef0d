"""One game's clock: :class:`GameClock`, the ``context.clock`` of every game.

A game reads time and sets timers only here (:class:`hub.model.IClock`).  The clock
keeps **game time**: the reactor's time while the game runs on a hub, standing still
while it has none (:meth:`GameClock.pause`, :meth:`GameClock.resume`: every pending
timer keeps the time it had left, so the player to move gets the time they had).

Every timer is numbered in the order the game set it (``seq``).  When a timer is due
live, the clock hands it to its owner (``on_tick(seq, fire)``: the game's funnel writes
a ``tick`` entry, :mod:`hub.play.journal`, and fires it).  A game rebuilt from its journal
runs with the clock in **replay** mode (:meth:`GameClock.replaying`): no timer fires by
itself, time is what each journal entry says (:meth:`GameClock.set_time`), and a
``tick`` entry fires the timer of that number (:meth:`GameClock.fire`).  Since the game
is deterministic, it sets the same timers in the same order on replay, so the numbers
match.  :meth:`GameClock.go_live` then schedules the timers still pending on the
reactor, each with the game time it had left.

Timers the hub sets for a game but that are no input of the game (a bot's think time)
use :attr:`GameClock.free`: the same game time, plain reactor timers, not journaled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from twisted.internet import error


class ReactorTime(Protocol):
    """The part of ``IReactorTime`` the clock uses."""

    def seconds(self) -> float:
        """Now."""
        ...

    def callLater(self, delay: float, f: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        """A timer."""
        ...


class ReplayError(Exception):
    """A journal that does not fit the game: a ``tick`` of a timer that is not pending."""


class GameTimer:
    """A pending timer of a :class:`GameClock` (an ``IDelayedCall`` to the game)."""

    def __init__(
        self,
        clock: GameClock,
        seq: int,
        due: float,
        f: Callable[..., Any],
        args: tuple[Any, ...],
        kw: dict[str, Any],
    ) -> None:
        self.clock = clock
        self.seq = seq
        self.due = due
        self.f, self.args, self.kw = f, args, kw
        self.called = False
        self.cancelled = False
        #: the reactor's timer while the clock runs live
        self.call: Any = None

    def getTime(self) -> float:
        """When it fires, in game time."""
        return self.due

    def active(self) -> bool:
        """Not fired, not cancelled."""
        return not (self.called or self.cancelled)

    def cancel(self) -> None:
        """Never fire (as ``IDelayedCall.cancel``)."""
        if not self.active():
            raise _already(self)
        self.cancelled = True
        self.clock._drop(self)

    def reset(self, seconds: float) -> None:
        """Fire ``seconds`` from now instead."""
        if self.called or self.cancelled:
            raise _already(self)
        self.clock._reset(self, seconds)

    def delay(self, seconds: float) -> None:
        """Fire ``seconds`` later than planned."""
        if not self.active():
            raise _already(self)
        self.clock._move(self, self.due + seconds)


def _already(timer: GameTimer) -> Exception:
    if timer.called:
        return error.AlreadyCalled()
    return error.AlreadyCancelled()


class FreeClock:
    """Game time with plain reactor timers (not journaled): :attr:`GameClock.free`."""

    def __init__(self, clock: GameClock) -> None:
        self._clock = clock

    def seconds(self) -> float:
        """The game's time."""
        return self._clock.seconds()

    def callLater(self, delay: float, f: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        """A reactor timer ``delay`` seconds from now."""
        return self._clock.reactor.callLater(delay, f, *args, **kw)


class GameClock:
    """Game time and numbered timers over ``reactor`` (see the module's text).

    :param reactor: the hub's reactor (``task.Clock`` in tests).
    :param on_tick: ``on_tick(seq, fire)`` when a timer is due live: its owner journals
        the tick and calls ``fire()`` (by default the timer simply fires).
    :param start: the game time to start at (default: the reactor's time).
    """

    def __init__(
        self,
        reactor: ReactorTime,
        on_tick: Callable[[int, Callable[[], None]], None] | None = None,
        start: float | None = None,
    ) -> None:
        self.reactor = reactor
        self.on_tick = on_tick
        #: game time at :attr:`_since` (reactor time); runs on from there while live
        self._base = reactor.seconds() if start is None else float(start)
        self._since = reactor.seconds()
        self._live = True
        self._next = 0
        self._timers: dict[int, GameTimer] = {}
        self.free = FreeClock(self)

    # -- IClock ---------------------------------------------------------------------------

    def seconds(self) -> float:
        """The game's time: standing still while paused or replaying."""
        if self._live:
            return self._base + (self.reactor.seconds() - self._since)
        return self._base

    def callLater(self, delay: float, f: Callable[..., Any], *args: Any, **kw: Any) -> GameTimer:
        """Call ``f`` after ``delay`` seconds of game time; the timer is numbered."""
        delay = max(0.0, float(delay))
        timer = GameTimer(self, self._next, self.seconds() + delay, f, args, kw)
        self._next += 1
        self._timers[timer.seq] = timer
        if self._live:
            timer.call = self.reactor.callLater(delay, self._fire_live, timer)
        return timer

    # -- state ----------------------------------------------------------------------------

    @property
    def live(self) -> bool:
        """Whether timers fire by themselves (not paused, not replaying)."""
        return self._live

    def pending(self) -> list[GameTimer]:
        """The timers not fired yet, by number."""
        return [self._timers[seq] for seq in sorted(self._timers)]

    def pause(self) -> None:
        """Stop: game time stands still and no timer fires; each keeps its time left."""
        if not self._live:
            return
        self._base = self.seconds()
        self._live = False
        for timer in self._timers.values():
            if timer.call is not None and timer.call.active():
                timer.call.cancel()
            timer.call = None

    def resume(self) -> None:
        """Run on from the game time it stopped at (:meth:`pause`, :meth:`go_live`)."""
        if self._live:
            return
        self._since = self.reactor.seconds()
        self._live = True
        for timer in self.pending():
            timer.call = self.reactor.callLater(
                max(0.0, timer.due - self._base), self._fire_live, timer
            )

    def replaying(self, at: float) -> None:
        """Replay mode from game time ``at``: nothing fires by itself."""
        self.pause()
        self._base = float(at)

    def set_time(self, at: float) -> None:
        """(Replaying.)  The game time of the next journal entry (never backwards)."""
        if not self._live and at > self._base:
            self._base = float(at)

    def fire(self, seq: int) -> None:
        """(Replaying.)  Fire the timer ``seq`` now.

        :raises ReplayError: it is not pending.
        """
        timer = self._timers.get(seq)
        if timer is None:
            raise ReplayError(f"the journal fires timer {seq}, which is not pending")
        self._call(timer)

    def go_live(self) -> None:
        """The replay is over: run on (:meth:`resume`)."""
        self.resume()

    def stop(self) -> None:
        """Cancel every timer (the game is removed)."""
        self.pause()
        for timer in self._timers.values():
            timer.cancelled = True
        self._timers.clear()

    # -- inside ---------------------------------------------------------------------------

    def _fire_live(self, timer: GameTimer) -> None:
        timer.call = None
        if not timer.active() or not self._live:
            return
        if self.on_tick is None:
            self._call(timer)
        else:
            self.on_tick(timer.seq, lambda: self._call(timer) if timer.active() else None)

    def _call(self, timer: GameTimer) -> None:
        self._timers.pop(timer.seq, None)
        timer.called = True
        if timer.call is not None and timer.call.active():
            timer.call.cancel()
        timer.call = None
        timer.f(*timer.args, **timer.kw)

    def _drop(self, timer: GameTimer) -> None:
        self._timers.pop(timer.seq, None)
        if timer.call is not None and timer.call.active():
            timer.call.cancel()
        timer.call = None

    def _reset(self, timer: GameTimer, seconds: float) -> None:
        """:meth:`GameTimer.reset`: the reactor's clock read once (a move clock is reset
        every turn)."""
        if self._live:
            now = self.reactor.seconds()
            self._move(timer, self._base + (now - self._since) + seconds, now)
        else:
            self._move(timer, self._base + seconds)

    def _move(self, timer: GameTimer, due: float, now: float | None = None) -> None:
        """``timer`` is due at game time ``due`` (``now``: the reactor's time, if read
        already)."""
        timer.due = due
        call = timer.call
        if self._live:
            if now is None:
                now = self.reactor.seconds()
            delay = max(0.0, due - (self._base + (now - self._since)))
            if call is not None and call.active():
                if call.getTime() <= now + delay:
                    # later than planned (a move clock reset every turn): the reactor
                    # moves its timer in place, where a cancel and a new one cost a timer
                    # object and a cancelled entry in the reactor's heap
                    call.reset(delay)
                    return
                call.cancel()
            timer.call = self.reactor.callLater(delay, self._fire_live, timer)
            return
        if call is not None and call.active():
            call.cancel()
        timer.call = None


__all__ = ["FreeClock", "GameClock", "GameTimer", "ReactorTime", "ReplayError"]
