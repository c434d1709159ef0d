"""Monte-Carlo equity against opponents' likely ranges, and a preflop hand ranking.

A range is modelled by a width ``w`` in (0, 1]: the opponent holds one of the best
``w`` fraction of the 1326 starting hands, ranked by :func:`preflop_score` (a point
count in the spirit of Bill Chen's formula: high card, pairs, suitedness, gaps).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from games.poker.evaluator import evaluate_unchecked


def preflop_score(a: int, b: int) -> float:
    """Points for the starting hand ``a``, ``b`` (higher is better)."""
    ra, rb = a >> 2, b >> 2
    hi, lo = max(ra, rb), min(ra, rb)
    points = {12: 10.0, 11: 8.0, 10: 7.0, 9: 6.0}.get(hi, (hi + 2) / 2)
    if ra == rb:
        return max(points * 2, 5.0)
    if a & 3 == b & 3:
        points += 2
    gap = hi - lo - 1
    points -= (0, 1, 2, 4)[gap] if gap < 4 else 5
    if gap <= 1 and hi < 10:
        points += 1
    return math.ceil(points) + lo / 100  # the lower card breaks ties


def _percentiles() -> list[float]:
    """``table[a * 52 + b]`` = fraction of starting hands at least as good as a, b."""
    combos = [(a, b) for a in range(52) for b in range(a + 1, 52)]
    scored = sorted(combos, key=lambda ab: -preflop_score(*ab))
    table = [1.0] * (52 * 52)
    i = 0
    n = len(scored)
    while i < n:
        s = preflop_score(*scored[i])
        j = i
        while j < n and preflop_score(*scored[j]) == s:
            j += 1
        for a, b in scored[i:j]:
            table[a * 52 + b] = table[b * 52 + a] = j / n
        i = j
    return table


PERCENTILE = _percentiles()


def percentile(a: int, b: int) -> float:
    """Fraction of starting hands at least as good as ``a``, ``b`` (AA ≈ 0.005)."""
    return PERCENTILE[a * 52 + b]


def hand_class_key(a: int, b: int) -> tuple[int, int, bool]:
    """The 169-class of a starting hand: (high rank, low rank, suited)."""
    ra, rb = a >> 2, b >> 2
    return (max(ra, rb), min(ra, rb), ra != rb and a & 3 == b & 3)


_PREFLOP_CACHE: dict[tuple, float] = {}


def preflop_equity(hole: Sequence[int], widths: Sequence[float], samples: int = 600) -> float:
    """:func:`equity` before the flop, memoised per starting-hand class and widths.

    Widths are rounded to 0.05 for the key; each entry is computed once with a
    fixed-seed RNG, so repeated questions cost a dict lookup.
    """
    a, b = hole
    rounded = tuple(sorted(max(0.05, round(w * 20) / 20) for w in widths))
    key = (hand_class_key(a, b), rounded)
    value = _PREFLOP_CACHE.get(key)
    if value is None:
        if len(_PREFLOP_CACHE) > 100_000:
            _PREFLOP_CACHE.clear()
        value = equity(hole, (), rounded, samples, random.Random(hash(key) & 0xFFFFFFFF))
        _PREFLOP_CACHE[key] = value
    return value


def equity(
    hole: Sequence[int],
    board: Sequence[int],
    widths: Sequence[float],
    samples: int,
    rng: random.Random,
) -> float:
    """Expected share of the pot for ``hole`` against one opponent per width.

    Each sample deals every opponent two cards from its range (rejection sampling,
    at most 30 tries, then any two cards), completes the board and splits ties.

    :param widths: one range width (0..1] per opponent still in the hand.
    :returns: the mean pot share over ``samples`` deals (0..1).
    """
    if not widths:
        return 1.0
    dead = set(hole) | set(board)
    live = [c for c in range(52) if c not in dead]
    need = 5 - len(board)
    mine_fixed = list(hole) + list(board)
    pct = PERCENTILE
    total = 0.0
    randrange = rng.randrange
    for _ in range(samples):
        used: set[int] = set()
        opp_holes = []
        for w in widths:
            for _try in range(30):
                a = live[randrange(len(live))]
                b = live[randrange(len(live))]
                if a == b or a in used or b in used:
                    continue
                if w >= 1.0 or pct[a * 52 + b] <= w:
                    break
            else:
                while True:
                    a = live[randrange(len(live))]
                    b = live[randrange(len(live))]
                    if a != b and a not in used and b not in used:
                        break
            used.add(a)
            used.add(b)
            opp_holes.append((a, b))
        extra: list[int] = []
        while len(extra) < need:
            c = live[randrange(len(live))]
            if c not in used:
                used.add(c)
                extra.append(c)
        mine = evaluate_unchecked(mine_fixed + extra)
        best = mine
        ties = 1
        for a, b in opp_holes:
            v = evaluate_unchecked([a, b, *board, *extra])
            if v > best:
                best = v
                break
            if v == best:
                ties += 1
        if best == mine:
            total += 1.0 / ties
    return total / samples
