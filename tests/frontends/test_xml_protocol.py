"""The XML front end's protocol and request handling, over StringTransport on a fake clock."""

from __future__ import annotations

import pytest

from hub.frontends.xml import codec, make_factory
from tests.xml_support import Conn, FakeHub, login, outcome


@pytest.fixture
def hub(tmp_path):
    return FakeHub(tmp_path)


@pytest.fixture
def frontend(hub):
    f = make_factory(hub)
    f.doStart()
    yield f
    f.doStop()


def greeted(conn: Conn):
    docs = conn.read()
    assert len(docs) == 1 and docs[0][0].tag == "info"
    return docs[0]


# -- framing and timeouts ---------------------------------------------------------------


def test_greeting_names_server_and_front_ends(frontend) -> None:
    info = greeted(Conn(frontend))
    assert info.find("info/parameters/server").get("name") == "gamehub"
    ports = {f.get("name"): f.get("port") for f in info.iterfind("info/parameters/frontends/*")}
    assert ports == {"xml": "4000", "web": "8080"}


def test_nagle_is_off_on_every_connection(frontend) -> None:
    """Many small frames: without TCP_NODELAY each answer waits for a delayed ACK."""
    assert Conn(frontend).transport.getTcpNoDelay() is True


def test_zero_length_frame_413_and_close(frontend) -> None:
    conn = Conn(frontend)
    greeted(conn)
    conn.raw(b"\x00\x00\x00\x00")
    (doc,) = conn.read()
    assert outcome(doc) == (False, 413, "a frame of length 0 is not a document")
    assert conn.closed


@pytest.mark.parametrize("length", [65537, 2**31 - 1, 2**32 - 1])
def test_oversized_declared_length_413_close_nothing_allocated(frontend, length) -> None:
    conn = Conn(frontend)
    greeted(conn)
    conn.raw(length.to_bytes(4, "big") + b"<mess")
    (doc,) = conn.read()
    assert outcome(doc)[:2] == (False, 413)
    assert conn.closed
    assert len(conn.proto._buffer) == 0
    conn.raw(b"more bytes after the refusal")  # ignored, no second answer
    assert conn.read() == []


def test_configured_frame_limit(tmp_path) -> None:
    f = make_factory(FakeHub(tmp_path, xml_max_frame=100))
    conn = Conn(f)
    greeted(conn)
    conn.send(b"<message>" + b" " * 100 + b"</message>")
    assert outcome(conn.read()[0])[:2] == (False, 413)


def test_buffer_holds_only_what_arrived(frontend) -> None:
    conn = Conn(frontend)
    greeted(conn)
    conn.raw((60000).to_bytes(4, "big") + b"x" * 10)
    assert len(conn.proto._buffer) == 14
    assert not conn.closed


def test_frame_that_never_completes(hub, frontend) -> None:
    conn = Conn(frontend)
    greeted(conn)
    conn.raw((100).to_bytes(4, "big") + b"<message>")
    hub.reactor.advance(frontend.frame_deadline - 1)
    assert conn.read() == [] and not conn.closed
    hub.reactor.advance(2)
    (doc,) = conn.read()
    assert outcome(doc)[:2] == (False, 408)
    assert conn.closed


def test_idle_timeout(hub, frontend) -> None:
    conn = Conn(frontend)
    greeted(conn)
    hub.reactor.advance(frontend.idle_timeout + 1)
    (doc,) = conn.read()
    assert doc[0].tag == "stateupdate" and doc.find(".//general").get("errorcode") == "408"
    assert conn.closed
    assert not hub.reactor.getDelayedCalls()


def test_idle_timeout_counts_from_the_last_frame_or_update(hub, frontend) -> None:
    conn = Conn(frontend)
    greeted(conn)
    timeout = frontend.idle_timeout
    hub.reactor.advance(timeout / 2)
    conn.send(b"<message><request><nonsense/></request></message>")  # a frame: not idle
    conn.read()
    hub.reactor.advance(timeout / 2 + 1)
    assert conn.read() == [] and not conn.closed
    conn.proto.connection.send_update(codec.encode(codec.build_notice("hi")))
    hub.reactor.advance(timeout - 1)  # an update sent: not idle either
    assert len(conn.read()) == 1 and not conn.closed
    hub.reactor.advance(2)
    (doc,) = conn.read()
    assert doc.find(".//general").get("errorcode") == "408" and conn.closed
    assert not hub.reactor.getDelayedCalls()


