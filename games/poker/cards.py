"""Playing cards as small integers.

A card is an ``int`` in ``0..51``: ``rank * 4 + suit``, where rank ``0`` is the deuce
and ``12`` the ace, and suit ``0`` clubs, ``1`` diamonds, ``2`` hearts, ``3`` spades
(the XML protocol's encoding).  :data:`HIDDEN` (``-1``) stands for a card the receiver
may not see.  Text form: rank character (``23456789TJQKA``) then suit character
(``cdhs``), e.g. ``"As"`` is 51 and ``"2c"`` is 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeGuard

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
#: English names of the ranks, singular and plural, deuce first.
RANK_NAMES = (
    "deuce", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "jack", "queen", "king", "ace",
)  # fmt: skip
RANK_PLURALS = (
    "deuces", "threes", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
    "jacks", "queens", "kings", "aces",
)  # fmt: skip
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
SUIT_SYMBOLS = "\u2663\u2666\u2665\u2660"

HIDDEN = -1  #: a card the receiver may not see
DECK: tuple[int, ...] = tuple(range(52))  #: a fresh deck in card order

TWO, THREE, FOUR, FIVE, SIX, SEVEN, EIGHT, NINE, TEN, JACK, QUEEN, KING, ACE = range(13)
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)


def card(rank: int, suit: int) -> int:
    """The card of ``rank`` (0 deuce … 12 ace) and ``suit`` (0 clubs … 3 spades).

    :raises ValueError: when either is out of range.
    """
    if not (0 <= rank <= 12 and 0 <= suit <= 3):
        raise ValueError(f"no card of rank {rank!r} and suit {suit!r}")
    return rank * 4 + suit


def rank(c: int) -> int:
    """The rank of card ``c``: 0 deuce … 12 ace."""
    return c >> 2


def suit(c: int) -> int:
    """The suit of card ``c``: 0 clubs, 1 diamonds, 2 hearts, 3 spades."""
    return c & 3


def is_card(c: object) -> TypeGuard[int]:
    """Whether ``c`` is a valid card integer (``bool`` is not a card)."""
    return type(c) is int and 0 <= c <= 51


def check(c: object) -> int:
    """Return ``c`` when it is a card, else raise :class:`ValueError`."""
    if not is_card(c):
        raise ValueError(f"not a card: {c!r} (cards are integers 0..51)")
    return c


def parse(text: str) -> int:
    """Parse one card such as ``"As"``, ``"td"``, ``"10h"`` (case-insensitive).

    :raises ValueError: on anything else.
    """
    if not isinstance(text, str):
        raise ValueError(f"not a card: {text!r}")
    t = text.strip()
    if len(t) == 3 and t[:2] == "10":
        t = "T" + t[2]
    if len(t) != 2:
        raise ValueError(f"not a card: {text!r} (expected e.g. 'As', 'Td', '2c')")
    r = RANK_CHARS.find(t[0].upper())
    s = SUIT_CHARS.find(t[1].lower())
    if r < 0 or s < 0:
        raise ValueError(f"not a card: {text!r} (expected e.g. 'As', 'Td', '2c')")
    return r * 4 + s


def parse_many(text: str) -> list[int]:
    """Parse several cards, separated by spaces/commas or written together (``"AsKd"``).

    :raises ValueError: on a malformed card.
    """
    if not isinstance(text, str):
        raise ValueError(f"not a list of cards: {text!r}")
    out: list[int] = []
    for word in text.replace(",", " ").split():
        if len(word) in (2, 3) and not (len(word) == 3 and word[:2] != "10"):
            out.append(parse(word))
            continue
        i = 0
        while i < len(word):
            if word.startswith("10", i):
                out.append(parse(word[i : i + 3]))
                i += 3
            else:
                out.append(parse(word[i : i + 2]))
                i += 2
    return out


def format(c: int) -> str:  # noqa: A001 - the card module's natural name
    """The text form of card ``c`` (``"As"``); ``"??"`` for :data:`HIDDEN`.

    :raises ValueError: for anything that is not a card.
    """
    if c == HIDDEN and type(c) is int:
        return "??"
    check(c)
    return RANK_CHARS[c >> 2] + SUIT_CHARS[c & 3]


def format_many(cards: Iterable[int], sep: str = " ") -> str:
    """The text form of several cards joined by ``sep``."""
    return sep.join(format(c) for c in cards)


def pretty(c: int) -> str:
    """Card ``c`` with a suit symbol (``"A♠"``); ``"??"`` when hidden."""
    if c == HIDDEN:
        return "??"
    check(c)
    return RANK_CHARS[c >> 2] + SUIT_SYMBOLS[c & 3]


def name(c: int) -> str:
    """Card ``c`` in words: ``"ace of spades"``."""
    check(c)
    return f"{RANK_NAMES[c >> 2]} of {SUIT_NAMES[c & 3]}"


def check_distinct(cards: Sequence[int]) -> None:
    """Raise :class:`ValueError` unless ``cards`` are valid, distinct cards."""
    for c in cards:
        check(c)
    if len(set(cards)) != len(cards):
        raise ValueError(f"duplicate cards in {list(cards)!r}")
