"""The poker rules engine: a generic table whose sequence of states is data.

Pure: no sockets, XML or Twisted.  A :class:`Table` holds the seats (players, stacks,
sit-out and missed-blind bookkeeping) and, while a hand runs, a :class:`Hand`.  A hand
walks through the :class:`Step` sequence of its :class:`Variant` (Texas Hold'em: blind
round, new deal, bet round, deal 3, bet round, deal 1, bet round, deal 1, bet round,
winnings, muck round, showdown) and stops whenever a player must decide something:
:attr:`Table.turn` then names the seat and the kind of decision (``blind``, ``bet``,
``discard``, ``show``), and :meth:`Table.legal_actions` lists what that seat may do.

Every action follows pokerkit's verify/can/do pattern: ``verify_x`` raises
:class:`RuleError` with a reason, ``can_x`` answers yes or no, and ``x`` verifies, changes
the state and returns a frozen :class:`Record` of what happened.  Everything that
happened (including what the engine did on its own: dealing, pots, awards) is appended
to a log that :meth:`Table.drain` hands out, so a front end can turn it into events.

Money is :class:`decimal.Decimal` (an ``int`` or a decimal string is converted); a
``float`` is refused with :class:`TypeError`.

Table rules settled here where poker-rules.md leaves a choice: the button moves to the
next player sitting in (a moving button, no dead button); heads-up the button posts
the small blind.  A newcomer posts a big blind (live) to be dealt in unless in the big
blind (nobody owes it while the table starts).  A player the big blind passed while
sitting out owes the big blind live and the small blind dead on return; one only the
small blind passed owes it dead.  Refusing a blind (or letting its timer run out) sits
the player out; a refused big blind moves to the next player.  An all-in for less than
a full raise does not reopen the betting and does not count towards the cap.  At the
showdown hands that cannot win any pot are out first; neighbouring pots whose
remaining contenders coincide are split as one (pokerkit's convention, which only
moves odd chips); each pot goes in equal whole chips to its best hands, the odd chips
to the first winner left of the button.

Cards are ints 0–51 (``rank * 4 + suit``, see :mod:`.cards`).  The deck is injected
per hand (:meth:`Table.start_hand`), so tests can stack it; cards are dealt from its
front in this documented order: hole cards one at a time around the table starting
left of the button, then (Hold'em) one burn card before each board street, and (draw)
replacement cards in the order players discard.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal, InvalidOperation
from typing import Any

# -- action indices (as in the XML protocol's texasmessage/action/index) ------------------
FOLD, CHECK, CALL, BET, RAISE, POST, SIT_OUT, SIT_IN, SHOW, MUCK, DISCARD = range(11)
TAKE_SEAT, LEAVE_SEAT, ADD_BOT = 11, 12, 13
ACTION_NAMES = (
    "fold",
    "check",
    "call",
    "bet",
    "raise",
    "post",
    "sitout",
    "sitin",
    "show",
    "muck",
    "discard",
    "takeseat",
    "leaveseat",
    "addbot",
)

# -- betting structures (gameinfo ``limitstyle``) -----------------------------------------
FIXED_LIMIT, POT_LIMIT, NO_LIMIT = 0, 1, 2
LIMIT_NAMES = {FIXED_LIMIT: "fixed-limit", POT_LIMIT: "pot-limit", NO_LIMIT: "no-limit"}

# -- states ------------------------------------------------------------------------------
WAIT_PLAYERS = "waitplayers"
BLIND_ROUND = "blind round"
NEW_DEAL = "new deal"
BET_ROUND = "bet round"
DISCARD_ROUND = "discard round"
DEAL_CARDS = "deal card round"
LESS_THAN_TWO = "less than two players"
WINNINGS = "winnings"
MUCK_ROUND = "muck round"
SHOWDOWN = "showdown"

# -- decision kinds (``Table.turn.kind``) ------------------------------------------------
BLIND, BETTING, DISCARDING, SHOWING = "blind", "bet", "discard", "show"

Money = Decimal
ZERO = Decimal(0)


class RuleError(ValueError):
    """An action the rules refuse now; nothing changed.

    :ivar reason: the reason, for people.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def money(value: Any, what: str = "amount") -> Decimal:
    """Convert ``value`` to a :class:`Decimal` amount of money.

    Accepts a finite :class:`Decimal`, an ``int`` or a decimal string with at most two
    fraction digits.

    :raises TypeError: for a ``float`` (money is never a float) or another type.
    :raises ValueError: for a malformed, non-finite or over-precise amount.
    """
    if isinstance(value, float):
        raise TypeError(f"{what} must be a Decimal, not a float ({value!r})")
    if isinstance(value, bool):
        raise TypeError(f"{what} must be a Decimal, not a bool")
    if isinstance(value, int):
        d = Decimal(value)
    elif isinstance(value, Decimal):
        d = value
    elif isinstance(value, str):
        try:
            d = Decimal(value.strip())
        except InvalidOperation:
            raise ValueError(f"{what} is not a number: {value!r}") from None
    else:
        raise TypeError(f"{what} must be a Decimal, not {type(value).__name__}")
    if not d.is_finite():
        raise ValueError(f"{what} must be finite: {value!r}")
    if d != d.quantize(Decimal("0.01"), rounding=ROUND_DOWN):
        raise ValueError(f"{what} has more than two fraction digits: {value!r}")
    return d


# -- the state sequence as data ----------------------------------------------------------


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


# -- records -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Pot:
    """A pot: its amount and the seats that may win it (seat order)."""

    amount: Decimal
    eligible: tuple[int, ...]


