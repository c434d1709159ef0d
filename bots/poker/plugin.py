"""The poker bots as hub plugins (:class:`~hub.interfaces.IBotFactory`).

Bot names: ``caller``, ``raiser``, ``poker-random`` and ``holdem`` (see
:mod:`.policies`).  Each :class:`PokerBot` turns the engine's view into an
:class:`~.observation.Observation` (:func:`observation_from_view`), asks its policy
and answers with the game's action mapping ``{"name": "raise", "amount": "…"}``.  A bot keeps an
:class:`~.observe.OpponentModel` across the hands of its game.
"""

from __future__ import annotations

import functools
import random
import secrets
import threading
from collections.abc import Mapping, Sequence
from decimal import Decimal, InvalidOperation
from typing import Any

from zope.interface import implementer

from hub.interfaces import IBot, IBotFactory

from .observation import BET, CALL, RAISE, Observation, Opponent
from .observe import OpponentModel, action_for, legal_indices
from .policies import POLICIES, holdem

#: the game types the bots play
HOLDEM_GAMES = ("texas-holdem", "holdem-sng")
ALL_POKER_GAMES = ("texas-holdem", "five-card-draw", "holdem-sng")


def _pick(d: Mapping[str, Any], *names: str, default: Any = None) -> Any:
    for n in names:
        if n in d and d[n] is not None:
            return d[n]
    return default


def _money(value: Any, default: Decimal = Decimal(0)) -> Decimal:
    if value is None or isinstance(value, float | bool):
        return default
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return default


def _cards(value: Any) -> tuple[int, ...]:
    if not value:
        return ()
    return tuple(int(c) for c in value if isinstance(c, int) and 0 <= c <= 51)


def _players(view: Mapping[str, Any]) -> dict[int, Mapping[str, Any]]:
    raw = _pick(view, "players", default=())
    out: dict[int, Mapping[str, Any]] = {}
    items = raw.items() if isinstance(raw, Mapping) else enumerate(raw)
    for key, p in items:
        if not isinstance(p, Mapping):
            continue
        seat = _pick(p, "seat", "myseat", default=key)
        out[int(seat)] = p
    return out


def _folded(p: Mapping[str, Any]) -> bool:
    state = str(_pick(p, "state", "mystate", default="")).lower()
    last = str(_pick(p, "lastaction", "last_action", default="")).lower()
    return bool(_pick(p, "folded", default=False)) or "fold" in state or last in ("fold", "0")


def _in_hand(p: Mapping[str, Any]) -> bool:
    cards = _pick(p, "holecards", "hole", "cards", default=None)
    if cards is not None and len(cards) == 0:
        return False
    state = str(_pick(p, "state", "mystate", default="")).lower()
    if "sit" in state or "out" in state or "wait" in state:
        return False
    return not _folded(p)


def observation_from_view(
    view: Mapping[str, Any],
    legal: Sequence[Any],
    seat: int,
    model: OpponentModel | None = None,
    tracker: ActionTracker | None = None,
) -> Observation:
    """Build the observation of ``seat`` from the engine's ``view`` and ``legal`` list.

    Reads gameinfo-like keys (``boardcards``/``board``, ``players`` with ``seat``,
    ``holecards``, ``inpotthisround``, ``lastaction``...), the action log
    (``actions``/``log``: records with ``kind`` and ``seat``) when there is one, and
    the amounts of the legal actions (to call, bet size).  Without a log, ``tracker``
    rebuilds one from the players' ``lastaction`` as it changes between decisions.
    """
    players = _players(view)
    me = players.get(seat, {})
    hole = _cards(_pick(view, "hole", "holecards", default=None)) or _cards(
        _pick(me, "holecards", "hole", "cards", default=None)
    )
    board = _cards(_pick(view, "board", "boardcards", default=()))
    indices = legal_indices(legal)
    amounts = {i: action_for(i, legal)[1] for i in indices}
    to_call = amounts.get(CALL) or Decimal(0)
    my_bet = _money(_pick(me, "inpotthisround", "bet", "bets"))
    raise_to = amounts.get(RAISE) or amounts.get(BET)
    street = _pick(view, "stage", "street", default=None)
    if not isinstance(street, int):
        street = {3: 1, 4: 2, 5: 3}.get(len(board), 0)
    street = max(0, min(3, street))
    small = _money(_pick(view, "smallbet", "small_bet"), Decimal(2))
    big = _money(_pick(view, "bigbet", "big_bet"), small * 2)
    if raise_to is not None:
        bet_size = raise_to - my_bet - to_call
    else:
        bet_size = small if street < 2 else big
    pot = _money(_pick(view, "pot", "pot_total"))
    if pot <= 0:
        pot = sum((_money(_pick(p, "inpot", "contrib")) for p in players.values()), Decimal(0))
    button = _pick(view, "buttonseat", "button")
    live = sorted(s for s, p in players.items() if s == seat or _in_hand(p))
    if button is not None and live:
        n = max(max(live), int(button)) + 1
        order = sorted(live, key=lambda s: (s - int(button) - 1) % n)
    else:
        order = live
    names = {
        s: str(_pick(p, "name", "myname", "accountname", default=f"seat {s}"))
        for s, p in players.items()
    }
    if model is not None:
        log = _pick(view, "actions", "log", default=None)
        hand_id = _pick(view, "handid", "hand_id", default=None)
        if isinstance(log, Sequence):
            model.observe(hand_id, log, names)
        elif tracker is not None:
            model.observe(hand_id, tracker.update(hand_id, street, players, seat), names)
    opponents = tuple(
        model.opponent(s, names[s]) if model is not None else Opponent(s) for s in live if s != seat
    )
    raises = int(_pick(view, "betsthisround", "raisesthisround", "raises", default=0) or 0)
    if street == 0:
        raises = max(raises, 1)
    cap = _pick(view, "cap", default=4)
    return Observation(
        hole=hole,
        board=board,
        legal=indices,
        street=street,
        pot=pot,
        to_call=to_call,
        bet_size=max(bet_size, Decimal(0)),
        big_blind=_money(_pick(view, "bigblind", "big_blind"), small),
        stack=_money(_pick(me, "bankroll", "stack"), Decimal(1000)),
        raises=raises,
        cap=int(cap) if cap is not None else 99,
        position=order.index(seat) if seat in order else 0,
        players=max(2, len(live)),
        opponents=opponents,
    )


