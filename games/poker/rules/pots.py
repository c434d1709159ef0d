"""Pots: main and side pots from the money put in, and sharing a pot among winners."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from decimal import ROUND_DOWN, Decimal

from .money import ZERO
from .records import Pot, new


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
    folded = folded if isinstance(folded, (set, frozenset)) else set(folded)
    # the common case first: everyone still in put in the same (one pot)
    total = ZERO
    level: Decimal | None = None
    same = True
    alive: list[int] = []
    for s, c in contrib.items():
        total += c
        if s not in folded:
            alive.append(s)
            if level is None:
                level = c
            elif c != level:
                same = False
    if same and alive:
        alive.sort()
        return [new(Pot, (total + dead, tuple(alive)))]
    live = {s: c for s, c in contrib.items() if s not in folded}
    if not live:
        return [Pot(sum(contrib.values(), ZERO) + dead, ())] if contrib or dead else []
    levels = sorted(set(live.values()))  # more than one: someone is all in for less
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


def one_pot(contrib: dict[int, Decimal], folded: set[int], dead: Decimal) -> Pot:
    """:func:`side_pots` when every seat still in put in as much (nobody is all in for
    less): one pot for them all."""
    alive = [s for s in contrib if s not in folded]
    alive.sort()
    return new(Pot, (sum(contrib.values(), ZERO) + dead, tuple(alive)))


def split(amount: Decimal, winners: Sequence[int], chip: Decimal) -> dict[int, Decimal]:
    """Share ``amount`` among ``winners`` (ordered from the first left of the button).

    Each gets the same number of whole chips; the odd chips go to the first winner.
    """
    n = len(winners)
    share = (amount / n / chip).to_integral_value(rounding=ROUND_DOWN) * chip
    out = {w: share for w in winners}
    out[winners[0]] += amount - share * n
    return out


def best_hands(values: Mapping[int, int], seats: Iterable[int]) -> set[int]:
    """The seats among ``seats`` with the best hand ``values`` (seats without one are out)."""
    seats = [s for s in seats if s in values]
    if not seats:
        return set()
    top = max(values[s] for s in seats)
    return {s for s in seats if values[s] == top}


def contested_pots(pots: Sequence[Pot], values: Mapping[int, int]) -> list[Pot]:
    """The pots as split at the showdown.

    Hands that cannot win any pot are out first; pots next to each other whose
    remaining contenders are the same are then one pot (pokerkit's convention, which
    only moves odd chips).

    :param values: seat → hand value (higher is better) of the hands shown down.
    """
    alive: set[int] = set()
    for pot in pots:
        if pot.amount:
            alive |= best_hands(values, pot.eligible)
    merged: list[Pot] = []
    for pot in pots:
        elig = tuple(s for s in pot.eligible if s in alive)
        if merged and merged[-1].eligible == elig:
            merged[-1] = Pot(merged[-1].amount + pot.amount, elig)
        else:
            merged.append(Pot(pot.amount, elig))
    return merged