def test_per_address_cap(tmp_path) -> None:
    f = make_factory(FakeHub(tmp_path, xml_max_per_address=2))
    a, b = Conn(f), Conn(f)
    greeted(a), greeted(b)
    c = Conn(f)
    (doc,) = c.read()
    assert outcome(doc)[:2] == (False, 429) and c.closed
    Conn(f, host="10.0.0.2").read()  # another address is fine
    c.close()
    a.close()
    d = Conn(f)
    assert greeted(d) is not None and not d.closed


def test_malformed_document_400_connection_stays(frontend) -> None:
    conn = Conn(frontend)
    greeted(conn)
    conn.send(b"<message><request><nonsense/></request></message>")
    (doc,) = conn.read()
    assert outcome(doc)[:2] == (False, 400)
    assert not conn.closed
    conn.send(b'<!DOCTYPE m [<!ENTITY a "b">]><message/>')
    assert outcome(conn.read()[0])[:2] == (False, 400)


def test_several_frames_in_one_chunk_answered_in_order(frontend) -> None:
    conn = Conn(frontend)
    greeted(conn)
    docs = [
        b"<message><request><lobby><availablegames/></lobby></request></message>",
        b"<bad/>",
        b"<message><request><authentication><logout/></authentication></request></message>",
    ]
    conn.raw(b"".join(len(d).to_bytes(4, "big") + d for d in docs))
    out = conn.read()
    assert [outcome(d)[1] for d in out] == [401, 400, 401]


# -- sessions and accounts ----------------------------------------------------------------


def test_login_flow_and_balance(hub, frontend) -> None:
    conn = Conn(frontend)
    greeted(conn)
    r = login(conn, "ann")
    node = r.find("response/authentication/login")
    assert node.get("name") == "ann" and node.get("balance") == "1000.00"
    assert node.get("type") == "0"
    assert 0 < conn.sid < 2**63
    r, _ = conn.one("<lobby><availablegames/></lobby>")
    games = r.findall("response/lobby/availablegames/game")
    assert [(g.get("type"), g.get("clientgame")) for g in games] == [
        ("hello", "games.hello.client")
    ]


def test_requests_before_login_401(frontend) -> None:
    conn = Conn(frontend)
    greeted(conn)
    for body in (
        "<lobby><gamelist/></lobby>",
        '<game><create gametype="hello" name="x"/></game>',
        '<game gameid="1"><join/></game>',
        '<game gameid="1"><action><parameters><hello>x</hello></parameters></action></game>',
    ):
        r, _ = conn.one(body, 0)
        assert outcome(r)[:2] == (False, 401), body


def test_wrong_password_and_duplicate_account(frontend) -> None:
    conn = Conn(frontend)
    greeted(conn)
    login(conn, "ann")
    other = Conn(frontend)
    greeted(other)
    r, _ = other.one(
        '<accountmanagement><create accountname="ann" password="xxxx" accounttype="0"/>'
        "</accountmanagement>",
        0,
    )
    assert outcome(r)[:2] == (False, 409)
    r, _ = other.one(
        '<authentication><login accountname="ann" password="nope"/></authentication>', 0
    )
    assert outcome(r)[:2] == (False, 401)
    # refused in the request's own response element, as a seed client expects
    node = r.find("response/authentication/login")
    assert node.get("success") == "false" and node.get("errorcode") == "401"
    r, _ = other.one("<lobby><gamelist/></lobby>", 0)
    assert r.find("response/general").get("errorcode") == "401"


def test_admin_account_only_by_admin(hub, frontend) -> None:
    conn = Conn(frontend)
    greeted(conn)
    r, _ = conn.one(
        '<accountmanagement><create accountname="boss" password="pass" accounttype="2"/>'
        "</accountmanagement>",
        0,
    )
    assert outcome(r)[:2] == (False, 403)
    assert "boss" not in hub.store.accounts


