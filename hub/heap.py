"""The garbage collector's policy of a long-running hub (``twistd gamehub``; issue 36).

CPython's cyclic collector walks every object it tracks at each full collection.  A hub
holding 2,500 Nine Men's Morris games tracks some 700,000 objects (games, their logs,
connections), and objects that live a second or so (a transcript's buffered records, a
journal's waiting entries) reach the oldest generation fast enough that a full
collection ran every few seconds, each a pause of 300 to 700 ms on the reactor's
thread: the p99 of a move's answer was the collector's (``bench/mnm_scale.py``).

Walking an object costs far more in a big hub than in a small test: its references
point all over a heap of hundreds of megabytes, and each is a cache miss.  At 2,500
games a collection of the youngest generation (some 50,000 objects after 20,000
allocations) took 20 to 45 ms of CPU, and one of the middle generation (what came in
the last few seconds) about 100 ms.  So a hub, once started:

- collects the youngest generation after ``gc_young`` allocations (5,000 instead of
  CPython's 700: most of a move's objects are gone before it runs; a pause of a few
  milliseconds);
- freezes what survived each collection the collector runs by itself at once
  (``gc_freeze_survivors``; ``gc.freeze`` is a constant-time move of lists), so an
  object is walked once, young, and the middle and oldest generations stay empty:
  their collections walk nothing;
- every ``gc_freeze_seconds`` (10) collects the two younger generations and freezes
  what it tracks (with the freezes above, little is left for it; without them, what
  came since the last freeze);
- every ``gc_full_seconds`` (300) gives the frozen objects back and collects them all
  once (``gc.unfreeze``, ``gc.collect``, then ``gc.freeze`` again): a cycle of objects
  frozen while alive and dropped since is freed then, so such garbage is bounded by
  that time.  This is the one long pause, logged with its length.

Reference counting frees everything else as it always does: a frozen object whose
count drops to zero goes at once.  ``0`` switches each part off (``gc_young`` ``0``
keeps CPython's threshold).  Test processes of many hubs do not run it (only
``twistd gamehub`` does: :class:`hub.service.HubService`'s ``freeze_heap``).
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable, Mapping
from typing import Any

from twisted.internet.interfaces import IReactorTime
from twisted.internet.task import LoopingCall
from twisted.logger import Logger

#: the settings and their defaults
DEFAULTS: dict[str, float] = {
    "gc_young": 5_000,
    "gc_freeze_survivors": True,
    "gc_freeze_seconds": 10.0,
    "gc_full_seconds": 300.0,
}


class HeapKeeper:
    """Runs the policy of the module's text on ``reactor`` with ``options``.

    :ivar full_collections: full collections run (:meth:`full`), and the last one's
        seconds and objects collected.
    """

    log = Logger()

    def __init__(
        self,
        reactor: IReactorTime,
        options: Mapping[str, Any] | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        settings = {**DEFAULTS, **{k: v for k, v in (options or {}).items() if k in DEFAULTS}}
        self.young = int(settings["gc_young"])
        self.freeze_survivors = bool(settings["gc_freeze_survivors"])
        self.freeze_seconds = float(settings["gc_freeze_seconds"])
        self.full_seconds = float(settings["gc_full_seconds"])
        self._clock = clock
        self._thresholds = gc.get_threshold()
        self._loops: list[LoopingCall] = []
        self._reactor = reactor
        self.full_collections = 0
        self.last_full: tuple[float, int] | None = None

    def start(self) -> None:
        """The threshold, the heap made so far frozen, the two timers."""
        if self.young > 0:
            gc.set_threshold(self.young, *self._thresholds[1:])
        gc.freeze()
        if self.freeze_survivors:
            gc.callbacks.append(self._collected)
        for seconds, call in ((self.freeze_seconds, self.freeze), (self.full_seconds, self.full)):
            if seconds > 0:
                loop = LoopingCall(call)
                loop.clock = self._reactor
                loop.start(seconds, now=False)
                self._loops.append(loop)

    @staticmethod
    def _collected(phase: str, info: Mapping[str, int]) -> None:
        """After each collection (the collector's own or asked for): what survived it
        is frozen."""
        if phase == "stop":
            gc.freeze()

    def freeze(self) -> None:
        """The younger generations collected, then everything tracked frozen."""
        gc.collect(1)
        gc.freeze()

    def full(self) -> None:
        """Every object back in sight, one full collection, frozen again."""
        began = self._clock()
        gc.unfreeze()
        collected = gc.collect()
        gc.freeze()
        took = self._clock() - began
        self.full_collections += 1
        self.last_full = (took, collected)
        self.log.info(
            "heap: full collection in {ms:.0f} ms, {collected} objects freed",
            ms=took * 1000,
            collected=collected,
        )

    def stop(self) -> None:
        """Stop the timers; the collector's threshold as it was, nothing frozen."""
        for loop in self._loops:
            if loop.running:
                loop.stop()
        self._loops.clear()
        if self._collected in gc.callbacks:
            gc.callbacks.remove(self._collected)
        gc.set_threshold(*self._thresholds)
        gc.unfreeze()


__all__ = ["DEFAULTS", "HeapKeeper"]
