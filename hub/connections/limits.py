"""Limits against abuse shared by the front ends: token buckets per key, and
connections counted per address and in all.

A :class:`Buckets` gives each key (a client address, an account) ``burst`` tokens that
refill at ``rate`` a second; an action costs one.  Memory is bounded: at most
``max_keys`` keys are kept (full buckets are forgotten first, then the oldest).

A :class:`ConnectionCap` counts open connections by client address: past
``per_address`` from one address, or ``total`` in all, a new one is refused (the
front end says why and closes it).

:func:`bots_only_room` bounds the tables of bots made on purpose, which play on with
nobody seated.
"""

from __future__ import annotations

from collections import Counter, OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from hub.model import OVER, GameError


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


class ConnectionCap:
    """Open connections, per client address and in all, each bounded.

    :param per_address: most open connections from one address.
    :param total: most open connections in all.
    """

    def __init__(self, per_address: int, total: int) -> None:
        self.per_address = max(0, int(per_address))
        self.total = max(0, int(total))
        self._open: Counter[str] = Counter()
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def admit(self, host: str) -> str | None:
        """Count a new connection from ``host``; or why it is refused (not counted)."""
        if self._count >= self.total:
            return f"too many connections ({self.total} open); try again later"
        if self._open[host] >= self.per_address:
            return f"too many connections from {host or 'this address'} ({self.per_address} open)"
        self._open[host] += 1
        self._count += 1
        return None

    def release(self, host: str) -> None:
        """A connection from ``host`` that :meth:`admit` counted is gone."""
        if self._open[host] <= 0:
            return
        self._open[host] -= 1
        self._count -= 1
        if self._open[host] == 0:
            del self._open[host]


class _Table(Protocol):
    @property
    def bots_only(self) -> bool: ...
    @property
    def state(self) -> str: ...
    @property
    def creator(self) -> str | None: ...


def bots_only_room(
    games: Iterable[_Table], creator: str | None, options: Mapping[str, Any]
) -> None:
    """Whether ``creator`` may make one more table of bots only (``bots_only``: it
    plays on with nobody seated): at most ``bots_only_max`` play at once among
    ``games``, ``bots_only_per_creator`` of one creator.

    :raises hub.model.GameError: 429 the creator's are playing, 503 the hub's.
    """
    running = [g for g in games if g.bots_only and g.state != OVER]
    most = int(options.get("bots_only_max", 20))
    if len(running) >= most:
        raise GameError(f"{most} tables of bots only play already; try later", 503)
    each = int(options.get("bots_only_per_creator", 3))
    if sum(1 for g in running if g.creator == creator) >= each:
        raise GameError(
            f"you have {each} tables of bots only playing already; close one first", 429
        )
