"""Check a peer-to-peer hand as a third party would: the hub's engine on its cards.

A peer's ``--history`` file holds, per hand that counted, the deck as it was opened,
the button, the stacks before and after and every betting decision as its author
signed it (:class:`.players.History`).  :func:`check_hand` plays the hand again on a
fresh :class:`games.poker.rules.Table` (the hub's engine) from those alone, checking
every signature against the table's keys, and says where the recorded result differs.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from .. import rules
from .hand import deck_of
from .params import Params
from .wire import WireError, parse_key, unb64, verify


def check_hand(started: Mapping[str, Any], result: Mapping[str, Any]) -> list[str]:
    """What is wrong with the hand ``result`` of the table ``started`` (the history's
    two notes); empty when the hub's engine, given the same cards and the same signed
    actions, ends with the same stacks."""
    if result.get("void"):
        if result.get("stacks") != result.get("before"):
            return ["a void hand changed the stacks"]
        return []
    params = Params.from_json(started["params"])
    keys = [parse_key(k) for k in started["keys"]]
    names = list(started["names"])
    table = rules.Table(params.config())
    for seat_text, stack in result["before"].items():
        seat = int(seat_text)
        table.seat_player(seat, names[seat], Decimal(stack))
        table.players[seat].auto_post = True
        table.players[seat].new = False
    cards = {int(p): int(c) for p, c in result["cards"].items()}
    table.start_hand(deck_of(cards), button=int(result["button"]))
    problems: list[str] = []
    for item in result["actions"]:
        turn = table.turn
        if turn is None:
            return problems + ["an action after the betting ended"]
        if "silent" in item:
            if item["silent"] != turn.seat:
                return problems + ["a silent seat that was not to act"]
            if item["fold"]:
                table.act(turn.seat, rules.FOLD)
            continue
        try:
            frame = unb64(item["frame"])
            msg = verify(frame, keys[turn.seat])
        except (WireError, IndexError) as e:
            return problems + [f"an action not signed by the player to act: {e}"]
        if msg.body.get("h") != result["hand"] or msg.body.get("t") != started["table"]:
            problems.append("a signed action of another hand")
        name = msg.body.get("act")
        index = rules.ACTION_NAMES.index(name) if name in rules.ACTION_NAMES else -1
        amount = None
        for a in table.legal_actions(turn.seat):
            if a.index == index:
                amount = a.amount
        try:
            table.act(turn.seat, index, amount)
        except rules.RuleError as e:
            return problems + [f"an illegal action: {e.reason}"]
    showdown = table.hand is not None and len(table.hand.live()) >= 2
    while table.turn is not None and table.turn.kind == rules.SHOWING:
        (table.show if showdown else table.muck)(table.turn.seat)
    if table.in_hand:
        return problems + ["the hand does not end with its actions"]
    stacks = {str(s): str(v) for s, v in sorted(table.stacks().items())}
    if {s: Decimal(v) for s, v in stacks.items()} != {
        s: Decimal(v) for s, v in result["stacks"].items()
    }:
        problems.append(f"the engine ends with {stacks}, the peers with {result['stacks']}")
    return problems
