"""The poker ``texasmessage`` adapter: actions in, events and snapshots out, all valid
against ``texas.xsd``, each receiver seeing only its own hole cards."""

from __future__ import annotations

import random

import pytest
from lxml import etree
from twisted.internet.task import Clock

from bots.poker.plugin import CallerFactory, RaiserFactory, RandomFactory
from games.poker.adapters import PokerXMLAdapter
from games.poker.server import FiveCardDrawFactory, TexasHoldemFactory
from hub.frontends.xml import codec
from hub.frontends.xml.adapters import adapter_for, parse_action, payload_schema, seats_on_join
from hub.model import BadAction
from hub.play.lobby import Lobby
from hub.seatops import AddBot, LeaveSeat, TakeSeat
from tests.support import DictRegistry

PAYLOAD = payload_schema(PokerXMLAdapter())
assert PAYLOAD is not None
SCHEMA = PAYLOAD.schema


def params(xml: str) -> etree._Element:
    return etree.fromstring(f"<parameters>{xml}</parameters>")


def action(body: str) -> dict:
    """The action the XML front end makes of a payload (schema first, then the adapter)."""
    return parse_action(
        PokerXMLAdapter(), params(f"<texasmessage><action>{body}</action></texasmessage>")
    )


def test_the_factories_give_the_adapter():
    for factory in (TexasHoldemFactory(), FiveCardDrawFactory()):
        adapter = adapter_for(factory)
        assert isinstance(adapter, PokerXMLAdapter)
        assert not seats_on_join(adapter) and not hasattr(adapter, "ledger")
    assert TexasHoldemFactory().adapter("mnm") is None
    assert TexasHoldemFactory().adapter("web").script == "web.js"  # the page script


def test_actions_become_engine_actions():
    assert action("<index>0</index>") == {"name": "fold"}
    assert action("<index>4</index><amount>40.50</amount>") == {"name": "raise", "amount": "40.50"}
    assert action("<index>12</index>") == LeaveSeat()
    # take seat and add bot are the hub's, typed (its table money buys in first)
    assert action("<index>11</index><amount>200</amount><seat>3</seat>") == TakeSeat(3, "200")
    assert action("<index>11</index>") == TakeSeat(None, None)
    assert action(
        "<index>13</index><amount>100</amount><name>holdem</name><seat>2</seat>"
    ) == AddBot("holdem", 2, "100")
    assert action("<index>13</index><name>caller</name>") == AddBot("caller")
    with pytest.raises(BadAction):
        action("<index>13</index><seat>2</seat>")
    assert action("<index>10</index><discarded>0</discarded><discarded>3</discarded>") == {
        "name": "discard",
        "discarded": [0, 3],
    }
    assert action("<index>10</index>") == {"name": "discard", "discarded": []}


@pytest.mark.parametrize(
    "xml",
    [
        "",
        "<action><index>1</index></action>",
        "<texasmessage/>",
        "<texasmessage><action><index>14</index></action></texasmessage>",
        "<texasmessage><action><index>-1</index></action></texasmessage>",
        "<texasmessage><action><amount>1.234</amount></action></texasmessage>",
        "<texasmessage><action><index>x</index></action></texasmessage>",
        "<texasmessage><action><index>3</index><amount>-5</amount></action></texasmessage>",
        "<texasmessage><event type='3' seat='0'/></texasmessage>",
        "<texasmessage><action><index>1</index></action></texasmessage><texasmessage/>",
    ],
)
def test_bad_actions_are_refused(xml):
    with pytest.raises(BadAction) as e:
        parse_action(PokerXMLAdapter(), params(xml))
    assert e.value.code == 400


class Watcher:
    """Renders every event for one seat (``None``: a spectator) and validates it."""

    def __init__(self, game, seat):
        self.game, self.seat = game, seat
        self.adapter = PokerXMLAdapter()
        self.messages: list[etree._Element] = []

    def game_event(self, game, event):
        payload = self.adapter.render_event(event, self.seat)
        if payload is not None:
            self.messages.append(payload)
        if self.adapter.snapshot_on(event):
            self.messages.append(self.adapter.render_view(game.view(self.seat)))


