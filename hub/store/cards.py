"""Cards as ints (``rank * 4 + suit``) ⇄ the two-letter text the history tables keep."""

from __future__ import annotations

RANKS = "23456789TJQKA"
SUITS = "cdhs"


def to_text(card: int) -> str:
    """``51`` → ``"As"``.

    :raises ValueError: not a card 0–51.
    """
    if isinstance(card, bool) or not isinstance(card, int) or not 0 <= card < 52:
        raise ValueError(f"not a card: {card!r}")
    return RANKS[card // 4] + SUITS[card % 4]


def from_text(text: str) -> int:
    """``"As"`` → ``51``."""
    text = text.strip()
    return RANKS.index(text[0]) * 4 + SUITS.index(text[1])