def test_another_connections_session_403_and_nothing_changes(hub, frontend) -> None:
    a, b = Conn(frontend), Conn(frontend)
    greeted(a), greeted(b)
    login(a, "ann")
    login(b, "bob")
    r, _ = a.one('<game><create gametype="hello" name="t1"><parameters><seats>2</seats>'
                 "</parameters></create></game>")  # fmt: skip
    wid = int(r.find("response/game/create").get("gameid"))
    r, _ = a.one(f'<game gameid="{wid}"><join/></game>')
    a_game = int(r.get("sessionid"))
    b.read()
    before = (hub.store.balances(), [g.to_json() for g in hub.lobby.games()])
    # b uses a's lobby session and a's game session
    for body, sid in (
        ('<game><create gametype="hello" name="t2"/></game>', a.sid),
        ("<lobby><gamelist/></lobby>", a.sid),
        (f'<game gameid="{wid}"><join/></game>', a.sid),
        (f'<game gameid="{wid}"><part/></game>', a_game),
        (f'<game gameid="{wid}"><action><parameters><hello>hi</hello></parameters></action></game>',
         a_game),
        (f'<game gameid="{wid}"><chat sender="ann"><message>x</message></chat></game>', a_game),
        ("<authentication><logout/></authentication>", a.sid),
        (f'<game gameid="{wid}"><join/></game>', 12345),
    ):  # fmt: skip
        r, _ = b.one(body, sid)
        assert outcome(r)[:2] == (False, 403), body
    assert (hub.store.balances(), [g.to_json() for g in hub.lobby.games()]) == before
    assert a.read() == []  # a saw nothing
    # a's own game session for another game id is refused too
    r, _ = a.one(f'<game gameid="{wid + 1}"><part/></game>', a_game)
    assert outcome(r)[:2] == (False, 403)


def test_full_hello_game(hub, frontend) -> None:
    a, b = Conn(frontend), Conn(frontend)
    greeted(a), greeted(b)
    login(a, "ann")
    login(b, "bob")
    r, _ = a.one("<lobby><availablegames/></lobby>")
    r, updates = a.one('<game><create gametype="hello" name="greetings"/></game>')
    assert outcome(r)[0]
    wid = int(r.find("response/game/create").get("gameid"))
    assert [u.find(".//change").get("type") for u in updates] == ["created"]
    created = b.read()[0]
    assert created.find(".//change").get("type") == "created"
    assert int(created.get("sessionid")) == b.sid  # lobby updates carry the lobby session
    r, _ = b.one('<lobby><gamelist gametype="hello"/></lobby>')
    (row,) = r.findall("response/lobby/gamelist/games/game")
    assert (int(row.get("gameid")), row.get("name"), row.get("players")) == (wid, "greetings", "0")

    r, updates = a.one(f'<game gameid="{wid}"><join/></game>')
    a_sid = int(r.get("sessionid"))
    assert a_sid not in (0, a.sid)
    assert updates[0].find(".//updatedgamestate/parameters/hellogame") is not None
    b.read()
    r, updates = b.one(f'<game gameid="{wid}"><join/></game>')
    b_sid = int(r.get("sessionid"))
    payloads = [
        u.find(".//updatedgamestate/parameters")[0]
        for u in updates
        if u.find(".//updatedgamestate") is not None
    ]
    assert payloads[0].tag == "hellogame"
    assert any(p.tag == "turn" and p.get("seat") == "1" for p in payloads)
    a_updates = a.read()
    assert any(u.find(".//turn") is not None for u in a_updates)

    r, _ = b.one(f'<game gameid="{wid}"><chat sender="mallory"><message>hi all</message></chat></game>', b_sid)  # fmt: skip
    assert outcome(r)[0]
    chats = [u for u in a.read() if u.find(".//chat") is not None]
    assert [(c.find(".//chat").get("sender"), c.findtext(".//chat/message")) for c in chats] == [
        ("bob", "hi all")
    ]
    assert int(chats[0].get("sessionid")) == a_sid

    r, _ = a.one(f'<game gameid="{wid}"><action><parameters><hello>world</hello></parameters></action></game>', a_sid)  # fmt: skip
    assert outcome(r)[0]
    r, _ = a.one(f'<game gameid="{wid}"><action><parameters><hello>again</hello></parameters></action></game>', a_sid)  # fmt: skip
    assert outcome(r)[:2] == (False, 422)
    r, _ = a.one(f'<game gameid="{wid}"><action><parameters><bye/></parameters></action></game>', a_sid)  # fmt: skip
    assert outcome(r)[:2] == (False, 400)
    lines = [u.find(".//hello") for u in b.read() if u.find(".//hello") is not None]
    assert lines[0].text == "Hello from ann: world"

    r, updates = b.one(f'<game gameid="{wid}"><action><parameters><hello>there</hello></parameters></action></game>', b_sid)  # fmt: skip
    assert any(u.find(".//over") is not None for u in updates)
    assert hub.lobby.get(hub.lobby.games()[0].id).state == "over"

    a.read()
    r, _ = a.one(f'<lobby><history gameid="{wid}"/></lobby>')
    (entry,) = r.findall(".//history/entry")
    assert [p.get("name") for p in entry.findall("player")] == ["ann", "bob"]
    r, _ = a.one('<lobby><findplayer name="b"/></lobby>')
    assert [g.get("player") for g in r.findall(".//findplayer/game")] == ["bob"]
    r, _ = a.one(f'<lobby><gamedetails gameid="{wid}"/></lobby>')
    assert [p.findtext("info/parameters/name") for p in r.findall(".//players/player")] == ["ann", "bob"]  # fmt: skip

    r, _ = a.one(f'<game gameid="{wid}"><part/></game>', a_sid)
    assert outcome(r)[0]
    r, _ = a.one(f'<game gameid="{wid}"><part/></game>', a_sid)
    assert outcome(r)[:2] == (False, 403)
    b.read()
    r, _ = b.one("<authentication><logout/></authentication>")
    assert outcome(r)[0]
    r, _ = b.one("<lobby><gamelist/></lobby>", b.sid)
    assert outcome(r)[:2] == (False, 403)  # that session is gone
    r, _ = b.one("<lobby><gamelist/></lobby>", 0)
    assert outcome(r)[:2] == (False, 401)

    transcript = hub.transcripts.read(hub.lobby.games()[0].id)
    assert "hi all" in transcript and "Hello from ann: world" in transcript
    assert " in " in transcript and " out " in transcript
    lobby_log = hub.transcripts.read("lobby-xml")
    assert 'password=\\"***\\"' in lobby_log or 'password="***"' in lobby_log
    assert "secret" not in lobby_log


