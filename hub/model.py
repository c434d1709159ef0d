"""Plain value types shared by the lobby, the games and the front ends.

Nothing here knows of sockets, wire formats or Twisted: a game plugin may import this
module freely.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeAlias

from zope.interface import Interface

if TYPE_CHECKING:
    from twisted.internet.interfaces import IDelayedCall

#: A JSON-able mapping in a game's own words: an action, a view, a result, an event's
#: data.  The one ``Any`` of the game seam: the hub carries these values between the
#: wire and the game and never reads them; each game reads its own.
JsonMapping: TypeAlias = Mapping[str, Any]  # Any: JSON values, read by each game in its own words
#: An amount of chips as the hub takes it: a ``Decimal``, an ``int`` or decimal text
#: (never a float).
Chips: TypeAlias = Decimal | int | str


class GameKind(Protocol):
    """A live game's type as a listing reads it: a loaded ``IGameFactory``, or what a
    cluster's directory says of another hub's game (``hub.cluster.remote.RemoteType``,
    which offers no adapter)."""

    @property
    def name(self) -> str: ...
    @property
    def frontends(self) -> Sequence[str]: ...
    def adapter(self, frontend: str) -> object | None: ...


class SeatView(Protocol):
    """A seat of a live game as a listing reads it (``hub.play.seats.Seat``)."""

    @property
    def player(self) -> str | None: ...


class LiveGame(Protocol):
    """A live game as the seams hand it over: a ``hub.play.game.GameInstance`` (in a
    cluster's listings also a ``hub.cluster.remote.RemoteGame``).  Both import the
    seams, which so cannot name them: this is what the code handed one through a seam
    reads of it (``tests/hub/test_seam_types.py`` checks that both classes are one)."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def type(self) -> str: ...
    @property
    def state(self) -> str: ...
    @property
    def factory(self) -> GameKind: ...
    @property
    def seats(self) -> Sequence[SeatView]: ...


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

#: Events of chip games (:class:`hub.interfaces.IChipGame`), which the hub's table money
#: (:mod:`hub.play.money`) turns into ledger movements:
#: data: {"handid": str, "deltas": {seat: amount}, "names": {seat: name}, "stacks":
#: {seat: amount}}: a hand is over; ``deltas`` (decimal strings, seats as strings) sum to
#: zero; ``stacks`` (optional) are the stacks after it (a bot's empty stack: it is broke).
HAND_OVER = "handover"
#: data: {"seat": int, "name": str, "amount": str}: the player at ``seat`` left the
#: table with ``amount`` chips (the stack goes back to the account).
CASH_OUT = "cashout"

#: A shared shuffle: data {"number": int, "commitment": str}: a game published the
#: commitment of its next shuffle and, until it deals, every seated player may add
#: entropy of its own with the action :func:`contribution` (the web page and the hub's
#: bots do it by themselves: :class:`hub.play.botdriver.BotDriver`); the game then emits
#: :data:`CONTRIBUTED` {"seat", "number", "value"} for each one it took.
SHUFFLE = "shuffle"
CONTRIBUTED = "entropy"
#: the name of the contribution action
CONTRIBUTE = "entropy"


def contribution(value: bytes, number: int | None = None) -> dict[str, str | int]:
    """The action by which a seat adds ``value`` (1 to 64 bytes) to a shared shuffle
    (with ``number``: only to the shuffle that :data:`SHUFFLE` event announced)."""
    action: dict[str, str | int] = {"name": CONTRIBUTE, "value": value.hex()}
    if number is not None:
        action["number"] = number
    return action


#: Events the hub emits on a game's behalf: data {"reason": str}: the table deals no
#: new hand until it resumes (e.g. ``store unavailable``); then RESUMED, data {}.
PAUSED = "paused"
RESUMED = "resumed"


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


class Elsewhere(Conflict):
    """The game runs on another hub of the cluster (:mod:`hub.cluster`); the reason
    names that hub and its advertised front ends.

    :ivar hub: the id of the hub that runs it.
    :ivar endpoints: front end → ``host:port`` that hub advertises.
    :ivar routes: front end → ``(host, port, tls)`` to pass a connection through to
        (:mod:`hub.cluster.splice`); empty when the game cannot be played any more.
    """

    def __init__(
        self,
        reason: str,
        hub: str = "",
        endpoints: Mapping[str, str] | None = None,
        routes: Mapping[str, tuple[str, int, bool]] | None = None,
    ):
        super().__init__(reason)
        self.hub = hub
        self.endpoints = dict(endpoints or {})
        self.routes = dict(routes or {})


#: the data of an event that has none (shared, so read-only)
NO_DATA: JsonMapping = MappingProxyType({})


class GameEvent(NamedTuple):
    """Something that happened in a game (immutable; a named tuple, as one is made for
    every move of every game).

    :ivar kind: what happened (``turn``, ``over``, ``moved``...).
    :ivar data: JSON-able details.
    :ivar seats: ``None`` when every observer may see it, else the seats whose
        players alone may see it (hole cards, private prompts).
    """

    kind: str
    data: JsonMapping = NO_DATA
    seats: frozenset[int] | None = None

    def visible_to(self, seat: int | None) -> bool:
        """Whether an observer sitting at ``seat`` (``None``: a spectator) sees this."""
        return self.seats is None or (seat is not None and seat in self.seats)


class EventData(Mapping[str, Any]):
    """The base of a game's event data kept as a read-only mapping over the game's own
    records instead of a dict of its own (a game's event log keeps every event: issue
    36, a live game's memory).  A subclass gives ``__getitem__``, ``__iter__`` and
    ``__len__``, and may give a faster :meth:`copy`: the event log copies every event's
    data for a replay (``hub.play.gamelog.LoggedEvent.public_data``)."""

    __slots__ = ()

    def copy(self, leave_out: str | None = None) -> dict[str, object]:
        """The data as a new dict, in its keys' order, without the key ``leave_out``
        (whose value is then not computed)."""
        return {key: self[key] for key in self if key != leave_out}

    def json_text(self, leave_out: str | None = None) -> str | None:
        """:meth:`copy` as compact ASCII JSON text, exactly as ``json.dumps(copy,
        separators=(",", ":"))`` writes it, or ``None``: the caller encodes the copy
        (this base's answer).  A subclass may answer it without building the dict: a
        finished game's replay is every event's data as text (issue 36)."""
        return None


@dataclass(frozen=True, slots=True)
class JsonText:
    """A JSON value already encoded (compact separators, ASCII), handed to the store
    as it is (a finished game's replay: ``hub.play.game.GameInstance.replay_text``)."""

    text: str


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
    options: JsonMapping = field(default_factory=dict)


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
    default: Any = None  # Any: a value of the option's kind, read by the game that declares it
    label: str = ""
    minimum: Any = None  # Any: a value of the option's kind (int, float or decimal text)
    maximum: Any = None  # Any: a value of the option's kind (int, float or decimal text)
    choices: tuple[Any, ...] = ()  # Any: values of the option's kind
    unit: str = ""
    for_people: Any = None  # Any: a value of the option's kind
    help: str = ""
    variants: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in OPTION_KINDS:
            raise ValueError(f"option {self.name}: kind {self.kind!r} is not one of {OPTION_KINDS}")

    def to_json(self) -> dict[str, object]:
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


@dataclass(frozen=True)
class BuyinRange:
    """The buy-ins a chip table accepts (:meth:`hub.interfaces.IChipGameFactory.buyin_range`).

    :ivar minimum: the smallest buy-in.
    :ivar default: the buy-in when a player or bot names none.
    :ivar maximum: the largest buy-in (and stack after adding chips); ``None``: no limit.
    """

    minimum: Decimal
    default: Decimal
    maximum: Decimal | None = None

    def check(self, amount: object) -> Decimal:
        """``amount`` (``None``: the default) as a ``Decimal`` within the range.

        :raises BadAction: not a positive decimal amount.
        :raises IllegalAction: outside the range.
        """
        if amount is None:
            return self.default
        if isinstance(amount, bool | float) or not isinstance(amount, Decimal | int | str):
            raise BadAction("an amount is a decimal number")
        try:
            value = Decimal(str(amount).strip())
        except InvalidOperation:
            raise BadAction("an amount is a decimal number") from None
        if not value.is_finite() or value <= 0:
            raise BadAction("an amount is a positive number")
        if value < self.minimum:
            raise IllegalAction(f"the buy-in must be at least {self.minimum}")
        if self.maximum is not None and value > self.maximum:
            raise IllegalAction(f"the buy-in may be at most {self.maximum}")
        return value


@dataclass(frozen=True)
class HandPlayer:
    """One seat of a finished hand, as the hand history keeps it.

    :ivar seat: the seat.
    :ivar name: the name shown at the table.
    :ivar money_in: chips put in; ``winnings``: chips won (their difference is the
        seat's payoff, which the ledger's settlement of the hand must equal).
    :ivar private: JSON-able, what only this seat may read of the hand (its own
        cards, say), or ``None``.
    """

    seat: int
    name: str
    money_in: Decimal = Decimal(0)
    winnings: Decimal = Decimal(0)
    private: object = None


@dataclass(frozen=True)
class HandSummary:
    """What the history keeps of one finished hand of a chip game
    (:meth:`hub.interfaces.IChipGame.hand_summary`), in the game's own words.

    :ivar hand: the hand's key (the ``handid`` of its :data:`HAND_OVER` event).
    :ivar players: one :class:`HandPlayer` per seat dealt in.
    :ivar record: JSON-able, the hand as everyone may read it (the game declares what
        it holds and shows it: :class:`hub.interfaces.IHandRecord`).
    :ivar summary: one public line of text for lists of hands.
    :ivar sealed: JSON-able, what only the operator and admins may read (what would
        show every seat's private part, e.g. a shuffle's seed), or ``None``.
    :ivar started: when the hand began (seconds since the epoch), if known.
    """

    hand: str
    players: Sequence[HandPlayer]
    record: object = None
    summary: str | None = None
    sealed: object = None
    started: float | None = None


class DelayedCall(Protocol):
    """A timer the clock gave (``twisted.internet.interfaces.IDelayedCall``)."""

    def active(self) -> bool: ...

    def cancel(self) -> None: ...


class Clock(Protocol):
    """The part of the reactor's time a game may use (``task.Clock`` in tests)."""

    def seconds(self) -> float: ...

    def callLater(  # noqa: N802  (Twisted's name)
        self, delay: float, f: Callable[..., object], *args: object, **kw: object
    ) -> DelayedCall: ...


class IClock(Interface):
    """The part of ``IReactorTime`` a game may use (``task.Clock`` in tests)."""

    def seconds() -> float:
        """The current time in seconds."""

    def callLater(
        delay: float, f: Callable[..., object], *args: object, **kw: object
    ) -> IDelayedCall:
        """Call ``f`` after ``delay`` seconds; returns an ``IDelayedCall``."""


@dataclass(frozen=True)
class GameContext:
    """What the hub hands a game when it is created: all it may touch.

    :ivar clock: provides :class:`IClock`; the game schedules its timers on it.
    :ivar emit: called with each :class:`GameEvent` the game produces, synchronously
        from ``act``/``seat_player``/``leave`` or later from a timer.
    :ivar rng: the game's only random source: in the hub a
        :class:`hub.play.seeded.SeededRandom` of ``seed`` (unpredictable without the seed,
        the same stream when the game is resumed from its journal); a seeded
        ``random.Random`` in tests.
    :ivar game_id: the lobby's id for the game (for logs and hand ids).
    :ivar seed: the 32 bytes ``rng`` comes from (kept in the game's journal in the
        store, never sent to anyone; empty when the game was given another ``rng``).

    A game takes randomness only from ``rng`` and time only from ``clock`` (never
    ``random``, ``time`` or the reactor directly): so its journal replays it exactly
    (:mod:`hub.play.journal`).
    """

    clock: Clock
    emit: Callable[[GameEvent], None]
    rng: random.Random
    game_id: str = ""
    seed: bytes = b""


class ByName:
    """Keys filed under names, each key's names replaced at once: the games whose seats
    wait for a player, found by the player's name without a look at every game (a
    lobby's, a cluster directory's)."""

    def __init__(self) -> None:
        self._keys: dict[str, dict[str, None]] = {}
        self._names: dict[str, frozenset[str]] = {}

    def file(self, key: str, names: Iterable[str]) -> None:
        """``key`` is filed under ``names`` now (none: it goes)."""
        for name in self._names.pop(key, ()):
            keys = self._keys[name]
            del keys[key]
            if not keys:
                del self._keys[name]
        now = frozenset(names)
        for name in now:
            self._keys.setdefault(name, {})[key] = None
        if now:
            self._names[key] = now

    def under(self, name: str) -> list[str]:
        """The keys filed under ``name``, in the order they were filed."""
        return list(self._keys.get(name, ()))

    def __len__(self) -> int:
        """How many keys are filed."""
        return len(self._names)


__all__ = [
    "ByName",
    "CASH_OUT",
    "GAME_OVER",
    "GAME_STATES",
    "HAND_OVER",
    "OVER",
    "PAUSED",
    "RESUMED",
    "RUNNING",
    "SEAT_OPEN",
    "SeatView",
    "STATE",
    "TURN",
    "WAITING",
    "BadAction",
    "BuyinRange",
    "Conflict",
    "Elsewhere",
    "EventData",
    "GameConfig",
    "GameContext",
    "GameError",
    "GameEvent",
    "GameKind",
    "GameOption",
    "HandPlayer",
    "HandSummary",
    "Clock",
    "DelayedCall",
    "IClock",
    "LiveGame",
    "IllegalAction",
    "JsonMapping",
    "JsonText",
    "Chips",
    "NotFound",
    "OPTION_KINDS",
]
