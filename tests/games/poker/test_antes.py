"""Antes, a table option (issue 33): every player dealt in puts the ante in the pot,
dead, after the blinds; the XML ``gameinfo`` says how much; chips are conserved."""

from __future__ import annotations

from decimal import Decimal as D

import pytest

from games.poker import rules as R
from hub.model import GameError
from tests.games.poker.test_server import Game


def play_out(g: Game, prefer=("post", "check", "call", "show", "muck")) -> None:
    for _ in range(200):
        turn = g.game.table.turn
        if turn is None:
            return
        g.play_turn(lambda legal: next((a for a in legal if a["name"] in prefer), legal[0]))


@pytest.mark.parametrize("variant", ["fixed-limit", "no-limit", "pot-limit"])
def test_every_player_dealt_in_pays_the_ante_and_the_chips_add_up(variant):
    g = Game(seats=3, variant=variant, stakes="10/20", ante="2", showdown_pause=0)
    for seat, name in enumerate(("ann", "bob", "cat")):
        g.game.seat_player(seat, name, D(200))
    g.clock.advance(0)
    play_out(g)
    rec = g.game.hands[-1]
    antes = [a for a in rec.actions if a.kind == "post" and a.text == "ante"]
    assert sorted(a.seat for a in antes) == [0, 1, 2] and all(a.amount == 2 for a in antes)
    assert sum(d for _, d in rec.deltas) == 0
    stacks = sum(p.stack for p in g.game.table.players.values())
    assert stacks == D(600)
    assert g.game.view(0)["ante"] == "2"


def test_a_short_stack_is_all_in_with_its_ante():
    g = Game(seats=2, stakes="10/20", ante="5", showdown_pause=0, min_buyin="1")
    g.game.seat_player(0, "ann", D(200))
    g.game.seat_player(1, "bob", D(12))
    g.clock.advance(0)
    play_out(g)
    rec = g.game.hands[0]
    assert sum(d for _, d in rec.deltas) == 0
    assert sum(p.stack for p in g.game.table.players.values()) == D(212)


def test_a_folded_hand_loses_its_ante_to_the_winner():
    g = Game(seats=2, stakes="10/20", ante="3", showdown_pause=0, first_button=0)
    g.sit(0, "ann")
    g.sit(1, "bob")
    play_out(g, prefer=("post", "fold"))
    rec = g.game.hands[-1]
    deltas = dict(rec.deltas)
    # heads-up the button (seat 0) posts the small blind 5 and folds: it loses 5 + 3
    assert deltas == {0: D(-8), 1: D(8)}


@pytest.mark.parametrize("ante", ["-1", "x", "0.001"])
def test_a_bad_ante_is_refused(ante):
    with pytest.raises(GameError):
        Game(seats=2, ante=ante)


def test_the_xml_gameinfo_carries_the_ante():
    from games.poker.adapters import PokerXMLAdapter

    g = Game(seats=2, ante="1.50")
    node = PokerXMLAdapter().render_view(g.game.view(0))
    assert node.findtext(".//ante") == "1.50"
    assert R.TableConfig(ante=D("1.5")).ante == D("1.5")