def test_game_create_errors(frontend) -> None:
    a = Conn(frontend)
    greeted(a)
    login(a, "ann")
    for body, code in (
        ('<game><create gametype="chess" name="x"/></game>', 404),
        ('<game><create gametype="hello" name="x"><parameters><seats>99</seats></parameters></create></game>', 400),
        ('<game><create gametype="hello" name="x"><parameters><seat>bot:nobody</seat></parameters></create></game>', 404),
        ('<game><create gametype="hello" name="x"><parameters><variant>v</variant></parameters></create></game>', 400),
        ('<game gameid="77"><join/></game>', 404),
        ('<lobby><gamedetails gameid="77"/></lobby>', 404),
    ):  # fmt: skip
        r, _ = a.one(body)
        assert outcome(r)[:2] == (False, code), body


def test_delete_game_rules(hub, frontend) -> None:
    a, b = Conn(frontend), Conn(frontend)
    greeted(a), greeted(b)
    login(a, "ann")
    login(b, "bob")
    r, _ = a.one('<game><create gametype="hello" name="g"/></game>')
    wid = int(r.find("response/game/create").get("gameid"))
    b.read()
    r, _ = b.one(f'<game gameid="{wid}"><delete/></game>')
    assert outcome(r)[:2] == (False, 403)
    r, updates = a.one(f'<game gameid="{wid}"><delete/></game>')
    assert outcome(r)[0] and hub.lobby.games() == []
    assert updates[0].find(".//change").get("type") == "removed"


def test_disconnect_ends_sessions_and_seat(hub, frontend) -> None:
    a, b = Conn(frontend), Conn(frontend)
    greeted(a), greeted(b)
    login(a, "ann")
    login(b, "bob")
    r, _ = a.one('<game><create gametype="hello" name="g"/></game>')
    wid = int(r.find("response/game/create").get("gameid"))
    r, _ = a.one(f'<game gameid="{wid}"><join/></game>')
    a_sid = int(r.get("sessionid"))
    a.close()
    assert a_sid not in frontend.sessions and a.sid not in frontend.sessions
    game = hub.lobby.games()[0]
    # the game had not started, so the seat is open again
    assert game.observer_count == 0 and game.seats[0].free and game.seats[0].kind == "open"


