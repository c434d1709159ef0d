"""A relayed game session follows its game to its new hub (hub.frontends.xml.relay,
issue 31): the relay's state changes, with the owners' connections on
``StringTransport`` and the cluster's answer (where the game went) given by the test.
End to end: tests/integration/test_cluster_xml_follow.py."""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import pytest
from lxml import etree
from twisted.internet import defer, task
from twisted.internet.testing import StringTransport

from hub.frontends.xml import encoding
from hub.frontends.xml.errors import Refused
from hub.frontends.xml.relay import PAUSED_MOVING, RETRY_SECONDS, Relay, Relays, _Wire
from hub.frontends.xml.relay_documents import game_state, sealed_refusal
from hub.model import Conflict, Elsewhere, NotFound
from hub.play.journal import SEALED

GAME, WIRE = "g1", 7
LOCAL, ON_A, ON_C = 11, 200, 300
ROUTE_C = ("127.0.0.1", 3, False)


@dataclass
class Conn:
    conn_id: str = "x1"
    account: Any = field(default_factory=lambda: SimpleNamespace(name="ann"))
    closing: bool = False
    sent: list[bytes] = field(default_factory=list)

    def send_update(self, document: bytes) -> None:
        self.sent.append(document)


class Lobby:
    """Where the game went: the test fires :attr:`where` (the last question's)."""

    def __init__(self) -> None:
        self.asked: list[tuple[Any, ...]] = []
        self.answers: list[defer.Deferred[Any]] = []
        self.looked: list[str] = []  #: the games asked of the directory itself
        self.here: Any = None
        self.elsewhere: Elsewhere | None = None  #: how the view lists the game elsewhere

    @property
    def where(self) -> defer.Deferred[Any]:
        return self.answers[-1]

    def look_up(self, game_id: str) -> defer.Deferred[Any]:
        self.looked.append(game_id)
        return defer.succeed(None)

    def follow(self, *args: Any) -> defer.Deferred[Any]:
        self.asked.append(args)
        self.answers.append(defer.Deferred())
        return self.answers[-1]

    def get(self, game_id: str) -> Any:
        if self.elsewhere is not None and game_id == GAME:
            raise self.elsewhere
        if self.here is None or game_id != GAME:
            raise NotFound(game_id)
        return self.here


class Sessions:
    def __init__(self) -> None:
        self.ended: list[int] = []
        self.adopted: list[tuple[int, Any]] = []

    def open_relayed(self, conn: Any) -> int:
        return LOCAL

    def end_game(self, sid: int, leave: bool = True) -> None:
        self.ended.append(sid)

    def adopt(self, sid: int, game: Any) -> Any:
        self.adopted.append((sid, game))
        return SimpleNamespace(game=game, session_id=sid)


class Frontend:
    def __init__(self) -> None:
        self.reactor = task.Clock()
        cluster = SimpleNamespace(ticket=lambda hub, name: f"ticket-{hub}")
        self.hub = SimpleNamespace(options={"cluster_follow_seconds": 20}, cluster=cluster)
        self.max_backlog, self.max_frame, self.max_pending = 1 << 20, 1 << 16, 2
        self.lobby = Lobby()
        self.sessions = Sessions()
        self.backs: list[Any] = []  #: the sessions :meth:`Resumes.back` brought back
        self.resumes = SimpleNamespace(
            back=lambda observer, seat: self.backs.append((observer, seat)),
            changed=lambda conn: None,
        )
        self.handled: list[bytes] = []

    def encode(self, root: etree._Element) -> bytes:
        return encoding.serialise(root)

    def game_id(self, wire_id: int) -> str | None:
        return GAME if wire_id == WIRE else None

    def handle_frame(self, conn: Any, frame: bytes) -> bytes:
        self.handled.append(frame)
        return b"answered here"


def frames(transport: StringTransport) -> list[etree._Element]:
    """The frames written to ``transport`` since the last call."""
    data, out = transport.value(), []
    transport.clear()
    while data:
        n = int.from_bytes(data[:4], "big")
        out.append(etree.fromstring(data[4 : 4 + n]))
        data = data[4 + n :]
    return out


def state(sid: int, description: str, success: bool = True, payload: bool = False) -> bytes:
    params = [etree.Element("texasmessage")] if payload else []
    doc = encoding.build_game_state(WIRE, params, sid, description=description, success=success)
    return encoding.serialise(doc)


def join_answer(sid: int, description: str = "back at seat 0") -> bytes:
    return encoding.serialise(
        encoding.build_response("game", "join", sessionid=sid, gameid=WIRE, description=description)
    )


