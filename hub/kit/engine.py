"""The pure half of the kit: what a game author writes (an :class:`Engine`) and what
every generic tool reads of it.  No Twisted, no sockets, no wire format: an engine is
plain functions over an immutable state, so the hub, a downloaded client and a search
bot run the same code.

An engine is a subclass of :class:`Engine` (``Engine[State, Move]``) that writes four
methods, as boardgame.io's game object and OpenSpiel's ``State`` do:

- ``setup(options, seats, rng)`` → the first state (randomness only from ``rng``);
- ``legal(state, seat)`` → the moves ``seat`` may make now (empty: not its turn);
- ``apply(state, seat, move)`` → the next state (``move`` is one of ``legal``; the
  state given is never changed);
- ``result(state)`` → ``None`` while the game goes on, else one score per seat (higher
  is better; equal scores tie).

The rest has defaults: ``view`` (what a seat sees: the whole state as JSON, for games
of perfect information), ``restore`` (a state from such a view, for search bots),
``text`` (the state in words, for terminals and the generic web page), ``describe``
and ``parse`` (a move in words, and back).
"""

from __future__ import annotations

import dataclasses
import json
import random
import types
import typing
from collections.abc import Iterator, Mapping, Sequence
from typing import ClassVar, Generic, TypeAlias, TypeVar, Union

from hub.model import GameOption as Option

from .board import Board
from .errors import Json, KitError

#: The value of a declared option.
OptionValue: TypeAlias = bool | int | float | str

S = TypeVar("S")
M = TypeVar("M")


class Options(Mapping[str, OptionValue]):
    """The checked options of one game: every declared option, given or defaulted."""

    def __init__(self, values: Mapping[str, OptionValue]) -> None:
        self._values = dict(values)

    def __getitem__(self, name: str) -> OptionValue:
        return self._values[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._values)

    def __len__(self) -> int:
        return len(self._values)

    def integer(self, name: str) -> int:
        """Option ``name`` as a whole number."""
        value = self._values[name]
        if isinstance(value, bool) or not isinstance(value, int):
            raise KitError(f"option {name} is not a whole number")
        return value

    def number(self, name: str) -> float:
        """Option ``name`` as a number."""
        value = self._values[name]
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise KitError(f"option {name} is not a number")
        return float(value)

    def text(self, name: str) -> str:
        """Option ``name`` as text (a ``text`` or ``choice`` option)."""
        return str(self._values[name])

    def flag(self, name: str) -> bool:
        """Option ``name`` as yes or no."""
        return bool(self._values[name])


def check_options(declared: Sequence[Option], given: Mapping[str, object]) -> Options:
    """The options of a new game: ``given`` checked against ``declared`` (an unknown
    name, a wrong kind or a value out of range is a :class:`KitError`), defaults filled."""
    known = {o.name: o for o in declared}
    for name in given:
        if name not in known:
            raise KitError(
                f"unknown option {name!r}" + (f" (known: {', '.join(known)})" if known else "")
            )
    values: dict[str, OptionValue] = {}
    for option in declared:
        values[option.name] = _option_value(option, given.get(option.name, option.default))
    return Options(values)


def _option_value(option: Option, value: object) -> OptionValue:
    name, kind = option.name, option.kind
    if kind == "bool":
        if isinstance(value, str) and value.lower() in ("true", "false", "yes", "no", "1", "0"):
            return value.lower() in ("true", "yes", "1")
        if not isinstance(value, bool):
            raise KitError(f"option {name} is yes or no")
        return value
    if kind in ("text", "choice", "decimal"):
        if not isinstance(value, str) or len(value) > 200:
            raise KitError(f"option {name} is a text of at most 200 characters")
        if kind == "choice" and value not in option.choices:
            raise KitError(f"option {name} is one of {', '.join(option.choices)}")
        return value
    number: int | float
    try:
        if isinstance(value, bool) or not isinstance(value, int | float | str):
            raise ValueError
        number = int(value) if kind == "int" else float(value)
    except ValueError:
        raise KitError(f"option {name} is a {'whole ' if kind == 'int' else ''}number") from None
    if kind == "int" and isinstance(value, float) and value != number:
        raise KitError(f"option {name} is a whole number")
    low, high = option.minimum, option.maximum
    if (low is not None and number < low) or (high is not None and number > high):
        raise KitError(f"option {name} is from {low} to {high}")
    return number


def jsonable(value: object) -> Json:
    """``value`` as JSON: dataclasses and named tuples as objects, tuples as lists.

    :raises TypeError: something else (a set, an object).
    """
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, float):
        return value
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, tuple) and hasattr(value, "_fields"):
        return {k: jsonable(v) for k, v in zip(value._fields, value, strict=True)}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    raise TypeError(f"{type(value).__name__} is not JSON: give the engine a view")


