"""The reference dealer's deals: the cards the ACPC competition's dealer deals for a
seed (spec acpc-protocol.md, "Deals as the reference dealer makes them").

The dealer seeds one :class:`.mt19937.MT19937` with the match's 32-bit seed and draws
every hand from it in turn: a fresh deck listed suit by suit (2c 3c … Ac, 2d … As),
each card taken as ``deck[next_u32() % cards left]`` with the last card moved into its
place; position 0's hole cards first, then each position's, then the board round by
round, the same number of draws every hand (:func:`deal`).

:func:`engine_deck` lays such a deal out as the 52-card deck the Gamehub engine deals
from the front (hole cards one a seat, round after round, from the seat after the
button, which is ACPC position 0; a burn card before each street), so a table dealt
from it holds exactly the dealer's cards.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

from .mt19937 import MT19937

#: Texas Hold'em: hole cards a player and board cards of each round
HOLE_CARDS = 2
BOARD_CARDS = (0, 3, 1, 1)
#: the dealer's fresh deck: suit by suit, deuce to ace (card = rank * 4 + suit)
FRESH_DECK: tuple[int, ...] = tuple(r * 4 + s for s in range(4) for r in range(13))


class Deal(NamedTuple):
    """One hand of the dealer: each position's hole cards and the five board cards."""

    hole: tuple[tuple[int, ...], ...]
    board: tuple[int, ...]


def deal(rng: MT19937, players: int) -> Deal:
    """The next hand's cards from ``rng``, as the dealer draws them for ``players``."""
    deck = list(FRESH_DECK)

    def draw() -> int:
        i = rng.next_u32() % len(deck)
        card = deck[i]
        deck[i] = deck[-1]
        deck.pop()
        return card

    hole = tuple(tuple(draw() for _ in range(HOLE_CARDS)) for _ in range(players))
    board = tuple(draw() for _ in range(sum(BOARD_CARDS)))
    return Deal(hole, board)


def deals(seed: int, players: int) -> Iterator[Deal]:
    """Every hand of a match with ``seed``, hand 0 first (an endless stream).

    :raises ValueError: ``seed`` is not a 32-bit unsigned integer.
    """
    rng = MT19937(seed)
    while True:
        yield deal(rng, players)


def nth_deal(seed: int, players: int, index: int) -> Deal:
    """Hand ``index`` (0 first) of a match with ``seed`` (draws the hands before it)."""
    stream = deals(seed, players)
    for _ in range(index):
        next(stream)
    return next(stream)


def engine_deck(hand: Deal, burn: bool = True) -> list[int]:
    """The deck (dealt from the front by the engine) that deals ``hand``: position
    ``i``'s ``k``-th hole card at ``k * P + i``, the flop, turn and river after a burn
    card each; the cards nobody gets fill the other places in card order."""
    players = len(hand.hole)
    places: dict[int, int] = {}
    for i, cards in enumerate(hand.hole):
        for k, card in enumerate(cards):
            places[k * players + i] = card
    at = HOLE_CARDS * players
    board = list(hand.board)
    for count in BOARD_CARDS[1:]:
        if burn:
            at += 1
        for _ in range(count):
            places[at] = board.pop(0)
            at += 1
    rest = iter(sorted(set(range(52)) - set(places.values())))
    return [places[p] if p in places else next(rest) for p in range(52)]


def check(hand: Deal, hole: Sequence[Sequence[int]], board: Sequence[int]) -> str | None:
    """Why the cards of a hand (hole cards by position, the board as far as dealt)
    are not the dealer's ``hand``; ``None`` when they are."""
    if len(hole) != len(hand.hole):
        return f"{len(hole)} players, the deal has {len(hand.hole)}"
    for i, (got, want) in enumerate(zip(hole, hand.hole, strict=True)):
        if list(got) and list(got) != list(want):
            return f"position {i} holds {list(got)}, the dealer dealt {list(want)}"
    if list(board) != list(hand.board[: len(board)]):
        return f"the board is {list(board)}, the dealer dealt {list(hand.board)}"
    return None