def test_too_many_pending_requests_429(tmp_path) -> None:
    hub = FakeHub(tmp_path, xml_max_pending=2)

    class SlowStore:
        def authenticate(self, *a, **k):
            from twisted.internet import defer

            return defer.Deferred()  # never answers

    hub.store = SlowStore()
    f = make_factory(hub)
    conn = Conn(f)
    greeted(conn)
    login_doc = b'<message><request><authentication><login accountname="a" password="b"/></authentication></request></message>'  # fmt: skip
    for _ in range(4):
        conn.send(login_doc)
    (doc,) = conn.read()
    assert outcome(doc)[:2] == (False, 429) and conn.closed


def test_internal_error_500_connection_survives(hub, frontend, monkeypatch) -> None:
    conn = Conn(frontend)
    greeted(conn)
    login(conn, "ann")

    def boom(*a, **k):
        raise RuntimeError("boom")

    from hub.frontends.xml import events
    from hub.frontends.xml.handlers import HANDLERS

    monkeypatch.setitem(HANDLERS, events.GameList, boom)
    r, _ = conn.one("<lobby><gamelist/></lobby>")
    assert outcome(r)[:2] == (False, 500)
    r, _ = conn.one("<lobby><availablegames/></lobby>")
    assert r.find(".//availablegames") is not None


def test_generic_adapter_json_payloads(hub, frontend) -> None:
    from hub.frontends.xml.adapters import GenericXMLAdapter

    adapter = GenericXMLAdapter()
    root = codec.etree.fromstring(b'<parameters><action>{"hello": "x"}</action></parameters>')
    assert adapter.parse_action(root) == {"hello": "x"}
    from hub.model import BadAction, GameEvent

    with pytest.raises(BadAction):
        adapter.parse_action(
            codec.etree.fromstring(b"<parameters><action>[1]</action></parameters>")
        )
    assert adapter.render_event(GameEvent("moved", {"a": 1}), None).get("kind") == "moved"


def test_refusal_half_closes_then_closes_after_grace(hub, frontend) -> None:
    from twisted.internet.testing import StringTransport

    class HalfCloseable(StringTransport):
        write_closed = False

        def loseWriteConnection(self) -> None:  # noqa: N802
            self.write_closed = True

    conn = Conn(frontend)
    greeted(conn)
    transport = HalfCloseable()
    conn.proto.transport = transport
    conn.raw(b"\x00\x00\x00\x00")
    assert transport.write_closed and not transport.disconnecting
    conn.raw(b"x" * 1000)  # discarded while half-closed
    assert len(conn.proto._buffer) == 0
    hub.reactor.advance(frontend.close_grace + 0.1)
    assert transport.disconnecting


def test_rate_limit_answers_429_in_order_then_recovers(tmp_path) -> None:
    hub = FakeHub(tmp_path, xml_rate=1, xml_burst=3)
    f = make_factory(hub)
    conn = Conn(f)
    greeted(conn)
    doc = b"<message><request><lobby><availablegames/></lobby></request></message>"
    conn.raw(b"".join(len(doc).to_bytes(4, "big") + doc for _ in range(5)))
    assert [outcome(d)[1] for d in conn.read()] == [401, 401, 401, 429, 429]
    assert not conn.closed
    hub.reactor.advance(1.0)
    conn.send(doc)
    assert [outcome(d)[1] for d in conn.read()] == [401]


def test_client_that_does_not_read_is_dropped(tmp_path) -> None:
    hub = FakeHub(tmp_path, xml_max_backlog=2000)
    f = make_factory(hub)
    f.doStart()
    conn = Conn(f)
    greeted(conn)
    login(conn, "ann")
    conn.proto.pauseProducing()  # as the transport does when its buffer is full
    for n in range(40):
        hub.lobby.create_game("hello", name=f"g{n}")  # a lobby update each
    assert conn.transport.disconnecting
    f.doStop()


def test_shutdown_notice(hub, frontend) -> None:
    conn = Conn(frontend)
    greeted(conn)
    frontend.stopFactory()
    (doc,) = conn.read()
    assert doc.findtext("stateupdate/general/description") == "the hub is shutting down"
    frontend.startFactory()


def test_total_connection_cap(tmp_path) -> None:
    f = make_factory(FakeHub(tmp_path, xml_max_connections=2))
    a, b = Conn(f, host="10.0.0.1"), Conn(f, host="10.0.0.2")
    greeted(a), greeted(b)
    c = Conn(f, host="10.0.0.3")
    (doc,) = c.read()
    assert outcome(doc)[:2] == (False, 429) and c.closed