def play(factory, seats, hands, variant=None, **options):
    registry = DictRegistry(
        games=[factory], bots=[CallerFactory(), RaiserFactory(), RandomFactory()]
    )
    clock = Clock()
    lobby = Lobby(registry, clock, rng=random.Random(3))
    game = lobby.create_game(
        factory.name, variant=variant, seats=["open"] * len(seats), options=options
    )
    watchers = [Watcher(game, s) for s in range(len(seats))] + [Watcher(game, None)]
    for w in watchers:
        game.observe(w, w.seat)
    for seat, bot in enumerate(seats):
        game.seat_bot(seat, bot)
    for _ in range(50_000):  # bounded
        if len(game.engine.hands) >= hands:
            break
        clock.advance(0.5)
    assert len(game.engine.hands) >= hands
    return game, watchers


@pytest.mark.parametrize(
    "factory,variant",
    [
        (TexasHoldemFactory(), None),
        (TexasHoldemFactory(), "no-limit"),
        (TexasHoldemFactory(), "pot-limit"),
        (FiveCardDrawFactory(), None),
    ],
)
def test_every_message_is_valid_and_private(factory, variant):
    game, watchers = play(
        factory,
        ["caller", "raiser", "poker-random"],
        12,
        variant=variant,
        showdown_pause=1,
        buyin="200",
        stakes="0.5/1",
    )
    types_seen: set[int] = set()
    min_max: list = []  # no-limit / pot-limit bets and raises: minimum and maximum
    for w in watchers:
        assert w.messages
        shown: set[int] = set()
        for msg in w.messages:
            assert SCHEMA.validate(msg), (etree.tostring(msg), SCHEMA.error_log.last_error)
            node = msg[0]
            if node.tag == "hand":
                assert w.seat is not None and int(node.get("seat")) == w.seat
            elif node.tag == "event":
                t = int(node.get("type"))
                types_seen.add(t)
                if t == 0:
                    shown = set()
                if t == 5:
                    shown.add(int(node.get("seat")))
                if t == 10:
                    has_choices = bool(node.findall("action"))
                    assert has_choices == (int(node.get("seat")) == w.seat)
                    assert node.findtext("timeleft") is not None
                    for a in node.iterfind("action"):
                        if a.findtext("index") in ("3", "4") and len(a.findall("amount")) == 2:
                            min_max.append(a)
                for hand in node.iterfind("hand"):
                    s = int(hand.get("seat"))
                    cards = {int(c.text) for c in hand.iterfind("cards/card")}
                    if s >= 0 and t != 5:
                        assert cards == {-1}, etree.tostring(msg)
            elif node.tag == "gameinfo":
                for p in node.iterfind("players"):
                    s = int(p.findtext("myseat"))
                    cards = {int(c.text) for c in p.iterfind("holecards/cards/card")}
                    if s != w.seat and s not in shown and cards:
                        assert cards == {-1}, etree.tostring(msg)
                    if s == w.seat and cards:
                        assert -1 not in cards
    assert {0, 1, 3, 4, 6, 7, 8, 10} <= types_seen
    if factory.name == "texas-holdem":
        assert 2 in types_seen
    assert bool(min_max) == (variant in ("no-limit", "pot-limit"))


def test_gameinfo_fields():
    game, watchers = play(TexasHoldemFactory(), ["caller", "caller"], 1, showdown_pause=1)
    snapshots = [m[0] for m in watchers[0].messages if m[0].tag == "gameinfo"]
    assert snapshots, "a gameinfo at each new hand"
    gi = snapshots[0]
    for field in (
        "ante bigblind boardcards buttonseat currentplayerseat gameid limitstyle minplayers "
        "minraise players playerstoact pot raisesthisround smallblind stage winners "
        "bigblindseat smallblindseat handid smallbet bigbet cap pots commitment"
    ).split():
        assert gi.find(field) is not None, field
    assert int(gi.findtext("gameid")) == codec.wire_game_id(game.id)
    assert gi.findtext("smallbet") == "10" and gi.findtext("bigbet") == "20"
    assert gi.findtext("limitstyle") == "0" and gi.findtext("cap") == "4"
    assert len(gi.findall("players")) == 2


def test_texas_schema_accepts_seed_shaped_payload() -> None:
    doc = (
        b'<texasmessage><event type="10" seat="2" amount="1.50"><action><index>2</index>'
        b"<amount>1.50</amount></action><action><index>4</index><amount>3</amount>"
        b"<amount>100.25</amount></action><timeleft>30000</timeleft></event></texasmessage>"
    )
    codec.parse_document(doc, schema=SCHEMA)
    with pytest.raises(codec.ProtocolError):
        codec.parse_document(doc.replace(b"1.50", b"1.505"), schema=SCHEMA)


