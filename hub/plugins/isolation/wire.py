"""The AMP commands between the hub and an isolated game's worker (both sides import
this; nothing here runs anything).

The hub sends every input of the game seam as a command; the worker answers each with
an *update* (:class:`Update`): the events the game emitted meanwhile, the timers it set
or cancelled, and what the hub must be able to answer at once afterwards (its state,
each seat's view and legal actions, its result).  Time is the hub's: every command
carries the hub clock's ``now``, and a timer fires only when the hub sends :class:`Fire`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from twisted.protocols import amp

#: AMP's limit on one value: an update or a description larger than this ends the game
MAX_VALUE = 0xFFFF


class Json(amp.Argument):
    """A JSON document as one AMP value (UTF-8, at most :data:`MAX_VALUE` bytes)."""

    def toString(self, inObject: Any) -> bytes:  # noqa: N802 - AMP's name
        return json.dumps(inObject, separators=(",", ":"), sort_keys=True).encode("utf-8")

    def fromString(self, inString: bytes) -> Any:  # noqa: N802 - AMP's name
        return json.loads(inString.decode("utf-8"))


class Describe(amp.Command):
    """Load the plugin and describe its factory (name, seats, variants, options...)."""

    arguments = []  # type: ignore[var-annotated]
    response = [(b"factory", Json())]


class Create(amp.Command):
    """Create the worker's one game: ``config`` (a ``GameConfig`` as JSON), ``seed``
    (the game's random source: 32 bytes from the hub's)."""

    arguments = [(b"config", Json()), (b"seed", amp.String()), (b"now", amp.Float())]
    response = [(b"update", Json())]


class SeatPlayer(amp.Command):
    arguments = [(b"seat", amp.Integer()), (b"name", amp.Unicode()), (b"now", amp.Float())]
    response = [(b"update", Json())]


class Leave(amp.Command):
    arguments = [(b"seat", amp.Integer()), (b"now", amp.Float())]
    response = [(b"update", Json())]


class Act(amp.Command):
    arguments = [(b"seat", amp.Integer()), (b"action", Json()), (b"now", amp.Float())]
    response = [(b"update", Json())]


class Fire(amp.Command):
    """The game's timer ``timer`` is due."""

    arguments = [(b"timer", amp.Integer()), (b"now", amp.Float())]
    response = [(b"update", Json())]


class Think(amp.Command):
    """A kit game's generic search (the ``kit-mcts`` bot's): the move ``policy`` plays
    for ``seat`` from that seat's ``view`` and ``legal`` actions (what the bot would be
    shown in the hub: never more), thinking at most ``budget`` seconds; ``seed`` draws its
    random playouts.  ``move`` is the move as JSON, or ``{"error": reason}``."""

    arguments = [
        (b"seat", amp.Integer()),
        (b"policy", amp.Unicode()),
        (b"view", Json()),
        (b"legal", Json()),
        (b"budget", amp.Float()),
        (b"seed", amp.String()),
    ]
    response = [(b"move", Json())]


class Stop(amp.Command):
    """Cancel every timer: the game is being removed (the worker then exits)."""

    arguments = []  # type: ignore[var-annotated]
    response = []  # type: ignore[var-annotated]
    requiresAnswer = False


@dataclass
class Update:
    """What a worker answers to every command (as JSON: :meth:`to_json`).

    :ivar events: ``[kind, data, seats or None]`` in the order the game emitted them.
    :ivar set_timers: ``[timer, delay]`` the game scheduled; :ivar cancel_timers: the
        timers it cancelled.
    :ivar views: ``{"": public view, "<seat>": that seat's view where it differs}``.
    :ivar legal: ``{"<seat>": [action, ...]}`` for every seat that may act.
    :ivar error: ``[class name, reason, code]`` of the ``GameError`` the call raised.
    :ivar violation: what the plugin tried that it may not (the hub stops the game).
    """

    state: str = "waiting"
    events: list[list[Any]] = field(default_factory=list)
    set_timers: list[list[Any]] = field(default_factory=list)
    cancel_timers: list[int] = field(default_factory=list)
    views: dict[str, Any] = field(default_factory=dict)
    legal: dict[str, list[Any]] = field(default_factory=dict)
    result: Any = None
    error: list[Any] | None = None
    violation: str | None = None

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @classmethod
    def from_json(cls, data: Any) -> Update:
        """The update ``data`` describes.

        :raises ValueError: it is not an update.
        """
        if not isinstance(data, dict) or not set(data) <= set(cls.__dataclass_fields__):
            raise ValueError("the worker's answer is not an update")
        update = cls(**data)
        if not isinstance(update.state, str) or not isinstance(update.events, list):
            raise ValueError("the worker's update is malformed")
        if not isinstance(update.views, dict) or not isinstance(update.legal, dict):
            raise ValueError("the worker's update is malformed")
        return update