def test_a_lobby_change_is_one_document_for_its_whole_audience(hub, frontend) -> None:
    """Issue 19 item 2 (counted, not timed): a change, and a lobby chat line, are
    serialised once for every logged-in connection; each still gets its own session id."""
    from hub.connections.chat import LOBBY
    from hub.frontends.xml import encoding

    conns = [Conn(frontend) for _ in range(6)]
    for i, conn in enumerate(conns):
        greeted(conn)
        login(conn, f"p{i}")
    before = encoding.serialised
    hub.lobby.create_game("hello", name="watched")
    assert encoding.serialised - before == 1
    for conn in conns:
        (update,) = conn.read()
        assert update.find(".//change").get("type") == "created"
        assert int(update.get("sessionid")) == conn.sid
    before = encoding.serialised
    hub.chat.say(LOBBY, "p0", "hello all")
    assert encoding.serialised - before == 1
    for conn in conns:
        (line,) = conn.read()
        assert (line.find(".//chat").get("sender"), int(line.get("sessionid"))) == ("p0", conn.sid)


def test_a_game_list_is_made_once_until_a_listed_game_changes(hub, frontend) -> None:
    """Issue 19 (counted, not timed): asking again for an unchanged list serialises
    nothing and answers the same list with the asker's session id; a seat taken in a
    listed game shows in the next list at once."""
    from hub.frontends.xml import encoding

    a, b = Conn(frontend), Conn(frontend)
    greeted(a), greeted(b)
    login(a, "ann")
    login(b, "bob")
    game = hub.lobby.create_game("hello", name="listed")
    a.read(), b.read()
    ask = '<lobby><gamelist gametype="hello"/></lobby>'
    first, _ = a.one(ask)
    before = encoding.serialised
    again, _ = b.one(ask)
    assert encoding.serialised == before  # the same list: not serialised again
    assert int(again.get("sessionid")) == b.sid and int(first.get("sessionid")) == a.sid
    rows = [r.find("response/lobby/gamelist/games/game") for r in (first, again)]
    assert [r.attrib for r in rows[:1]] == [rows[1].attrib]
    assert rows[1].get("players") == "0"
    game.take_seat("carol", 0)
    a.read(), b.read()
    after, _ = b.one(ask)
    row = after.find("response/lobby/gamelist/games/game")
    assert row.get("players") == "1"
    assert [p.text for p in row.findall("additionalinfo/players/player")] == ["carol"]


def test_a_player_back_at_the_seat_of_an_ended_game_is_told_its_end(hub, frontend) -> None:
    """A player whose connection went before the game ended (or whose relayed session
    followed the game to a hub where it had just ended) joins it again: back at the
    seat, the final state, then the end as the others saw it."""
    a, b = Conn(frontend), Conn(frontend)
    greeted(a), greeted(b)
    login(a, "ann")
    login(b, "bob")
    r, _ = a.one('<game><create gametype="hello" name="greetings"/></game>')
    wid = int(r.find("response/game/create").get("gameid"))
    b.read()
    r, _ = a.one(f'<game gameid="{wid}"><join/></game>')
    a_sid = int(r.get("sessionid"))
    b.read()
    r, _ = b.one(f'<game gameid="{wid}"><join/></game>')
    b_sid = int(r.get("sessionid"))
    hello = "<action><parameters><hello>hi</hello></parameters></action>"
    a.read()
    a.one(f'<game gameid="{wid}">{hello}</game>', a_sid)
    b.read()
    b.one(f'<game gameid="{wid}">{hello}</game>', b_sid)
    ended = [u.find(".//over") for u in a.read() if u.find(".//over") is not None]
    assert len(ended) == 1 and hub.lobby.games()[0].state == "over"

    again = Conn(frontend)  # ann on a new connection
    greeted(again)
    login(again, "ann", create=False)
    r, updates = again.one(f'<game gameid="{wid}"><join/></game>')
    assert r.findtext("response/game/join/description") == "back at seat 0"
    payloads = [
        u.find(".//updatedgamestate/parameters")[0]
        for u in updates
        if u.find(".//updatedgamestate/parameters") is not None
    ]
    assert [p.tag for p in payloads] == ["hellogame", "over"]
    assert payloads[0].get("state") == "over"
    assert payloads[1].get("summary") == ended[0].get("summary")


