"""What a kit game may use of the hub, as typing Protocols (checked by mypy; the hub's
zope interfaces stay where plugins are discovered and verified).

A kit game gets exactly these from the hub: a :class:`Clock` (its timers; time only
from here), an ``emit`` for its events and a ``random.Random`` (randomness only from
here), gathered in a :class:`Context` (``hub.model.GameContext`` is one).  Because
everything a game does comes in through the hub's one input funnel and everything it
draws comes from these, a kit game is replayed and resumed by the hub with no code
of its own.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from hub.model import Clock, DelayedCall, GameEvent


class Context(Protocol):
    """What the hub hands a game when it is created."""

    @property
    def clock(self) -> Clock: ...

    @property
    def emit(self) -> Callable[[GameEvent], None]: ...

    @property
    def rng(self) -> random.Random: ...


class Config(Protocol):
    """A new game's parameters (``hub.model.GameConfig``)."""

    @property
    def seats(self) -> int: ...

    @property
    def options(self) -> Mapping[str, object]: ...


class Bot(Protocol):
    """A player program in the hub (``hub.interfaces.IBot``): one legal action of
    ``legal`` for the seat's ``view`` within ``deadline`` seconds."""

    def choose(
        self, view: Mapping[str, object], legal: Sequence[Mapping[str, object]], deadline: float
    ) -> Mapping[str, object]: ...


__all__ = ["Bot", "Clock", "Config", "Context", "DelayedCall"]
