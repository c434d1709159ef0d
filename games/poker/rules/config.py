"""Immutable table parameters: a variant as a sequence of steps, and the table config."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .constants import (
    BET_ROUND,
    BLIND_ROUND,
    DEAL_CARDS,
    DISCARD_ROUND,
    FIXED_LIMIT,
    LIMIT_NAMES,
    MUCK_ROUND,
    NEW_DEAL,
    SHOWDOWN,
    WINNINGS,
)
from .money import ZERO, money


@dataclass(frozen=True)
class Step:
    """One state of a variant's sequence.

    :ivar state: one of the state names (``BET_ROUND``...).
    :ivar count: cards to deal (``NEW_DEAL``: hole cards; ``DEAL_CARDS``: board cards).
    :ivar big: a bet round played with the big bet.
    """

    state: str
    count: int = 0
    big: bool = False


@dataclass(frozen=True)
class Variant:
    """A poker game as a sequence of steps.

    :ivar name: the game type name.
    :ivar steps: the states a hand walks through.
    :ivar max_discard: most cards a player may change in a discard round.
    """

    name: str
    steps: tuple[Step, ...]
    max_discard: int = 0

    def __post_init__(self) -> None:
        shown = self.hole_count + self.board_count
        if not 5 <= shown <= 7:
            raise ValueError(f"{self.name}: a hand is 5 to 7 cards (hole and board), not {shown}")

    @property
    def hole_count(self) -> int:
        """Hole cards per player."""
        return sum(s.count for s in self.steps if s.state == NEW_DEAL)

    @property
    def board_count(self) -> int:
        """Board cards of a full hand."""
        return sum(s.count for s in self.steps if s.state == DEAL_CARDS)

    def cards_needed(self, players: int) -> int:
        """The most cards a hand with ``players`` players can use (burns included)."""
        deals = sum(1 for s in self.steps if s.state == DEAL_CARDS)
        return players * (self.hole_count + self.max_discard) + self.board_count + deals


TEXAS_HOLDEM = Variant(
    "texas-holdem",
    (
        Step(BLIND_ROUND),
        Step(NEW_DEAL, 2),
        Step(BET_ROUND),
        Step(DEAL_CARDS, 3),
        Step(BET_ROUND),
        Step(DEAL_CARDS, 1),
        Step(BET_ROUND, big=True),
        Step(DEAL_CARDS, 1),
        Step(BET_ROUND, big=True),
        Step(WINNINGS),
        Step(MUCK_ROUND),
        Step(SHOWDOWN),
    ),
)

FIVE_CARD_DRAW = Variant(
    "five-card-draw",
    (
        Step(BLIND_ROUND),
        Step(NEW_DEAL, 5),
        Step(BET_ROUND),
        Step(DISCARD_ROUND),
        Step(BET_ROUND, big=True),
        Step(WINNINGS),
        Step(MUCK_ROUND),
        Step(SHOWDOWN),
    ),
    max_discard=3,
)


@dataclass(frozen=True)
class TableConfig:
    """Immutable parameters of a table.

    :ivar variant: the game (:data:`TEXAS_HOLDEM` or :data:`FIVE_CARD_DRAW`).
    :ivar limit: :data:`FIXED_LIMIT`, :data:`POT_LIMIT` or :data:`NO_LIMIT`.
    :ivar small_bet: the small bet S of stakes "S/2S"; the big blind is S.
    :ivar big_bet: the big bet (0, the default: 2S).
    :ivar small_blind: 0 (the default): half the big blind.
    :ivar big_blind: 0 (the default): S.
    :ivar cap: most bets per round (a bet and three raises; preflop the big blind
        counts); ``None``: no cap; 0 (the default): 4 for fixed limit, no cap for no
        limit and pot limit.
    :ivar seats: number of seats.
    :ivar min_players: players sitting in needed to start a hand.
    :ivar chip: the smallest unit money is split into (odd chips).
    :ivar burn: burn a card before each board street.
    :ivar hand_stack: ``None`` (the default): a hand is played with the whole stacks;
        else every hand starts from at most this much of each stack, the rest set aside
        until the hand is over (stacks reset every hand, as in computer poker
        matches: chips won are counted, not carried).
    :ivar show_all: at a showdown every player who did not fold shows (nobody is
        asked to show or muck), as the computer poker competition's dealer plays.
    :ivar ante: what every player dealt in puts in the pot before the betting, dead
        money (0, the default: no ante).
    """

    variant: Variant = TEXAS_HOLDEM
    limit: int = FIXED_LIMIT
    small_bet: Decimal = Decimal(10)
    big_bet: Decimal = ZERO
    small_blind: Decimal = ZERO
    big_blind: Decimal = ZERO
    cap: int | None = 0
    seats: int = 10
    min_players: int = 2
    chip: Decimal = Decimal("0.01")
    burn: bool = True
    hand_stack: Decimal | None = None
    show_all: bool = False
    ante: Decimal = ZERO

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "small_bet", money(self.small_bet, "small bet"))
        for name in ("big_bet", "small_blind", "big_blind"):
            set_(self, name, money(getattr(self, name), name.replace("_", " ")))
        if not self.big_bet:
            set_(self, "big_bet", self.small_bet * 2)
        if not self.big_blind:
            set_(self, "big_blind", self.small_bet)
        if not self.small_blind:
            set_(self, "small_blind", money(self.big_blind / 2, "small blind (half the big)"))
        set_(self, "chip", money(self.chip, "chip"))
        set_(self, "ante", money(self.ante, "ante"))
        if self.ante < 0:
            raise ValueError("the ante must not be negative")
        if self.hand_stack is not None:
            set_(self, "hand_stack", money(self.hand_stack, "hand stack"))
            if self.hand_stack < self.big_blind:
                raise ValueError("the hand stack must be at least the big blind")
        if self.limit not in LIMIT_NAMES:
            raise ValueError(f"unknown limit style {self.limit!r}")
        if not (ZERO < self.small_blind <= self.big_blind) or self.small_bet <= 0:
            raise ValueError("blinds and bets must be positive, small blind <= big blind")
        if self.big_bet < self.small_bet:
            raise ValueError("the big bet must be at least the small bet")
        if self.chip <= 0:
            raise ValueError("the chip must be positive")
        if self.cap == 0:
            set_(self, "cap", 4 if self.limit == FIXED_LIMIT else None)
        if self.cap is not None and self.cap < 1:
            raise ValueError("the cap must be at least one bet")
        if not 2 <= self.seats <= 10:
            raise ValueError("a table has 2 to 10 seats")
        if not 2 <= self.min_players <= self.seats:
            raise ValueError("min players must be between 2 and the number of seats")
        if self.variant.cards_needed(self.seats) > 52:
            raise ValueError(f"{self.variant.name} cannot deal to {self.seats} seats")

    @property
    def stakes(self) -> str:
        """The stakes as people write them: ``"10/20"``."""
        return f"{self.small_bet}/{self.big_bet}"
