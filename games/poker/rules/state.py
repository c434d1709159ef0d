"""The mutable state of a table: seated players and the hand in progress."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from .constants import BLIND_ROUND
from .money import ZERO
from .records import Pot, Record


@dataclass
class Player:
    """A seated player (mutable table bookkeeping)."""

    seat: int
    name: str
    stack: Decimal
    sitting_out: bool = False
    new: bool = True  #: never posted a big blind here: owes one to be dealt in
    missed_small: bool = False
    missed_big: bool = False
    sit_out_next: bool = False
    leaving: bool = False
    auto_post: bool = False


@dataclass
class Hand:
    """The mutable state of the hand in progress."""

    hand_id: str
    number: int
    deck: list[int]
    button: int
    sb_seat: int | None
    bb_seat: int | None
    start_stacks: dict[int, Decimal]
    #: chips over the table's hand stack, set aside until the hand is over
    reserve: dict[int, Decimal] = field(default_factory=dict)
    step: int = 0
    state: str = BLIND_ROUND
    deck_pos: int = 0
    dealt: list[tuple[int, int]] = field(default_factory=list)
    seats: list[int] = field(default_factory=list)  #: dealt in, seat order left of button
    candidates: list[int] = field(default_factory=list)  #: sitting in at the start
    owed: dict[int, tuple[Decimal, Decimal]] = field(default_factory=dict)  #: live, dead
    dead_paid: dict[int, Decimal] = field(default_factory=dict)
    blind_queue: list[int] = field(default_factory=list)
    refused: set[int] = field(default_factory=set)
    posted: set[int] = field(default_factory=set)
    hole: dict[int, list[int]] = field(default_factory=dict)
    board: list[int] = field(default_factory=list)
    bets: dict[int, Decimal] = field(default_factory=dict)  #: live bets this round
    contrib: dict[int, Decimal] = field(default_factory=dict)  #: live money this hand
    dead: Decimal = ZERO
    folded: set[int] = field(default_factory=set)
    allin: set[int] = field(default_factory=set)
    needs_act: set[int] = field(default_factory=set)
    may_raise: set[int] = field(default_factory=set)
    current_bet: Decimal = ZERO
    bets_count: int = 0
    min_raise: Decimal = ZERO  #: no limit / pot limit: smallest raise increment
    stage: int = -1
    bet_size: Decimal = ZERO
    aggressor: int | None = None  #: last bettor/raiser of the last round with a bet
    to_act: int | None = None
    kind: str | None = None
    discarded: set[int] = field(default_factory=set)
    show_queue: list[int] = field(default_factory=list)
    shown: set[int] = field(default_factory=set)
    mucked: set[int] = field(default_factory=set)
    pots: list[Pot] = field(default_factory=list)
    awards: list[tuple[int, Decimal, int, str]] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    winners: set[int] = field(default_factory=set)
    values: dict[int, int] = field(default_factory=dict)
    over: bool = False

    def live(self) -> list[int]:
        """Seats still in the hand (not folded), in order."""
        return [s for s in self.seats if s not in self.folded]

    def can_bet(self) -> list[int]:
        """Seats still in and not all in."""
        return [s for s in self.seats if s not in self.folded and s not in self.allin]
