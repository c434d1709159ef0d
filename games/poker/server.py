"""Poker as a hub game plugin: the :class:`PokerGame` wrapper and its factories.

:class:`PokerGame` plugs the pure engine (:mod:`.rules`) into the hub: it runs the
timers of poker-rules.md on the injected clock, shuffles each hand provably fairly
(:mod:`.shuffle`; commitment in the ``hand`` event, seed in the ``handover`` event),
turns the engine's records into :class:`hub.model.GameEvent` objects (:mod:`.events`,
one handler per record kind) and gives each seat its view of the table (:mod:`.views`).
Its options are checked by :func:`table_config`.

Actions are mappings named by the action, in the engine's words
(:data:`ACTIONS`); the legal actions (:meth:`PokerGame.legal_actions`) carry the same
``name`` with their amounts (``amount``, or ``min`` and ``max``; ``count`` for a
discard)::

    {"name": "call"}
    {"name": "raise", "amount": "40"}              raise to 40 (no limit, pot limit)
    {"name": "discard", "discarded": [0, 3]}       change the first and fourth card
    {"name": "post", "amount": "1"}                post blinds automatically from now on
    {"name": "sitout"}, {"name": "sitin"}, {"name": "leaveseat"}

Front ends translate their wire's words to these (the XML adapter maps the
``texasmessage`` action indices, :mod:`.adapters`).  Chips come onto the table only
through :meth:`PokerGame.seat_player` (with a buy-in) and :meth:`PokerGame.add_chips`,
which the hub's table money calls after moving them in the ledger
(:class:`hub.interfaces.IChipGame`); ``takeseat`` and ``addbot`` as actions are refused.

Events (``kind``: data; amounts are decimal strings):

- ``buyin`` {seat, name, amount}: chips came onto the table (taking a seat, or adding
  chips between hands).
- ``cashout`` {seat, name, amount} (:data:`hub.model.CASH_OUT`): chips go back from
  the table to the account (a player left; at the end of the hand when they were in
  it; or the game stopped).
- ``seat`` {seat, name, what: taken | addchips | leaving | left | sitout | sitin,
  amount}.
- ``hand`` {handid, number, button, smallblindseat, bigblindseat, commitment}.
- ``deal`` {seats, count} (public) and ``hole`` {seat, cards} (private).
- ``board`` {cards, board, stage}.
- ``action`` {seat, name, amount, total, allin, stage, ...}: ``name`` is the action
  (``fold``... ``muck``; ``refuse``: a blind refused, the player sits out).
- ``return`` {seat, amount}: an uncalled bet (or cancelled blind) back to its owner.
- ``pots`` {stage, pots: [{amount, seats}]}.
- ``show`` {seat, cards, text}, ``award`` {seat, amount, pot, text}.
- ``handover`` {handid, deltas {seat: amount}, names, stacks, seed, commitment}
  (:data:`hub.model.HAND_OVER`): the hand's result; ``deltas`` add up to zero;
  ``seed`` only when it reveals nothing private (every hole card was shown down), else
  ``None``.  The full record (with every hole card, so it is not broadcast) is
  :meth:`PokerGame.hand_record`, and what the history keeps :meth:`PokerGame.hand_summary`.
  Once the hub holds hands (:meth:`PokerGame.hold_hands`), the next hand is dealt only
  after :meth:`PokerGame.settled`.
- ``timeout`` {seat, decision}.
- ``turn`` {seat, decision, legal, timeleft_ms, tocall}, for every decision.
- ``over`` {result} when the table closes (empty-table timer, or :meth:`stop`).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from twisted.logger import Logger
from zope.interface import implementer

from hub.interfaces import (
    IChipGame,
    IChipGameFactory,
    IGameOptions,
    IGameRules,
    IHandRecord,
    IRatedGameFactory,
)
from hub.model import (
    CONTRIBUTE,
    GAME_OVER,
    OVER,
    RUNNING,
    STATE,
    TURN,
    WAITING,
    BadAction,
    BuyinRange,
    Conflict,
    GameConfig,
    GameContext,
    GameEvent,
    GameOption,
    HandSummary,
    IllegalAction,
)
from hub.optional_interfaces import IHandViews, IRevealedHands

from . import events, hand_shuffle, history, rules, views
from .contributions import SharedShuffle
from .rules import RuleError
from .sql_views import HoldemViews
from .table_options import OPTIONS, table_config
from .timebank import TimeBanks

#: The names of the actions (the engine's words; ``takeseat`` and ``addbot`` are the
#: hub's business and refused as actions).
ACTIONS: tuple[str, ...] = rules.ACTION_NAMES
#: Actions that bring chips to the table: the hub's table money does that.
HUB_ACTIONS = frozenset({"takeseat", "addbot"})

#: Engine records that do not change whose decision it is.
PASSIVE = frozenset(
    {"seat", "addchips", "sitout", "sitin", "autopost", "automuck", "leaving", "leave"}
)


def _legal(legal: rules.Legal) -> dict[str, Any]:
    """An engine's legal action in the game's words (its name, not a number)."""
    out = legal.to_dict()
    out.pop("index", None)
    return out


@implementer(IChipGame)
class PokerGame(SharedShuffle):
    """One poker table in the hub (see the module docstring for actions and events).

    :param config: the hub's :class:`hub.model.GameConfig`.
    :param context: clock, emit and random source.
    :param variant: the engine's :class:`rules.Variant`.
    """

    log = Logger()

    def __init__(self, config: GameConfig, context: GameContext, variant: rules.Variant) -> None:
        self.seats = config.seats
        self._context = context
        self._reactor = context.clock
        self._emit = context.emit
        self.name = config.name
        self.variant = config.variant or "fixed-limit"
        cfg, self.options = table_config(variant, config.variant, config.seats, config.options)
        self.table = rules.Table(cfg, rng=context.rng)
        self._timer: Any = None  # decision timer or showdown pause
        self._deadline: float | None = None
        self._empty_timer: Any = None
        self.banks = TimeBanks(self.options["time_bank"], self.options["time_bank_add"])
        self._over = False
        self._shown_state = WAITING  # the state the last ``state`` event announced
        self._shuffler = hand_shuffle.Shuffler(self.options, context.rng)
        self._next: hand_shuffle.HandShuffle | None = None  #: the next hand's, until dealt
        self._dealt: hand_shuffle.HandShuffle | None = None  #: the hand's dealt (the last)
        self._window = False  # the timer waits for contributions to the next shuffle
        self.hands: list[rules.HandRecord] = []  #: finished hands (the last 100)
        self._holding = False  # deal only settled hands' successors (hold_hands)
        self._unsettled: set[str] = set()
        self._start_empty_timer()

    # -- IGame --------------------------------------------------------------------------

    @property
    def state(self) -> str:
        """``running`` while a hand is played (or the next one is due after the pause
        between hands, or after the last hand is settled, or the first one at the end
        of the reactor turn its players sat down in), ``waiting`` while fewer
        players than it takes to deal sit in (who sits there is in the view), ``over``
        when the table closed."""
        if self._over:
            return OVER
        if self.table.in_hand:
            return RUNNING
        if (self._timer is not None or self._unsettled) and self.table.can_start_hand():
            return RUNNING
        return WAITING

    def _announce_state(self) -> None:
        """A ``state`` event when :attr:`state` changed (the lobby lists it anew)."""
        state = self.state
        if state != self._shown_state and not self._over:
            self._shown_state = state
            self._emit(GameEvent(STATE, {"state": state}))

    def seat_player(self, seat: int, name: str, buyin: Any = None) -> None:
        """Seat ``name`` at ``seat`` with a buy-in (default: the ``buyin`` option).

        Emits ``buyin`` (the ledger moves the chips from the account) and ``seat``.

        :raises hub.model.GameError: a bad seat or buy-in.
        """
        if self._over:
            raise IllegalAction("this table is closed")
        try:
            amount = rules.money(self.options["buyin"] if buyin is None else buyin, "buy-in")
        except (TypeError, ValueError) as e:
            raise BadAction(str(e)) from None
        if amount < self.options["min_buyin"]:
            raise IllegalAction(f"the buy-in must be at least {self.options['min_buyin']}")
        if self.options["max_buyin"] is not None and amount > self.options["max_buyin"]:
            raise IllegalAction(f"the buy-in may be at most {self.options['max_buyin']}")
        if seat in self.table.players:
            raise Conflict(f"seat {seat} is taken")
        try:
            self.table.seat_player(seat, name, amount)
        except RuleError as e:
            raise IllegalAction(e.reason) from None
        self.table.players[seat].auto_post = bool(self.options["auto_post"])
        self.banks.seated(seat)
        self._emit(GameEvent("buyin", {"seat": seat, "name": name, "amount": str(amount)}))
        self._cancel_empty_timer()
        self._flush()
        if self.table.hands_played == 0 and not self.table.in_hand and self._timer is None:
            # the first hand waits for the end of this reactor turn: players seated
            # together (a creator's bots) are all dealt into it
            self._timer = self._reactor.callLater(0, self._next_hand)
        self._maybe_start()

    def add_chips(self, seat: int, amount: Any) -> None:
        """The player at ``seat`` adds ``amount`` chips (between hands; the stack may not
        exceed ``max_buyin``).  Emits ``buyin`` and ``seat`` (addchips).

        :raises hub.model.GameError: nobody there, a bad amount, or not now.
        """
        if self._over:
            raise IllegalAction("this table is closed")
        if seat not in self.table.players:
            raise IllegalAction(f"nobody sits at seat {seat}")
        try:
            value = rules.money(amount, "amount")
        except (TypeError, ValueError) as e:
            raise BadAction(str(e)) from None
        self._add_chips(seat, value)

    def hold_hands(self) -> None:
        """From now on deal no new hand until the last one is :meth:`settled`."""
        self._holding = True

    def settled(self, hand: str) -> None:
        """The hub's ledger has settled ``hand``: deal on when nothing else waits."""
        self._unsettled.discard(hand)
        if not self._unsettled:
            self._maybe_start()
        self._announce_state()

    def hand_summary(self, hand: str) -> HandSummary | None:
        """What the hand history keeps of ``hand`` (:func:`.history.summary`)."""
        rec = self._find(hand)
        return None if rec is None else history.summary(rec)

    def _add_chips(self, seat: int, amount: Decimal | None) -> None:
        if amount is None:
            raise BadAction("say how many chips to add")
        p = self.table.players[seat]
        top = self.options["max_buyin"]
        if top is not None and p.stack + amount > top:
            raise IllegalAction(f"a stack may be at most {top}")
        broke = p.sitting_out and p.stack <= 0  # sat out for want of chips: back in
        try:
            self.table.add_chips(seat, amount)
            if broke and self.table.can_sit_in(seat):
                self.table.sit_in(seat)
        except RuleError as e:
            raise IllegalAction(e.reason) from None
        self._emit(GameEvent("buyin", {"seat": seat, "name": p.name, "amount": str(amount)}))
        self._flush()
        self._maybe_start()

    def leave(self, seat: int) -> None:
        """The player at ``seat`` leaves: their stack goes back at the end of the hand."""
        if seat not in self.table.players or not self.table.can_leave(seat):
            return
        self.table.leave(seat)
        self._flush()

    def act(self, seat: int, action: Any) -> None:
        """Do a poker action (a mapping with the action's ``name``, see the module).

        :raises hub.model.BadAction: malformed.
        :raises hub.model.IllegalAction: not legal now; nothing changed.
        """
        if self._over:
            raise IllegalAction("this table is closed")
        if not isinstance(action, Mapping):
            raise BadAction("a poker action is a mapping with a name")
        name = action.get("name")
        if name == CONTRIBUTE:
            self._contribute(seat, action.get("value"), action.get("number"))
            return
        if not isinstance(name, str) or name not in ACTIONS:
            raise BadAction(f"a poker action is named {', '.join(ACTIONS)}")
        amount = action.get("amount")
        if amount is not None:
            try:
                amount = rules.money(amount)
            except (TypeError, ValueError) as e:
                raise BadAction(str(e)) from None
        if name in HUB_ACTIONS:
            raise IllegalAction(
                "chips come to the table through the hub: take a seat or add a bot there"
            )
        if seat not in self.table.players:
            raise IllegalAction(f"nobody sits at seat {seat}")
        try:
            turn = self.table.turn
            if name == "post" and amount is not None and turn != rules.Turn(seat, rules.BLIND):
                self.table.set_auto_post(seat, amount != 0)
            elif name == "muck" and "auto" in action:
                if not isinstance(action["auto"], bool):
                    raise BadAction("'auto' (auto-muck) is true or false")
                self.table.set_auto_muck(seat, action["auto"])
            elif name == "discard":
                discarded = action.get("discarded", ())
                if not isinstance(discarded, list | tuple):
                    raise BadAction("discarded lists card positions")
                self.table.discard(seat, discarded)
            elif name == "leaveseat":
                self.table.leave(seat)
            else:
                self.table.act(seat, ACTIONS.index(name), amount)
        except RuleError as e:
            raise IllegalAction(e.reason) from None
        except TypeError as e:
            raise BadAction(str(e)) from None
        self._flush()
        self._maybe_start()

    def legal_actions(self, seat: int) -> list[dict[str, Any]]:
        """The decision ``seat`` faces now (empty when it is not this seat's turn):
        ``{"name": ..., "amount" | "min", "max" | "count": ...}`` each."""
        return [_legal(a) for a in self.table.legal_actions(seat)]

    def view(self, seat: int | None) -> dict[str, Any]:
        """The table as ``seat`` sees it, in the game's own words: its stakes and
        ``variant``, the hand (``handid``, ``stage`` 0 to 3 while betting, 4 after the
        hand; ``boardcards``, ``pot``, ``pots``, whose turn and which ``decision``), and
        per player the stack (``bankroll``), hole cards (``-1`` for those this seat may
        not see), money in the pot and ``state`` (``waiting``, ``active``, ``folded``,
        ``allin``, ``sittingout``); the seat's own ``legal`` actions.  Front ends
        translate it (the XML adapter into a ``gameinfo``)."""
        legal = self.legal_actions(seat) if seat is not None else []
        facts = views.TableFacts(
            variant=self.variant,
            gameid=self._context.game_id,
            name=self.name,
            timeleft=self._timeleft_ms(),
            nexthand_ms=self._next_hand_ms(),
            commitment=self._dealt.commitment if self._dealt is not None else None,
            buyin=str(self.options["buyin"]),
            timebanks=self.banks.all_ms() if self.banks.start else None,
        )
        return views.table_view(self.table, self.seats, seat, legal, facts)

    def result(self) -> dict[str, Any] | None:
        """``None`` until the table closes; then the stacks players left with."""
        if not self._over:
            return None
        return self._result

    def stop(self) -> None:
        """Close the table: cancel every timer, refund a hand in progress, cash out."""
        self._close("stopped")

    def hand_record(self, hand_id: str | None = None) -> dict[str, Any] | None:
        """The full record of a finished hand (the last one by default) as JSON-able
        data (:func:`.history.to_dict`), for the hand history store; every hole card
        is in it: do not send it to players.  ``None`` for an unknown hand."""
        rec = self._find(hand_id)
        return None if rec is None else history.to_dict(rec)

    def hand_history_text(
        self, hand_id: str | None = None, seat: int | None = None, reveal: bool = False
    ) -> str | None:
        """The hand as readable hand-history text (:func:`.history.format_hand`), as the
        player at ``seat`` now saw it: their hole cards only if they played the hand
        (the seat's player then may have been someone else)."""
        rec = self._find(hand_id)
        if rec is None:
            return None
        if seat is not None:
            now = self.table.players.get(seat)
            then = {s: name for s, name, _stack in rec.players}.get(seat)
            if now is None or then != now.name:
                seat = None
        return history.format_hand(rec, seat=seat, reveal=reveal)

    def _find(self, hand_id: str | None) -> rules.HandRecord | None:
        if hand_id is None:
            return self.hands[-1] if self.hands else None
        for rec in reversed(self.hands):
            if rec.hand_id == hand_id:
                return rec
        return None

    # -- internals ----------------------------------------------------------------------

    _result: dict[str, Any] = {}

    def _timeleft_ms(self) -> int | None:
        if self._deadline is None:
            return None
        return max(0, int((self._deadline - self._reactor.seconds()) * 1000))

    def _next_hand_ms(self) -> int | None:
        """Milliseconds until the next hand is dealt (during the pause after a hand)."""
        if self._timer is None or self.table.in_hand or not self._timer.active():
            return None
        if not self.table.can_start_hand():
            return None
        return max(0, int((self._timer.getTime() - self._reactor.seconds()) * 1000))

    def _cancel_timer(self) -> None:
        self.banks.end(self._reactor.seconds())
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None
        self._deadline = None
        self._window = False

    def _start_empty_timer(self) -> None:
        if self._empty_timer is None and not self.table.players and not self._over:
            self._empty_timer = self._reactor.callLater(
                self.options["empty_timeout"], self._close, "empty table"
            )

    def _cancel_empty_timer(self) -> None:
        if self._empty_timer is not None and self._empty_timer.active():
            self._empty_timer.cancel()
        self._empty_timer = None

    def _maybe_start(self) -> None:
        """Deal a hand when none runs, no pause is pending, the last hand is settled
        (when the hub holds hands) and enough players sit in."""
        if self._over or self.table.in_hand or self._timer is not None or self._unsettled:
            return
        hands = self.options["hands"]
        if hands is not None and self.table.hands_played >= hands:
            self._close(f"{hands} hands played")
            return
        if not self.table.can_start_hand():
            return
        number = self.table.hands_played + 1
        if self._next is None or self._next.number != number:
            self._prepare(number)
        assert self._next is not None
        wait = self._contribution_wait(self._next)
        if wait > 0:
            self._window = True
            self._timer = self._reactor.callLater(wait, self._next_hand)
            return
        self._dealt, self._next = self._next, None
        deck = self._shuffler.deck(self._dealt, len(self.table.sitting_in()))
        hand_id = f"{self._context.game_id or 'poker'}-{number}"
        button = self.options["first_button"] if number == 1 else None
        if button is not None and button not in self.table.sitting_in():
            button = None
        self.table.start_hand(deck, hand_id=hand_id, button=button)
        if self.table.hand is not None:
            self.banks.dealt(self.table.hand.seats)
        self._flush()

    def _next_hand(self) -> None:
        self._timer = None
        self._deadline = None
        self._window = False
        self._maybe_start()
        self._announce_state()

    def _on_timeout(self, seat: int) -> None:
        self._timer = None
        self._deadline = None
        turn = self.table.turn
        if turn is None or turn.seat != seat:
            return
        if self._draw_on_bank(turn):
            return
        self.banks.end(self._reactor.seconds())
        self.table.timeout(seat)
        self._flush()
        self._maybe_start()

    def _flush(self) -> None:
        """Turn new engine records into events; announce the next decision."""
        hand_over = changed = False
        shuffled = self._shuffle()
        for rec in self.table.drain():
            if rec.kind == "handover":
                self._file_hand()  # its record is there when its event goes out
                hand_over = True
            for event in events.events_of(rec, shuffled):
                self._emit(event)
            if rec.kind not in PASSIVE:
                changed = True
        if hand_over:
            self._cancel_timer()
            self._timer = self._reactor.callLater(self.options["showdown_pause"], self._next_hand)
            hands = self.options["hands"]
            if hands is None or self.table.hands_played < hands:
                self._prepare(self.table.hands_played + 1)  # the pause is its window
        if changed or (self.table.turn is not None and self._deadline is None):
            self._announce()
        if not self.table.players:
            self._start_empty_timer()
        self._announce_state()

    def _draw_on_bank(self, turn: rules.Turn) -> bool:
        """The seat's time ran out: draw on its time bank if it has one for this kind
        of decision (:mod:`.timebank`); ``False``: it has none (left)."""
        if turn.kind not in (rules.BETTING, rules.DISCARDING) or self.banks.drawing is not None:
            return False
        seconds = self.banks.begin(turn.seat, self._reactor.seconds())
        if seconds <= 0:
            return False
        self._turn_event(turn, seconds)
        return True

    def _announce(self) -> None:
        """Start the decision timer of the seat to act and send its ``turn`` event."""
        if self._deadline is not None:
            self._cancel_timer()  # the previous decision's timer
        turn = self.table.turn
        if turn is None:
            return
        self._turn_event(turn, self._decision_time(turn))

    def _turn_event(self, turn: rules.Turn, delay: float) -> None:
        """Give the seat to act ``delay`` seconds and say so (a ``turn`` event; while it
        draws on its time bank, with ``timebank`` true)."""
        self._deadline = self._reactor.seconds() + delay
        self._timer = self._reactor.callLater(delay, self._on_timeout, turn.seat)
        legal = self.legal_actions(turn.seat)
        to_call = "0"
        for a in legal:
            if a["name"] == "call":
                to_call = a["amount"]
        self._emit(
            GameEvent(
                TURN,
                {
                    "seat": turn.seat,
                    "decision": turn.kind,
                    "legal": legal,
                    "timeleft_ms": int(delay * 1000),
                    "tocall": to_call,
                    "timebank": self.banks.drawing is not None,
                    "timebank_ms": self.banks.left_ms(turn.seat),
                },
            )
        )

    def _decision_time(self, turn: rules.Turn) -> float:
        """Seconds the seat to act has for the decision ``turn``."""
        key = {
            rules.BLIND: "blind_time",
            rules.BETTING: "action_time",
            rules.DISCARDING: "action_time",
            rules.SHOWING: "show_time",
        }[turn.kind]
        return float(self.options[key])

    def _file_hand(self) -> None:
        """Keep the finished hand's record (with the shuffle's commitment and seed)."""
        rec = self.table.last_hand
        assert rec is not None
        dealt = self._dealt.extra() if self._dealt is not None else {}
        rec = rec.with_extra(
            **dealt,
            gameid=self._context.game_id,
            table=self.name,
            time=self._reactor.seconds(),
        )
        self.table.last_hand = rec
        self.hands.append(rec)
        del self.hands[:-100]
        if self._holding:
            self._unsettled.add(rec.hand_id)

    def _shuffle(self) -> events.Shuffle:
        """The current hand's shuffle, for the events of its records."""
        hand = self._dealt
        if hand is None:
            return events.Shuffle(self.table, None, None)
        return events.Shuffle(self.table, hand.commitment, hand.seed, hand.extra()["contributions"])

    def _halt(self) -> None:
        """Deal no more: cancel every timer, refund the running hand (its records are
        left for the caller to drain)."""
        self._cancel_timer()
        self._cancel_empty_timer()
        if self.table.in_hand:
            self.table.abort_hand()

    def _close(self, why: str) -> None:
        """Close the table for good: refund a running hand, cash everyone out."""
        if self._over:
            return
        self._halt()
        for seat in sorted(self.table.players):
            self.table.remove(seat)
        stacks = [Decimal(0)] * self.seats
        shuffled = self._shuffle()
        for rec in self.table.drain():
            for event in events.events_of(rec, shuffled):
                self._emit(event)
            if rec.kind == "leave" and rec.seat is not None:
                stacks[rec.seat] = rec.amount or Decimal(0)
        self._over = True
        self._result = {
            "winners": [],
            "scores": [str(v) for v in stacks],
            "summary": f"table closed ({why}) after {self.table.hands_played} hands",
            "hands": self.table.hands_played,
        }
        self._emit(GameEvent(GAME_OVER, {"result": self._result}))


