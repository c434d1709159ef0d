"""The poker client module follows a table through the XML adapter's messages."""

from __future__ import annotations

import pytest

from bots.poker.plugin import observation_from_view
from games.poker.client import TableState, action_xml, wire_action
from games.poker.server import ACTIONS, FiveCardDrawFactory, TexasHoldemFactory

from .test_adapters import SCHEMA, play


@pytest.mark.parametrize("factory", [TexasHoldemFactory(), FiveCardDrawFactory()])
def test_each_seat_rebuilds_the_table_from_its_messages(factory):
    # deep stacks: two players broke in six hands would leave a table of one waiting
    game, watchers = play(
        factory, ["caller", "raiser", "poker-random"], 6, showdown_pause=1, buyin="2000"
    )
    names = {s.index: s.player for s in game.seats}
    for w in watchers[:-1]:
        table = TableState(names[w.seat])
        prompts = [table.update(msg) for msg in w.messages]
        assert table.mismatches == []  # every snapshot agrees with the events before it
        assert table.seat == w.seat
        assert table.seen >= 6 and 1 <= table.hands <= table.seen
        mine = [p for p in prompts if p is not None and p["seat"] == w.seat and p["legal"]]
        assert mine, "never prompted"
        for prompt in mine:
            assert {a["name"] for a in prompt["legal"]} <= set(ACTIONS)
        observation_from_view(table.view, mine[-1]["legal"], w.seat)  # what the bots read


def test_actions_are_written_with_the_wire_numbers():
    message = action_xml(wire_action({"name": "raise", "amount": "40"}))
    assert SCHEMA.validate(action_xml({"index": 11, "seat": 2, "amount": "100"}))
    assert SCHEMA.validate(message)
    assert message.findtext("action/index") == "4" and message.findtext("action/amount") == "40"
    discard = action_xml(wire_action({"name": "discard", "discarded": [0, 3]}))
    assert [d.text for d in discard.iterfind("action/discarded")] == ["0", "3"]