class _Writes:
    """Wraps a connection's transport to keep each ``write`` call's bytes."""

    def __init__(self, conn: Conn) -> None:
        self.calls: list[bytes] = []
        write = conn.transport.write

        def counted(data: bytes) -> None:
            self.calls.append(data)
            write(data)

        conn.transport.write = counted  # type: ignore[method-assign]


def test_pipelined_answers_and_a_chat_lines_copies_go_out_in_one_write_each(hub, frontend) -> None:
    """Issue 36: the frames written while a chunk of requests is answered are held and
    sent, one write per connection, the same bytes in order: the talker's once the
    chunk is done, the others' at the end of the reactor's turn."""
    conns = [Conn(frontend) for _ in range(3)]
    for i, conn in enumerate(conns):
        greeted(conn)
        login(conn, f"p{i}")
    writes = [_Writes(conn) for conn in conns]
    talker = conns[0]
    ask = (
        f'<message sessionid="{talker.sid}"><request><lobby><gamelist/></lobby></request></message>'
    )
    say = (
        f'<message sessionid="{talker.sid}"><request><game gameid="0"><chat sender="p0">'
        "<message>hi</message></chat></game></request></message>"
    )
    talker.raw(b"".join(len(d).to_bytes(4, "big") + d.encode() for d in (ask, say, ask)))
    assert len(writes[0].calls) == 1 and len(writes[1].calls) == len(writes[2].calls) == 0
    hub.reactor.advance(0)  # the end of the reactor's turn
    assert len(writes[0].calls) == len(writes[1].calls) == len(writes[2].calls) == 1
    docs = talker.read()
    kinds = [(d[0].tag, d[0][0].tag, d[0][0][0].tag) for d in docs]
    assert kinds == [
        ("response", "lobby", "gamelist"),
        ("response", "game", "chat"),
        ("stateupdate", "game", "chat"),  # held until its request's answer is written
        ("response", "lobby", "gamelist"),
    ]
    for conn in conns[1:]:
        (line,) = conn.read()
        assert line.find(".//chat/message").text == "hi"
        assert int(line.get("sessionid")) == conn.sid


def test_the_copies_of_a_turns_chunks_go_out_in_one_write_in_order(hub, frontend) -> None:
    """Issue 36: the chat lines of two clients' chunks read in one turn of the reactor
    reach a third client in one write at the end of the turn, in the order they were
    said; a client that holds a copy when its own chunk is answered gets the copy
    first, then its answers, in that chunk's write."""
    conns = [Conn(frontend) for _ in range(3)]
    for i, conn in enumerate(conns):
        greeted(conn)
        login(conn, f"p{i}")
    writes = [_Writes(conn) for conn in conns]

    def say(conn: Conn, text: str) -> bytes:
        document = (
            f'<message sessionid="{conn.sid}"><request><game gameid="0"><chat sender="x">'
            f"<message>{text}</message></chat></game></request></message>"
        ).encode()
        return len(document).to_bytes(4, "big") + document

    sent = frontend.telemetry.sent
    conns[0].raw(say(conns[0], "one"))
    conns[1].raw(say(conns[1], "two"))  # holds "one" from p0: it goes before its answer
    assert [len(w.calls) for w in writes] == [1, 1, 0]
    hub.reactor.advance(0)  # the end of the reactor's turn
    assert [len(w.calls) for w in writes] == [2, 1, 1]
    assert frontend.telemetry.sent - sent == 8  # two answers, three copies of each line

    def seen(conn: Conn) -> list[tuple[str, str | None]]:
        return [(d[0].tag, d.findtext(".//chat/message")) for d in conn.read()]

    assert seen(conns[0]) == [("response", None), ("stateupdate", "one"), ("stateupdate", "two")]
    assert seen(conns[1]) == [("stateupdate", "one"), ("response", None), ("stateupdate", "two")]
    assert seen(conns[2]) == [("stateupdate", "one"), ("stateupdate", "two")]


