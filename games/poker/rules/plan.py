"""What a table works out once for its config, and the amounts it shares between hands.

A *deep* hand (:attr:`.state.Hand.deep`) is a fixed-limit hand with a cap where every
stack covers :attr:`Plan.most`, the most the whole hand can ask of one player: nobody
can go all in, so every betting round is roomy.  A *counted* hand
(:attr:`.state.Hand.counted`) is a deep hand started plainly (both blinds posted by
themselves, nobody owing more) at a table whose blinds and bets are whole numbers of
exponent 0 (``Decimal(2)``, not ``Decimal("2.00")``): every bet, call and pot of its
betting is then a whole number of exponent 0 as well (sums and differences of such),
which the hand also keeps as an ``int``; the Decimals, legal actions and records that
depend only on those numbers are made once and shared by all hands (they are
immutable), instead of being computed again at every decision.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TypeVar

from .config import TableConfig
from .constants import BET, BET_ROUND, CALL, CHECK, FIXED_LIMIT, FOLD, POST, RAISE
from .money import ZERO
from .records import Legal, Pot, Record, new

K = TypeVar("K")
V = TypeVar("V")
_ONE = Decimal(1)
#: the most entries each shared table keeps (a full one starts again empty: a table
#: that sees ever new numbers does not grow without end)
SHARED_MOST = 4096
#: the legal actions without an amount, shared (records are immutable)
FOLD_LEGAL, CHECK_LEGAL = Legal(FOLD), Legal(CHECK)


class Plan:
    """What a table derives from its config (see the module).

    :ivar config: the config it was made for.
    :ivar most: fixed limit with a cap: the most one player can put into a hand where
        nobody is all in (the big blind, then every betting round raised to its cap);
        ``None`` otherwise.
    :ivar whole: fixed limit with a cap, and the blinds and bets are whole numbers of
        exponent 0 (the hands can be counted).
    :ivar small_blind: the small blind as an ``int`` (0 unless :attr:`whole`); the same
        for ``big_blind``, ``small_bet`` and ``big_bet``.
    :ivar posts: the records of a blind posted at a plain start by (seat, ``small``
        or ``big``), made on first use.
    """

    __slots__ = (
        "config",
        "most",
        "whole",
        "small_blind",
        "big_blind",
        "small_bet",
        "big_bet",
        "posts",
    )

    def __init__(self, cfg: TableConfig) -> None:
        self.config = cfg
        most: Decimal | None = None
        if cfg.limit == FIXED_LIMIT and cfg.cap is not None:
            most = cfg.big_blind
            for step in cfg.variant.steps:
                if step.state == BET_ROUND:
                    most += cfg.cap * (cfg.big_bet if step.big else cfg.small_bet)
        self.most = most
        amounts = (cfg.small_blind, cfg.big_blind, cfg.small_bet, cfg.big_bet)
        self.whole = most is not None and all(a.same_quantum(_ONE) for a in amounts)
        ints = [int(a) for a in amounts] if self.whole else [0, 0, 0, 0]
        self.small_blind, self.big_blind, self.small_bet, self.big_bet = ints
        self.posts: dict[tuple[int, str], Record] = {}

    def post(self, seat: int, what: str, blind: Decimal) -> Record:
        """The record of ``seat`` posting ``blind`` (``small`` or ``big``) in full at a
        plain start of a counted hand (what :meth:`.blinds.BlindsPart._post` records:
        ``ZERO + blind`` is ``blind`` when its exponent is 0)."""
        rec = self.posts.get((seat, what))
        if rec is None:
            dead = (("dead", ZERO),)
            rec = new(Record, ("post", seat, blind, blind, (), POST, False, 0, what, (), dead))
            self.posts[(seat, what)] = rec
        return rec


def keep(table: dict[K, V], key: K, value: V) -> V:
    """Put ``value`` in the shared ``table`` under ``key`` (emptied first when it holds
    :data:`SHARED_MOST` entries); returns ``value``."""
    if len(table) >= SHARED_MOST:
        table.clear()
    table[key] = value
    return value


class Amounts(dict[int, Decimal]):
    """``int`` → the :class:`~decimal.Decimal` of exponent 0 with that value, made on
    first use and shared (a lookup costs less than Decimal arithmetic)."""

    def __missing__(self, value: int) -> Decimal:
        return keep(self, value, Decimal(value))


class Shared:
    """The legal actions and records of counted hands, by their numbers, made on first
    use and shared by all the hands of a table (they are immutable)."""

    __slots__ = ("amounts", "legal", "bets", "returns", "pots", "awards")

    def __init__(self) -> None:
        self.amounts = Amounts()
        #: to call → wager (its total; negative for a bet, 0: none) → legal actions
        self.legal: dict[int, dict[int, tuple[Legal, ...]]] = {}
        #: (action index, seat, stage, amount, total) → the call, bet or raise record
        self.bets: dict[tuple[int, int, int, int, int], Record] = {}
        #: (seat, stage, amount) → the record of an uncalled bet going back
        self.returns: dict[tuple[int, int, int], Record] = {}
        #: (stage, pot, seats in it) → the pot and its ``pots`` record
        self.pots: dict[tuple[int, int, tuple[int, ...]], tuple[Pot, Record]] = {}
        #: (seat, pot) → the record of the seat taking the pot (every other folded)
        self.awards: dict[tuple[int, Pot], Record] = {}

    def legal_actions(self, to_call: int, wager: int) -> tuple[Legal, ...]:
        """The legal actions facing ``to_call`` with a bet (``wager`` < 0: to ``-wager``)
        or a raise (``wager`` > 0: to ``wager``) allowed or not (0), made and kept in
        :attr:`legal` (read it first: ``legal[to_call][wager]``)."""
        row = self.legal.get(to_call)
        if row is None:
            row = keep(self.legal, to_call, {})
        out = row.get(wager)
        if out is None:
            amounts = self.amounts
            w: tuple[Legal, ...] = ()
            if wager:
                idx = RAISE if wager > 0 else BET
                w = (new(Legal, (idx, amounts[abs(wager)], None, None, None)),)
            if to_call:
                call = new(Legal, (CALL, amounts[to_call], None, None, None))
                out = (FOLD_LEGAL, call, *w)
            else:
                out = (CHECK_LEGAL, *w)
            keep(row, wager, out)
        return out
