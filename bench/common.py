"""What every benchmark script shares: interleaved timing, medians and ratios.

A benchmark names its contenders (ours and the anchors a user would compare with), each
a function that does one timed pass and returns how many units it did.  :func:`measure`
runs the passes interleaved (round 1: every contender once, round 2: again, …) so a
noisy machine slows them alike, and keeps each contender's rates; :func:`report` prints
the median rate of each and the ratio of ours to every anchor, with the goal the issue
names when there is one.  Machines are noisy: quote medians and ratios from one run,
never a figure alone.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)


@dataclass
class Figure:
    """The rates one contender reached, one per round.

    :ivar name: who ran (``gamehub``, ``pokerkit``, …).
    :ivar unit: what a rate counts, per second (``hands/s``).
    """

    name: str
    unit: str
    rates: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        """The median rate."""
        return statistics.median(self.rates) if self.rates else float("nan")

    @property
    def spread(self) -> tuple[float, float]:
        """The lowest and highest rate."""
        return (min(self.rates), max(self.rates)) if self.rates else (float("nan"),) * 2


def measure(
    contenders: Mapping[str, Callable[[], int]],
    unit: str,
    rounds: int = 5,
    warmup: bool = True,
) -> dict[str, Figure]:
    """Time every contender ``rounds`` times, interleaved.

    :param contenders: name → a function doing one pass and returning the units done.
    :param unit: the unit of the rates (``"playouts/s"``).
    :param warmup: run each contender once untimed first (tables built on first use).
    :returns: name → :class:`Figure`, in the order given.
    """
    figures = {name: Figure(name, unit) for name in contenders}
    if warmup:
        for run in contenders.values():
            run()
    for _ in range(max(1, rounds)):
        for name, run in contenders.items():
            t0 = time.perf_counter()
            done = run()
            figures[name].rates.append(done / (time.perf_counter() - t0))
    return figures


def ratio(ours: Figure, anchor: Figure) -> float:
    """Median of ours over median of the anchor."""
    return ours.median / anchor.median


def report(
    title: str,
    figures: Mapping[str, Figure],
    ours: str,
    goals: Mapping[str, str] | None = None,
    anchors: Sequence[str] | None = None,
    out=None,
) -> list[str]:
    """Print (and return) the medians and the ratio of ``ours`` to each anchor.

    :param goals: anchor name → the goal the issue sets for that ratio (``"≥ 0.2"``).
    :param anchors: the contenders to compare with (default: all but ``ours``).
    """
    out = out or sys.stdout
    mine = figures[ours]
    lines = [title]
    for f in figures.values():
        lo, hi = f.spread
        lines.append(
            f"  {f.name:<28} {f.median:>14,.0f} {f.unit}  "
            f"(median of {len(f.rates)}; {lo:,.0f}..{hi:,.0f})"
        )
    for name in anchors if anchors is not None else figures:
        f = figures.get(name)
        if f is None or name == ours:
            continue
        goal = (goals or {}).get(name)
        suffix = f"  (goal {goal})" if goal else ""
        lines.append(f"  ratio {ours}/{name}: {ratio(mine, f):.3f}{suffix}")
    for line in lines:
        print(line, file=out)
    return lines


def cpu_seconds(pid: int) -> float:
    """CPU time of process ``pid`` so far, in seconds, for differences around a pass:
    the on-CPU nanoseconds of its threads (Linux ``/proc/<pid>/task/*/schedstat``), so
    a pass of a few clock ticks is measured as finely as a long one (``/proc/<pid>/
    stat`` counts ticks of usually 10 ms).  A thread that ends is no longer listed: its
    time as last read here stays counted (:data:`_THREADS`), so what it used since then
    is missed, not what it used before; threads that ended before the first reading
    are not counted at all (they cancel in a difference)."""
    seen = _THREADS.setdefault(pid, {})
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        tasks = []
    now: dict[str, int] = {}
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                now[task] = int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # ended while listed: its last reading stands
    for task, used in seen.items():
        if task not in now:
            now[task] = used  # ended: its time as last read
    _THREADS[pid] = now
    return sum(now.values()) / 1e9


def main_thread_seconds(pid: int) -> float:
    """On-CPU seconds so far of process ``pid``'s main thread (a hub's reactor), from
    its ``schedstat`` (as :func:`cpu_seconds`); 0.0 once the process is gone."""
    try:
        with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
            return int(f.read().split()[0]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


#: pid → thread id → its on-CPU nanoseconds at the last reading (:func:`cpu_seconds`)
_THREADS: dict[int, dict[str, int]] = {}


def measure_servers(
    contenders: Mapping[str, tuple[int, Callable[[bool], int]]],
    unit: str,
    rounds: int = 5,
    prepare: Mapping[str, Callable[[bool], None]] | None = None,
) -> dict[str, Figure]:
    """Like :func:`measure`, but a rate is units per second of a server process's CPU
    (not of the wall clock), so the client's own cost and other load do not count.

    :param contenders: name → (the server's pid, a function doing one pass against it
        and returning the units done; its argument says whether the pass is the
        untimed warm-up, which may be shorter).
    :param prepare: name → what to do before each of its passes, untimed (make the
        games a pass plays); its argument is the pass's.
    """
    figures = {name: Figure(name, unit) for name in contenders}
    ready = prepare or {}
    for name, (_pid, run) in contenders.items():
        if name in ready:
            ready[name](True)
        run(True)
    for _ in range(max(1, rounds)):
        for name, (pid, run) in contenders.items():
            if name in ready:
                ready[name](False)
            before = cpu_seconds(pid)
            done = run(False)
            used = cpu_seconds(pid) - before
            figures[name].rates.append(done / max(used, 1e-3))
    return figures


@dataclass
class Row:
    """One line of the table ``python -m bench`` prints and writes.

    :ivar what: what is measured.
    :ivar ours: Gamehub's figure.
    :ivar anchor: the anchor's figure (``None``: no anchor, or it is not installed).
    :ivar goal: the issue's goal for the ratio, ``(">=", 0.25)`` or ``("<=", 2.0)``.
    :ivar cost: the ratio is a cost (the anchor's rate over ours: "costs 1.8×"),
        not a rate ratio (ours over the anchor's).
    :ivar scale: the figures are printed multiplied by this (with ``unit``).
    :ivar note: printed in the table's last column (an anchor that is missing...).
    """

    what: str
    ours: Figure
    anchor: Figure | None = None
    goal: tuple[str, float] | None = None
    cost: bool = False
    unit: str = ""
    scale: float = 1.0
    note: str = ""

    @property
    def ratio(self) -> float | None:
        """Ours over the anchor (a cost: the anchor over ours); ``None`` without one."""
        if self.anchor is None or not self.anchor.rates or not self.ours.rates:
            return None
        return 1 / ratio(self.ours, self.anchor) if self.cost else ratio(self.ours, self.anchor)

    @property
    def met(self) -> bool | None:
        """Whether the ratio reaches the goal (``None``: no goal or no ratio)."""
        r = self.ratio
        if self.goal is None or r is None:
            return None
        op, bound = self.goal
        return r >= bound if op == ">=" else r <= bound


_TWISTD = """
from twisted.application import app
from twisted.scripts.twistd import run
if {trace!r}:  # where the reactor's turns go (bench.reactor_trace)
    from bench.reactor_trace import install
    install({trace!r})
path = {path!r}
if path:  # a profile of the server's CPU time (not the wall clock: others' load)
    import cProfile, time
    profile = cProfile.Profile(time.process_time)
    stopped = app._exitWithSignal  # twistd ends a stop by a signal with this

    def dump(*args):
        profile.disable()
        profile.dump_stats(path)
        if args:
            stopped(*args)

    app._exitWithSignal = dump
    profile.enable()
    run()
    dump()
else:
    run()
"""


def twistd_command(profile: str | None = None, trace: str | None = None) -> list[str]:
    """The command that runs ``twistd`` with this Python (arguments follow); with
    ``profile``, a cProfile of the process's CPU time is written there when it stops;
    with ``trace``, :mod:`bench.reactor_trace`'s figures."""
    path = os.path.abspath(profile) if profile else ""
    traced = os.path.abspath(trace) if trace else ""
    return [sys.executable, "-c", _TWISTD.format(path=path, trace=traced)]


class Plugins:
    """The plugins a benchmark's lobby needs, handed out as the hub's registry does
    (``game_factory``, ``bot_factory``): factories by name."""

    def __init__(self, games: Mapping[str, object], bots: Mapping[str, object]) -> None:
        self._games = dict(games)
        self._bots = dict(bots)

    def game_factory(self, name: str) -> object:
        """The game factory ``name``."""
        return self._games[name]

    def bot_factory(self, name: str) -> object:
        """The bot factory ``name``."""
        return self._bots[name]
