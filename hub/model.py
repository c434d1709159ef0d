"""Plain value types shared by the lobby, the games and the front ends.

Nothing here knows of sockets, wire formats or Twisted: a game plugin may import this
module freely.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from zope.interface import Interface

#: States of a game instance, as the lobby and the JSON API report them.
WAITING = "waiting"
RUNNING = "running"
OVER = "over"
GAME_STATES = (WAITING, RUNNING, OVER)

#: Well-known event kinds the lobby itself reacts to.  A game may emit any other kind.
TURN = "turn"  #: data: {"seat": int, "legal": [action, ...], "timeleft_ms": int}
STATE = "state"  #: data: {"state": "waiting" | "running" | "over"}
GAME_OVER = "over"  #: data: {"result": {...}} (see :meth:`IGame.result`)
#: data: {"seat": int}: the player there is gone and the seat may be taken again
#: (a table game between hands, or any game before it started).
SEAT_OPEN = "seat_open"


class GameError(Exception):
    """A request a game or the lobby refuses; ``code`` follows HTTP's meanings.

    :ivar code: 400 malformed, 403 not allowed, 404 unknown, 409 conflict,
        422 not legal now.
    """

    code = 400

    def __init__(self, reason: str, code: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        if code is not None:
            self.code = code


class BadAction(GameError):
    """The action is malformed: it is not an action of this game at all."""

    code = 400


class IllegalAction(GameError):
    """The action is well formed but not legal now (wrong turn, occupied field...)."""

    code = 422


class NotFound(GameError):
    """No such game, seat, plugin or account."""

    code = 404


class Conflict(GameError):
    """The thing is taken: a seat, a name."""

    code = 409


@dataclass(frozen=True)
class GameEvent:
    """Something that happened in a game.

    :ivar kind: what happened (``turn``, ``over``, ``moved``...).
    :ivar data: JSON-able details.
    :ivar seats: ``None`` when every observer may see it, else the seats whose
        players alone may see it (hole cards, private prompts).
    """

    kind: str
    data: Mapping[str, Any] = field(default_factory=dict)
    seats: frozenset[int] | None = None

    def visible_to(self, seat: int | None) -> bool:
        """Whether an observer sitting at ``seat`` (``None``: a spectator) sees this."""
        return self.seats is None or (seat is not None and seat in self.seats)


@dataclass(frozen=True)
class GameConfig:
    """The immutable parameters of one game instance.

    :ivar name: the name people see in the lobby.
    :ivar variant: one of the factory's variants (``None``: its default).
    :ivar seats: number of seats.
    :ivar options: game-specific settings (stakes, move time...), JSON-able.
    """

    name: str
    variant: str | None
    seats: int
    options: Mapping[str, Any] = field(default_factory=dict)


#: Kinds of :class:`GameOption` values (how a creation form asks for them).
OPTION_KINDS = ("int", "number", "decimal", "text", "bool", "choice")


@dataclass(frozen=True)
class GameOption:
    """One setting a game type accepts when a game is created, as its factory declares
    it (``IGameFactory.options``).  Front ends build their creation forms from these;
    the game itself still checks every value it is given.

    :ivar name: the key in ``GameConfig.options``.
    :ivar kind: one of :data:`OPTION_KINDS`: ``int`` (whole number), ``number`` (any
        number), ``decimal`` (an amount written as text, e.g. ``"0.50"``), ``text``,
        ``bool``, ``choice`` (one of ``choices``).
    :ivar default: the value the game uses when the option is not given (``None``: the
        game works it out, as ``help`` says).
    :ivar label: a few words for people; ``help`` says more.
    :ivar minimum: lowest value (``int``/``number``/``decimal``), or ``None``.
    :ivar maximum: highest value, or ``None``.
    :ivar choices: the values of a ``choice``.
    :ivar unit: what a number counts (``ms``, ``s``, ``chips``).
    :ivar for_people: the value a form proposes when a person plays in a browser, where
        the default suits programs (a 3 s move clock); ``None``: the default.
    :ivar variants: the variants it applies to (empty: every variant).
    """

    name: str
    kind: str
    default: Any = None
    label: str = ""
    minimum: Any = None
    maximum: Any = None
    choices: tuple[Any, ...] = ()
    unit: str = ""
    for_people: Any = None
    help: str = ""
    variants: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in OPTION_KINDS:
            raise ValueError(f"option {self.name}: kind {self.kind!r} is not one of {OPTION_KINDS}")

    def to_json(self) -> dict[str, Any]:
        """The option as the web API describes it."""
        return {
            "name": self.name,
            "kind": self.kind,
            "default": self.default,
            "label": self.label or self.name.replace("_", " "),
            "minimum": self.minimum,
            "maximum": self.maximum,
            "choices": list(self.choices),
            "unit": self.unit,
            "for_people": self.for_people,
            "help": self.help,
            "variants": list(self.variants),
        }


class IClock(Interface):
    """The part of ``IReactorTime`` a game may use (``task.Clock`` in tests)."""

    def seconds() -> float:
        """The current time in seconds."""

    def callLater(delay: float, f: Callable[..., Any], *args: Any, **kw: Any) -> Any:
        """Call ``f`` after ``delay`` seconds; returns an ``IDelayedCall``."""


@dataclass(frozen=True)
class GameContext:
    """What the hub hands a game when it is created: all it may touch.

    :ivar clock: provides :class:`IClock`; the game schedules its timers on it.
    :ivar emit: called with each :class:`GameEvent` the game produces, synchronously
        from ``act``/``seat_player``/``leave`` or later from a timer.
    :ivar rng: the game's random source (a CSPRNG-backed ``random.SystemRandom`` in
        the hub, a seeded ``random.Random`` in tests).
    :ivar game_id: the lobby's id for the game (for logs and hand ids).
    """

    clock: Any
    emit: Callable[[GameEvent], None]
    rng: random.Random
    game_id: str = ""


__all__ = [
    "GAME_OVER",
    "GAME_STATES",
    "OVER",
    "RUNNING",
    "SEAT_OPEN",
    "STATE",
    "TURN",
    "WAITING",
    "BadAction",
    "Conflict",
    "GameConfig",
    "GameContext",
    "GameError",
    "GameEvent",
    "GameOption",
    "IClock",
    "IllegalAction",
    "NotFound",
    "OPTION_KINDS",
]
