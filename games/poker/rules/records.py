"""Frozen records of what happened (and what may happen next), the engine's output.

The records a hand makes by the dozen (:class:`Record`, :class:`Legal`, :class:`Turn`,
:class:`Pot`) are named tuples: as immutable as frozen dataclasses, and about half the
cost to build.  Their fields ``index`` and ``count`` hide the tuple methods of those
names (nobody needs them on a record).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NamedTuple

from .constants import ACTION_NAMES, BETTING, BLIND, CHECK, DISCARDING, FOLD, MUCK, SHOWING

#: a record from all its fields in order, ``new(Record, (kind, seat, ...))``: what
#: ``Record(...)`` builds, without its keyword handling (the engine's hot paths)
new = tuple.__new__


def _get(extra: tuple[tuple[str, Any], ...], key: str, default: Any) -> Any:
    for k, v in extra:
        if k == key:
            return v
    return default


class Pot(NamedTuple):
    """A pot: its amount and the seats that may win it (seat order)."""

    amount: Decimal
    eligible: tuple[int, ...]


class Record(NamedTuple):
    """A frozen record of one thing that happened.

    :ivar kind: ``seat`` (taken), ``addchips``, ``leaving``, ``leave``, ``sitout``,
        ``sitin``, ``autopost``,
        ``hand`` (new hand), ``post`` (a blind; ``dead`` part in ``extra``),
        ``refuse`` (a blind), ``hole`` (cards dealt to ``seat``), ``board``,
        ``fold``, ``check``, ``call``, ``bet``, ``raise``, ``discard``, ``return``
        (an uncalled bet back), ``pots`` (a betting round over), ``show``, ``muck``,
        ``award``, ``cancel`` (the hand ended in the blind round), ``handover``,
        ``timeout``.
    :ivar seat: the seat concerned, if any.
    :ivar amount: money moved (into the pot for actions, to the seat for awards).
    :ivar total: a bet or raise: the seat's total bet in this round afterwards.
    :ivar cards: cards (hole cards, board cards, shown cards, replacements).
    :ivar index: the protocol action index of a player action.
    :ivar allin: the action put the player all in.
    :ivar stage: betting stage (0 preflop/first, 1 flop, 2 turn, 3 river).
    :ivar text: words: a hand description, a name, a reason.
    :ivar pots: the pots (``pots`` records).
    :ivar extra: further (key, value) pairs.
    """

    kind: str
    seat: int | None = None
    amount: Decimal | None = None
    total: Decimal | None = None
    cards: tuple[int, ...] = ()
    index: int | None = None  # type: ignore[assignment]  # hides tuple.index
    allin: bool = False
    stage: int | None = None
    text: str = ""
    pots: tuple[Pot, ...] = ()
    extra: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key`` in :attr:`extra`."""
        return _get(self.extra, key, default)


class Legal(NamedTuple):
    """One legal action of the seat to act.

    :ivar index: the protocol action index.
    :ivar amount: the fixed amount (call amount, blind, fixed-limit bet/raise-to).
    :ivar min: smallest bet/raise-to (no limit, pot limit).
    :ivar max: largest bet/raise-to (no limit, pot limit).
    :ivar count: discard: most cards that may be changed.
    """

    index: int  # type: ignore[assignment]  # hides tuple.index
    amount: Decimal | None = None
    min: Decimal | None = None
    max: Decimal | None = None
    count: int | None = None  # type: ignore[assignment]  # hides tuple.count

    @property
    def name(self) -> str:
        """The action's name (``fold``, ``raise``...)."""
        return ACTION_NAMES[self.index]

    def to_dict(self) -> dict[str, Any]:
        """JSON-able form; amounts as decimal strings."""
        d: dict[str, Any] = {"index": self.index, "name": self.name}
        for key in ("amount", "min", "max"):
            v = getattr(self, key)
            if v is not None:
                d[key] = str(v)
        if self.count is not None:
            d["count"] = self.count
        return d


class Turn(NamedTuple):
    """Who must decide what: ``seat`` and ``kind`` (blind, bet, discard, show)."""

    seat: int
    kind: str


#: betting rounds whose fold and check records are shared (:data:`FOLDS`, :data:`CHECKS`)
SHARED_STAGES = 8
#: the fold records of a seat in a betting round, shared (records are immutable and
#: these say only who and when): ``FOLDS[stage][seat]`` for stages below 8
FOLDS = tuple(
    [
        tuple([Record("fold", s, index=FOLD, stage=g) for s in range(10)])
        for g in range(SHARED_STAGES)
    ]
)
#: the check records, shared as :data:`FOLDS`: ``CHECKS[stage][seat]``
CHECKS = tuple(
    [
        tuple([Record("check", s, index=CHECK, stage=g) for s in range(10)])
        for g in range(SHARED_STAGES)
    ]
)


def fold_record(seat: int, stage: int) -> Record:
    """The fold of ``seat`` in betting round ``stage`` (shared below :data:`SHARED_STAGES`)."""
    if stage < SHARED_STAGES:
        return FOLDS[stage][seat]
    return new(Record, ("fold", seat, None, None, (), FOLD, False, stage, "", (), ()))


def check_record(seat: int, stage: int) -> Record:
    """The check of ``seat`` in betting round ``stage``, shared as :func:`fold_record`."""
    if stage < SHARED_STAGES:
        return CHECKS[stage][seat]
    return new(Record, ("check", seat, None, None, (), CHECK, False, stage, "", (), ()))


#: the muck records, shared: ``MUCKS[seat]``
MUCKS = tuple([Record("muck", s, index=MUCK) for s in range(10)])

#: every turn there can be, ``TURNS[kind][seat]``, shared (a table has at most 10 seats;
#: building a named tuple costs more than looking one up)
TURNS = {k: tuple([Turn(s, k) for s in range(10)]) for k in (BLIND, BETTING, DISCARDING, SHOWING)}


@dataclass(frozen=True)
class HandRecord:
    """Everything about one finished hand (for history, statistics and export).

    :ivar players: ``(seat, name, stack at start)`` of each player dealt in or posting.
    :ivar hole: ``(seat, cards)`` of every player dealt in.
    :ivar shown: seats whose cards were shown.
    :ivar pots: the pots as split: after hands that could win nothing are out, with
        their remaining contenders (the pots announced at the end of each betting
        round are in the ``pots`` records of :attr:`actions`).
    :ivar actions: every record of the hand in order.
    :ivar awards: ``(seat, amount, pot index, hand text)``.
    :ivar deltas: ``(seat, won - put in)`` per player.
    :ivar dealt: ``(deck position, card)`` of every card taken from the deck.
    :ivar extra: what the host adds (``commitment``, ``seed``, ``game``...).
    """

    hand_id: str
    number: int
    game: str
    limit: int
    stakes: str
    small_blind: Decimal
    big_blind: Decimal
    button: int | None
    players: tuple[tuple[int, str, Decimal], ...]
    hole: tuple[tuple[int, tuple[int, ...]], ...]
    board: tuple[int, ...]
    shown: tuple[int, ...]
    actions: tuple[Record, ...]
    pots: tuple[Pot, ...]
    awards: tuple[tuple[int, Decimal, int, str], ...]
    deltas: tuple[tuple[int, Decimal], ...]
    dealt: tuple[tuple[int, int], ...]
    extra: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key`` in :attr:`extra`."""
        return _get(self.extra, key, default)

    def with_extra(self, **kw: Any) -> HandRecord:
        """A copy with more ``extra`` entries."""
        return dataclasses.replace(self, extra=self.extra + tuple(kw.items()))
