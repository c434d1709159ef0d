"""Check a finished hand against its provably fair shuffle (``gamehub verify-hand``).

A hand record (the engine's :class:`games.poker.rules.HandRecord`, or the mapping the
store keeps for it) carries the shuffle ``commitment`` published before the deal, the
``seed`` revealed after it, and ``dealt``: ``(deck position, card)`` of every card
taken from the deck.  :func:`verify_hand` checks that the seed matches the commitment,
that every dealt card is the seed's deck card at its position (see
:mod:`games.poker.shuffle`), and that the board and every hole card listed in the
record were among the cards dealt.

A record without ``dealt`` (``dealer``, ``players`` with ``seat`` and the ``hole``
cards known, and ``board``: a stored hand read without the engine's record) is checked by the engine's documented Texas
Hold'em deal order: with ``P`` players dealt in, ordered clockwise from the seat left
of the button, player ``i``'s ``k``-th hole card is deck position ``k * P + i``; then
one burn card before each street: flop at ``2P+1..2P+3``, turn ``2P+5``, river ``2P+7``.

The players' ``contributions`` to the shuffle (seat → hex, kept in the record) are part
of the chain: the deck is dealt from :func:`.shuffle.mixed_seed` of the seed and them,
so changing any contribution, or the seed, fails the check.  A hand of the ACPC
reference dealer's deals (``dealer_seed`` and ``dealer_hand`` in the record) has no
commitment: it is checked against the dealer's deal for that seed
(:mod:`.acpc_deals`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from . import acpc_deals, history
from .cards import HIDDEN
from .hand_shuffle import contribution_bytes
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


def holdem_positions(record: Any) -> dict[int, int]:
    """``{deck position: card}`` of the known cards of a Texas Hold'em hand record
    without ``dealt``, by the engine's deal order (see the module docstring)."""
    dealer = _get(record, "dealer")
    if dealer is None:
        dealer = _get(record, "button")
    players = _get(record, "players") or ()
    holes: dict[int, list[int]] = {}
    for p in players:
        if isinstance(p, Mapping):
            seat, hole = p.get("seat"), p.get("hole") or ()
        else:  # (seat, name, stack) tuples of a HandRecord: cards are in ``hole``
            seat, hole = p[0], ()
        if seat is None:
            raise ValueError("a player without a seat")
        holes[int(seat)] = [int(c) for c in hole]
    for entry in _get(record, "hole") or ():
        if isinstance(entry, Mapping):
            holes[int(entry["seat"])] = [int(c) for c in entry.get("cards", ())]
        else:
            holes[int(entry[0])] = [int(c) for c in entry[1]]
    if dealer is None or not holes:
        raise ValueError("the record names no dealer or no players")
    b = int(dealer)
    top = max(holes) + 1
    order = sorted(holes, key=lambda s: (s - b - 1) % max(top, b + 1))
    n = len(order)
    out: dict[int, int] = {}
    for i, seat in enumerate(order):
        for k, c in enumerate(holes[seat][:2]):
            if c != HIDDEN:
                out[k * n + i] = c
    board_positions = [2 * n + 1, 2 * n + 2, 2 * n + 3, 2 * n + 5, 2 * n + 7]
    for pos, c in zip(board_positions, _get(record, "board") or (), strict=False):
        out[pos] = int(c)
    return out


def verify_hand(record: Any) -> Verdict:
    """Recompute the deck of a stored hand from its revealed seed and check it.

    :param record: a ``HandRecord`` or a mapping with ``commitment``, ``seed`` (hex),
        ``dealt`` and optionally ``board`` and ``hole`` (directly or under ``extra``);
        or one with ``dealer``, ``players`` with ``seat`` and ``hole``, ``board``; or a
        hand of ``IStore.hands`` read with its sealed part (:func:`.history.verifiable`).
    :returns: a :class:`~.shuffle.Verdict` ``(ok, reason)``; never raises for a bad
        record (a malformed one is simply not ok).
    """
    if isinstance(record, Mapping) and "record" in record and "hand_id" in record:
        record = history.verifiable(record)
    commitment = _get(record, "commitment")
    seed = _get(record, "seed")
    if _get(record, "dealer_seed") is not None:
        return _verify_dealer_deal(record)
    if not commitment:
        return Verdict(False, "the hand has no shuffle commitment")
    if not seed:
        return Verdict(False, "the hand's seed was not revealed")
    try:
        raw = _get(record, "dealt")
        actions = _get(record, "actions")
        if not raw and isinstance(actions, Mapping):  # the engine's record kept whole
            raw = actions.get("dealt")
        dealt = _dealt_positions(raw) if raw else holdem_positions(record)
        listed = _cards_listed(record)
        contributions = _contributions(_get(record, "contributions"))
    except (TypeError, ValueError, KeyError) as e:
        return Verdict(False, f"malformed hand record: {e}")
    verdict = verify(commitment, seed, dealt, contributions)
    if not verdict.ok:
        return verdict
    dealt_cards = set(dealt.values())
    missing = [c for c in listed if c not in dealt_cards]
    if missing:
        return Verdict(False, f"card {missing[0]} is in the record but was never dealt")
    return Verdict(True, f"{verdict.reason}; board and hole cards were all dealt")


def _contributions(value: Any) -> dict[int, bytes]:
    """``{seat: bytes}`` of a record's ``contributions`` (``{seat: hex}`` or pairs)."""
    if not value:
        return {}
    items = value.items() if isinstance(value, Mapping) else value
    return {int(seat): contribution_bytes(text) for seat, text in items}


def _verify_dealer_deal(record: Any) -> Verdict:
    """A hand of the ACPC reference dealer's deals: its cards are the dealer's deal
    ``dealer_hand`` for ``dealer_seed`` (by position: the seat after the button first)."""
    try:
        seed, index = int(_get(record, "dealer_seed")), int(_get(record, "dealer_hand"))
        raw = _get(record, "dealt")
        actions = _get(record, "actions")
        if not raw and isinstance(actions, Mapping):
            raw = actions.get("dealt")
        dealt = _dealt_positions(raw) if raw else holdem_positions(record)
        deal = acpc_deals.nth_deal(seed, _players_of(record), index)
    except (TypeError, ValueError, KeyError) as e:
        return Verdict(False, f"malformed hand record: {e}")
    deck = acpc_deals.engine_deck(deal)
    for pos, card in dealt.items():
        if card != HIDDEN and deck[pos] != card:
            return Verdict(
                False, f"card {pos} dealt was {card} but the dealer's deal has {deck[pos]}"
            )
    return Verdict(
        True, f"the reference dealer's deal {index} for seed {seed}: {len(dealt)} cards agree"
    )


def _players_of(record: Any) -> int:
    """How many players were dealt in (each has its hole cards in the record)."""
    count = len(_get(record, "hole") or _get(record, "players") or ())
    if not count:
        raise ValueError("the record has no hole cards")
    return count
