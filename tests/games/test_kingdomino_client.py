"""The client side of King Domino: the mirror follows the server's lines."""

from __future__ import annotations

import pytest

from games.kingdomino import rules
from games.kingdomino.client import Mirror, ProtocolError


def test_mirror_follows_lines_and_reports_refusal():
    m = Mirror()
    assert m.feed("CONNECT") is None
    assert m.feed("ERROR") == "refused"  # login refused before any game
    m = Mirror()
    assert m.feed("CONNECT") is None and m.feed("OK") is None
    assert m.feed("START 2 3 2 1 4 1 2 3 4") is None
    assert m.me == 1 and m.state.order == (2, 1, 0, 3)
    assert m.feed("PLAYER CHOICE 3 4") is None
    assert m.feed("YOUR CHOICE") == "choose"
    assert m.command(2) == "CHOOSE 2"
    assert m.feed("OK") is None
    assert m.state.taken == {4: 2, 2: 1}
    # player 1 never chooses: the server moved on, so player 1 was removed
    assert m.feed("PLAYER CHOICE 4 1") is None
    assert m.state.active == [False, True, True, True]
    assert m.feed("ROUND 5 6 7 8") is None
    assert m.state.current == (5, 6, 7, 8) and m.state.round == 2
    # domino 1 (player 4) is placed first, then ours (2); player 3 (domino 4) comes last
    assert m.feed("PLAYER MOVE 4 1 0 0") is None
    assert m.feed("PLAYER CHOICE 4 5") is None
    assert m.feed("YOUR MOVE") == "move"
    assert m.state.active == [False, True, True, True]
    assert m.state.kingdoms[3].cells[(2, 0)] == rules.DOMINOES[1][1]
    with pytest.raises(ProtocolError):
        m.feed("HELLO THERE")