#: the spec's texasmessage action indices (xml-protocol.md), in the game's names
SPEC_ACTIONS = {
    "fold": 0, "check": 1, "call": 2, "bet": 3, "raise": 4, "post": 5, "sitout": 6,
    "sitin": 7, "show": 8, "muck": 9, "discard": 10, "takeseat": 11, "leaveseat": 12,
    "addbot": 13,
    "entropy": 14,  # Gamehub's: a seat's contribution to the shuffle (docs/fairness.md)
}  # fmt: skip


def test_the_wire_numbers_are_the_spec_s_for_every_game_action():
    from games.poker import server
    from games.poker.adapters import ACTION_INDEX, WIRE_ACTIONS, wire_index

    assert ACTION_INDEX == SPEC_ACTIONS
    assert set(server.ACTIONS) | {"entropy"} == set(WIRE_ACTIONS)
    assert all(wire_index(name) == number for name, number in SPEC_ACTIONS.items())
    assert wire_index("refuse") == SPEC_ACTIONS["sitout"]  # a refused blind: sitting out
    # the adapter alone (without the front end's schema check) still refuses garbage
    with pytest.raises(BadAction):
        PokerXMLAdapter().parse_action(
            params("<texasmessage><action><index>x</index></action></texasmessage>")
        )


def test_stored_hands_are_described_for_the_history():
    factory = TexasHoldemFactory()
    record = {"board": [51, 46, 0, 23], "showdown": "ann wins 40", "commitment": "ab"}
    assert factory.describe({"record": record}) == "board As Kh 2c 7s; ann wins 40"
    assert factory.describe({"record": {"board": [], "showdown": "bob wins"}}) == "bob wins"
    assert factory.describe({"record": {}}) is None
    # a hand moved over from the old columns reads the same
    legacy = {"card1": "Ah", "card2": "Kd", "card3": "2c", "showdown": "ann wins 30"}
    assert factory.describe({"record": legacy}) == "board Ah Kd 2c; ann wins 30"
    # the seed only with the sealed part; a seat's hole cards only as its own
    players = [{"seat": 0, "private": {"hole": [1, 2]}}, {"seat": 1}]
    shown = factory.hand_json({"record": record, "players": players, "sealed": {"seed": "cd"}})
    assert (shown["seed"], shown["seed_withheld"], shown["hole"]) == ("cd", False, {"0": [1, 2]})
    public = factory.hand_json({"record": record, "players": [{"seat": 1}]})
    assert (public["seed"], public["seed_withheld"], public["hole"]) == (None, True, {})


def test_history_lists_stored_hands_in_the_game_s_words(tmp_path):
    """``lobby/history`` of an account: a hand of a poker table gone from the lobby (its
    type from the store's finished games) is described by the poker factory; a hand of
    an unknown game keeps its stored summary."""
    from twisted.internet import defer

    from hub.frontends.xml import make_factory
    from tests.xml_support import Conn, FakeHub, MemoryStore, login

    class Store(MemoryStore):
        def hands(self, game_id=None, player=None, limit=50, **_):
            player = {"name": "ann", "seat": 0, "money_in": "10", "winnings": "30"}
            return defer.succeed(
                [
                    {"hand_id": 7, "game_id": "gonetable1234", "hand_key": "gonetable1234-3",
                     "ended": 0.0, "record": {"board": [50, 45, 0], "showdown": "ann wins 30"},
                     "summary": "not this", "players": [player]},
                    {"hand_id": 8, "game_id": "unknowngame12", "hand_key": "u-1", "ended": 0.0,
                     "record": {"board": [0, 4, 8]}, "summary": "bob wins 5",
                     "players": [player]},
                ]
            )  # fmt: skip

    store = Store()
    store.finished.append({"game_id": "gonetable1234", "type": "texas-holdem", "players": []})
    hub = FakeHub(tmp_path, store=store)
    hub.registry = DictRegistry([TexasHoldemFactory()])  # what the front end asks
    frontend = make_factory(hub)
    frontend.doStart()
    try:
        conn = Conn(frontend)
        conn.read()
        login(conn, "ann")
        r, _ = conn.one('<lobby><history accountname="ann"/></lobby>', conn.sid)
        hands = {e.get("id"): e for e in r.findall(".//history/entry") if e.get("id") in ("7", "8")}
        assert hands["7"].get("gametype") == "texas-holdem"
        assert hands["7"].findtext("summary") == "board Ah Kd 2c; ann wins 30"
        assert hands["7"].find("player").get("result") == "20"
        assert hands["8"].get("gametype") is None
        assert hands["8"].findtext("summary") == "bob wins 5"
    finally:
        frontend.doStop()