@dataclass(frozen=True)
class Record:
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
    index: int | None = None
    allin: bool = False
    stage: int | None = None
    text: str = ""
    pots: tuple[Pot, ...] = ()
    extra: tuple[tuple[str, Any], ...] = ()

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key`` in :attr:`extra`."""
        for k, v in self.extra:
            if k == key:
                return v
        return default


@dataclass(frozen=True)
class Legal:
    """One legal action of the seat to act.

    :ivar index: the protocol action index.
    :ivar amount: the fixed amount (call amount, blind, fixed-limit bet/raise-to).
    :ivar min: smallest bet/raise-to (no limit, pot limit).
    :ivar max: largest bet/raise-to (no limit, pot limit).
    :ivar count: discard: most cards that may be changed.
    """

    index: int
    amount: Decimal | None = None
    min: Decimal | None = None
    max: Decimal | None = None
    count: int | None = None

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


@dataclass(frozen=True)
class Turn:
    """Who must decide what: ``seat`` and ``kind`` (blind, bet, discard, show)."""

    seat: int
    kind: str


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
        for k, v in self.extra:
            if k == key:
                return v
        return default

    def with_extra(self, **kw: Any) -> HandRecord:
        """A copy with more ``extra`` entries."""
        return dataclasses.replace(self, extra=self.extra + tuple(kw.items()))


# -- players and hands -------------------------------------------------------------------


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


def side_pots(
    contrib: dict[int, Decimal], folded: Iterable[int], dead: Decimal = ZERO
) -> list[Pot]:
    """Main and side pots from each seat's money in the hand.

    Each level at which a seat still in the hand is all in closes a pot; a pot may be
    won by the seats still in that put in at least its level.  Dead money goes to the
    main pot.  Neighbouring pots with the same eligible seats are merged.

    :param contrib: seat → live money put in this hand (folded seats included).
    :param folded: seats out of the hand.
    """
    folded = set(folded)
    live = {s: c for s, c in contrib.items() if s not in folded}
    if not live:
        return [Pot(sum(contrib.values(), ZERO) + dead, ())] if contrib or dead else []
    levels = sorted(set(live.values()))
    pots: list[Pot] = []
    prev = ZERO
    for i, level in enumerate(levels):
        top = level if i < len(levels) - 1 else max(max(contrib.values()), level)
        amount = sum((min(c, top) - min(c, prev) for c in contrib.values()), ZERO)
        if i == 0:
            amount += dead
        eligible = tuple(sorted(s for s, c in live.items() if c >= level))
        if pots and pots[-1].eligible == eligible:
            pots[-1] = Pot(pots[-1].amount + amount, eligible)
        elif amount > 0 or not pots:
            pots.append(Pot(amount, eligible))
        prev = top
    return pots


def split(amount: Decimal, winners: Sequence[int], chip: Decimal) -> dict[int, Decimal]:
    """Share ``amount`` among ``winners`` (ordered from the first left of the button).

    Each gets the same number of whole chips; the odd chips go to the first winner.
    """
    n = len(winners)
    share = (amount / n / chip).to_integral_value(rounding=ROUND_DOWN) * chip
    out = {w: share for w in winners}
    out[winners[0]] += amount - share * n
    return out


def _default_evaluate(cards: Sequence[int]) -> int:
    from .evaluator import evaluate

    return evaluate(cards)


def _default_describe(value: int) -> str:
    from .evaluator import describe

    return describe(value)


# -- the table ---------------------------------------------------------------------------


class Table:
    """A poker table: seats, stacks, the button, and the hand in progress.

    :param config: the :class:`TableConfig`.
    :param rng: a random source (``random.Random``) for the first button.
    :param evaluate: cards → int, higher is better (default :func:`.evaluator.evaluate`).
    :param describe: hand value → words (default :func:`.evaluator.describe`).
    """

    def __init__(
        self,
        config: TableConfig | None = None,
        rng: Any = None,
        evaluate: Callable[[Sequence[int]], int] | None = None,
        describe: Callable[[int], str] | None = None,
    ) -> None:
        import random

        self.config = config or TableConfig()
        self._rng = rng or random.Random()
        self._evaluate = evaluate or _default_evaluate
        self._describe = describe or _default_describe
        self.players: dict[int, Player] = {}
        self.button: int | None = None
        self.hand: Hand | None = None
        self.last_hand: HandRecord | None = None
        self.hands_played = 0
        self._last_sb: int | None = None
        self._last_bb: int | None = None
        self._log: list[Record] = []

    # -- small helpers ------------------------------------------------------------------

    @property
    def state(self) -> str:
        """The current state name (:data:`WAIT_PLAYERS` when no hand runs)."""
        if self.hand is None:
            return WAIT_PLAYERS
        return self.hand.state

    @property
    def in_hand(self) -> bool:
        """Whether a hand is running (not over)."""
        return self.hand is not None and not self.hand.over

    @property
    def turn(self) -> Turn | None:
        """The pending decision, or ``None``."""
        h = self.hand
        if h is None or h.over or h.to_act is None or h.kind is None:
            return None
        return Turn(h.to_act, h.kind)

    def drain(self) -> list[Record]:
        """Every record since the last call, oldest first."""
        out, self._log = self._log, []
        return out

    def _emit(self, rec: Record) -> Record:
        self._log.append(rec)
        if self.hand is not None and not self.hand.over:
            self.hand.records.append(rec)
        return rec

    def _player(self, seat: int) -> Player:
        if type(seat) is not int:
            raise RuleError(f"seat must be an integer, not {seat!r}")
        p = self.players.get(seat)
        if p is None:
            raise RuleError(f"nobody sits at seat {seat}")
        return p

    def _ring_after(self, seat: int, seats: Iterable[int]) -> list[int]:
        """``seats`` in clockwise order starting after ``seat``."""
        n = self.config.seats
        return sorted(seats, key=lambda s: (s - seat - 1) % n)

    def _next(self, seat: int, seats: Iterable[int]) -> int | None:
        ordered = self._ring_after(seat, seats)
        return ordered[0] if ordered else None

    def sitting_in(self) -> list[int]:
        """Seats of players sitting in with chips, in seat order."""
        return sorted(
            s
            for s, p in self.players.items()
            if not p.sitting_out and not p.leaving and p.stack > 0
        )

    def stacks(self) -> dict[int, Decimal]:
        """Seat → chips in front of the player (not counting bets in the pot)."""
        return {s: p.stack for s, p in self.players.items()}

    def chips_in_play(self) -> Decimal:
        """All chips on the table: stacks plus money in the pot."""
        total = sum((p.stack for p in self.players.values()), ZERO)
        h = self.hand
        if h is not None and not h.over:
            total += self.pot_total()
        return total

    def pot_total(self) -> Decimal:
        """Money in the pot of the running hand (bets of this round included)."""
        h = self.hand
        if h is None or h.over:
            return ZERO
        return sum(h.contrib.values(), ZERO) + h.dead - sum((a[1] for a in h.awards), ZERO)

    # -- seating ------------------------------------------------------------------------

    def verify_seat_player(self, seat: int, name: str, stack: Any) -> Decimal:
        """Check a player may sit at ``seat`` with ``stack`` chips; returns the stack."""
        amount = money(stack, "buy-in")
        if type(seat) is not int or not 0 <= seat < self.config.seats:
            raise RuleError(f"no seat {seat!r}; seats are 0 to {self.config.seats - 1}")
        if seat in self.players:
            raise RuleError(f"seat {seat} is taken")
        if not isinstance(name, str) or not name:
            raise RuleError("a player needs a name")
        if any(p.name == name for p in self.players.values()):
            raise RuleError(f"{name} already sits at this table")
        if amount <= 0:
            raise RuleError("the buy-in must be positive")
        return amount

    def can_seat_player(self, seat: int, name: str, stack: Any) -> bool:
        """Whether :meth:`seat_player` would succeed."""
        return self._can(self.verify_seat_player, seat, name, stack)

    def seat_player(self, seat: int, name: str, stack: Any) -> Record:
        """Seat ``name`` at ``seat`` with ``stack`` chips (the buy-in).

        A newcomer owes a big blind before being dealt in (unless they are the big
        blind).
        """
        amount = self.verify_seat_player(seat, name, stack)
        self.players[seat] = Player(seat, name, amount)
        return self._emit(Record("seat", seat, amount=amount, text=name))

    def verify_add_chips(self, seat: int, amount: Any) -> Decimal:
        """Check ``seat`` may add ``amount`` chips now (not while in a hand)."""
        value = money(amount, "amount")
        self._player(seat)
        if value <= 0:
            raise RuleError("add a positive amount of chips")
        if self.in_hand and self._involved(seat):
            raise RuleError("chips can be added between hands only (table stakes)")
        return value

    def can_add_chips(self, seat: int, amount: Any) -> bool:
        """Whether :meth:`add_chips` would succeed."""
        return self._can(self.verify_add_chips, seat, amount)

    def add_chips(self, seat: int, amount: Any) -> Record:
        """Add chips to the stack at ``seat`` (a top-up or rebuy, between hands)."""
        value = self.verify_add_chips(seat, amount)
        p = self.players[seat]
        p.stack += value
        return self._emit(Record("addchips", seat, amount=value, text=p.name))

    def verify_leave(self, seat: int) -> Player:
        """Check ``seat`` is taken and not already leaving."""
        p = self._player(seat)
        if p.leaving:
            raise RuleError(f"seat {seat} is already leaving")
        return p

    def can_leave(self, seat: int) -> bool:
        """Whether :meth:`leave` would succeed."""
        return self._can(self.verify_leave, seat)

    def leave(self, seat: int) -> Record:
        """The player at ``seat`` leaves: at once between hands or when not dealt in,
        else at the end of the hand (their hand checks when free, else folds).

        The ``leave`` record (now or at the end of the hand) carries the stack that goes
        back to the account.
        """
        p = self.verify_leave(seat)
        h = self.hand
        if h is not None and not h.over and self._involved(seat):
            p.leaving = True
            rec = self._emit(Record("leaving", seat, text=p.name))
            self._auto_play()
            return rec
        return self._remove(seat)

    def remove(self, seat: int) -> Record:
        """Remove the player at ``seat`` now (no hand may be running with them in it);
        the ``leave`` record carries the stack that goes back."""
        self._player(seat)
        if self.in_hand and self._involved(seat):
            raise RuleError(f"seat {seat} is in the hand: it leaves at the end")
        return self._remove(seat)

    def _involved(self, seat: int) -> bool:
        h = self.hand
        assert h is not None
        return seat in h.seats or seat in h.posted or seat in h.blind_queue

    def _remove(self, seat: int) -> Record:
        p = self.players.pop(seat)
        return self._emit(Record("leave", seat, amount=p.stack, text=p.name))

    def verify_sit_out(self, seat: int) -> Player:
        """Check the player at ``seat`` may sit out."""
        p = self._player(seat)
        if p.sitting_out or p.sit_out_next:
            raise RuleError("already sitting out")
        return p

    def can_sit_out(self, seat: int) -> bool:
        """Whether :meth:`sit_out` would succeed."""
        return self._can(self.verify_sit_out, seat)

    def sit_out(self, seat: int) -> Record:
        """Sit out: from the next hand when the player is in this one, else now."""
        p = self.verify_sit_out(seat)
        h = self.hand
        if h is not None and not h.over and self._involved(seat):
            p.sit_out_next = True
            return self._emit(Record("sitout", seat, index=SIT_OUT, text="next hand"))
        p.sitting_out = True
        return self._emit(Record("sitout", seat, index=SIT_OUT))

    def verify_sit_in(self, seat: int) -> Player:
        """Check the player at ``seat`` sits out (or will) and has chips."""
        p = self._player(seat)
        if not p.sitting_out and not p.sit_out_next:
            raise RuleError("already sitting in")
        if p.stack <= 0:
            raise RuleError("no chips left: take a seat again with a buy-in")
        return p

    def can_sit_in(self, seat: int) -> bool:
        """Whether :meth:`sit_in` would succeed."""
        return self._can(self.verify_sit_in, seat)

    def sit_in(self, seat: int) -> Record:
        """Sit in again; missed blinds are asked for in the next blind round."""
        p = self.verify_sit_in(seat)
        p.sitting_out = False
        p.sit_out_next = False
        return self._emit(Record("sitin", seat, index=SIT_IN))

    def set_auto_post(self, seat: int, on: bool) -> Record:
        """Post this seat's blinds automatically (or stop doing so)."""
        p = self._player(seat)
        p.auto_post = bool(on)
        rec = self._emit(Record("autopost", seat, index=POST, extra=(("on", p.auto_post),)))
        h = self.hand
        if p.auto_post and h is not None and h.kind == BLIND and h.to_act == seat:
            self.post_blind(seat)
        return rec

    # -- starting a hand ----------------------------------------------------------------

    def verify_start_hand(self, deck: Sequence[int]) -> list[int]:
        """Check a hand may start with ``deck``; returns the deck as a list."""
        if self.in_hand:
            raise RuleError("a hand is running")
        d = list(deck)
        if len(d) != 52 or sorted(d) != list(range(52)):
            raise RuleError("the deck must hold each of the 52 cards once")
        if len(self.sitting_in()) < self.config.min_players:
            raise RuleError(f"waiting for players: {self.config.min_players} must be sitting in")
        return d

    def can_start_hand(self) -> bool:
        """Whether enough players sit in for a hand."""
        return not self.in_hand and len(self.sitting_in()) >= self.config.min_players

    def start_hand(
        self, deck: Sequence[int], hand_id: str | None = None, button: int | None = None
    ) -> Record:
        """Start a hand dealt from ``deck`` (52 distinct cards, dealt from the front).

        Moves the button (or puts it at ``button``, for tests and replays), assigns the
        blinds and asks for them (blind round).  While fewer than two players sitting
        in have played here, nobody owes a newcomer's big blind (the table starts).
        """
        d = self.verify_start_hand(deck)
        cands = self.sitting_in()
        if button is not None:
            if button not in cands:
                raise RuleError(f"the button must be at a seat sitting in, not {button!r}")
        elif self.button is None:
            button = self._rng.choice(cands)
        else:
            button = self._next(self.button, cands)
        assert button is not None
        self.hand = None
        if sum(1 for s in cands if not self.players[s].new) < 2:
            for s in cands:
                self.players[s].new = False
        self.button = button
        sb: int | None = button
        if len(cands) > 2:
            sb = self._next(button, cands)
        assert sb is not None
        bb = self._next(sb, cands)
        assert bb is not None
        self.hands_played += 1
        number = self.hands_played
        h = Hand(
            hand_id=hand_id or str(number),
            number=number,
            deck=d,
            button=button,
            sb_seat=sb,
            bb_seat=bb,
            start_stacks={s: p.stack for s, p in self.players.items()},
        )
        h.candidates = list(cands)
        self.hand = h
        self._mark_missed(sb, bb, cands)
        self._last_sb, self._last_bb = sb, bb
        rec = self._emit(
            Record(
                "hand",
                button,
                text=h.hand_id,
                extra=(("number", number), ("sb", sb), ("bb", bb)),
            )
        )
        # what each player owes: (live, dead)
        cfg = self.config
        for s in cands:
            p = self.players[s]
            if s == bb:
                h.owed[s] = (cfg.big_blind, ZERO)
            elif s == sb:
                if p.new or p.missed_big:
                    h.owed[s] = (cfg.big_blind, ZERO)
                else:
                    h.owed[s] = (cfg.small_blind, ZERO)
            elif p.new:
                h.owed[s] = (cfg.big_blind, ZERO)
            elif p.missed_big:
                dead = cfg.small_blind if p.missed_small else ZERO
                h.owed[s] = (cfg.big_blind, dead)
            elif p.missed_small:
                h.owed[s] = (ZERO, cfg.small_blind)
        order = [sb, bb] if sb != bb else [bb]
        order += [s for s in self._ring_after(bb, h.owed) if s not in order]
        h.blind_queue = [s for s in order if s in h.owed]
        h.state = BLIND_ROUND
        self._advance()
        return rec

    def _mark_missed(self, sb: int, bb: int, cands: list[int]) -> None:
        """Sitting-out players the blinds passed since the last hand owe them.

        A player the big blind passed owes the big blind (live) and the small blind
        (dead); one only the small blind passed owes the small blind (dead).
        """
        if self._last_bb is None or self._last_sb is None:
            return
        n = self.config.seats

        def passed(seat: int, old: int, new: int) -> bool:
            return 0 < (seat - old) % n <= (new - old) % n

        for s, p in self.players.items():
            if s in cands or p.new:
                continue
            if passed(s, self._last_bb, bb):
                # missed the big blind: owes both (the big live, the small dead)
                p.missed_big = p.missed_small = True
            if passed(s, self._last_sb, sb):
                p.missed_small = True

    # -- the state machine --------------------------------------------------------------

    def _advance(self) -> None:
        """Run automatic states until a decision is needed or the hand is over."""
        h = self.hand
        assert h is not None
        while not h.over:
            if h.state == BLIND_ROUND:
                if self._blind_step():
                    return
                continue
            if h.state == BET_ROUND:
                if self._bet_step():
                    return
                continue
            if h.state == DISCARD_ROUND:
                if self._discard_step():
                    return
                continue
            if h.state in (MUCK_ROUND, LESS_THAN_TWO):
                if self._show_step():
                    return
                continue
            self._next_step()

    def _enter(self, step: Step) -> None:
        """Enter ``step``; automatic states run here."""
        h = self.hand
        assert h is not None
        h.state = step.state
        h.to_act = h.kind = None
        if step.state == NEW_DEAL:
            self._deal_hole(step.count)
        elif step.state == BET_ROUND:
            self._begin_bet_round(step.big)
        elif step.state == DEAL_CARDS:
            self._deal_board(step.count)
        elif step.state == DISCARD_ROUND:
            h.discarded = set()
        elif step.state == WINNINGS:
            self._winnings()
        elif step.state == MUCK_ROUND:
            self._begin_muck_round()
        elif step.state == SHOWDOWN:
            self._finish()

    def _next_step(self) -> None:
        h = self.hand
        assert h is not None
        h.step += 1
        self._enter(self.config.variant.steps[h.step])

    def _draw(self) -> int:
        h = self.hand
        assert h is not None
        c = h.deck[h.deck_pos]
        h.dealt.append((h.deck_pos, c))
        h.deck_pos += 1
        return c

    # blind round ------------------------------------------------------------------------

    def _blind_step(self) -> bool:
        """Ask the next player who owes a blind; ``True`` when waiting for a decision."""
        h = self.hand
        assert h is not None
        while h.blind_queue:
            s = h.blind_queue[0]
            p = self.players.get(s)
            if p is None or p.leaving:
                h.blind_queue.pop(0)
                self._refused(s, auto=True)
                continue
            if p.auto_post:
                self._post(s)
                continue
            h.to_act, h.kind = s, BLIND
            return True
        # the blind round is over: who is dealt in?
        h.to_act = h.kind = None
        cands = [
            s
            for s in h.candidates
            if s not in h.refused and s in self.players and not self.players[s].leaving
        ]
        h.seats = self._ring_after(h.button, cands)
        h.folded.update(s for s in h.posted if s not in h.seats)
        if len(h.seats) < 2 or not h.posted:
            self._cancel()
            return False
        self._next_step()
        return False

    def _refused(self, seat: int, auto: bool = False) -> None:
        """``seat`` did not post: it sits out; a refused big blind moves on."""
        h = self.hand
        assert h is not None
        h.refused.add(seat)
        h.owed.pop(seat, None)
        p = self.players.get(seat)
        if p is not None:
            p.sitting_out = True
            if seat == h.bb_seat:
                p.missed_big = p.missed_big or not p.new
            if seat == h.sb_seat:
                p.missed_small = p.missed_small or not p.new
        if seat == h.bb_seat:
            # the next player sitting in becomes the big blind
            cands = [
                s
                for s in h.candidates
                if s not in h.refused
                and s != h.sb_seat
                and s not in h.posted
                and s in self.players
                and not self.players[s].leaving
            ]
            nxt = self._next(seat, cands)
            h.bb_seat = nxt
            if nxt is not None:
                h.owed[nxt] = (self.config.big_blind, ZERO)
                if nxt in h.blind_queue:
                    h.blind_queue.remove(nxt)
                h.blind_queue.insert(0, nxt)
        elif seat == h.sb_seat:
            h.sb_seat = None

    def _cancel(self) -> None:
        """Less than two players after the blind round: blinds go back, no deal."""
        h = self.hand
        assert h is not None
        h.state = LESS_THAN_TWO
        paid = dict(h.contrib)
        for s, d in h.dead_paid.items():
            paid[s] = paid.get(s, ZERO) + d
        for s, amount in sorted(paid.items()):
            if amount and s in self.players:
                self.players[s].stack += amount
                self._emit(Record("return", s, amount=amount))
        h.contrib.clear()
        h.bets.clear()
        h.dead = ZERO
        h.dead_paid.clear()
        self._emit(Record("cancel", text="less than two players"))
        h.step = len(self.config.variant.steps) - 1
        self._enter(self.config.variant.steps[h.step])

    def verify_post_blind(self, seat: int) -> tuple[Decimal, Decimal]:
        """Check ``seat`` must post a blind now; returns (live, dead)."""
        h = self.hand
        if h is None or h.over or h.kind != BLIND:
            raise RuleError("no blind is due now")
        if h.to_act != seat:
            raise RuleError(f"it is seat {h.to_act}'s turn to post")
        return h.owed[seat]

    def can_post_blind(self, seat: int) -> bool:
        """Whether :meth:`post_blind` would succeed."""
        return self._can(self.verify_post_blind, seat)

    def post_blind(self, seat: int) -> Record:
        """Post the blind that is due (all in when short)."""
        self.verify_post_blind(seat)
        rec = self._post(seat)
        self._advance()
        return rec

    def _post(self, seat: int) -> Record:
        h = self.hand
        assert h is not None
        p = self.players[seat]
        live, dead = h.owed.pop(seat)
        h.blind_queue.remove(seat)
        dead_paid = min(dead, p.stack)
        p.stack -= dead_paid
        h.dead += dead_paid
        if dead_paid:
            h.dead_paid[seat] = dead_paid
        live_paid = min(live, p.stack)
        p.stack -= live_paid
        h.bets[seat] = h.bets.get(seat, ZERO) + live_paid
        h.contrib[seat] = h.contrib.get(seat, ZERO) + live_paid
        h.posted.add(seat)
        if live_paid and live >= self.config.big_blind:
            p.new = False
        p.missed_big = p.missed_small = False
        if p.stack == 0:
            h.allin.add(seat)
        h.to_act = h.kind = None
        what = "small" if seat == h.sb_seat and live == self.config.small_blind else "big"
        if live == 0:
            what = "dead"
        return self._emit(
            Record(
                "post",
                seat,
                amount=live_paid + dead_paid,
                total=h.bets[seat],
                index=POST,
                allin=p.stack == 0,
                stage=0,
                text=what,
                extra=(("dead", dead_paid),),
            )
        )

    def verify_refuse_blind(self, seat: int) -> None:
        """Check ``seat`` is asked for a blind now."""
        self.verify_post_blind(seat)

    def can_refuse_blind(self, seat: int) -> bool:
        """Whether :meth:`refuse_blind` would succeed."""
        return self.can_post_blind(seat)

    def refuse_blind(self, seat: int) -> Record:
        """Do not post: the player sits out (and owes the blind later)."""
        self.verify_refuse_blind(seat)
        h = self.hand
        assert h is not None
        h.blind_queue.remove(seat)
        h.to_act = h.kind = None
        rec = self._emit(Record("refuse", seat, index=SIT_OUT))
        self._refused(seat)
        self._advance()
        return rec

    # dealing ----------------------------------------------------------------------------

    def _deal_hole(self, count: int) -> None:
        h = self.hand
        assert h is not None
        for s in h.seats:
            h.hole[s] = []
        for _ in range(count):
            for s in h.seats:
                h.hole[s].append(self._draw())
        for s in h.seats:
            self._emit(Record("hole", s, cards=tuple(h.hole[s])))

    def _deal_board(self, count: int) -> None:
        h = self.hand
        assert h is not None
        if self.config.burn:
            self._draw()
        cards = tuple(self._draw() for _ in range(count))
        h.board.extend(cards)
        self._emit(
            Record("board", cards=cards, stage=h.stage + 1, extra=(("board", tuple(h.board)),))
        )

    # betting ----------------------------------------------------------------------------

    def _begin_bet_round(self, big: bool) -> None:
        h = self.hand
        assert h is not None
        cfg = self.config
        h.stage += 1
        h.bet_size = cfg.big_bet if big else cfg.small_bet
        h.min_raise = cfg.big_blind
        if h.stage == 0:
            h.current_bet = max(h.bets.values(), default=ZERO)
            if h.bb_seat is not None and h.bb_seat in h.posted:
                h.current_bet = max(h.current_bet, cfg.big_blind)
                h.bets_count = 1
            else:
                h.bets_count = 0
            start = h.bb_seat if h.bb_seat is not None else h.sb_seat
            if start is None:
                start = h.button
        else:
            h.bets = {}
            h.current_bet = ZERO
            h.bets_count = 0
            start = h.button
        h.aggressor = None
        for s in h.seats:
            h.bets.setdefault(s, ZERO)
            h.contrib.setdefault(s, ZERO)
        actors = h.can_bet()
        h.needs_act = set(actors)
        h.may_raise = set(actors)
        h.to_act = start  # the search starts after this seat

    def _round_done(self) -> bool:
        h = self.hand
        assert h is not None
        actors = h.can_bet()
        if not h.needs_act & set(actors):
            return True
        if len(actors) == 1 and h.bets[actors[0]] >= h.current_bet:
            return True
        return False

    def _bet_step(self) -> bool:
        h = self.hand
        assert h is not None
        if len(h.live()) < 2:
            self._end_bet_round()
            self._less_than_two()
            return False
        if self._round_done():
            self._end_bet_round()
            self._next_step()
            return False
        start = h.to_act if h.to_act is not None else h.button
        nxt: int | None
        if h.kind == BETTING and h.to_act in h.needs_act:
            nxt = h.to_act
        else:
            pending = [s for s in h.can_bet() if s in h.needs_act]
            nxt = self._next(start, pending)
        assert nxt is not None
        h.to_act, h.kind = nxt, BETTING
        p = self.players[nxt]
        if p.leaving:
            self._default_action(nxt)
            return False
        return True

    def _end_bet_round(self) -> None:
        """Return an uncalled bet and announce the pots."""
        h = self.hand
        assert h is not None
        h.to_act = h.kind = None
        if h.contrib:
            ordered = sorted(h.contrib.items(), key=lambda kv: kv[1], reverse=True)
            top_seat, top = ordered[0]
            second = ordered[1][1] if len(ordered) > 1 else ZERO
            if top > second:
                back = top - second
                h.contrib[top_seat] -= back
                h.bets[top_seat] = h.bets.get(top_seat, ZERO) - back
                self.players[top_seat].stack += back
                h.allin.discard(top_seat)
                self._emit(Record("return", top_seat, amount=back, stage=h.stage))
        h.pots = side_pots(h.contrib, h.folded, h.dead)
        self._emit(Record("pots", stage=h.stage, pots=tuple(h.pots)))

    def _to_call(self, seat: int) -> Decimal:
        h = self.hand
        assert h is not None
        return max(h.current_bet - h.bets.get(seat, ZERO), ZERO)

    def _pot_raise_max(self, seat: int) -> Decimal:
        """Pot limit: the largest total bet = current bet + pot after calling."""
        h = self.hand
        assert h is not None
        pot = sum(h.contrib.values(), ZERO) + h.dead
        return h.current_bet + pot + self._to_call(seat)

    def _raise_bounds(self, seat: int) -> tuple[Decimal, Decimal] | None:
        """(min, max) total this round for a bet or raise by ``seat``, or ``None``."""
        h = self.hand
        assert h is not None
        cfg = self.config
        p = self.players[seat]
        most = h.bets[seat] + p.stack  # all in
        if p.stack <= self._to_call(seat):
            return None
        if seat not in h.may_raise:
            return None
        if not self._raise_answerable(seat):
            return None
        if cfg.cap is not None and h.bets_count >= cfg.cap:
            return None
        if cfg.limit == FIXED_LIMIT:
            target = h.current_bet + h.bet_size
            target = min(target, most)
            return target, target
        low = h.current_bet + (h.min_raise if h.current_bet > 0 else cfg.big_blind)
        high = most
        if cfg.limit == POT_LIMIT:
            high = min(high, self._pot_raise_max(seat))
        low = min(low, most)
        return low, max(low, high)

    def _raise_answerable(self, seat: int) -> bool:
        """Whether another player in the hand has chips beyond the current bet."""
        h = self.hand
        assert h is not None
        return any(
            s != seat and h.bets[s] + self.players[s].stack > h.current_bet for s in h.live()
        )

    def legal_actions(self, seat: int) -> tuple[Legal, ...]:
        """What ``seat`` may do now (empty when it is not this seat's turn)."""
        h = self.hand
        if h is None or h.over or h.to_act != seat or h.kind is None:
            return ()
        if h.kind == BLIND:
            live, dead = h.owed[seat]
            p = self.players[seat]
            return (Legal(POST, amount=min(live + dead, p.stack)), Legal(SIT_OUT))
        if h.kind == DISCARDING:
            return (Legal(DISCARD, count=self.config.variant.max_discard),)
        if h.kind == SHOWING:
            return (Legal(SHOW), Legal(MUCK))
        out: list[Legal] = []
        p = self.players[seat]
        to_call = self._to_call(seat)
        if to_call > 0:
            out.append(Legal(FOLD))
            out.append(Legal(CALL, amount=min(to_call, p.stack)))
        else:
            out.append(Legal(CHECK))
        bounds = self._raise_bounds(seat)
        if bounds is not None:
            idx = BET if h.current_bet == 0 else RAISE
            lo, hi = bounds
            if self.config.limit == FIXED_LIMIT:
                out.append(Legal(idx, amount=lo))
            else:
                out.append(Legal(idx, min=lo, max=hi))
        return tuple(out)

    def _verify_betting(self, seat: int) -> Player:
        h = self.hand
        if h is None or h.over or h.kind != BETTING:
            raise RuleError("no betting round is waiting for a player")
        if type(seat) is not int:
            raise RuleError(f"seat must be an integer, not {seat!r}")
        if h.to_act != seat:
            raise RuleError(f"it is seat {h.to_act}'s turn")
        return self.players[seat]

    def verify_fold(self, seat: int) -> None:
        """Check ``seat`` may fold (only when facing a bet)."""
        self._verify_betting(seat)
        if self._to_call(seat) == 0:
            raise RuleError("nothing to call: check instead of folding")

    def can_fold(self, seat: int) -> bool:
        """Whether :meth:`fold` would succeed."""
        return self._can(self.verify_fold, seat)

    def fold(self, seat: int) -> Record:
        """Give up the hand."""
        self.verify_fold(seat)
        h = self.hand
        assert h is not None
        h.folded.add(seat)
        return self._acted(seat, Record("fold", seat, index=FOLD, stage=h.stage))

    def verify_check(self, seat: int) -> None:
        """Check ``seat`` may check (nothing owed)."""
        self._verify_betting(seat)
        if self._to_call(seat) > 0:
            raise RuleError(f"{self._to_call(seat)} to call: cannot check")

    def can_check(self, seat: int) -> bool:
        """Whether :meth:`check` would succeed."""
        return self._can(self.verify_check, seat)

    def check(self, seat: int) -> Record:
        """Pass without betting."""
        self.verify_check(seat)
        h = self.hand
        assert h is not None
        return self._acted(seat, Record("check", seat, index=CHECK, stage=h.stage))

    def verify_call(self, seat: int) -> Decimal:
        """Check ``seat`` may call; returns the amount it puts in."""
        p = self._verify_betting(seat)
        to_call = self._to_call(seat)
        if to_call == 0:
            raise RuleError("nothing to call: check")
        return min(to_call, p.stack)

    def can_call(self, seat: int) -> bool:
        """Whether :meth:`call` would succeed."""
        return self._can(self.verify_call, seat)

    def call(self, seat: int) -> Record:
        """Match the current bet (all in when short)."""
        amount = self.verify_call(seat)
        h = self.hand
        assert h is not None
        self._put(seat, amount)
        rec = Record(
            "call",
            seat,
            amount=amount,
            total=h.bets[seat],
            index=CALL,
            allin=seat in h.allin,
            stage=h.stage,
        )
        return self._acted(seat, rec)

    def verify_bet(self, seat: int, amount: Any = None) -> Decimal:
        """Check ``seat`` may open the betting; returns its total bet.

        :param amount: no limit / pot limit: the bet; fixed limit: ignored.
        """
        self._verify_betting(seat)
        h = self.hand
        assert h is not None
        if h.current_bet > 0:
            raise RuleError("there is a bet already: call or raise")
        return self._verify_size(seat, amount, "bet")

    def can_bet(self, seat: int, amount: Any = None) -> bool:
        """Whether :meth:`bet` would succeed."""
        return self._can(self.verify_bet, seat, amount)

    def bet(self, seat: int, amount: Any = None) -> Record:
        """Open the betting (fixed limit: the fixed bet; else ``amount``)."""
        total = self.verify_bet(seat, amount)
        return self._wager(seat, total, BET)

    def verify_raise_to(self, seat: int, amount: Any = None) -> Decimal:
        """Check ``seat`` may raise; returns its total bet after raising.

        :param amount: no limit / pot limit: the total to raise to; fixed limit: ignored.
        """
        self._verify_betting(seat)
        h = self.hand
        assert h is not None
        if h.current_bet == 0:
            raise RuleError("no bet to raise: bet instead")
        return self._verify_size(seat, amount, "raise")

    def can_raise_to(self, seat: int, amount: Any = None) -> bool:
        """Whether :meth:`raise_to` would succeed."""
        return self._can(self.verify_raise_to, seat, amount)

    def raise_to(self, seat: int, amount: Any = None) -> Record:
        """Raise (fixed limit: by the fixed bet; else to ``amount``)."""
        total = self.verify_raise_to(seat, amount)
        return self._wager(seat, total, RAISE)

    def _verify_size(self, seat: int, amount: Any, what: str) -> Decimal:
        h = self.hand
        assert h is not None
        cfg = self.config
        p = self.players[seat]
        if cfg.cap is not None and h.bets_count >= cfg.cap:
            raise RuleError(f"the betting is capped ({cfg.cap} bets)")
        if p.stack <= self._to_call(seat):
            raise RuleError(f"not enough chips to {what}: call (all in) or fold")
        if seat not in h.may_raise:
            raise RuleError("an all-in for less than a full raise did not reopen the betting")
        if not self._raise_answerable(seat):
            raise RuleError(f"everyone else is all in or folded: nobody could answer a {what}")
        bounds = self._raise_bounds(seat)
        assert bounds is not None
        lo, hi = bounds
        if cfg.limit == FIXED_LIMIT or amount is None:
            if cfg.limit != FIXED_LIMIT:
                raise RuleError(f"say how much to {what}: {lo} to {hi}")
            return lo
        total = money(amount)
        if total % cfg.chip:
            raise RuleError(f"{total} is not a whole number of chips ({cfg.chip})")
        if total < lo or total > hi:
            raise RuleError(f"{what} must be {lo} to {hi}, not {total}")
        return total

    def _wager(self, seat: int, total: Decimal, index: int) -> Record:
        h = self.hand
        assert h is not None
        amount = total - h.bets[seat]
        increment = total - h.current_bet
        full = increment >= (h.bet_size if self.config.limit == FIXED_LIMIT else h.min_raise)
        if h.current_bet == 0 and self.config.limit != FIXED_LIMIT:
            full = total >= self.config.big_blind
        self._put(seat, amount)
        others = [s for s in h.can_bet() if s != seat]
        h.needs_act |= set(others)
        if full:
            h.bets_count += 1
            if self.config.limit != FIXED_LIMIT:
                h.min_raise = max(h.min_raise, increment)
            h.may_raise = set(others)
        h.current_bet = total
        h.aggressor = seat
        rec = Record(
            ACTION_NAMES[index],
            seat,
            amount=amount,
            total=total,
            index=index,
            allin=seat in h.allin,
            stage=h.stage,
        )
        return self._acted(seat, rec)

    def _put(self, seat: int, amount: Decimal) -> None:
        h = self.hand
        assert h is not None
        p = self.players[seat]
        assert ZERO <= amount <= p.stack
        p.stack -= amount
        h.bets[seat] += amount
        h.contrib[seat] = h.contrib.get(seat, ZERO) + amount
        if p.stack == 0:
            h.allin.add(seat)

    def _acted(self, seat: int, rec: Record) -> Record:
        h = self.hand
        assert h is not None
        h.needs_act.discard(seat)
        h.may_raise.discard(seat)
        h.kind = None
        self._emit(rec)
        self._advance()
        return rec

    def _can(self, verify: Callable[..., Any], *args: Any) -> bool:
        try:
            verify(*args)
        except (RuleError, TypeError, ValueError):
            return False
        return True

    # discard round (draw games) ---------------------------------------------------------

    def _discard_step(self) -> bool:
        h = self.hand
        assert h is not None
        pending = [s for s in h.live() if s not in h.discarded]
        if not pending or len(h.live()) < 2:
            self._next_step()
            return False
        nxt = self._ring_after(h.button, pending)[0]
        h.to_act, h.kind = nxt, DISCARDING
        if self.players[nxt].leaving:
            self._default_action(nxt)
            return False
        return True

    def verify_discard(self, seat: int, positions: Iterable[int]) -> tuple[int, ...]:
        """Check ``seat`` may change the cards at ``positions`` (0-based in the hand)."""
        h = self.hand
        if h is None or h.over or h.kind != DISCARDING:
            raise RuleError("no discard round is waiting for a player")
        if h.to_act != seat:
            raise RuleError(f"it is seat {h.to_act}'s turn to discard")
        try:
            pos = tuple(positions)
        except TypeError:
            raise RuleError("discarded must be a list of card positions") from None
        n = len(h.hole[seat])
        if any(type(i) is not int or not 0 <= i < n for i in pos):
            raise RuleError(f"card positions are 0 to {n - 1}")
        if len(set(pos)) != len(pos):
            raise RuleError("a card position is named twice")
        if len(pos) > self.config.variant.max_discard:
            raise RuleError(f"at most {self.config.variant.max_discard} cards may be changed")
        return tuple(sorted(pos))

    def can_discard(self, seat: int, positions: Iterable[int]) -> bool:
        """Whether :meth:`discard` would succeed."""
        return self._can(self.verify_discard, seat, positions)

    def discard(self, seat: int, positions: Iterable[int] = ()) -> Record:
        """Change the cards at ``positions``; the new cards take their places."""
        pos = self.verify_discard(seat, positions)
        h = self.hand
        assert h is not None
        for i in pos:
            h.hole[seat][i] = self._draw()
        h.discarded.add(seat)
        h.to_act = h.kind = None
        rec = self._emit(
            Record(
                "discard",
                seat,
                index=DISCARD,
                cards=tuple(h.hole[seat][i] for i in pos),
                stage=h.stage,
                extra=(("positions", pos), ("count", len(pos)), ("hand", tuple(h.hole[seat]))),
            )
        )
        self._advance()
        return rec

    # showdown ---------------------------------------------------------------------------

    def _less_than_two(self) -> None:
        """Everyone else folded: the last player takes every pot, may show."""
        h = self.hand
        assert h is not None
        h.state = LESS_THAN_TWO
        (winner,) = h.live()
        for i, pot in enumerate(h.pots):
            if pot.amount:
                self._award(winner, pot.amount, i, "")
        h.winners = {winner}
        h.show_queue = [winner]

    def _winnings(self) -> None:
        """Evaluate the hands and split the pots.

        Hands that cannot win any pot are out first; pots next to each other whose
        remaining contenders are the same are then split as one (as pokerkit does), each
        pot equally among its best hands, odd chips to the first winner left of the
        button.
        """
        h = self.hand
        assert h is not None
        board = h.board
        for s in h.live():
            h.values[s] = self._evaluate(list(h.hole[s]) + list(board))

        def best_of(seats: Iterable[int]) -> set[int]:
            seats = [s for s in seats if s in h.values]
            if not seats:
                return set()
            top = max(h.values[s] for s in seats)
            return {s for s in seats if h.values[s] == top}

        alive: set[int] = set()
        for pot in h.pots:
            if pot.amount:
                alive |= best_of(pot.eligible)
        merged: list[Pot] = []
        for pot in h.pots:
            elig = tuple(s for s in pot.eligible if s in alive)
            if merged and merged[-1].eligible == elig:
                merged[-1] = Pot(merged[-1].amount + pot.amount, elig)
            else:
                merged.append(Pot(pot.amount, elig))
        h.pots = merged
        payouts: list[tuple[int, Decimal, int]] = []
        for i, pot in enumerate(merged):
            winners = self._ring_after(h.button, best_of(pot.eligible))
            if not winners or not pot.amount:
                continue
            for s, amt in split(pot.amount, winners, self.config.chip).items():
                payouts.append((s, amt, i))
                h.winners.add(s)
        # the winning hands (and the last aggressor's) are shown before the pots go
        live = h.live()
        first = h.aggressor if h.aggressor in live else None
        if first is None:
            order = self._ring_after(h.button, live)
        else:
            order = [first] + [s for s in self._ring_after(first, live) if s != first]
        h.show_queue = []
        for s in order:
            if s in h.winners or s == first:
                self._show(s)
            else:
                h.show_queue.append(s)
        for s, amt, i in payouts:
            self._award(s, amt, i, self._describe(h.values[s]))

    def _award(self, seat: int, amount: Decimal, pot: int, text: str) -> None:
        h = self.hand
        assert h is not None
        self.players[seat].stack += amount
        h.awards.append((seat, amount, pot, text))
        self._emit(Record("award", seat, amount=amount, text=text, extra=(("pot", pot),)))

    def _begin_muck_round(self) -> None:
        """The losers not shown yet (queued by the winnings) may show or muck, in
        showdown order: the last aggressor first, else from the left of the button."""

    def _show_step(self) -> bool:
        h = self.hand
        assert h is not None
        if h.show_queue:
            s = h.show_queue[0]
            h.to_act, h.kind = s, SHOWING
            p = self.players.get(s)
            if p is None or p.leaving:
                self._default_action(s)
                return False
            return True
        h.to_act = h.kind = None
        h.step = len(self.config.variant.steps) - 1
        self._enter(self.config.variant.steps[h.step])
        return False

    def _show(self, seat: int) -> Record:
        h = self.hand
        assert h is not None
        h.shown.add(seat)
        text = self._describe(h.values[seat]) if seat in h.values else ""
        return self._emit(Record("show", seat, cards=tuple(h.hole[seat]), index=SHOW, text=text))

    def verify_show(self, seat: int) -> None:
        """Check ``seat`` is asked whether to show."""
        h = self.hand
        if h is None or h.over or h.kind != SHOWING:
            raise RuleError("nobody is asked to show or muck now")
        if h.to_act != seat:
            raise RuleError(f"it is seat {h.to_act}'s turn to show or muck")

    def can_show(self, seat: int) -> bool:
        """Whether :meth:`show` would succeed."""
        return self._can(self.verify_show, seat)

    def show(self, seat: int) -> Record:
        """Show the hole cards."""
        self.verify_show(seat)
        h = self.hand
        assert h is not None
        h.show_queue.pop(0)
        h.to_act = h.kind = None
        rec = self._show(seat)
        self._advance()
        return rec

    def verify_muck(self, seat: int) -> None:
        """Check ``seat`` is asked whether to show."""
        self.verify_show(seat)

    def can_muck(self, seat: int) -> bool:
        """Whether :meth:`muck` would succeed."""
        return self._can(self.verify_muck, seat)

    def muck(self, seat: int) -> Record:
        """Hide the hole cards."""
        self.verify_muck(seat)
        h = self.hand
        assert h is not None
        h.show_queue.pop(0)
        h.to_act = h.kind = None
        h.mucked.add(seat)
        rec = self._emit(Record("muck", seat, index=MUCK))
        self._advance()
        return rec

    def _finish(self) -> None:
        """Showdown: the hand is over; leavers go, sit-outs take effect."""
        h = self.hand
        assert h is not None
        h.state = SHOWDOWN
        h.to_act = h.kind = None
        players = tuple(
            (s, self.players[s].name, h.start_stacks.get(s, ZERO))
            for s in sorted(set(h.seats) | h.posted | h.refused)
            if s in self.players
        )
        won: dict[int, Decimal] = {}
        for s, amount, _pot, _text in h.awards:
            won[s] = won.get(s, ZERO) + amount
        deltas = tuple(
            (s, won.get(s, ZERO) - h.contrib.get(s, ZERO) - h.dead_paid.get(s, ZERO))
            for s, _, _start in players
        )
        cfg = self.config
        self._emit(
            Record(
                "handover",
                text=h.hand_id,
                extra=(("deltas", deltas), ("stacks", tuple(sorted(self.stacks().items())))),
            )
        )
        self.last_hand = HandRecord(
            hand_id=h.hand_id,
            number=h.number,
            game=cfg.variant.name,
            limit=cfg.limit,
            stakes=cfg.stakes,
            small_blind=cfg.small_blind,
            big_blind=cfg.big_blind,
            button=h.button,
            players=players,
            hole=tuple((s, tuple(h.hole[s])) for s in h.seats if s in h.hole),
            board=tuple(h.board),
            shown=tuple(sorted(h.shown)),
            actions=tuple(h.records),
            pots=tuple(h.pots),
            awards=tuple(h.awards),
            deltas=deltas,
            dealt=tuple(h.dealt),
        )
        h.over = True
        for s, p in sorted(self.players.items()):
            if p.leaving:
                self._remove(s)
                continue
            if p.sit_out_next:
                p.sit_out_next = False
                p.sitting_out = True
                self._emit(Record("sitout", s, index=SIT_OUT))
            elif p.stack <= 0 and not p.sitting_out:
                p.sitting_out = True
                self._emit(Record("sitout", s, index=SIT_OUT, text="no chips"))

    def verify_abort_hand(self) -> Hand:
        """Check a hand is running."""
        if self.hand is None or self.hand.over:
            raise RuleError("no hand is running")
        return self.hand

    def abort_hand(self) -> Record:
        """Stop the running hand (the table closes): money still in the pot goes back
        to whoever put it in; pots already awarded stay awarded."""
        h = self.verify_abort_hand()
        if not h.awards:
            paid = dict(h.contrib)
            for s, d in h.dead_paid.items():
                paid[s] = paid.get(s, ZERO) + d
            for s, amount in sorted(paid.items()):
                if amount and s in self.players:
                    self.players[s].stack += amount
                    self._emit(Record("return", s, amount=amount))
            h.contrib.clear()
            h.dead = ZERO
        rec = self._emit(Record("cancel", text="hand aborted"))
        h.to_act = h.kind = None
        h.state = SHOWDOWN
        h.over = True
        return rec

    # defaults and timeouts ------------------------------------------------------------

    def _default_action(self, seat: int) -> Record:
        """What happens when ``seat`` does not decide: refuse the blind, check or fold,
        change no cards, muck."""
        h = self.hand
        assert h is not None
        if h.kind == BLIND:
            return self.refuse_blind(seat)
        if h.kind == BETTING:
            if self._to_call(seat) == 0:
                return self.check(seat)
            return self.fold(seat)
        if h.kind == DISCARDING:
            return self.discard(seat, ())
        return self.muck(seat)

    def _auto_play(self) -> None:
        """Act at once for a leaving player whose turn it is."""
        t = self.turn
        if t is not None:
            p = self.players.get(t.seat)
            if p is not None and p.leaving:
                self._default_action(t.seat)

    def verify_timeout(self, seat: int) -> Turn:
        """Check ``seat`` is the one the table waits for."""
        t = self.turn
        if t is None or t.seat != seat:
            raise RuleError(f"seat {seat} is not to act")
        return t

    def timeout(self, seat: int) -> Record:
        """``seat`` ran out of time: the default action; a betting player also sits out
        from the next hand (a blind refused sits out at once)."""
        t = self.verify_timeout(seat)
        self._emit(Record("timeout", seat, text=t.kind))
        p = self.players[seat]
        if t.kind == BETTING and not p.sitting_out and not p.sit_out_next:
            p.sit_out_next = True
            self._emit(Record("sitout", seat, index=SIT_OUT, text="next hand"))
        return self._default_action(seat)

    # dispatch ---------------------------------------------------------------------------

    def act(
        self, seat: int, index: int, amount: Any = None, discarded: Iterable[int] = ()
    ) -> Record:
        """Do the player action with protocol index ``index``.

        :raises RuleError: the action is not legal now (or unknown).
        """
        if index == FOLD:
            return self.fold(seat)
        if index == CHECK:
            return self.check(seat)
        if index == CALL:
            return self.call(seat)
        if index == BET:
            return self.bet(seat, amount)
        if index == RAISE:
            return self.raise_to(seat, amount)
        if index == POST:
            return self.post_blind(seat)
        if index == SIT_OUT:
            if self.turn == Turn(seat, BLIND):
                return self.refuse_blind(seat)
            return self.sit_out(seat)
        if index == SIT_IN:
            return self.sit_in(seat)
        if index == SHOW:
            return self.show(seat)
        if index == MUCK:
            return self.muck(seat)
        if index == DISCARD:
            return self.discard(seat, discarded)
        if index == LEAVE_SEAT:
            return self.leave(seat)
        raise RuleError(f"unknown action index {index!r}")
