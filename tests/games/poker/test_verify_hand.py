"""Tests of verify_hand: a played hand checks out against its revealed seed."""

import dataclasses
import json
import random
from decimal import Decimal

from bots.poker import policies
from bots.poker.match import PolicyPlayer
from games.poker import rules, shuffle
from games.poker.verify import verify_hand


def played_hand(seed: bytes, players: int = 3):
    t = rules.Table(rules.TableConfig(seats=players, small_bet=Decimal(10)), rng=random.Random(1))
    for s in range(players):
        t.seat_player(s, f"p{s}", Decimal(1000))
    t.start_hand(shuffle.deck_from_seed(seed), hand_id="h1", button=0)
    bots = [PolicyPlayer(f"p{s}", policies.caller, s) for s in range(players)]
    while t.turn is not None:
        seat = t.turn.seat
        t.act(seat, *bots[seat].decide(t, seat))
    return t.last_hand.with_extra(commitment=shuffle.commitment(seed), seed=seed.hex())


def as_json(record):
    """The record as the store might keep it: plain JSON."""
    return json.loads(
        json.dumps(
            {
                "hand_id": record.hand_id,
                "board": list(record.board),
                "hole": [{"seat": s, "cards": list(c)} for s, c in record.hole],
                "dealt": [list(pc) for pc in record.dealt],
                "extra": dict(record.extra),
            }
        )
    )


def test_honest_hand_verifies():
    seed = shuffle.new_seed()
    record = played_hand(seed)
    assert len(record.dealt) == 3 * 2 + 3 + 5  # hole cards, burns, board
    ok, reason = verify_hand(record)
    assert ok, reason
    assert verify_hand(as_json(record)).ok
    flat = {
        "commitment": shuffle.commitment(seed),
        "seed": seed.hex(),
        "dealt": {str(p): c for p, c in record.dealt},
        "board": list(record.board),
    }
    assert verify_hand(flat).ok


def test_tampering_is_caught():
    seed = shuffle.new_seed()
    record = played_hand(seed)
    other = shuffle.new_seed()
    wrong_seed = dataclasses.replace(record, extra=(("commitment", shuffle.commitment(seed)),))
    assert verify_hand(wrong_seed.with_extra(seed=other.hex())).reason.startswith(
        "the seed does not match"
    )
    # a card swapped in the deal
    dealt = list(record.dealt)
    pos, card = dealt[0]
    dealt[0] = (pos, (card + 1) % 52)
    ok, reason = verify_hand(dataclasses.replace(record, dealt=tuple(dealt)))
    assert not ok and f"card {pos}" in reason
    # a board card that was never dealt
    spare = next(c for c in range(52) if c not in {c for _, c in record.dealt})
    board = (spare,) + record.board[1:]
    ok, reason = verify_hand(dataclasses.replace(record, board=board))
    assert not ok and "never dealt" in reason


def test_incomplete_records():
    assert verify_hand({}).reason == "the hand has no shuffle commitment"
    assert not verify_hand({"commitment": "ab"}).ok
    assert not verify_hand({"commitment": "ab", "seed": "00" * 32, "dealt": [("x", 1)]}).ok
    assert not verify_hand({"commitment": "ab", "seed": "zz", "dealt": []}).ok


def as_store_hand(record, shown_only=True):
    """The record as ``IStore.hands()`` returns it: no ``dealt``; shown hole cards."""
    holes = dict(record.hole)
    return {
        "hand_id": 7,
        "dealer": record.button,
        "board": list(record.board),
        "commitment": record.get("commitment"),
        "seed": record.get("seed"),
        "players": [
            {"name": n, "seat": s, "hole": list(holes[s]) if s in record.shown else []}
            for s, n, _ in record.players
        ],
    }


def test_store_hand_verifies_by_deal_order():
    for players in (2, 3, 6):
        seed = shuffle.new_seed()
        record = played_hand(seed, players)
        store_hand = as_store_hand(record)
        ok, reason = verify_hand(store_hand)
        assert ok, reason
        # every hole card known: positions follow the engine's documented order
        for p in store_hand["players"]:
            p["hole"] = list(dict(record.hole)[p["seat"]])
        assert verify_hand(store_hand).ok
        p = store_hand["players"][-1]
        p["hole"] = p["hole"][::-1]  # the two cards in the wrong order: caught
        assert not verify_hand(store_hand).ok