def test_a_frame_written_outside_a_chunk_goes_after_what_its_connection_holds(
    hub, frontend
) -> None:
    """A lobby update sent outside any chunk (a game made through another door) to a
    connection still holding a chat line's copy for the end of the turn goes after it,
    both at once."""
    conns = [Conn(frontend) for _ in range(2)]
    for i, conn in enumerate(conns):
        greeted(conn)
        login(conn, f"p{i}")
    writes = _Writes(conns[1])
    conns[0].request('<game gameid="0"><chat sender="x"><message>first</message></chat></game>')
    assert writes.calls == []
    hub.lobby.create_game("hello", name="Later")  # a lobby update for everyone, now
    assert len(writes.calls) == 1
    docs = conns[1].read()
    assert docs[0].findtext(".//chat/message") == "first"
    assert [d[0].tag for d in docs] == ["stateupdate"] * len(docs) and len(docs) >= 2


def test_an_error_that_closes_goes_out_before_the_close_in_a_pipelined_chunk(frontend) -> None:
    conn = Conn(frontend)
    greeted(conn)
    ok = b'<message sessionid="0"><request><lobby><gamelist/></lobby></request></message>'
    conn.raw(len(ok).to_bytes(4, "big") + ok + b"\x00\x00\x00\x00")
    first, last = conn.read()
    assert outcome(first) == (False, 401, "log in first")
    assert outcome(last) == (False, 413, "a frame of length 0 is not a document")
    assert conn.closed


def test_lobby_records_name_the_account_only_while_logged_in(hub, frontend) -> None:
    """Issue 36: a connection keeps its lobby records' tags (in and out) until it logs
    in or out; each record is the one ``Transcript.record`` writes, owner and all."""
    from hub.connections.transcript import record_tag

    conn = Conn(frontend)
    greeted(conn)
    conn.request("<lobby><gamelist/></lobby>")  # before a login: nobody's
    conn.read()
    login(conn, "ann")
    conn.one("<lobby><gamelist/></lobby>")
    conn.one("<authentication><logout/></authentication>")
    conn.request("<lobby><gamelist/></lobby>", 0)
    conn.read()
    hub.transcripts.flush()
    lines = hub.transcripts.read("lobby-xml").splitlines()
    cid = conn.proto.connection.conn_id
    mine = [line.split(" ", 1)[1] for line in lines if line.split(" ")[1].split("~")[0] == cid]
    owners = [who.split(" ")[0].partition("~")[2] for who in mine]
    # a list, the account made and the login asked before the login (the login's answer
    # is ann's), a list and the logout asked as ann (its answer is nobody's), a list
    assert owners == ["", "", "", "", "", "ann", "ann", "ann", "ann", "", "", ""]
    for record in mine:
        who, direction, _content = record.split(" ", 2)
        conn_id, _, owner = who.partition("~")
        tag = record_tag(conn_id, direction.strip(), owner or None)
        assert f" {record}\n".encode().startswith(tag)


def test_games_are_found_by_wire_id_from_the_lobby_s_changes_not_a_search(tmp_path) -> None:
    """Every listed game's wire id is known from the lobby's changes: one made before
    the front end started, one of a type XML does not host (400, not 404) and one
    made since; an unknown id is a 404, and a removed game's a 404 too."""
    from games.hello.server import HelloGameFactory
    from games.morris.server import MorrisGameFactory
    from hub.frontends.xml.payload import wire_game_id
    from tests.support import DictRegistry

    hub = FakeHub(tmp_path, registry=DictRegistry([HelloGameFactory(), MorrisGameFactory()]))
    before = hub.lobby.create_game("hello", name="before")
    frontend = make_factory(hub)
    frontend.doStart()
    try:
        morris = hub.lobby.create_game("nmmorris", name="board")
        since = hub.lobby.create_game("hello", name="since")
        assert frontend._wire == {wire_game_id(g.id): g.id for g in (before, morris, since)}
        a = Conn(frontend)
        greeted(a)
        login(a, "ann")
        for game in (before, since):
            r, _ = a.one(f'<game gameid="{wire_game_id(game.id)}"><join/></game>')
            assert outcome(r)[0], outcome(r)
        r, _ = a.one(f'<game gameid="{wire_game_id(morris.id)}"><join/></game>')
        assert outcome(r)[:2] == (False, 400)
        r, _ = a.one('<game gameid="12345"><join/></game>')
        assert outcome(r)[:2] == (False, 404)
        hub.lobby.remove(morris.id)
        a.read()
        assert wire_game_id(morris.id) not in frontend._wire
        r, _ = a.one(f'<game gameid="{wire_game_id(morris.id)}"><join/></game>')
        assert outcome(r)[:2] == (False, 404)
    finally:
        frontend.doStop()