def action_answer(sid: int, code: int | None = None, why: str | None = None) -> bytes:
    return encoding.serialise(
        encoding.build_response(
            "game",
            "action",
            success=code is None,
            errorcode=code,
            description=why,
            sessionid=sid,
            gameid=WIRE,
        )  # fmt: skip
    )


ACTION = (
    b'<message sessionid="11"><request><game gameid="7"><action><parameters>'
    b"<texasmessage/></parameters></action></game></request></message>"
)


def owner(relays: Relays, conn: Conn, hub_id: str, lobby: int) -> tuple[Relay, _Wire, Any]:
    """A relay of ``conn`` to ``hub_id`` on a ``StringTransport``, logged in."""
    relay = Relay(relays, conn, hub_id, ("127.0.0.1", 1, False))  # type: ignore[arg-type]
    relays._relays[(id(conn), hub_id)] = relay
    wire = _Wire(relay, relays.max_length)
    transport = StringTransport()
    wire.makeConnection(transport)
    ready = relay.ready()
    wire.stringReceived(encoding.serialise(encoding.build_info("hub", {})))
    (login,) = frames(transport)
    assert login.find("request/authentication/login").get("password") == f"ticket-{hub_id}"
    answer = encoding.build_response("authentication", "login", sessionid=lobby, name="ann")
    wire.stringReceived(encoding.serialise(answer))
    assert ready.called
    return relay, wire, transport


@pytest.fixture
def door() -> SimpleNamespace:
    """A door (B) whose client ann joined game g1 of hub A over the relay."""
    frontend = Frontend()
    relays = Relays(frontend)  # type: ignore[arg-type]
    conn = Conn()
    relay_a, wire_a, to_a = owner(relays, conn, "A", 100)
    answer = relay_a.join(SimpleNamespace(gameid=WIRE, sessionid=5), lambda: LOCAL, GAME)  # type: ignore[arg-type]
    frames(to_a)
    wire_a.stringReceived(join_answer(ON_A, "seated at seat 0"))
    assert etree.fromstring(answer.result).get("sessionid") == str(LOCAL)
    relayed = relays.by_local[LOCAL]
    return SimpleNamespace(
        frontend=frontend, relays=relays, conn=conn, relayed=relayed,
        a=relay_a, wire_a=wire_a, to_a=to_a,
    )  # fmt: skip


def request(door: SimpleNamespace) -> list[Any]:
    """Send ann's action on her session: a list that gets its answer (or failure)."""
    out: list[Any] = []
    door.relays.forward(door.relayed, SimpleNamespace(), ACTION).addBoth(out.append)
    return out


def nowhere(door: SimpleNamespace) -> int:
    """The cluster finds the game nowhere, each time the door asks until its
    ``cluster_follow_seconds`` ran out: how many times it asked."""
    lobby, asked = door.frontend.lobby, 0
    while asked < 100 and not lobby.where.called:
        asked += 1
        lobby.where.callback(None)
        door.frontend.reactor.advance(RETRY_SECONDS)
    return asked


def moved_to_c(door: SimpleNamespace) -> tuple[_Wire, StringTransport]:
    """The cluster says the game runs on C now: the door joins it there again."""
    return moved_to_c_when(door, ("C", ROUTE_C))


def moved_to_c_when(door: SimpleNamespace, answer: Any) -> tuple[_Wire, StringTransport]:
    """The cluster answers ``answer`` where the game went, and the door joins it on C."""
    _, wire_c, to_c = owner(door.relays, door.conn, "C", 400)
    door.frontend.lobby.where.callback(answer)
    (join,) = frames(to_c)
    assert join.get("sessionid") == "400"  # the relay's lobby session on C
    assert join.find("request/game/join").getparent().get("gameid") == str(WIRE)
    wire_c.stringReceived(join_answer(ON_C))
    return wire_c, to_c


def test_the_moving_pause_passes_on_and_the_owners_end_of_the_session_starts_the_follow(door):
    door.wire_a.stringReceived(state(ON_A, PAUSED_MOVING))
    assert door.relayed.moving
    (paused,) = door.conn.sent
    assert etree.fromstring(paused).get("sessionid") == str(LOCAL)
    door.wire_a.stringReceived(state(ON_A, "the game was removed", success=False))
    assert len(door.conn.sent) == 1  # the end is not passed on: the door follows the game
    assert door.frontend.lobby.asked == [(GAME, None, "A", "xml")]
    assert door.frontend.lobby.looked == [GAME]  # (the directory too: a stale view)
    assert LOCAL in door.relays.following and door.relayed.held == []
    assert ON_A not in door.a.sessions


