"""A shuffle nobody can choose: the players' contributions between the commitment and
the deal (:mod:`games.poker.hand_shuffle`), dealt from the documented mixed seed, kept in
the hand record, shown at the hand-over and checked by ``verify_hand``."""

from __future__ import annotations

import hashlib

import pytest

from games.poker import shuffle
from games.poker.verify import verify_hand
from hub.model import CONTRIBUTED, HAND_OVER, SHUFFLE, BadAction, IllegalAction, contribution
from tests.games.poker.test_server import Game


def passive(legal):
    """Post a blind, check or call: a hand played to the end without a fold."""
    return next(a for a in legal if a["name"] in ("post", "check", "call", "show"))


def post_blinds(g: Game) -> None:
    while g.game.table.turn is not None and g.game.table.turn.kind == "blind":
        g.play_turn(passive)


def check_down(g: Game) -> None:
    for _ in range(100):
        if g.game.table.turn is None:
            return
        g.play_turn(passive)


def three_players(**options) -> Game:
    g = Game(seats=3, entropy_time=5, showdown_pause=0, **options)
    for seat, name in enumerate(("ann", "bob", "cat")):
        g.game.seat_player(seat, name)
    g.clock.advance(0)
    return g


def test_the_deal_waits_for_every_contribution_then_deals_from_the_mixed_seed():
    g = three_players()
    (announced,) = g.kinds(SHUFFLE)
    assert announced.data["number"] == 1 and g.game.table.hand is None  # not dealt yet
    values = {0: b"\x01" * 32, 1: b"bob's entropy", 2: bytes(range(64))}
    for seat, value in values.items():
        assert g.game.table.hand is None
        g.game.act(seat, contribution(value, 1))
    assert g.game.table.hand is not None  # the last one deals at once
    assert [e.data["seat"] for e in g.kinds(CONTRIBUTED)] == [0, 1, 2]
    seed = g.game._dealt.seed
    assert hashlib.sha256(seed).hexdigest() == announced.data["commitment"]
    mixed = hashlib.sha256(
        b"gamehub-shuffle-v1"
        + seed
        + b"".join(bytes([s, len(v)]) + v for s, v in sorted(values.items()))
    ).digest()
    assert mixed == shuffle.mixed_seed(seed, values)
    deck = shuffle.deck_from_seed(mixed)
    post_blinds(g)
    hand = g.game.table.hand
    assert [hand.hole[s] for s in hand.seats] == [
        [deck[i], deck[i + 3]] for i in range(3)
    ]  # one card a seat, from the seat after the button


def test_without_every_contribution_the_deal_waits_entropy_time_at_most():
    g = three_players()
    g.game.act(1, contribution(b"only bob", 1))
    g.clock.advance(4.9)
    assert g.game.table.hand is None
    g.clock.advance(0.2)
    assert g.game.table.hand is not None
    assert g.game._dealt.contributions == {1: b"only bob"}


def test_a_hand_with_three_contributions_verifies_and_any_change_fails():
    g = three_players()
    for seat in range(3):
        g.game.act(seat, contribution(bytes([seat + 1]) * 16, 1))
    check_down(g)
    (over,) = g.kinds(HAND_OVER)[:1]
    assert over.data["contributions"] == {str(s): (bytes([s + 1]) * 16).hex() for s in range(3)}
    record = g.game.hand_record()
    extra = dict(record["extra"])
    assert verify_hand(record).ok, verify_hand(record).reason
    assert "3 contributions" in verify_hand(record).reason

    def changed(**changes):
        out = dict(record)
        out["extra"] = [[k, changes.get(k, v)] for k, v in record["extra"]]
        return out

    for seat in ("0", "1", "2"):
        other = dict(extra["contributions"], **{seat: "ff" * 16})
        assert not verify_hand(changed(contributions=other)).ok
    dropped = {k: v for k, v in extra["contributions"].items() if k != "2"}
    assert not verify_hand(changed(contributions=dropped)).ok
    assert not verify_hand(changed(seed="00" * 32)).ok
    bad_seed = bytes.fromhex(extra["seed"])[::-1].hex()
    assert not verify_hand(changed(seed=bad_seed, commitment=shuffle.commitment(bad_seed))).ok


