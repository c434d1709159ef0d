"""A hand's payoffs as the ACPC reference dealer computes them, and its numbers.

The dealer splits every pot exactly: a pot shared by two best hands pays each half,
even half a chip (``-5|2.5|2.5`` in a three-player log), where a Gamehub table pays
whole chips and gives the odd chip to one winner.  :func:`dealer_payoffs` computes
the dealer's value of a finished hand for every position: a player who folded loses
what it put in; the last player left takes what the others put in; at a showdown the
pots are taken level by level (the least any player still in it put in, times the
players in it), each shared evenly among the best hands of the players in it (a
folded player's chips are in the pots it reached, and it wins none).
(:func:`hub.frontends.acpc.codec.log_number` prints them as the dealer's log does.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from fractions import Fraction

from . import evaluator


def dealer_payoffs(
    spent: Mapping[int, Decimal | int],
    folded: set[int],
    hole: Mapping[int, Sequence[int]],
    board: Sequence[int],
) -> dict[int, Fraction]:
    """Each player's payoff (``spent``'s keys) as the dealer values the hand.

    :param spent: what each player put in the pot this hand (returned chips deducted).
    :param folded: the players who folded.
    :param hole: each player's hole cards (those of every player still in at the end).
    :param board: the board as dealt.
    """
    paid = {p: Fraction(str(v)) for p, v in spent.items()}
    live = [p for p in paid if p not in folded]
    out: dict[int, Fraction] = {}
    for p in paid:
        if p in folded:
            out[p] = -paid[p]
    if len(live) == 1:
        (winner,) = live
        out[winner] = sum((paid[p] for p in paid if p != winner), Fraction(0))
        return out
    rank = {p: -1 for p in paid}
    for p in live:
        rank[p] = evaluator.evaluate(list(hole[p]) + list(board))
    for p in live:
        out[p] = _showdown_value(p, paid, rank)
    return out


def _showdown_value(player: int, paid: Mapping[int, Fraction], rank: Mapping[int, int]) -> Fraction:
    left = {p: v for p, v in paid.items() if v > 0}
    value = Fraction(0)
    while player in left:
        size = min(left.values())
        best = max(rank[p] for p in left)
        winners = sum(1 for p in left if rank[p] == best)
        if rank[player] == best:
            value += size * (len(left) - winners) / winners
        else:
            value -= size
        left = {p: v - size for p, v in left.items() if v - size > 0}
    return value
