"""Building :class:`~.observation.Observation` objects, and learning opponents' habits.

:class:`OpponentModel` watches the action records of the hands a bot sees and keeps,
per opponent (by name), how often it bets or raises, calls and folds.  From that it
models the range of an opponent who has bet or raised ``k`` times this hand as the best
``aggression ** k`` fraction of starting hands (a player who raises everything tells
nothing by raising), narrowed a little for each call by its fold frequency.

:func:`observation_from_table` reads a :class:`games.poker.rules.Table` (the engine in
process: ``gamehub match``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from .observation import BY_NAME, Observation, Opponent

AGGRESSIVE = ("bet", "raise")
PASSIVE = ("check", "call")


class OpponentModel:
    """Per-opponent action frequencies over the hands seen, and this hand's actions.

    :param prior: pseudo-counts (aggressive, passive, fold) every opponent starts with.
    """

    def __init__(self, prior: tuple[float, float, float] = (1.0, 2.0, 1.0)) -> None:
        self.prior = prior
        self.stats: dict[str, list[float]] = {}
        self._hand: Any = None
        self._seen = 0
        self.this_hand: dict[str, list[int]] = {}  #: name → [aggressive, calls]

    def observe(self, hand_id: Any, records: Sequence[Any], names: Mapping[int, str]) -> None:
        """Take in the records of hand ``hand_id`` not seen yet.

        :param records: every record of the hand so far (objects or mappings with
            ``kind`` and ``seat``), oldest first; the model remembers how many it read.
        :param names: seat → player name.
        """
        if hand_id != self._hand:
            self._hand = hand_id
            self._seen = 0
            self.this_hand = {}
        for rec in records[self._seen :]:
            kind = _field(rec, "kind")
            seat = _field(rec, "seat")
            if seat is None or kind not in AGGRESSIVE + PASSIVE + ("fold",):
                continue
            name = names.get(seat, f"seat {seat}")
            st = self.stats.setdefault(name, list(self.prior))
            mine = self.this_hand.setdefault(name, [0, 0])
            if kind in AGGRESSIVE:
                st[0] += 1
                mine[0] += 1
            elif kind == "fold":
                st[2] += 1
            else:
                st[1] += 1
                if kind == "call":
                    mine[1] += 1
        self._seen = len(records)

    def aggression(self, name: str) -> float:
        """Share of bets and raises among the opponent's betting decisions."""
        a, p, f = self.stats.get(name, self.prior)
        return a / (a + p + f)

    def fold_rate(self, name: str) -> float:
        """Share of folds among the opponent's betting decisions."""
        a, p, f = self.stats.get(name, self.prior)
        return f / (a + p + f)

    def width(self, name: str) -> float:
        """The modelled range width of ``name`` given this hand's actions."""
        aggressive, calls = self.this_hand.get(name, (0, 0))
        w = self.aggression(name) ** aggressive * (1 - self.fold_rate(name)) ** min(calls, 3)
        return max(0.04, min(1.0, w))

    def opponent(self, seat: int, name: str) -> Opponent:
        """The :class:`Opponent` for ``seat`` played by ``name``."""
        aggressive, calls = self.this_hand.get(name, (0, 0))
        return Opponent(seat, aggressive, calls, self.width(name))


def _field(rec: Any, key: str) -> Any:
    if isinstance(rec, Mapping):
        return rec.get(key)
    return getattr(rec, key, None)


def legal_indices(legal: Iterable[Any]) -> tuple[int, ...]:
    """The bots' decision numbers (:data:`.observation.BY_NAME`) of the legal actions:
    engine ``Legal`` objects or the game's ``{"name": …}`` mappings."""
    return tuple(BY_NAME[n] for n in (str(_field(x, "name")) for x in legal) if n in BY_NAME)


def action_for(decision: int, legal: Iterable[Any]) -> tuple[str, Decimal | None]:
    """``(name, amount)`` to play for the bots' ``decision``: the legal action's name
    and its fixed amount or the minimum of a bet/raise."""
    for x in legal:
        name = str(_field(x, "name"))
        if BY_NAME.get(name) == decision:
            amount = _field(x, "amount")
            if amount is None:
                amount = _field(x, "min")
            return name, (Decimal(str(amount)) if amount is not None else None)
    raise ValueError(f"action {decision} is not legal")


def observation_from_table(
    table: Any, seat: int, model: OpponentModel | None = None
) -> Observation:
    """What ``seat`` may know at its turn at the engine ``table`` (a rules ``Table``).

    Only the seat's own hole cards are read; opponents are described by their actions
    (through ``model``, which is updated here).
    """
    h = table.hand
    cfg = table.config
    legal = table.legal_actions(seat)
    names = {s: p.name for s, p in table.players.items()}
    if model is not None:
        model.observe(h.hand_id, h.records, names)
    live = h.live()
    order = table._ring_after(h.button, live)  # first to act after the flop … button
    opponents = []
    for s in live:
        if s == seat:
            continue
        if model is not None:
            opponents.append(model.opponent(s, names[s]))
        else:
            opponents.append(Opponent(s))
    to_call = max(h.current_bet - h.bets.get(seat, Decimal(0)), Decimal(0))
    after = order[order.index(seat) + 1 :] if seat in order else []
    return Observation(
        hole=tuple(h.hole.get(seat, ())),
        board=tuple(h.board),
        legal=legal_indices(legal),
        street=max(h.stage, 0),
        pot=table.pot_total(),
        to_call=to_call,
        bet_size=h.bet_size,
        big_blind=cfg.big_blind,
        stack=table.players[seat].stack,
        raises=h.bets_count,
        cap=cfg.cap if cfg.cap is not None else 99,
        position=order.index(seat) if seat in order else 0,
        players=len(live),
        to_act_after=sum(1 for s in after if s in h.needs_act),
        opponents=tuple(opponents),
    )


__all__ = ["OpponentModel", "action_for", "legal_indices", "observation_from_table"]
