"""Poker over real sockets: two network clients (``hub.client``) and an in-hub bot play
hundreds of hands of fixed-limit Texas Hold'em at one table of a real hub (HubService
with the SQLite store, XML front end on a loopback port).

After every hand the cashier settled, the ledger check passes; every stored hand
verifies against its shuffle seed; every document the clients got validates against
``message.xsd`` (the client) and every poker payload against ``texas.xsd``; nobody ever
sees another player's hole cards before the showdown.

``GAMEHUB_SOAK=full`` plays 1,000 hands instead of 200.
"""

from __future__ import annotations

import io
import os
from decimal import Decimal

import pytest
import pytest_twisted
from lxml import etree
from twisted.internet import defer, reactor

from bots.poker.netplay import NetPlayer, bot_decider
from games.poker.adapters import PokerXMLAdapter
from games.poker.client import action_xml
from games.poker.hand_history_cli import history_work
from games.poker.history import engine_record, format_hand, from_dict
from games.poker.verify import verify_hand
from games.poker.verify_hand_cli import verify_work
from hub.client import HubClient, RequestFailed
from hub.frontends.xml.adapters import payload_schema
from hub.plugins.registry import Registry
from hub.service import HubService
from hub.store import open_store
from hub.store.accounts import ScryptParams
from tests.support import until

HANDS = 1000 if os.environ.get("GAMEHUB_SOAK") == "full" else 200
LIMIT = 10.0
DB_DIR = os.environ.get("POKER_TEST_DB_DIR")
BOT = os.environ.get("POKER_TEST_BOT", "holdem")


def bounded(d: defer.Deferred, seconds: float = LIMIT) -> defer.Deferred:
    return d.addTimeout(seconds, reactor)


@pytest.fixture
def hub(tmp_path):
    store = open_store(
        f"sqlite:{DB_DIR or tmp_path}/hub.sqlite", reactor, scrypt=ScryptParams(n=16, r=8, p=1)
    )
    service = HubService(
        reactor,
        tmp_path / "data",
        {"xml": "tcp:0:interface=127.0.0.1"},
        Registry(tmp_path / "data", reactor),
        store=store,
        options={"xml_max_per_address": 64, "xml_rate": 1000, "xml_burst": 1000},
    )
    service.startService()
    pytest_twisted.blockon(bounded(service._starting))
    yield service
    pytest_twisted.blockon(bounded(service.stopService()))


async def player(hub, name: str) -> HubClient:
    client = await bounded(HubClient.connect(reactor, "127.0.0.1", hub.bound_ports["xml"]))
    await bounded(client.create_account(name, "secret-" + name))
    await bounded(client.login(name, "secret-" + name))
    return client


def texas_payloads(client: HubClient) -> list[etree._Element]:
    out = []
    for frame in client.received:
        root = etree.fromstring(frame)
        out.extend(root.iterfind(".//parameters/texasmessage"))
    return out


def check_documents(client: HubClient, seat: int) -> dict[str, int]:
    """Every payload valid; own hole cards only, besides the cards a seat showed down
    (a snapshot taken after an all-in run-out shows them); returns counts per kind."""
    assert client.invalid == []
    declared = payload_schema(PokerXMLAdapter())
    assert declared is not None and declared.name == "texas.xsd"
    schema = declared.schema
    counts: dict[str, int] = {}
    shown: dict[int, list[int]] = {}  # seat → the cards it showed in this hand (public)
    for msg in texas_payloads(client):
        assert schema.validate(msg), (etree.tostring(msg), schema.error_log.last_error)
        kind = msg[0].tag
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "hand":
            assert int(msg[0].get("seat")) == seat
        elif kind == "gameinfo":
            for p in msg[0].iterfind("players"):
                cards = [int(c.text) for c in p.iterfind("holecards/cards/card")]
                other = int(p.findtext("myseat"))
                if other != seat:  # hidden, or what that seat showed down
                    assert set(cards) <= {-1} or cards == shown.get(other), etree.tostring(msg)
        elif kind == "event" and msg[0].get("type") == "0":  # a new hand: none shown yet
            shown = {}
        elif kind == "event" and msg[0].get("type") == "5":  # a show
            for h in msg[0].iterfind("hand"):
                shown[int(h.get("seat"))] = [int(c.text) for c in h.iterfind("cards/card")]
        elif kind == "event" and msg[0].get("type") == "10":
            mine = int(msg[0].get("seat")) == seat
            assert bool(msg[0].findall("action")) == mine or not mine
    return counts


