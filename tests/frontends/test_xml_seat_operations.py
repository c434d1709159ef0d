"""Seat operations are typed hub operations (issue 34, point 4): over XML a game's
action named ``take_seat`` goes to the game, and the generic payload's
``<takeseat/>``, ``<leaveseat/>`` and ``<addbot/>`` are carried out by the hub."""

from __future__ import annotations

import pytest
from zope.interface import implementer

from games.hello.server import HelloGameFactory
from hub.frontends.xml import codec, make_factory
from hub.frontends.xml.adapters import GenericXMLAdapter
from hub.interfaces import IGame, IGameFactory
from hub.model import RUNNING, WAITING, BadAction, GameEvent, IllegalAction
from hub.seatops import AddBot, LeaveSeat, TakeSeat
from tests.support import DictRegistry
from tests.xml_support import Conn, FakeHub, login, outcome


@implementer(IGame)
class KeysGame:
    """Its one action is called ``take_seat``: a game's own word, nothing of the hub's."""

    def __init__(self, config, context):
        self.seats, self.state, self.context = config.seats, WAITING, context
        self.players: dict[int, str] = {}
        self.acted: list[tuple[int, dict]] = []

    def seat_player(self, seat, name):
        self.players[seat] = name
        if len(self.players) == self.seats:
            self.state = RUNNING

    def leave(self, seat):
        self.players.pop(seat, None)

    def act(self, seat, action):
        if action not in self.legal_actions(seat):
            raise IllegalAction("not now")
        self.acted.append((seat, dict(action)))
        self.context.emit(GameEvent("took", {"seat": seat}))

    def legal_actions(self, seat):
        return [{"take_seat": "the throne"}] if self.state == RUNNING else []

    def view(self, seat):
        return {"players": {str(k): v for k, v in self.players.items()}}

    def result(self):
        return None

    def stop(self):
        pass


@implementer(IGameFactory)
class KeysFactory:
    name = "keys"
    summary = "an action called take_seat"
    variants = ()
    min_seats = max_seats = default_seats = 2
    frontends = ("xml",)

    def create(self, config, context):
        return KeysGame(config, context)

    def adapter(self, frontend):
        return None


@pytest.fixture
def hub(tmp_path):
    return FakeHub(tmp_path, registry=DictRegistry([KeysFactory(), HelloGameFactory()]))


@pytest.fixture
def frontend(hub):
    f = make_factory(hub)
    f.doStart()
    yield f
    f.doStop()


def act(conn: Conn, wid: int, payload: str):
    conn.read()  # what came before
    r, _ = conn.one(
        f'<game gameid="{wid}"><action><parameters>{payload}</parameters></action></game>',
        conn.game_sids[wid],
    )
    return outcome(r)


def test_the_generic_payload_reads_seat_operations_apart_from_actions():
    adapter = GenericXMLAdapter()

    def parse(text: str):
        return adapter.parse_action(codec.etree.fromstring(f"<parameters>{text}</parameters>"))

    assert parse('<action>{"take_seat": 1}</action>') == {"take_seat": 1}
    assert parse('<takeseat seat="1" buyin="30"/>') == TakeSeat(1, "30")
    assert parse("<takeseat/>") == TakeSeat()
    assert parse("<leaveseat/>") == LeaveSeat()
    assert parse('<addbot name="hello-bot" seat="0"/>') == AddBot("hello-bot", 0)
    for bad in ("<addbot/>", '<takeseat seat="x"/>'):
        with pytest.raises(BadAction):
            parse(bad)


def test_a_games_take_seat_action_goes_to_the_game_and_takeseat_to_the_hub(hub, frontend):
    a, b = Conn(frontend), Conn(frontend)
    a.read(), b.read()
    login(a, "ann")
    login(b, "bob")
    r, _ = a.one('<game><create gametype="keys" name="k"/></game>')
    wid = int(r.find("response/game/create").get("gameid"))
    for conn in (a, b):
        conn.read()
        r, _ = conn.one(f'<game gameid="{wid}"><join/></game>')
        conn.game_sids[wid] = int(r.get("sessionid"))
    game = hub.lobby.games()[0]
    assert [s.player for s in game.seats] == ["ann", "bob"]

    assert act(a, wid, '<action>{"take_seat": "the throne"}</action>')[0]
    assert game.engine.acted == [(0, {"take_seat": "the throne"})]
    assert [s.player for s in game.seats] == ["ann", "bob"]  # nobody moved

    assert act(b, wid, "<leaveseat/>")[0]
    assert not game.seats[1].present
    assert act(b, wid, '<action>{"take_seat": "the throne"}</action>')[:2] == (False, 403)
    assert act(a, wid, "<leaveseat/>")[0]
    assert act(a, wid, '<takeseat seat="1"/>')[:2] == (False, 409)  # not free
    assert len(game.engine.acted) == 1