def test_a_followed_session_is_joined_again_on_the_new_hub_with_the_clients_id(door):
    door.wire_a.stringReceived(state(ON_A, PAUSED_MOVING))
    door.wire_a.stringReceived(state(ON_A, "the game was removed", success=False))
    held = request(door)  # sent while following: held
    assert held == [] and frames(door.to_a) == []
    wire_c, to_c = moved_to_c(door)
    assert door.relayed.remote == ON_C and door.relayed.relay.hub_id == "C"
    assert door.relayed.held is None and LOCAL not in door.relays.following
    assert door.relays.by_local[LOCAL] is door.relayed  # the same session for the client
    (sent,) = frames(to_c)  # the held request goes to C, with C's session id
    assert sent.get("sessionid") == str(ON_C) and sent.find("request/game/action") is not None
    wire_c.stringReceived(action_answer(ON_C))
    assert etree.fromstring(held[0]).get("sessionid") == str(LOCAL)
    wire_c.stringReceived(state(ON_C, "", payload=True))  # C's updates reach the client
    assert etree.fromstring(door.conn.sent[-1]).get("sessionid") == str(LOCAL)
    door.wire_a.stringReceived(state(ON_A, "late", payload=True))  # A's are nobody's now
    assert etree.fromstring(door.conn.sent[-1]).get("sessionid") == str(LOCAL)
    assert b"late" not in door.conn.sent[-1]
    assert door.frontend.sessions.ended == []


def test_the_end_of_a_session_without_the_moving_pause_is_passed_on(door):
    door.wire_a.stringReceived(state(ON_A, "the game was removed", success=False))
    (ended,) = door.conn.sent
    assert game_state(etree.fromstring(ended)) == (False, "the game was removed")
    assert door.frontend.lobby.asked == [] and not door.relays.following


def test_a_game_that_moved_nowhere_ends_the_session_as_before(door):
    door.wire_a.stringReceived(state(ON_A, PAUSED_MOVING))
    door.wire_a.stringReceived(state(ON_A, "the game was removed", success=False))
    held = request(door)
    # it ended, was aborted, or the wait ran out: asked again every RETRY_SECONDS first
    assert nowhere(door) == 20 / RETRY_SECONDS
    assert game_state(etree.fromstring(door.conn.sent[-1])) == (False, "the game was removed")
    assert held and held[0].value.code == 502
    assert door.relays.by_local == {} and door.relays.following == {}
    assert door.frontend.sessions.ended == [LOCAL]


def test_a_game_that_moved_and_ended_before_the_follow_is_joined_where_it_ended(door):
    """The game moved to C and ended there at once (the other player's move), before
    this door followed it: the cluster no longer follows it (it ended), but the door
    joins it on C again, where the client is told its end as those who stayed were."""
    door.wire_a.stringReceived(state(ON_A, PAUSED_MOVING))
    door.wire_a.stringReceived(state(ON_A, "the game was removed", success=False))
    door.frontend.lobby.elsewhere = Elsewhere("game g1 runs on hub C", "C", {}, {"xml": ROUTE_C})
    wire_c, to_c = moved_to_c_when(door, None)  # the cluster's answer: ended, not followed
    assert door.relayed.relay.hub_id == "C" and LOCAL not in door.relays.following
    wire_c.stringReceived(state(ON_C, "", payload=True))  # C's end of the game
    assert etree.fromstring(door.conn.sent[-1]).get("sessionid") == str(LOCAL)
    assert door.frontend.sessions.ended == []


def test_a_game_still_listed_on_its_old_hub_is_no_place_to_follow_to(door):
    door.wire_a.stringReceived(state(ON_A, PAUSED_MOVING))
    door.wire_a.stringReceived(state(ON_A, "the game was removed", success=False))
    door.frontend.lobby.elsewhere = Elsewhere("game g1 runs on hub A", "A", {}, {"xml": ROUTE_C})
    assert nowhere(door) == 20 / RETRY_SECONDS  # asked again until the wait ran out
    assert door.frontend.sessions.ended == [LOCAL]


def test_a_game_that_moved_to_the_door_itself_becomes_its_own_session(door):
    door.wire_a.stringReceived(state(ON_A, PAUSED_MOVING))
    door.wire_a.stringReceived(state(ON_A, "the game was removed", success=False))
    held = request(door)
    game = SimpleNamespace(id=GAME, seat_of=lambda name: 0 if name == "ann" else None)
    door.frontend.lobby.here = game
    door.frontend.lobby.where.callback(("B", ("127.0.0.1", 2, False)))
    assert door.frontend.sessions.adopted == []  # on the next turn: the game goes live first
    door.frontend.reactor.advance(0)
    assert door.frontend.sessions.adopted == [(LOCAL, game)]  # the same session id
    assert [(o.session_id, seat) for o, seat in door.frontend.backs] == [(LOCAL, 0)]
    assert door.relays.by_local == {} and door.relays.following == {}
    assert door.frontend.handled == [ACTION] and held == [b"answered here"]