def decode(kind: object, value: Json) -> object:
    """A value of type ``kind`` (a dataclass, a named tuple, a tuple, a scalar, as
    :func:`jsonable` writes them) from its JSON: how :meth:`Engine.restore` rebuilds a
    state from a view.

    :raises KitError: the JSON does not fit the type.
    """
    origin = typing.get_origin(kind)
    args = typing.get_args(kind)
    if kind is typing.Any or kind is object:
        return value
    if origin in (Union, types.UnionType):
        for arm in args:
            try:
                return decode(arm, value)
            except KitError:
                continue
        raise KitError(f"{value!r} is none of {kind}")
    if kind is type(None):
        if value is None:
            return None
        raise KitError(f"{value!r} is not null")
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        hints = typing.get_type_hints(kind)
        data = _object(value, kind.__name__)
        fields = [f for f in dataclasses.fields(kind) if f.init]
        return kind(
            **{f.name: decode(hints[f.name], data[f.name]) for f in fields if f.name in data}
        )
    if isinstance(kind, type) and issubclass(kind, tuple) and hasattr(kind, "_fields"):
        hints = typing.get_type_hints(kind)
        data = _object(value, kind.__name__)
        return kind(**{k: decode(hints[k], data[k]) for k in kind._fields if k in data})
    if origin is tuple:
        items = _array(value)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(decode(args[0], v) for v in items)
        if len(args) != len(items):
            raise KitError(f"{value!r} does not have {len(args)} items")
        return tuple(decode(a, v) for a, v in zip(args, items, strict=True))
    if origin is list:
        return [decode(args[0] if args else object, v) for v in _array(value)]
    if kind is bool:
        if isinstance(value, bool):
            return value
    elif kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    elif kind is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
    elif kind is str:
        if isinstance(value, str):
            return value
    else:
        raise KitError(f"cannot rebuild a {kind} from JSON: write the engine's restore")
    raise KitError(f"{value!r} is not a {getattr(kind, '__name__', kind)}")


def _object(value: Json, name: str) -> dict[str, Json]:
    if not isinstance(value, dict):
        raise KitError(f"a {name} is a JSON object")
    return value


def _array(value: Json) -> list[Json]:
    if not isinstance(value, list):
        raise KitError(f"{value!r} is not a list")
    return value


