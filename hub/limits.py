"""Limits against abuse shared by the front ends: token buckets per key.

A :class:`Buckets` gives each key (a client address, an account) ``burst`` tokens that
refill at ``rate`` a second; an action costs one.  Memory is bounded: at most
``max_keys`` keys are kept (full buckets are forgotten first, then the oldest).
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any


class Buckets:
    """Token buckets, one per key.

    :param clock: anything with ``seconds()`` (the reactor; ``task.Clock`` in tests).
    :param rate: tokens a second.
    :param burst: most tokens a key holds.
    """

    def __init__(self, clock: Any, rate: float, burst: float, max_keys: int = 10_000) -> None:
        self._clock = clock
        self.rate = float(rate)
        self.burst = float(burst)
        self.max_keys = max_keys
        self._keys: OrderedDict[str, tuple[float, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._keys)

    def _level(self, key: str, now: float) -> float:
        tokens, at = self._keys.get(key, (self.burst, now))
        return min(self.burst, tokens + (now - at) * self.rate)

    def allow(self, *keys: str) -> bool:
        """Take one token from every key if each has one; else take none."""
        now = self._clock.seconds()
        levels = [self._level(key, now) for key in keys]
        if any(level < 1 for level in levels):
            return False
        for key, level in zip(keys, levels, strict=True):
            self._keys[key] = (level - 1, now)
            self._keys.move_to_end(key)
        if len(self._keys) > self.max_keys:
            self._trim(now)
        return True

    def wait(self, key: str) -> float:
        """Seconds until ``key`` has a token again (0: it has one now)."""
        level = self._level(key, self._clock.seconds())
        return 0.0 if level >= 1 else (1 - level) / self.rate if self.rate > 0 else float("inf")

    def _trim(self, now: float) -> None:
        for key in [k for k in self._keys if self._level(k, now) >= self.burst]:
            del self._keys[key]
        while len(self._keys) > self.max_keys:
            self._keys.popitem(last=False)


def creation_limits(options: Any, clock: Any) -> Buckets:
    """The buckets that limit game creation per account and per address (settings
    ``create_rate`` games a second, bursts of ``create_burst``)."""
    return Buckets(
        clock, float(options.get("create_rate", 1.0)), float(options.get("create_burst", 30))
    )
