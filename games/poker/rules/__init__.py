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

Cards are ints 0–51 (``rank * 4 + suit``, see :mod:`games.poker.cards`).  The deck is
injected per hand (:meth:`Table.start_hand`), so tests can stack it; cards are dealt
from its front in this documented order: hole cards one at a time around the table
starting left of the button, then (Hold'em) one burn card before each board street,
and (draw) replacement cards in the order players discard.

Where things are (every name is importable from this package):

- :mod:`.constants`: action indices, betting structures, state names, decision kinds;
- :mod:`.money`, :mod:`.errors`: :func:`money` and :class:`RuleError`;
- :mod:`.config`: :class:`Step`, :class:`Variant` and :class:`TableConfig` (immutable);
- :mod:`.records`: the frozen records (:class:`Record`, :class:`HandRecord`,
  :class:`Legal`, :class:`Turn`, :class:`Pot`);
- :mod:`.state`: the mutable :class:`Player` and :class:`Hand`;
- :mod:`.pots`: side pots and splitting them; :mod:`.limits`: bet sizes per structure;
- :mod:`.plan`: what a table works out once for its config (the most a fixed-limit
  hand can ask), and the amounts, legal actions and records its counted hands share
  (the betting shortcuts: :attr:`Hand.roomy`, :attr:`Hand.deep`, :attr:`Hand.counted`);
- the table, one part per phase: :mod:`.base` (shared state and helpers),
  :mod:`.seating`, :mod:`.blinds` (starting a hand), :mod:`.dealing` (and the draw),
  :mod:`.betting`, :mod:`.showdown`, and :mod:`.table` (the state machine, defaults,
  timeouts and :meth:`Table.act`).
"""

from __future__ import annotations

from .config import FIVE_CARD_DRAW, TEXAS_HOLDEM, Step, TableConfig, Variant
from .constants import (
    ACTION_NAMES,
    ADD_BOT,
    BET,
    BET_ROUND,
    BETTING,
    BLIND,
    BLIND_ROUND,
    CALL,
    CHECK,
    DEAL_CARDS,
    DISCARD,
    DISCARD_ROUND,
    DISCARDING,
    FIXED_LIMIT,
    FOLD,
    LEAVE_SEAT,
    LESS_THAN_TWO,
    LIMIT_NAMES,
    MUCK,
    MUCK_ROUND,
    NEW_DEAL,
    NO_LIMIT,
    POST,
    POT_LIMIT,
    RAISE,
    SHOW,
    SHOWDOWN,
    SHOWING,
    SIT_IN,
    SIT_OUT,
    TAKE_SEAT,
    WAIT_PLAYERS,
    WINNINGS,
)
from .errors import RuleError
from .money import ZERO, Money, money
from .pots import best_hands, contested_pots, side_pots, split
from .records import HandRecord, Legal, Pot, Record, Turn
from .state import Hand, Player
from .table import Table

__all__ = [
    "ACTION_NAMES",
    "ADD_BOT",
    "BET",
    "BET_ROUND",
    "BETTING",
    "BLIND",
    "BLIND_ROUND",
    "CALL",
    "CHECK",
    "DEAL_CARDS",
    "DISCARD",
    "DISCARDING",
    "DISCARD_ROUND",
    "FIVE_CARD_DRAW",
    "FIXED_LIMIT",
    "FOLD",
    "LEAVE_SEAT",
    "LESS_THAN_TWO",
    "LIMIT_NAMES",
    "MUCK",
    "MUCK_ROUND",
    "NEW_DEAL",
    "NO_LIMIT",
    "POST",
    "POT_LIMIT",
    "RAISE",
    "SHOW",
    "SHOWDOWN",
    "SHOWING",
    "SIT_IN",
    "SIT_OUT",
    "TAKE_SEAT",
    "TEXAS_HOLDEM",
    "WAIT_PLAYERS",
    "WINNINGS",
    "ZERO",
    "Hand",
    "HandRecord",
    "Legal",
    "Money",
    "Player",
    "Pot",
    "Record",
    "RuleError",
    "Step",
    "Table",
    "TableConfig",
    "Turn",
    "Variant",
    "best_hands",
    "contested_pots",
    "money",
    "side_pots",
    "split",
]