class Engine(Generic[S, M]):
    """A game's rules: subclass it as ``Engine[State, Move]`` and write ``setup``,
    ``legal``, ``apply`` and ``result`` (the others have defaults).

    Class attributes say what the game is: ``name`` (the game type, ``[a-z0-9-]``, the
    ``.meta``'s name), ``summary``, ``min_seats``/``max_seats``/``default_seats``,
    ``options`` (a tuple of :class:`Option`), ``move_ms`` (a move's time by default;
    the kit adds the option ``move_time``), ``rules`` (a text file in the package
    shown at ``/rules/<type>``, or ``None``) and ``board`` (a two-player game's
    :class:`~hub.kit.board.Board`: it is then also played over MNM, and writes
    :meth:`board_pieces` and :meth:`board_move`).

    A state must never be changed once made (``apply`` returns a new one): search
    bots keep the states they explored.  A move is any value the engine likes (a
    number, a tuple, a named tuple): on the wire it is :func:`jsonable` of it, and the
    kit hands ``apply`` the engine's own legal move that matches what a player sent.
    """

    name: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    min_seats: ClassVar[int] = 2
    max_seats: ClassVar[int] = 2
    default_seats: ClassVar[int | None] = None
    options: ClassVar[tuple[Option, ...]] = ()
    move_ms: ClassVar[int] = 60_000
    rules: ClassVar[str | None] = None
    board: ClassVar[Board | None] = None

    # -- what every engine writes --------------------------------------------------------

    def setup(self, options: Options, seats: int, rng: random.Random) -> S:
        """The first state of a game of ``seats`` seats."""
        raise NotImplementedError

    def legal(self, state: S, seat: int) -> Sequence[M]:
        """The moves ``seat`` may make in ``state`` (empty when it is not to move)."""
        raise NotImplementedError

    def apply(self, state: S, seat: int, move: M) -> S:
        """The state after ``seat`` made ``move`` (one of :meth:`legal`)."""
        raise NotImplementedError

    def result(self, state: S) -> Sequence[float] | None:
        """``None`` while the game goes on, else one score per seat."""
        raise NotImplementedError

    # -- defaults ------------------------------------------------------------------------

    def view(self, state: S, seat: int | None) -> Json:
        """What ``seat`` (``None``: a spectator) sees: by default the whole state (a
        game of perfect information).  A game with secrets writes its own, and its
        own :meth:`restore`."""
        return jsonable(state)

    def restore(self, view: Json, seat: int | None) -> S:
        """A state consistent with ``view`` (what search bots play from): by default the
        state :meth:`view` wrote whole, rebuilt from the engine's ``State`` type."""
        return typing.cast(S, decode(self.state_type(), view))

    def text(self, state: S, seat: int | None) -> str:
        """The state in words for ``seat`` (terminals, the generic web page)."""
        return json.dumps(self.view(state, seat), indent=1)

    def describe(self, move: M) -> str:
        """A move in a few words (a button's label; what a terminal player types)."""
        return json.dumps(jsonable(move))

    def parse(self, text: str, legal: Sequence[M]) -> M:
        """The move of ``legal`` that ``text`` names: its number in the list (from 1),
        its :meth:`describe` words or its JSON.

        :raises KitError: ``text`` names none of them.
        """
        said = " ".join(text.split()).lower()
        if said.isdigit() and 1 <= int(said) <= len(legal):
            return legal[int(said) - 1]
        for move in legal:
            if said in (self.describe(move).lower(), json.dumps(jsonable(move)).lower()):
                return move
        raise KitError(f"{text.strip()!r} is not one of the legal moves")

    def summary_of(self, state: S, names: Sequence[str]) -> str:
        """The end in a few words: who won, or a draw."""
        scores = self.result(state) or ()
        return outcome_words(list(scores), names)

    # -- a board over MNM (only with ``board``) --------------------------------------------

    def board_pieces(self, state: S) -> Sequence[Sequence[str]]:
        """Where each seat's pieces are (a row per seat, piece ``i`` staying ``i``): a
        field of the board, ``A`` not yet placed (the kit fills short rows with it) or
        ``C`` captured; the whole board, whoever looks."""
        raise NotImplementedError(f"{type(self).__name__} declares a board: write board_pieces")

    def board_move(self, move: M) -> str:
        """``move`` as a ``PLAY`` line writes it: a field (``B3``) or fields joined by
        ``:`` (``A1:B1``).  By default its :meth:`describe` words."""
        return self.describe(move)

    # -- for the kit ---------------------------------------------------------------------

    @classmethod
    def state_type(cls) -> object:
        """The ``State`` of ``Engine[State, Move]`` this class was written as."""
        for klass in cls.__mro__:
            for base in getattr(klass, "__orig_bases__", ()):
                origin, args = typing.get_origin(base), typing.get_args(base)
                if isinstance(origin, type) and issubclass(origin, Engine) and args:
                    if not isinstance(args[0], TypeVar):
                        return args[0]
        raise KitError(f"{cls.__name__} does not say its state type: Engine[State, Move]")

    def to_move(self, state: S, seats: int) -> list[int]:
        """The seats with a move to make (none once the game is over)."""
        if self.result(state) is not None:
            return []
        return [s for s in range(seats) if self.legal(state, s)]


def winners(scores: Sequence[float]) -> list[int]:
    """The seats with the best score; none when every seat has it (a draw)."""
    if not scores or min(scores) == max(scores):
        return []
    best = max(scores)
    return [s for s, v in enumerate(scores) if v == best]


def rewards(scores: Sequence[float]) -> list[float]:
    """Each seat's share in ``[0, 1]``: the seats it beat, a half for each it tied,
    over the others (two seats: 1 a win, ½ a draw, 0 a loss)."""
    n = len(scores)
    if n < 2:
        return [1.0] * n
    return [
        sum(1.0 if v > w else 0.5 if v == w else 0.0 for j, w in enumerate(scores) if j != i)
        / (n - 1)
        for i, v in enumerate(scores)
    ]


def outcome_words(scores: Sequence[float], names: Sequence[str]) -> str:
    """``"ann wins"``, ``"ann and bob win"`` or ``"a draw"``."""
    best = winners(scores)
    if not best:
        return "a draw"
    who = [names[s] if s < len(names) and names[s] else f"seat {s}" for s in best]
    return f"{who[0]} wins" if len(who) == 1 else f"{', '.join(who[:-1])} and {who[-1]} win"


__all__ = [
    "Engine",
    "Json",
    "KitError",
    "Option",
    "OptionValue",
    "Options",
    "check_options",
    "decode",
    "jsonable",
    "outcome_words",
    "rewards",
    "winners",
]