@pytest_twisted.ensureDeferred
async def test_two_clients_and_a_bot_play_hands_over_sockets(hub):
    store, cashier = hub.store, hub.money
    ann, bob = await player(hub, "ann"), await player(hub, "bob")
    gameid = await bounded(
        ann.create_game(
            "texas-holdem",
            "ledger table",
            seats=3,
            options={"stakes": "1/2", "showdown_pause": 0, "buyin": 500},
        )
    )
    game = hub.lobby.games()[0]
    checks: list[defer.Deferred] = []
    settled: list[tuple[str, int | None]] = []

    def after_hand(g, hand_key: str, hand_id: int | None) -> None:
        settled.append((hand_key, hand_id))
        checks.append(store.ledger_check())

    cashier.on_hand(after_hand)
    await bounded(ann.join(gameid))
    await bounded(bob.join(gameid))

    # a buy-in larger than the balance is refused and changes nothing
    e = None
    try:
        await bounded(ann.act(gameid, action_xml({"index": 11, "seat": 0, "amount": "5000"})))
    except RequestFailed as failure:
        e = failure
    assert e is not None and e.code == 422
    assert (await store.get_account("ann")).balance == Decimal(1000)
    assert game.seats[0].free

    # deep stacks, so nobody goes broke in a long run: chips granted through the ledger
    extra = Decimal(50 * HANDS)
    for name in ("ann", "bob"):
        await store.grant(name, extra, f"test-grant-{name}")
    players = {}
    for client, policy, seat in ((ann, "caller", 0), (bob, "poker-random", 1)):
        holder: dict = {}
        decide = bot_decider(policy, lambda h=holder: h["p"].table.seat, seed=seat)
        p = NetPlayer(client, gameid, decide, reactor, hands=HANDS)
        holder["p"] = p
        players[client.account["name"]] = p
    await bounded(players["ann"].take_seat(0, str(extra + 600)))
    assert (await store.get_account("ann")).balance == Decimal(400)
    assert (await store.chips_at(game.id))["ann"] == extra + 600
    await bounded(players["bob"].take_seat(1, str(extra)))
    # the bot buys in from a bot account of its own
    await bounded(ann.act(gameid, action_xml({"index": 13, "seat": 2, "name": BOT})))
    assert game.seats[2].kind == "bot"

    limit = max(120.0, HANDS * 0.6)
    await bounded(defer.gatherResults([p.done for p in players.values()]), limit)
    # they leave at the end of a hand (maybe one that started before their leave came)
    await until(lambda: all(s.player not in ("ann", "bob") for s in game.seats), "both left", 5)
    await bounded(cashier.idle(), limit)
    assert all(p.errors == [] for p in players.values()), [p.errors for p in players.values()]
    # each new hand's snapshot shows what the events sent before it said
    assert [p.table.mismatches for p in players.values()] == [[], []]
    assert len(settled) >= HANDS
    assert all(p.table.hands >= HANDS for p in players.values())  # nobody went broke
    reports = await bounded(defer.gatherResults(checks), limit)
    assert len(reports) == len(settled)
    assert all(r.ok for r in reports), [str(r) for r in reports if not r.ok][:3]
    assert cashier.problems == []

    # the two clients left: their stacks are back in their accounts
    chips = await store.chips_at(game.id)
    assert set(chips) <= {"bot." + BOT}
    ann_account, bob_account = await store.get_account("ann"), await store.get_account("bob")
    hands = await store.hands(game_id=game.id, limit=10 * HANDS, sealed=True)
    assert len(hands) == len(settled), [s for s in settled if s[1] is None]
    for hand in hands:
        ok, reason = verify_hand(hand)
        assert ok, (hand["hand_key"], reason)
    ann_net = sum(
        (p["winnings"] - p["money_in"] for h in hands for p in h["players"] if p["name"] == "ann"),
        Decimal(0),
    )
    assert ann_account.balance == Decimal(1000) + extra + ann_net
    assert ann_account.balance + bob_account.balance + sum(chips.values()) > 0

    # the history over XML lists the table's hands; the text export reads them back
    history = await bounded(ann.history(gameid=gameid, limit=5))
    assert len(history) == 5 and all(h["gametype"] == "texas-holdem" for h in history)
    assert {"ann", "bob"} <= {p["name"] for h in history for p in h["players"]}
    text = format_hand(from_dict(engine_record(hands[0])), reveal=True)
    assert hands[0]["hand_key"] in text
    out = io.StringIO()
    assert await verify_work(store, history[0]["id"], out) == 0, out.getvalue()
    assert await history_work(store, history[0]["id"], out=out) == 0
    assert f"Hand #{history[0]['name']}" in out.getvalue()
    # the table's recent hands as text, over XML, as ann's seat saw them
    answer = await bounded(ann.custom(gameid, "<handhistory/>"))
    told = answer.node.find(".//handhistory")
    assert told is not None and told.get("handid") and "Gamehub Hand #" in told.text
    e = await refused(ann.custom(gameid, '<handhistory handid="nope"/>'))
    assert e.code == 404

    counts = check_documents(ann, 0)
    assert counts["gameinfo"] >= HANDS and counts["hand"] >= HANDS
    check_documents(bob, 1)

    # removing the table returns the bot's chips too
    hub.lobby.remove(game.id)
    await bounded(cashier.idle())
    assert await store.chips_at(game.id) == {}
    final = await store.ledger_check()
    assert final.ok and final.at_tables == 0, str(final)
    await ann.close()
    await bob.close()


