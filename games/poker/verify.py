"""Check a finished hand against its provably fair shuffle (``gamehub verify-hand``).

A hand record (the engine's :class:`games.poker.rules.HandRecord`, or the mapping the
store keeps for it) carries the shuffle ``commitment`` published before the deal, the
``seed`` revealed after it, and ``dealt``: ``(deck position, card)`` of every card
taken from the deck.  :func:`verify_hand` checks that the seed matches the commitment,
that every dealt card is the seed's deck card at its position (see
:mod:`games.poker.shuffle`), and that the board and every hole card listed in the
record were among the cards dealt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .cards import HIDDEN
from .shuffle import Verdict, verify


def _get(record: Any, key: str) -> Any:
    """``key`` from a mapping, an attribute, or the record's ``extra``."""
    if isinstance(record, Mapping):
        if key in record:
            return record[key]
        extra = record.get("extra")
    else:
        if hasattr(record, key):
            return getattr(record, key)
        extra = getattr(record, "extra", None)
    if isinstance(extra, Mapping):
        return extra.get(key)
    if isinstance(extra, Sequence) and not isinstance(extra, str):
        for item in extra:
            if isinstance(item, Sequence) and len(item) == 2 and item[0] == key:
                return item[1]
    return None


def _dealt_positions(dealt: Any) -> dict[int, int]:
    """``{position: card}`` from ``[(pos, card), ...]``, ``{pos: card}`` or ``[card, ...]``."""
    if isinstance(dealt, Mapping):
        return {int(k): int(v) for k, v in dealt.items()}
    out: dict[int, int] = {}
    for i, item in enumerate(dealt):
        if isinstance(item, Sequence) and not isinstance(item, str):
            pos, card = item
            out[int(pos)] = int(card)
        elif isinstance(item, Mapping):
            out[int(item["position"])] = int(item["card"])
        else:
            out[i] = int(item)
    return out


def _cards_listed(record: Any) -> list[int]:
    cards: list[int] = []
    board = _get(record, "board") or ()
    cards.extend(int(c) for c in board)
    hole = _get(record, "hole") or ()
    items = hole.items() if isinstance(hole, Mapping) else hole
    for entry in items:
        if isinstance(entry, Mapping):  # {"seat": s, "cards": [...]}
            seat_cards = entry.get("cards", ())
        else:
            _, seat_cards = entry
        cards.extend(int(c) for c in seat_cards or ())
    return [c for c in cards if c != HIDDEN]


def verify_hand(record: Any) -> Verdict:
    """Recompute the deck of a stored hand from its revealed seed and check it.

    :param record: a ``HandRecord`` or a mapping with ``commitment``, ``seed`` (hex),
        ``dealt`` and optionally ``board`` and ``hole`` (directly or under ``extra``).
    :returns: a :class:`~.shuffle.Verdict` ``(ok, reason)``; never raises for a bad
        record (a malformed one is simply not ok).
    """
    commitment = _get(record, "commitment")
    seed = _get(record, "seed")
    if not commitment:
        return Verdict(False, "the hand has no shuffle commitment")
    if not seed:
        return Verdict(False, "the hand's seed was not revealed")
    try:
        dealt = _dealt_positions(_get(record, "dealt") or ())
        listed = _cards_listed(record)
    except (TypeError, ValueError, KeyError) as e:
        return Verdict(False, f"malformed hand record: {e}")
    verdict = verify(commitment, seed, dealt)
    if not verdict.ok:
        return verdict
    dealt_cards = set(dealt.values())
    missing = [c for c in listed if c not in dealt_cards]
    if missing:
        return Verdict(False, f"card {missing[0]} is in the record but was never dealt")
    return Verdict(True, f"{verdict.reason}; board and hole cards were all dealt")
