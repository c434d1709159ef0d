"""Where a served hub's reactor spends its time, by turn: installed in a benchmark's
``twistd`` (``bench.hubproc.Hub(trace=PATH)``, ``bench/mnm_scale.py --trace PATH``)
before it runs, written to ``PATH`` when it stops.

- each turn's I/O (``doPoll``: every readable and writable connection of one
  ``epoll`` answer) and timers (``runUntilCurrent``) as a histogram of the reactor
  thread's CPU time (a long turn is a wait for every message that came meanwhile: the
  latency tail of a busy hub);
- the CPU of each kind of timer and of each result handed over by a thread
  (``callLater``, ``callFromThread``: the sweeps, the store's answers), in all and
  in the longest calls;
- the collector's passes by generation and length.

A diagnostic, not a figure of the table: the wrappers cost a few per cent of the
hub's CPU.  (Written on 7 December 2026 to find the reactor's long turns at 2,500
MNM games.)
"""

from __future__ import annotations

import atexit
import gc
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

#: histogram buckets, milliseconds (a turn is counted in the first bucket above it)
BUCKETS = (1, 2, 5, 10, 20, 50, 100, 1_000_000)


def _bucket(seconds: float) -> int:
    ms = seconds * 1000
    return next(b for b in BUCKETS if ms < b)


class Trace:
    """The figures one hub gathers (see the module's text)."""

    def __init__(self) -> None:
        self.turns: Counter[tuple[str, int]] = Counter()
        self.cpu: dict[str, float] = {}
        self.calls: Counter[str] = Counter()
        self.longest: list[tuple[float, float, str]] = []
        self._gc_started = 0.0

    def timed(self, name: str, f: Callable[..., Any]) -> Callable[..., Any]:
        """``f``, its CPU and wall time counted under ``name`` (the name of a
        ``Deferred``'s ``callback`` is its first callback's)."""
        clock, wall = time.thread_time, time.perf_counter
        owner = getattr(f, "__self__", None)

        def call(*args: Any, **kwargs: Any) -> Any:
            label = name
            chain = ""
            if name == "Deferred.callback" and owner is not None and owner.callbacks:
                names = [getattr(c[0][0], "__qualname__", "?") for c in owner.callbacks[:6]]
                label += ":" + names[0]
                chain = " → ".join(names[1:])
            c0, w0 = clock(), wall()
            try:
                return f(*args, **kwargs)
            finally:
                cpu = clock() - c0
                self.cpu[label] = self.cpu.get(label, 0.0) + cpu
                self.calls[label] += 1
                if cpu > 0.005:
                    at = time.strftime("%H:%M:%S", time.localtime())
                    self.longest.append((cpu, wall() - w0, f"{label} at {at}"
                                         + (f" ({chain})" if chain else "")))  # fmt: skip

        return call

    def collected(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._gc_started = time.perf_counter()
        else:
            took = time.perf_counter() - self._gc_started
            self.turns[(f"collector, generation {info['generation']}", _bucket(took))] += 1

    def write(self, path: str) -> None:
        with open(path, "w") as out:
            print("reactor turns by the reactor thread's CPU (ms: count below it)", file=out)
            for kind in sorted({k for k, _ in self.turns}):
                row = ", ".join(
                    f"<{b if b < 1_000_000 else 'more'}: {self.turns[(kind, b)]}"
                    for b in BUCKETS
                    if self.turns[(kind, b)]
                )
                print(f"  {kind}: {row}", file=out)
            print("timers and threads' results by CPU (ms in all, calls)", file=out)
            for label, cpu in sorted(self.cpu.items(), key=lambda kv: -kv[1])[:25]:
                print(f"  {cpu * 1000:10.1f} {self.calls[label]:9d}  {label}", file=out)
            print("the longest calls (CPU ms, wall ms)", file=out)
            for cpu, wall, label in sorted(self.longest, reverse=True)[:30]:
                print(f"  {cpu * 1000:8.1f} {wall * 1000:8.1f}  {label}", file=out)


def install(path: str) -> Trace:
    """Wrap the epoll reactor's turns and the timers and thread results it is given
    from now on; write the figures to ``path`` when the process stops."""
    from twisted.application import app
    from twisted.internet import base, epollreactor

    trace = Trace()
    clock = time.thread_time

    def turn(kind: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def run(*args: Any) -> Any:
            c0 = clock()
            try:
                return f(*args)
            finally:
                trace.turns[(kind, _bucket(clock() - c0))] += 1

        return run

    poll = turn("I/O (one epoll answer)", epollreactor.EPollReactor.doPoll)
    epollreactor.EPollReactor.doPoll = epollreactor.EPollReactor.doIteration = poll  # type: ignore[method-assign,assignment]
    base.ReactorBase.runUntilCurrent = turn("timers", base.ReactorBase.runUntilCurrent)  # type: ignore[method-assign,assignment]
    call_later, from_thread = base.ReactorBase.callLater, base.ReactorBase.callFromThread

    def later(self: Any, delay: float, f: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        name = getattr(f, "__qualname__", type(f).__name__)
        sweep = getattr(f, "__self__", None)
        if name == "Deadlines._run":  # which sweep: its handler's name
            name += ":" + getattr(getattr(sweep, "_expired", None), "__qualname__", "?")
        return call_later(self, delay, trace.timed(name, f), *args, **kw)

    def threaded(self: Any, f: Callable[..., Any], *args: Any, **kw: Any) -> None:
        from_thread(self, trace.timed(getattr(f, "__qualname__", "?"), f), *args, **kw)

    base.ReactorBase.callLater = later  # type: ignore[method-assign,assignment]
    base.ReactorBase.callFromThread = threaded  # type: ignore[method-assign,assignment]
    gc.callbacks.append(trace.collected)
    written: list[bool] = []

    def write(*args: Any) -> None:
        if not written:
            written.append(True)
            trace.write(path)

    stopped = app._exitWithSignal  # twistd ends a stop by a signal with this (no atexit)

    def on_signal(*args: Any) -> None:
        write()
        stopped(*args)

    app._exitWithSignal = on_signal
    atexit.register(write)
    return trace
