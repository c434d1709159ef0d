"""A poker sit-and-go over real XML sockets: two network clients (``hub.client``) and an
in-hub bot play a ``holdem-sng`` to its end on a real hub (HubService, SQLite store, the
XML front end on a loopback port); every payload valid against ``texas.xsd``, nobody
sees another's hole cards, no chip touches the ledger."""

from __future__ import annotations

import pytest_twisted
from twisted.internet import reactor

from bots.poker.netplay import NetPlayer, bot_decider
from hub.client import HubClient
from tests.integration.test_poker_xml import bounded, check_documents, hub, player, texas_payloads
from tests.support import until

__all__ = ["hub"]  # the fixture, shared with the cash table's test


def customs(client: HubClient) -> set[str]:
    """The ``custom`` words of the poker events a client has received."""
    return {
        (m[0].findtext("custom") or "").split(":")[0]
        for m in texas_payloads(client)
        if m[0].tag == "event"
    }


@pytest_twisted.ensureDeferred
async def test_two_clients_and_a_bot_play_a_sit_and_go_over_xml(hub):
    ann, bob = await player(hub, "ann"), await player(hub, "bob")
    options = {"starting_chips": 200, "hands_per_level": 3, "showdown_pause": 0, "bot_seed": 1}
    gameid = await bounded(
        ann.create_game(
            "holdem-sng", "sunday", seats=["open", "open", "bot:raiser"], options=options
        )
    )
    game = hub.lobby.games()[0]
    players = []
    for client, policy in ((ann, "caller"), (bob, "poker-random")):
        await bounded(client.join(gameid))  # a sit-and-go's join takes a free seat
        holder: dict = {}
        decide = bot_decider(policy, lambda h=holder: h["p"].table.seat, seed=len(players))
        holder["p"] = NetPlayer(client, gameid, decide, reactor)
        players.append(holder["p"])
    assert {s.player for s in game.seats} == {"ann", "bob", "raiser"}
    seats = {s.player: s.index for s in game.seats}
    await until(lambda: game.state == "over", "the sit-and-go to end", 120)
    result = game.result()
    assert None not in result["places"] and result["places"].count(1) == 1
    assert result["winners"] == [result["places"].index(1)]
    assert sum(p.stack for p in game.engine.table.players.values()) == 600
    assert all(p.errors == [] for p in players), [p.errors for p in players]
    # the last hand's eliminations go out with the end of the game: the game is over on
    # the hub before its last frames reach the clients' sockets
    await until(
        lambda: all("eliminated" in customs(c) for c in (ann, bob)),
        "the clients to hear of the eliminations",
        10,
    )
    for client, seat in ((ann, seats["ann"]), (bob, seats["bob"])):
        counts = check_documents(client, seat)
        assert counts.get("hand") and counts.get("gameinfo")
        assert "level 1" in customs(client)
        # the deals are fresh each run: a short tournament may end inside its first level
        assert ("level 2" in customs(client)) == (game.engine.table.hands_played > 3)
    # tournament chips are not money: nothing was bought in, nothing is at the table
    assert await hub.store.chips_at(game.id) == {}
    report = await bounded(hub.store.ledger_check())
    assert report.ok, str(report)
