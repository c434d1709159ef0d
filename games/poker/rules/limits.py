"""Betting structures: how much a bet or raise may be under fixed, pot and no limit."""

from __future__ import annotations

from decimal import Decimal

from .config import TableConfig
from .constants import FIXED_LIMIT, POT_LIMIT
from .money import ZERO
from .state import Hand


def raise_range(cfg: TableConfig, h: Hand, seat: int, stack: Decimal) -> tuple[Decimal, Decimal]:
    """(min, max) total bet this round for a bet or raise by ``seat`` with ``stack`` behind.

    Fixed limit: one bet size more than the current bet; no limit: at least the last
    full raise more (the big blind to open), at most all in; pot limit: at most the pot
    after calling.  Short of the minimum, all in is the only size.  Whether a raise is
    allowed at all (cap, reopening, someone to answer) is the betting round's question.
    """
    most = h.bets[seat] + stack  # all in
    if cfg.limit == FIXED_LIMIT:
        target = h.current_bet + h.bet_size
        target = min(target, most)
        return target, target
    low = h.current_bet + (h.min_raise if h.current_bet > 0 else cfg.big_blind)
    high = most
    if cfg.limit == POT_LIMIT:
        high = min(high, pot_limit_max(h, seat))
    low = min(low, most)
    return low, max(low, high)


def pot_limit_max(h: Hand, seat: int) -> Decimal:
    """Pot limit: the largest total bet = current bet + pot after calling."""
    pot = sum(h.contrib.values(), ZERO) + h.dead
    to_call = max(h.current_bet - h.bets.get(seat, ZERO), ZERO)
    return h.current_bet + pot + to_call


def is_full_raise(cfg: TableConfig, h: Hand, total: Decimal) -> bool:
    """Whether a bet or raise to ``total`` is a full one: it reopens the betting for
    players who acted and counts towards the cap (an all-in for less does neither).

    Fixed limit: a whole bet size more; no limit and pot limit: at least the last full
    raise more, and an opening bet at least the big blind.
    """
    if h.current_bet == 0 and cfg.limit != FIXED_LIMIT:
        return total >= cfg.big_blind
    increment = total - h.current_bet
    return increment >= (h.bet_size if cfg.limit == FIXED_LIMIT else h.min_raise)