async def refused(d: defer.Deferred) -> RequestFailed:
    try:
        await bounded(d)
    except RequestFailed as e:
        return e
    raise AssertionError("the request was not refused")


@pytest_twisted.ensureDeferred
async def test_refused_seats_move_no_chips(hub):
    store = hub.store
    ann = await player(hub, "ann")
    gameid = await bounded(
        ann.create_game("texas-holdem", "t", seats=2, options={"min_buyin": 100})
    )
    await bounded(ann.join(gameid))
    assert hub.lobby.games()[0].observer_count == 1  # ann; the cashier is no observer
    sit = {"index": 11, "seat": 0}
    # the engine refuses a buy-in below the table's minimum: the chips go back
    e = await refused(ann.act(gameid, action_xml({**sit, "amount": "50"})))
    assert e.code == 422
    # no such seat, a bot that does not exist, a malformed payload
    assert (await refused(ann.act(gameid, action_xml({**sit, "seat": 7, "amount": 100})))).code in (
        400,
        404,
    )
    e = await refused(ann.act(gameid, action_xml({"index": 13, "seat": 1, "name": "nobody"})))
    assert e.code == 404
    e = await refused(
        ann.act(gameid, "<texasmessage><action><index>99</index></action></texasmessage>")
    )
    assert e.code == 400
    # playing without a seat is refused
    e = await refused(ann.act(gameid, action_xml({"index": 1})))
    assert e.code == 403
    await bounded(hub.money.idle())
    assert (await store.get_account("ann")).balance == Decimal(1000)
    assert await store.chips_at(hub.lobby.games()[0].id) == {}
    assert (await store.ledger_check()).ok
    assert hub.money.problems == []
    # a good buy-in seats; a second one is a conflict and moves nothing
    await bounded(ann.act(gameid, action_xml({**sit, "amount": "100"})))
    e = await refused(ann.act(gameid, action_xml({"index": 11, "seat": 1, "amount": "100"})))
    assert e.code == 409
    # from one's own seat, action 11 adds chips (between hands: nobody else sits)
    await bounded(ann.act(gameid, action_xml({"index": 11, "seat": 0, "amount": "25"})))
    assert (await store.chips_at(hub.lobby.games()[0].id)) == {"ann": Decimal(125)}
    assert (await store.get_account("ann")).balance == Decimal(875)
    await ann.close()
    await until(lambda: hub.lobby.games()[0].seats[0].player is None, "the seat freed", 5)
    await bounded(hub.money.idle())
    # the only player disconnected between hands: the stack went back at once
    assert (await store.get_account("ann")).balance == Decimal(1000)
    assert (await store.ledger_check()).ok


@pytest_twisted.ensureDeferred
async def test_network_bot_against_bots_seated_at_creation(hub):
    from bots import holdem

    store = hub.store
    ann = await player(hub, "ann")
    gameid = await bounded(
        ann.create_game(
            "texas-holdem",
            "bots",
            seats=["bot:caller", "bot:raiser", "open"],
            options={"stakes": "1/2", "showdown_pause": 0, "buyin": 300},
        )
    )
    game = hub.lobby.games()[0]
    await ann.close()
    args = holdem.parser().parse_args(
        ["--port", str(hub.bound_ports["xml"]), "--account", "robo", "--password", "robo-pw"]
        + ["--game", str(gameid), "--hands", "8", "--buyin", "150"]
    )
    out = io.StringIO()
    played = await bounded(defer.ensureDeferred(holdem.play(reactor, args, out)), 60)
    assert played >= 8 and "seated at table" in out.getvalue()
    robo = await store.get_account("robo")
    assert robo.type == "bot"
    await bounded(hub.money.idle())
    hub.lobby.remove(game.id)
    await bounded(hub.money.idle())
    assert await store.chips_at(game.id) == {}
    report = await store.ledger_check()
    assert report.ok, str(report)
    assert hub.money.problems == []
    hands = await store.hands(game_id=game.id, limit=1000, sealed=True)
    assert len(hands) >= 8 and all(verify_hand(h).ok for h in hands)
    names = {p["name"] for h in hands for p in h["players"]}
    assert {"bot.caller", "bot.raiser", "robo"} <= names, out.getvalue()
    # the bots' buy-ins came from bot accounts funded through the ledger
    for name in ("bot.caller", "bot.raiser"):
        assert (await store.get_account(name)).type == "bot"