@pytest.mark.parametrize(
    ("action", "error"),
    [
        ({"name": "entropy", "value": "xyz"}, BadAction),
        ({"name": "entropy", "value": ""}, BadAction),
        ({"name": "entropy", "value": "ab" * 65}, BadAction),
        ({"name": "entropy", "value": 42}, BadAction),
        ({"name": "entropy", "value": "abcd", "number": 7}, IllegalAction),
    ],
)
def test_bad_contributions_are_refused_and_change_nothing(action, error):
    g = three_players()
    with pytest.raises(error):
        g.game.act(0, action)
    assert g.game._next.contributions == {} and not g.kinds(CONTRIBUTED)


def test_a_seat_contributes_once_a_hand_and_not_after_the_deal():
    g = three_players()
    g.game.act(0, contribution(b"one"))
    with pytest.raises(IllegalAction):
        g.game.act(0, contribution(b"two"))
    with pytest.raises(IllegalAction):
        g.game.act(5, contribution(b"nobody sits there"))
    g.clock.advance(6)
    assert g.game.table.hand is not None
    with pytest.raises(IllegalAction):  # dealt: the next shuffle is not published yet
        g.game.act(1, contribution(b"late", 1))


def test_the_pause_between_hands_is_the_next_shuffles_window():
    g = Game(seats=2, showdown_pause=4)
    g.sit(0, "ann")
    g.sit(1, "bob")
    assert g.game.table.hand is not None  # entropy_time 0: the first hand at once
    check_down(g)
    nxt = g.kinds(SHUFFLE)[-1].data
    assert nxt["number"] == 2
    g.game.act(0, contribution(b"ann for hand 2", 2))
    g.clock.advance(4)
    assert g.game.table.hand.number == 2 and g.game._dealt.contributions == {0: b"ann for hand 2"}


def test_a_table_dealt_from_a_seed_of_deals_takes_no_contribution():
    g = Game(seats=2, deal_seed="ab" * 32, showdown_pause=4)
    g.sit(0, "ann")
    g.sit(1, "bob")
    assert not g.kinds(SHUFFLE)
    with pytest.raises(IllegalAction):
        g.game.act(0, contribution(b"x"))


def test_a_table_with_the_dealers_deals_deals_them_and_each_hand_verifies():
    from games.poker import cards

    g = Game(seats=2, dealer_seed=1, showdown_pause=0, first_button=1)
    g.sit(0, "Alice")
    g.sit(1, "Bob")
    post_blinds(g)
    hand = g.game.table.hand
    assert [cards.format_many(hand.hole[s], "") for s in hand.seats] == ["8s2h", "Kd5c"]
    check_down(g)
    record = g.game.hand_record()
    assert dict(record["extra"])["dealer_seed"] == 1 and verify_hand(record).ok
    wrong = dict(record, extra=[[k, 2 if k == "dealer_seed" else v] for k, v in record["extra"]])
    assert not verify_hand(wrong).ok


def test_the_hubs_bots_add_their_own_entropy(tmp_path):
    from tests.frontends.acpc_support import Hub

    hub = Hub(tmp_path)
    game = hub.lobby.create_game(
        "texas-holdem", seats=["bot:caller", "bot:raiser"], options={"entropy_time": 5}
    )
    hub.run()
    dealt = game.engine._dealt
    assert dealt is not None and set(dealt.contributions) == {0, 1}
    assert all(len(v) == 32 for v in dealt.contributions.values())
    hub.clock.advance(0.1)  # nothing waited for the five seconds
    assert game.engine.table.hands_played >= 1