def test_a_game_listed_nowhere_for_a_moment_is_asked_for_again(door):
    door.wire_a.connectionLost(None)  # its hub went before the notice of the hand-over
    door.frontend.lobby.where.callback(None)  # (the view lists it as aborted a moment)
    assert door.conn.sent == [] and LOCAL in door.relays.following
    door.frontend.reactor.advance(RETRY_SECONDS)
    assert len(door.frontend.lobby.asked) == 2
    moved_to_c(door)
    assert door.relayed.relay.hub_id == "C" and door.conn.sent == []


def test_a_game_that_moved_here_and_moves_on_at_once_is_followed_from_here(door):
    door.wire_a.connectionLost(None)

    def sealed(name: str, kind: str, seat: int) -> int:
        raise Conflict(SEALED, 503)

    seats = [SimpleNamespace(kind="client")]
    game = SimpleNamespace(
        id=GAME, seat_of=lambda name: None, awaiting={0: "ann"}, seats=seats, come_back=sealed
    )
    door.frontend.lobby.here = game
    door.frontend.lobby.where.callback(("B", ("127.0.0.1", 2, False)))
    door.frontend.reactor.advance(0)  # B is drained too: its seal refuses the seat
    assert door.frontend.sessions.adopted == []
    assert door.frontend.lobby.asked[-1] == (GAME, None, "B", "xml")  # followed on from B
    door.frontend.lobby.here = None
    moved_to_c(door)
    assert door.relayed.relay.hub_id == "C" and door.relays.following == {}


def test_a_request_refused_because_the_game_is_sealed_is_sent_again_to_the_new_hub(door):
    answer = request(door)
    (sent,) = frames(door.to_a)
    assert sent.get("sessionid") == str(ON_A)
    door.wire_a.stringReceived(action_answer(ON_A, 503, SEALED))
    assert answer == [] and door.relayed.moving  # held: the door follows the game
    assert LOCAL in door.relays.following
    door.wire_a.stringReceived(state(ON_A, "the game was removed", success=False))
    assert door.conn.sent == []
    wire_c, to_c = moved_to_c(door)
    (again,) = frames(to_c)
    assert again.get("sessionid") == str(ON_C)
    wire_c.stringReceived(action_answer(ON_C))
    assert door.conn.sent == []  # (the client never saw the refusal nor the end)
    assert etree.fromstring(answer[0]).find("response/game/action").get("success") == "true"


def test_an_owner_that_dies_is_followed_and_the_request_it_left_unanswered_sent_again(door):
    answer = request(door)
    frames(door.to_a)
    door.wire_a.connectionLost(None)  # kill -9: no pause, no end of the session
    assert door.a.closed and LOCAL in door.relays.following and answer == []
    assert door.conn.sent == []  # nothing ended yet: the door asks where the game went
    wire_c, to_c = moved_to_c(door)
    (again,) = frames(to_c)
    assert again.find("request/game/action") is not None
    wire_c.stringReceived(action_answer(ON_C))
    assert etree.fromstring(answer[0]).get("sessionid") == str(LOCAL)


def test_a_dead_owner_whose_game_moved_nowhere_ends_the_session_with_why(door):
    door.wire_a.connectionLost(None)
    nowhere(door)
    (ended,) = door.conn.sent
    success, why = game_state(etree.fromstring(ended)) or (True, "")
    assert not success and "closed the connection" in why
    assert door.relays.by_local == {}


def test_the_client_going_while_following_ends_the_follow(door):
    door.wire_a.connectionLost(None)
    held = request(door)
    door.relays.drop(door.conn)
    assert door.relays.following == {} and door.relays.by_local == {}
    assert held and held[0].value.code == 502
    door.frontend.lobby.where.callback(("C", ROUTE_C))  # too late: nothing happens
    assert door.relays._relays == {}


def test_the_requests_held_are_bounded(door):
    door.wire_a.connectionLost(None)
    held = [request(door) for _ in range(door.frontend.max_pending)]
    refused = request(door)
    assert refused and isinstance(refused[0].value, Refused) and refused[0].value.code == 429
    assert held == [[]] * len(held)


def test_only_the_sealed_refusal_is_a_sign_of_a_move():
    assert sealed_refusal(action_answer(1, 503, SEALED))
    assert not sealed_refusal(action_answer(1, 503, "the database is away"))
    assert not sealed_refusal(action_answer(1, 422, SEALED))
    assert not sealed_refusal(action_answer(1))
    assert not sealed_refusal(b'not xml errorcode="503"')
