"""Poker hand evaluation: best five of five, six or seven cards.

:func:`evaluate` maps cards (see :mod:`games.poker.cards`) to an ``int``: a higher value
is a better hand and equal values tie.  The value is ``category << 20`` plus up to five
4-bit rank fields (most significant first) that break ties within the category, so
:func:`hand_class` is ``value >> 20``.

How it is fast in pure Python: each card maps to one integer whose low 39 bits hold
``1 << 3*rank`` (a 3-bit rank counter per rank), whose bits 39..50 hold
``1 << 3*suit`` (a 3-bit suit counter per suit) and whose bits 64.. hold the card's own
bit ``1 << (64 + card)``.  The sum over the cards gives the rank multiset, the suit
counts and the set of cards at once (a duplicate card carries into another card's bit,
so the set has fewer bits than there are cards).  A 4096-entry list says from the suit
counts whether (and in which suit) there is a flush; otherwise a dict built at import
from every rank multiset of 5, 6 and 7 cards (about 75,000) gives the value.  A flush
looks up the cards of its suit (every fourth card bit) in a dict of those sets.

:func:`evaluate_batch` scores many hands in one call, and :func:`evaluate_array` a
numpy array of them with array operations (numpy is optional: without it the batch
runs the same lookups in a loop).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations, combinations_with_replacement
from typing import Any

from .cards import RANK_NAMES, RANK_PLURALS

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
#: Names of the hand classes, indexed by :func:`hand_class`.
CLASS_NAMES = (
    "High card",
    "Pair",
    "Two pair",
    "Three of a kind",
    "Straight",
    "Flush",
    "Full house",
    "Four of a kind",
    "Straight flush",
)

_SUIT_SHIFT = 39
_RANK_MASK = (1 << _SUIT_SHIFT) - 1


def _value(category: int, ranks: Sequence[int]) -> int:
    v = category
    for i in range(5):
        v = (v << 4) | (ranks[i] if i < len(ranks) else 0)
    return v


def _straight_high(mask: int) -> int:
    """Highest rank topping a straight in the 13-bit rank ``mask``, or -1."""
    for high in range(12, 3, -1):
        need = 0b11111 << (high - 4)
        if mask & need == need:
            return high
    if mask & 0b1000000001111 == 0b1000000001111:  # A-2-3-4-5, the wheel
        return 3
    return -1


def _top_bits(mask: int, n: int) -> list[int]:
    out = []
    for r in range(12, -1, -1):
        if mask >> r & 1:
            out.append(r)
            if len(out) == n:
                break
    return out


def _flush_table() -> list[int]:
    table = [0] * 8192
    for mask in range(8192):
        if mask.bit_count() < 5:
            continue
        high = _straight_high(mask)
        if high >= 0:
            table[mask] = _value(STRAIGHT_FLUSH, [high])
        else:
            table[mask] = _value(FLUSH, _top_bits(mask, 5))
    return table


def _rank_value(counts: list[int]) -> int:
    """Best non-flush value of a rank multiset (``counts[r]`` cards of rank r)."""
    by_count: list[list[int]] = [[], [], [], [], []]
    mask = 0
    for r in range(12, -1, -1):
        c = counts[r]
        if c:
            by_count[c].append(r)
            mask |= 1 << r
    quads, trips, pairs, singles = by_count[4], by_count[3], by_count[2], by_count[1]
    if quads:
        q = quads[0]
        kicker = max([r for r in range(13) if counts[r] and r != q], default=0)
        return _value(QUADS, [q, kicker])
    if trips and (len(trips) > 1 or pairs):
        t = trips[0]
        p = max(trips[1:] + pairs)
        return _value(FULL_HOUSE, [t, p])
    high = _straight_high(mask)
    if high >= 0:
        return _value(STRAIGHT, [high])
    if trips:
        t = trips[0]
        return _value(TRIPS, [t] + sorted(singles, reverse=True)[:2])
    if len(pairs) >= 2:
        p1, p2 = pairs[0], pairs[1]
        kicker = max(pairs[2:] + singles)
        return _value(TWO_PAIR, [p1, p2, kicker])
    if pairs:
        return _value(PAIR, [pairs[0]] + singles[:3])
    return _value(HIGH_CARD, singles[:5])


def _rank_table() -> dict[int, int]:
    table: dict[int, int] = {}
    for n in (5, 6, 7):
        for combo in combinations_with_replacement(range(13), n):
            counts = [0] * 13
            key = 0
            for r in combo:
                counts[r] += 1
                key += 1 << (3 * r)
            if max(counts) <= 4:
                table[key] = _rank_value(counts)
    return table


def _flush_suit_table() -> list[int]:
    table = [-1] * 4096
    for key in range(4096):
        for s in range(4):
            if (key >> (3 * s)) & 7 >= 5:
                table[key] = s
    return table


_FLUSH = _flush_table()
_RANKS = _rank_table()
_FLUSH_SUIT = _flush_suit_table()
_CARD_SHIFT = 64
_SUIT_MASK = (1 << 12) - 1
#: per card: rank counter bit + suit counter bit + the card's own bit (module docstring)
_KEY_LIST = [
    (1 << (3 * (c >> 2))) | (1 << (_SUIT_SHIFT + 3 * (c & 3))) | (1 << (_CARD_SHIFT + c))
    for c in range(52)
]
_KEY = dict(enumerate(_KEY_LIST))
#: the card bits of suit 0 (cards 0, 4, 8, …): shifted by a suit, the cards of that suit
_SUIT0 = sum(1 << (4 * r) for r in range(13))
#: the card bits of one suit (as of suit 0) → the flush's value, for 5 to 7 cards
_FLUSH_BY_CARDS = {
    sum(1 << (4 * r) for r in ranks): _FLUSH[sum(1 << r for r in ranks)]
    for n in (5, 6, 7)
    for ranks in combinations(range(13), n)
}


# The hot functions bind their tables and built-ins as default arguments and spell
# the shifts and masks as literals: locals and constants are read faster than
# globals, and these run millions of times.
if (_SUIT_SHIFT, _SUIT_MASK, _RANK_MASK, _CARD_SHIFT, _SUIT0) != (
    39,
    0xFFF,
    0x7FFFFFFFFF,
    64,
    0x1111111111111,
):  # pragma: no cover - the literals below must follow the layout
    raise ImportError("the evaluator's literals do not match its key layout")


def evaluate_unchecked(
    cards: Sequence[int],
    _key: Any = _KEY_LIST.__getitem__,
    _suit: list[int] = _FLUSH_SUIT,
    _ranks: dict[int, int] = _RANKS,
    _flushes: dict[int, int] = _FLUSH_BY_CARDS,
    _sum: Any = sum,
    _map: Any = map,
) -> int:
    """:func:`evaluate` without input checks, for inner loops with trusted cards."""
    if len(cards) == 7:  # the usual case: unpacked, no call per card
        a, b, c, d, e, f, g = cards
        k = _KEY_LIST
        key = k[a] + k[b] + k[c] + k[d] + k[e] + k[f] + k[g]
    else:
        key = _sum(_map(_key, cards))
    s = _suit[key >> 39 & 0xFFF]
    if s < 0:
        return _ranks[key & 0x7FFFFFFFFF]
    return _flushes[key >> (64 + s) & 0x1111111111111]


def evaluate(
    cards: Sequence[int],
    _key: dict[int, int] = _KEY,
    _suit: list[int] = _FLUSH_SUIT,
    _ranks: dict[int, int] = _RANKS,
    _flushes: dict[int, int] = _FLUSH_BY_CARDS,
    _len: Any = len,
) -> int:
    """Value of the best five-card hand within 5, 6 or 7 distinct cards.

    Higher is better; equal values tie.  (The arguments after ``cards`` are the
    function's tables, bound once: pass only ``cards``.)

    :raises ValueError: for another number of cards, a non-card or a duplicate.
    """
    n = _len(cards)
    try:  # the cards unpacked and their keys added inline: no call per card
        if n == 7:
            a, b, c, d, e, f, g = cards
            key = _key[a] + _key[b] + _key[c] + _key[d] + _key[e] + _key[f] + _key[g]
        elif n == 6:
            a, b, c, d, e, f = cards
            key = _key[a] + _key[b] + _key[c] + _key[d] + _key[e] + _key[f]
        elif n == 5:
            a, b, c, d, e = cards
            key = _key[a] + _key[b] + _key[c] + _key[d] + _key[e]
        else:
            raise ValueError(f"evaluate needs 5, 6 or 7 cards, got {n}")
    except (KeyError, TypeError):
        bad = [c for c in cards if type(c) is not int or not 0 <= c <= 51]
        raise ValueError(f"not a card: {bad[0]!r} (cards are integers 0..51)") from None
    if (key >> 64).bit_count() != n:
        raise ValueError(f"duplicate cards in {list(cards)!r}")
    s = _suit[key >> 39 & 0xFFF]
    if s < 0:
        return _ranks[key & 0x7FFFFFFFFF]
    return _flushes[key >> (64 + s) & 0x1111111111111]


#: hands from which :func:`evaluate_batch` uses numpy (below it a loop is faster)
BATCH_NUMPY_FROM = 512


def evaluate_batch(hands: Sequence[Sequence[int]], check: bool = True) -> list[int]:
    """The values of many hands (each 5, 6 or 7 cards) in one call.

    With numpy installed and at least :data:`BATCH_NUMPY_FROM` hands of one size it
    runs :func:`evaluate_array`; otherwise the same lookups in a loop.

    :param check: check the cards as :func:`evaluate` does (``False``: trusted cards).
    :raises ValueError: as :func:`evaluate`, for the first bad hand.
    """
    if len(hands) >= BATCH_NUMPY_FROM and _numpy() is not None:
        size = len(hands[0])
        if all(len(h) == size for h in hands):
            array = _numpy().array(hands, dtype="int64")
            ranks: list[int] = evaluate_array(array, check=check).tolist()
            return ranks
    if check:
        return [evaluate(h) for h in hands]
    return list(map(evaluate_unchecked, hands))


_np_tables: Any = None


def _numpy() -> Any:
    """numpy, or ``None`` when it is not installed."""
    try:
        import numpy
    except ImportError:  # pragma: no cover - numpy is optional
        return None
    return numpy


def _tables() -> Any:
    """The lookup tables as numpy arrays, built on first use."""
    global _np_tables
    if _np_tables is None:
        np = _numpy()
        rank_keys = np.array(sorted(_RANKS), dtype=np.int64)
        _np_tables = (
            np.array([k & ((1 << _CARD_SHIFT) - 1) for k in _KEY_LIST], dtype=np.int64),
            rank_keys,
            np.array([_RANKS[int(k)] for k in rank_keys], dtype=np.int64),
            np.array(_FLUSH_SUIT, dtype=np.int64),
            np.array(_FLUSH, dtype=np.int64),
        )
    return _np_tables


def evaluate_array(cards: Any, check: bool = True) -> Any:
    """The values of the hands in the rows of an integer numpy array of shape
    ``(hands, 5|6|7)``, as an ``int64`` array; the same values as :func:`evaluate`.

    :param check: refuse non-cards and duplicates (``False``: trusted cards).
    :raises ValueError: a row is not 5-7 distinct cards.
    :raises ImportError: numpy is not installed.
    """
    import numpy as np

    cards = np.asarray(cards)
    if cards.ndim != 2 or not 5 <= cards.shape[1] <= 7:
        raise ValueError(f"evaluate_array needs a (hands, 5|6|7) array, not {cards.shape}")
    if len(cards) == 0:
        return np.zeros(0, dtype=np.int64)
    key_of, rank_keys, rank_values, flush_suit, flush = _tables()
    if check:
        if cards.dtype.kind not in "iu" or cards.min() < 0 or cards.max() > 51:
            raise ValueError("not a card: cards are integers 0..51")
        bits = np.left_shift(np.int64(1), cards.astype(np.int64))
        if (bits.sum(axis=1) != np.bitwise_or.reduce(bits, axis=1)).any():
            raise ValueError("duplicate cards in a hand")
    cards = cards.astype(np.intp, copy=False)
    key = key_of[cards].sum(axis=1)
    suit = flush_suit[key >> _SUIT_SHIFT]
    out = rank_values[np.searchsorted(rank_keys, key & _RANK_MASK)]
    rows = np.flatnonzero(suit >= 0)
    if len(rows):
        held = cards[rows]
        mine = (held & 3) == suit[rows, None]
        mask = np.where(mine, np.left_shift(1, held >> 2), 0).sum(axis=1)
        out[rows] = flush[mask]
    return out


def hand_class(value: int) -> int:
    """The category of a hand value: :data:`HIGH_CARD` (0) … :data:`STRAIGHT_FLUSH` (8)."""
    return value >> 20


def class_name(value: int) -> str:
    """Name of the category of ``value``: ``"Full house"``."""
    return CLASS_NAMES[value >> 20]


def ranks_of(value: int) -> list[int]:
    """The five tie-break rank fields of ``value``, most significant first."""
    return [(value >> (4 * i)) & 15 for i in range(4, -1, -1)]


def describe(value: int) -> str:
    """The hand in words: ``"Full house, kings over threes"``, ``"Pair of nines"``.

    :raises ValueError: when ``value`` is not a hand value.
    """
    if type(value) is not int or not 0 <= value >> 20 <= STRAIGHT_FLUSH:
        raise ValueError(f"not a hand value: {value!r}")
    cat = value >> 20
    r = ranks_of(value)
    one, many = RANK_NAMES, RANK_PLURALS
    if cat == STRAIGHT_FLUSH:
        if r[0] == 12:
            return "Royal flush"
        return f"Straight flush, {one[r[0]]} high"
    if cat == QUADS:
        return f"Four of a kind, {many[r[0]]}"
    if cat == FULL_HOUSE:
        return f"Full house, {many[r[0]]} over {many[r[1]]}"
    if cat == FLUSH:
        return f"Flush, {one[r[0]]} high"
    if cat == STRAIGHT:
        return f"Straight, {one[r[0]]} high"
    if cat == TRIPS:
        return f"Three of a kind, {many[r[0]]}"
    if cat == TWO_PAIR:
        return f"Two pair, {many[r[0]]} and {many[r[1]]}"
    if cat == PAIR:
        return f"Pair of {many[r[0]]}"
    return f"High card, {one[r[0]]}"