class ActionTracker:
    """Rebuilds an opponent action log from successive views' ``lastaction`` fields.

    An opponent acted when its (street, last action, money in) changed since the
    previous view; repeated identical actions on one street are seen once.
    """

    NAMES = ("fold", "check", "call", "bet", "raise")

    def __init__(self) -> None:
        self.hand: Any = None
        self.log: list[dict[str, Any]] = []
        self._last: dict[int, tuple[Any, ...]] = {}

    def update(
        self, hand_id: Any, street: int, players: Mapping[int, Mapping[str, Any]], seat: int
    ) -> list[dict[str, Any]]:
        """The log of hand ``hand_id`` so far, extended from this view."""
        if hand_id != self.hand:
            self.hand, self.log, self._last = hand_id, [], {}
        for s, p in sorted(players.items()):
            if s == seat:
                continue
            last = _pick(p, "lastaction", "last_action")
            if isinstance(last, int) and 0 <= last < len(self.NAMES):
                last = self.NAMES[last]
            if not isinstance(last, str) or last.lower() not in self.NAMES:
                continue
            key = (street, last.lower(), str(_pick(p, "inpot", default="")))
            if self._last.get(s) != key:
                self._last[s] = key
                self.log.append({"kind": last.lower(), "seat": s})
        return self.log


@implementer(IBot)
class PokerBot:
    """One seat played by a policy.

    :param policy_name: a key of :data:`~.policies.POLICIES`.
    :param seat: the seat it plays.
    :param seed: seeds its randomness (default: a random seed).
    """

    def __init__(self, policy_name: str, seat: int, seed: int | None = None) -> None:
        self.name = policy_name
        self.policy = POLICIES[policy_name]
        self.seat = seat
        self.rng = random.Random(seed if seed is not None else secrets.randbits(64))
        self.model = OpponentModel()
        self.tracker = ActionTracker()
        self._lock = threading.Lock()  # the hub thinks in worker threads

    def choose(
        self, view: Any, legal: Sequence[Mapping[str, Any]], deadline: float
    ) -> dict[str, Any]:
        """The action for ``legal`` given ``view``, within ``deadline`` seconds."""
        with self._lock:
            obs = observation_from_view(
                view if isinstance(view, Mapping) else {},
                legal,
                self.seat,
                self.model,
                self.tracker,
            )
            policy = self.policy
            if policy is holdem and deadline < 0.5:
                policy = functools.partial(holdem, samples=40)
            name, amount = action_for(policy(obs, self.rng), legal)
        action: dict[str, Any] = {"name": name}
        if amount is not None:
            action["amount"] = str(amount)
        return action


@implementer(IBotFactory)
class PokerBotFactory:
    """Base of the poker bot plugins: ``name`` picks the policy."""

    name = "caller"
    summary = ""
    games: tuple[str, ...] = ALL_POKER_GAMES

    def create(self, game_type: str, seat: int, options: Any) -> PokerBot:
        """A fresh bot for ``seat``; ``options["bot_seed"]`` makes it reproducible."""
        seed = options.get("bot_seed") if isinstance(options, Mapping) else None
        return PokerBot(self.name, seat, seed if isinstance(seed, int) else None)


class CallerFactory(PokerBotFactory):
    """``caller``: checks or calls, never raises or folds (a baseline)."""

    name = "caller"
    summary = "Poker baseline: checks or calls every time."


class RaiserFactory(PokerBotFactory):
    """``raiser``: bets or raises whenever allowed (a baseline)."""

    name = "raiser"
    summary = "Poker baseline: bets or raises whenever allowed, never folds."


class RandomFactory(PokerBotFactory):
    """``poker-random``: a random legal betting action (a baseline)."""

    name = "poker-random"
    summary = "Poker baseline: random legal actions (never folds when checking is free)."


class HoldemFactory(PokerBotFactory):
    """``holdem``: Monte-Carlo equity against modelled ranges, pot odds, position."""

    name = "holdem"
    summary = "Fixed-limit hold'em: Monte-Carlo equity against likely ranges, pot odds, position."
    games = HOLDEM_GAMES


__all__ = [
    "CallerFactory",
    "HoldemFactory",
    "PokerBot",
    "PokerBotFactory",
    "RaiserFactory",
    "RandomFactory",
    "observation_from_view",
]