@implementer(IChipGameFactory, IGameOptions, IHandRecord, IRatedGameFactory, IRevealedHands)
class PokerFactory:
    """A poker game type: chip games (table stakes) on the engine (:mod:`.rules`).

    The base of the built-in poker types and the stable seam of a poker variant in a
    plugin (docs/plugins.md, "A new poker variant"): a subclass names ``name`` (the
    ``.meta``'s, and its :class:`~.rules.Variant`'s), ``summary``, ``max_seats``,
    ``default_seats`` and ``rules_variant`` (the steps of its hand); it declares
    ``IGameRules`` itself when it ships a rules text (``rules``, a file of its package).
    """

    #: the game type's (a subclass names it): its name, one line, its seats
    name: str
    summary: str
    max_seats: int
    default_seats: int
    variants: tuple[str, ...] = ("fixed-limit", "no-limit", "pot-limit")
    frontends: tuple[str, ...] = ("xml", "web")
    min_seats = 2
    rules_variant: rules.Variant = rules.TEXAS_HOLDEM

    @property
    def options(self) -> tuple[GameOption, ...]:
        """The table options that apply to this game type."""
        draws = bool(self.rules_variant.max_discard)
        return tuple(o for o in OPTIONS if draws or o.name != "max_discard")

    def create(self, config: GameConfig, context: GameContext) -> PokerGame:
        """A new table.

        :raises hub.model.GameError: for options the table does not accept.
        """
        return PokerGame(config, context, self.rules_variant)

    def buyin_range(self, config: GameConfig) -> BuyinRange:
        """The table's ``min_buyin``, ``buyin`` and ``max_buyin`` (defaults: one big
        blind, 100 big blinds, none).

        :raises hub.model.GameError: for options the table does not accept.
        """
        _, opts = table_config(self.rules_variant, config.variant, config.seats, config.options)
        return BuyinRange(opts["min_buyin"], opts["buyin"], opts["max_buyin"])

    def rating_variant(self, variant: str | None) -> str:
        """Each betting structure is its own rating pool: fixed limit, no limit and pot
        limit are different games to be good at."""
        return variant or self.variants[0]

    def rating_ranks(self, result: Any) -> None:
        """The hub's default: seats ranked by the stacks they left the table with."""
        return None

    def adapter(self, frontend: str) -> Any:
        """The adapter of front end ``frontend`` (:data:`.adapters.ADAPTERS`), or ``None``."""
        from . import adapters  # a front end's helpers load when a front end asks

        make = adapters.ADAPTERS.get(frontend) if frontend in self.frontends else None
        return None if make is None else make()

    # -- stored hands (IHandRecord) -----------------------------------------------------

    def describe(self, hand: Mapping[str, Any]) -> str | None:
        """A stored hand's line: ``board …; <showdown>`` (:func:`.history.describe`)."""
        return history.describe(hand)

    def hand_json(self, hand: Mapping[str, Any]) -> dict[str, Any]:
        """A stored hand's poker fields for the web (:func:`.history.hand_json`)."""
        return history.hand_json(hand)

    def revealed(self, hand: Mapping[str, Any]) -> dict[str, Any]:
        """A revealed hand's seed, for its players (:func:`.history.revealed`)."""
        return history.revealed(hand)


@implementer(IChipGameFactory, IGameOptions, IGameRules, IHandRecord, IRatedGameFactory, IHandViews)
class TexasHoldemFactory(HoldemViews, PokerFactory):
    """Texas Hold'em: fixed limit (default), no limit, pot limit; 2–10 seats; also the
    table of the ACPC front end's matches (:mod:`.acpc`)."""

    name = "texas-holdem"
    frontends: tuple[str, ...] = ("xml", "web", "acpc")
    summary = "Texas Hold'em poker: fixed limit (default), no limit or pot limit."
    max_seats = 10
    default_seats = 10
    rules_variant = rules.TEXAS_HOLDEM
    rules = "rules-holdem.md"


@implementer(IChipGameFactory, IGameOptions, IGameRules, IHandRecord, IRatedGameFactory)
class FiveCardDrawFactory(PokerFactory):
    """Five-card draw: one discard round between two betting rounds; 2–6 seats."""

    name = "five-card-draw"
    summary = "Five-card draw poker: bet, change up to three cards, bet, show down."
    max_seats = 6
    default_seats = 6
    rules_variant = rules.FIVE_CARD_DRAW
    rules = "rules-draw.md"
