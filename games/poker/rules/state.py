"""The mutable state of a table: seated players and the hand in progress."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from .constants import BLIND_ROUND
from .money import ZERO
from .records import Legal, Pot, Record


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
    auto_muck: bool = False  #: never asked to show: a hand not shown down is mucked


class Hand:
    """The mutable state of the hand in progress.

    A plain class with slots (a hand is made every deal; a dataclass with two dozen
    default factories cost more than the hand's first bet): the keyword arguments are
    the dataclass's were, the other attributes start empty.
    """

    __slots__ = (
        "hand_id",
        "number",
        "deck",
        "button",
        "sb_seat",
        "bb_seat",
        "start_stacks",
        "reserve",
        "step",
        "state",
        "deck_pos",
        "seats",
        "candidates",
        "owed",
        "dead_paid",
        "blind_queue",
        "refused",
        "posted",
        "hole",
        "board",
        "bets",
        "contrib",
        "dead",
        "folded",
        "allin",
        "needs_act",
        "may_raise",
        "current_bet",
        "bets_count",
        "min_raise",
        "stage",
        "bet_size",
        "aggressor",
        "to_act",
        "kind",
        "discarded",
        "show_queue",
        "shown",
        "mucked",
        "pots",
        "awards",
        "records",
        "winners",
        "values",
        "over",
        "legal",
        "roomy",
        "deep",
        "counted",
        "icurrent",
        "ibets",
        "icontrib",
        "ibet",
        "__dict__",  # a host (or a test) may note its own things on the hand
    )

    def __init__(
        self,
        hand_id: str,
        number: int,
        deck: list[int],
        button: int,
        sb_seat: int | None,
        bb_seat: int | None,
        start_stacks: dict[int, Decimal],
        reserve: dict[int, Decimal] | None = None,
    ) -> None:
        self.hand_id = hand_id
        self.number = number
        self.deck = deck
        self.button = button
        self.sb_seat = sb_seat
        self.bb_seat = bb_seat
        self.start_stacks = start_stacks
        #: chips over the table's hand stack, set aside until the hand is over
        self.reserve: dict[int, Decimal] = {} if reserve is None else reserve
        self.step = 0
        self.state = BLIND_ROUND
        self.deck_pos = 0
        self.seats: list[int] = []  #: dealt in, seat order left of button
        self.candidates: list[int] = []  #: sitting in at the start
        self.owed: dict[int, tuple[Decimal, Decimal]] = {}  #: live, dead
        self.dead_paid: dict[int, Decimal] = {}
        self.blind_queue: list[int] = []
        self.refused: set[int] = set()
        self.posted: set[int] = set()
        self.hole: dict[int, list[int]] = {}
        self.board: list[int] = []
        self.bets: dict[int, Decimal] = {}  #: live bets this round
        self.contrib: dict[int, Decimal] = {}  #: live money this hand
        self.dead: Decimal = ZERO
        self.folded: set[int] = set()
        self.allin: set[int] = set()
        self.needs_act: set[int] = set()
        self.may_raise: set[int] = set()
        self.current_bet: Decimal = ZERO
        self.bets_count = 0
        self.min_raise: Decimal = ZERO  #: no limit / pot limit: smallest raise increment
        self.stage = -1
        self.bet_size: Decimal = ZERO
        self.aggressor: int | None = None  #: last bettor/raiser of the last round with a bet
        self.to_act: int | None = None
        self.kind: str | None = None
        self.discarded: set[int] = set()
        self.show_queue: list[int] = []
        self.shown: set[int] = set()
        self.mucked: set[int] = set()
        self.pots: list[Pot] = []
        self.awards: list[tuple[int, Decimal, int, str]] = []
        self.records: list[Record] = []
        self.winners: set[int] = set()
        self.values: dict[int, int] = {}
        self.over = False
        #: the legal actions of the decision pending, once asked for: (seat, records
        #: so far, the actions); any record made since makes it stale
        self.legal: tuple[int, int, tuple[Legal, ...]] | None = None
        #: the betting round is fixed limit with a cap, nobody is all in and every
        #: stack covers the most the round can ask of it: nobody can go all in before
        #: the round ends, so every raise is a full one, whoever must act may raise
        #: (until the cap) and every call is the whole amount (the betting shortcuts of
        #: :meth:`.betting.BettingPart._act_roomy` and :meth:`.table.Table.legal_actions`)
        self.roomy = False
        #: fixed limit with a cap, nobody all in, and every stack covers the most the
        #: whole hand can ask of it (:meth:`.base.TableBase._hand_reach`): every betting
        #: round of the hand is roomy
        self.deep = False
        #: a deep hand of whole-number amounts started plainly (see :mod:`.plan`): its
        #: betting also keeps the current bet, the bets of the round, the money in and
        #: the bet size as ints (``icurrent``, ``ibets``, ``icontrib``, ``ibet``)
        self.counted = False
        self.icurrent = 0
        self.ibets: dict[int, int] = {}
        self.icontrib: dict[int, int] = {}
        self.ibet = 0

    @property
    def dealt(self) -> list[tuple[int, int]]:
        """``(deck position, card)`` of every card taken from the deck so far: cards
        are dealt from its front in order (hole cards, burns, board, replacements)."""
        return list(enumerate(self.deck[: self.deck_pos]))

    def live(self) -> list[int]:
        """Seats still in the hand (not folded), in order."""
        return [s for s in self.seats if s not in self.folded]

    def can_bet(self) -> list[int]:
        """Seats still in and not all in."""
        return [s for s in self.seats if s not in self.folded and s not in self.allin]
