"""A poker seat's preferences and time (issue 35): blinds posted for it, sitting out and
in, mucking without being asked, and the time bank that keeps its clock going."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from games.poker import rules as R
from hub.model import TURN, IllegalAction

from .test_server import Game


def seated(seats: int, **options) -> Game:
    """A table with ann, bob (and cy...) seated; its first hand dealt."""
    g = Game(seats=seats, **options)
    for s, name in enumerate(("ann", "bob", "cy", "dee")[:seats]):
        g.sit(s, name)
    return g


def showdown_game(**options):
    """Heads-up, everyone calls and checks to the river: a showdown with a loser."""
    return Game(seats=2, auto_post=True, **options)


def play_to_the_show(g: Game) -> None:
    """Call and check until a seat is asked to show or muck (or the hand ends)."""
    for _ in range(50):
        turn = g.game.table.turn
        if turn is None or turn.kind == R.SHOWING:
            return
        names = [a["name"] for a in g.game.legal_actions(turn.seat)]
        g.game.act(turn.seat, {"name": "check" if "check" in names else "call"})
    raise AssertionError("no showdown")


def test_a_loser_who_mucks_automatically_is_never_asked():
    for seed_hand in range(1, 12):  # hands until one has a loser to ask (not a split)
        g = showdown_game(deal_seed=f"{seed_hand:064x}")
        g.sit(0, "ann")
        g.sit(1, "bob")
        play_to_the_show(g)
        turn = g.game.table.turn
        if turn is not None and turn.kind == R.SHOWING:
            break
    else:
        pytest.fail("no seed gave a loser to ask")
    loser = turn.seat
    # the same deal again with the loser's preference on: nobody is asked
    g = showdown_game(deal_seed=f"{seed_hand:064x}")
    g.sit(0, "ann")
    g.sit(1, "bob")
    g.game.act(loser, {"name": "muck", "auto": True})
    assert g.game.table.players[loser].auto_muck
    private = [e for e in g.events if e.kind == "automuck"]
    assert [(e.data, e.seats) for e in private] == [({"seat": loser, "on": True}, {loser})]
    play_to_the_show(g)
    assert g.game.table.turn is None or g.game.table.turn.kind != R.SHOWING
    assert [e.data["name"] for e in g.kinds("action") if e.data["seat"] == loser][-1] == "muck"
    assert loser not in {e.data["seat"] for e in g.kinds("show")}
    assert g.game.view(loser)["players"][loser]["automuck"] is True


def test_turning_auto_muck_on_while_asked_mucks_at_once_and_off_asks_again():
    g = showdown_game()
    g.sit(0, "ann")
    g.sit(1, "bob")
    g.game.act(0, {"name": "muck", "auto": False})
    assert not g.game.table.players[0].auto_muck
    for _ in range(20):  # hands until someone is asked to show or muck
        play_to_the_show(g)
        turn = g.game.table.turn
        if turn is not None and turn.kind == R.SHOWING:
            break
        g.clock.advance(10)
    else:
        pytest.fail("nobody was asked to show")
    hand = g.game.table.hand.hand_id
    g.game.act(turn.seat, {"name": "muck", "auto": True})
    assert g.game.table.hand.hand_id == hand and g.game.table.hand.over
    with pytest.raises(IllegalAction):
        g.game.act(turn.seat, {"name": "show"})  # nothing left to decide


def test_the_time_bank_keeps_the_clock_going_and_is_spent():
    g = Game(seats=2, auto_post=True, action_time=10, time_bank=30, time_bank_add=5)
    g.sit(0, "ann")
    g.sit(1, "bob")
    first = g.last_turn()
    seat = first["seat"]
    assert first["timebank"] is False and first["timebank_ms"] == 30_000
    assert g.game.view(seat)["timebanks"] == {"0": 30_000, "1": 30_000}
    g.clock.advance(10)  # the time to act is gone: the bank's 30 s start
    banked = g.last_turn()
    assert banked["seat"] == seat and banked["timebank"] is True
    assert banked["timeleft_ms"] == 30_000 and not g.kinds("timeout")
    assert g.game.view(None)["timeleft"] == 30_000
    g.clock.advance(12)  # 12 s of the bank used, then the player acts
    legal = g.game.legal_actions(seat)
    g.game.act(seat, {"name": "call" if any(a["name"] == "call" for a in legal) else "check"})
    assert g.game.banks.left(seat) == pytest.approx(18)
    other = g.last_turn()
    assert other["seat"] != seat and other["timebank"] is False
    assert other["timeleft_ms"] == 10_000  # the next decision has its own time again
    # the other player lets everything run out: bank, then the usual timeout
    g.clock.advance(10)
    assert g.last_turn()["timebank"] is True
    g.clock.advance(30)
    assert [e.data["seat"] for e in g.kinds("timeout")] == [other["seat"]]
    assert g.game.banks.left(other["seat"]) == 0
    # each hand dealt adds 5 s, up to the bank (the one who timed out sits in again)
    g.game.act(other["seat"], {"name": "sitin"})
    for _ in range(40):  # both play on at once until the next hand is dealt
        if len(g.kinds("hand")) == 2:
            break
        if g.game.table.turn is None:
            g.clock.advance(1)
            continue
        play_to_the_show(g)
        if g.game.table.turn is not None:
            g.game.act(g.game.table.turn.seat, {"name": "muck"})
    assert len(g.kinds("hand")) == 2
    assert g.game.banks.left(other["seat"]) == 5
    assert g.game.banks.left(seat) == pytest.approx(23)


def test_no_bank_for_blinds_and_none_by_default():
    g = seated(3)
    assert g.last_turn()["timebank_ms"] == 0 and g.game.view(None)["timebanks"] is None
    blind = Game(seats=2, time_bank=30)
    blind.sit(0, "ann")
    blind.sit(1, "bob")
    assert blind.last_turn()["decision"] == "blind"
    blind.clock.advance(15)
    assert not [e for e in blind.kinds(TURN) if e.data["timebank"]]


def test_sitting_out_and_in_between_hands_and_the_chips_stay():
    g = seated(3, auto_post=True)
    g.game.act(2, {"name": "sitout"})
    assert g.game.view(2)["players"][2]["sitoutnext"] or g.game.table.players[2].sitting_out
    g.game.act(2, {"name": "sitin"})
    assert not g.game.table.players[2].sit_out_next and not g.game.table.players[2].sitting_out
    with pytest.raises(IllegalAction):
        g.game.act(2, {"name": "sitin"})  # already in
    total = sum(p.stack for p in g.game.table.players.values()) + g.game.table.pot_total()
    assert total == D(3000)  # three buy-ins of 100 big blinds, the blinds in the pot
