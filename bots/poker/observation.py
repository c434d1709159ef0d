"""What a poker bot decides on: a frozen snapshot of one seat's point of view.

The bots number the decisions their policies choose between (0 fold, 1 check, 2 call,
3 bet, 4 raise, 5 post blind, 6 sit out, 7 sit in, 8 show, 9 muck, 10 discard);
:data:`BY_NAME` gives the number of each of the game's action names (its legal actions
and actions are named: ``{"name": "raise", "amount": "20"}``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

FOLD, CHECK, CALL, BET, RAISE, POST_BLIND, SIT_OUT, SIT_IN, SHOW, MUCK, DISCARD = range(11)
#: the betting decisions
BETTING = (FOLD, CHECK, CALL, BET, RAISE)
ACTION_NAMES = (
    "fold", "check", "call", "bet", "raise", "post blind", "sit out", "sit in", "show",
    "muck", "discard",
)  # fmt: skip

#: the game's action name → the bots' decision number
BY_NAME = {
    "fold": FOLD,
    "check": CHECK,
    "call": CALL,
    "bet": BET,
    "raise": RAISE,
    "post": POST_BLIND,
    "sitout": SIT_OUT,
    "sitin": SIT_IN,
    "show": SHOW,
    "muck": MUCK,
    "discard": DISCARD,
}

PREFLOP, FLOP, TURN, RIVER = range(4)


@dataclass(frozen=True)
class Opponent:
    """One opponent still in the hand.

    :ivar seat: the seat.
    :ivar aggressive: bets and raises (blinds excluded) this hand.
    :ivar passive: checks and calls this hand.
    :ivar range_width: fraction (0..1] of starting hands the opponent is modelled to
        hold; 1.0 = any two cards.  Set by whoever builds the observation (a stateful
        bot may learn it from the opponent's habits); the policies only read it.
    """

    seat: int
    aggressive: int = 0
    passive: int = 0
    range_width: float = 1.0


@dataclass(frozen=True)
class Observation:
    """One decision of one seat, in chips (``Decimal``) and cards (ints 0..51).

    :ivar hole: own hole cards.
    :ivar board: community cards so far.
    :ivar legal: legal action indices (see the module docstring).
    :ivar street: 0 preflop, 1 flop, 2 turn, 3 river.
    :ivar pot: chips in the middle including every bet of this round.
    :ivar to_call: chips needed to call (0 when a check is possible).
    :ivar bet_size: the size of a bet or raise now (fixed limit: small or big bet).
    :ivar big_blind: the big blind (the unit of results).
    :ivar stack: own chips behind.
    :ivar raises: bets and raises this round so far (the big blind counts preflop).
    :ivar cap: most bets per round (4 by default).
    :ivar position: 0 = first to act after the flop … ``players - 1`` = the button.
    :ivar players: players still in the hand, self included.
    :ivar to_act_after: players still to act after this seat in this round.
    :ivar opponents: the other players still in the hand.
    """

    hole: tuple[int, ...]
    board: tuple[int, ...] = ()
    legal: tuple[int, ...] = (FOLD, CALL, RAISE)
    street: int = PREFLOP
    pot: Decimal = Decimal(0)
    to_call: Decimal = Decimal(0)
    bet_size: Decimal = Decimal(0)
    big_blind: Decimal = Decimal(1)
    stack: Decimal = Decimal(1000)
    raises: int = 0
    cap: int = 4
    position: int = 0
    players: int = 2
    to_act_after: int = 0
    opponents: tuple[Opponent, ...] = field(default_factory=tuple)

    @property
    def pot_odds(self) -> float:
        """Share of the final pot a call costs: ``to_call / (pot + to_call)``."""
        if self.to_call <= 0:
            return 0.0
        return float(self.to_call / (self.pot + self.to_call))

    @property
    def in_position(self) -> bool:
        """Whether nobody acts after this seat on later streets."""
        return self.position == self.players - 1