@pytest_twisted.ensureDeferred
async def test_network_bot_command_line(hub):
    """``python -m bots.holdem`` in its own process plays and leaves with its chips."""
    import sys
    from pathlib import Path

    from twisted.internet import utils

    ann = await player(hub, "ann")
    gameid = await bounded(
        ann.create_game(
            "texas-holdem",
            "cli",
            seats=["bot:caller", "open"],
            options={"showdown_pause": 0},
        )
    )
    await ann.close()
    root = str(Path(__file__).resolve().parents[2])
    argv = ["-m", "bots.holdem", "--port", str(hub.bound_ports["xml"]), "--account", "cli"]
    argv += ["--password", "cli-secret", "--game", str(gameid), "--hands", "3"]
    env = {"PYTHONPATH": root, "PATH": os.environ.get("PATH", "")}
    out, err, code = await bounded(
        utils.getProcessOutputAndValue(sys.executable, argv, env=env, path=root), 60
    )
    assert code == 0, err.decode()
    assert b"seated at table" in out and b"left after" in out, out
    game = hub.lobby.games()[0]
    # it left at the end of a hand (maybe one that started before its leave arrived)
    await until(lambda: all(s.player != "cli" for s in game.seats), "cli left", 5)
    await bounded(hub.money.idle())
    account = await hub.store.get_account("cli")
    chips = await hub.store.chips_at(game.id)
    assert "cli" not in chips and account.type == "bot"
    assert (await hub.store.ledger_check()).ok


@pytest_twisted.ensureDeferred
async def test_a_network_player_whose_connection_is_cut_plays_on(hub):
    """(issue 31) A network bot's TCP connection is cut (reset) three times mid-game:
    ``hub.client`` resumes the session each time, the turn it may have missed is
    announced again, and it plays its hands to the end; the chips add up."""
    from tests.tcpproxy import TcpProxy

    store = hub.store
    ann = await player(hub, "ann")
    gameid = await bounded(
        ann.create_game(
            "texas-holdem",
            "cuts",
            seats=["bot:caller", "open"],
            options={"stakes": "1/2", "showdown_pause": 0, "buyin": 300},
        )
    )
    game = hub.lobby.games()[0]
    await ann.close()
    with TcpProxy(("127.0.0.1", hub.bound_ports["xml"])) as proxy:
        client = await bounded(HubClient.connect(reactor, "127.0.0.1", proxy.port, reconnect=True))
        client.RECONNECT_DELAY = 0.05
        await bounded(client.create_account("cut", "secret-cut"))
        await bounded(client.login("cut", "secret-cut"))
        await bounded(client.join(gameid))
        holder: dict = {}
        decide = bot_decider("caller", lambda: holder["p"].table.seat, seed=1)
        played = NetPlayer(client, gameid, decide, reactor, hands=12)
        holder["p"] = played
        await bounded(played.take_seat(1, "150"))
        for cut in (1, 2, 3):
            await until(lambda n=cut: played.table.hands >= 3 * n, f"{3 * cut} hands", 60)
            proxy.cut()
            await until(lambda: client.proto is None, "the connection cut", 10)
            proxy.restore()
            await until(lambda n=cut: client.reconnected == n, "the session resumed", 20)
        hands = await bounded(played.done, 120)
        assert hands >= 12 and not client.closed.called
        # a resent action the hub had taken before the cut is refused, nothing else
        assert all(e.startswith("422") for e in played.errors), played.errors
        await until(lambda: game.seats[1].player != "cut" or not game.seats[1].present, "left", 10)
        await client.close()
    await bounded(hub.money.idle())
    hub.lobby.remove(game.id)
    await bounded(hub.money.idle())
    assert await store.chips_at(game.id) == {}
    assert (await store.ledger_check()).ok
    assert hub.money.problems == []
