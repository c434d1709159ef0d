"""The XML front end keeps secrets out of transcripts and records only what it must."""

from __future__ import annotations

from decimal import Decimal

import pytest

from hub.connections.transcript import owner_token
from hub.connections.transcript_access import Access, stream
from tests.xml_support import Conn, FakeHub, login, outcome

PASSWORDS = ["it's-Secret-42", 'say "cheese" & <go>', "a'b\"c&d<e>f"]


@pytest.fixture
def frontend(tmp_path):
    """An XML front end (``frontend.hub``: a hub of real parts on a fake clock),
    started: it follows the lobby and the chat."""
    from hub.frontends.xml.server import XMLFrontend

    started = XMLFrontend(FakeHub(tmp_path))
    started.doStart()
    yield started
    started.doStop()


def _attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def _entities(text: str) -> str:
    return "".join(f"&#{ord(ch)};" for ch in text)


def _everything_written(hub, tmp_path) -> bytes:
    hub.transcripts.flush()
    return b"".join(p.read_bytes() for p in tmp_path.rglob("*") if p.is_file())


@pytest.mark.parametrize("password", PASSWORDS)
def test_passwords_in_any_form_never_reach_the_transcript(frontend, tmp_path, password):
    hub = frontend.hub
    a = Conn(frontend)
    a.read()
    for quoted in (f'"{_attr(password)}"', f'"{_entities(password)}"'):
        create = f'<accountmanagement><create accountname="dave" password={quoted} accounttype="0"/></accountmanagement>'
        a.one(create, 0)
        r, _ = a.one(
            f'<authentication><login accountname="dave" password={quoted}/></authentication>', 0
        )
        assert outcome(r)[0], outcome(r)
        a.one("<authentication><logout/></authentication>", int(r.get("sessionid")))
    single = password.replace("&", "&amp;").replace("'", "&apos;").replace("<", "&lt;")
    a.one(f"<authentication><login accountname='dave' password='{single}'/></authentication>", 0)
    # refused documents: a password element with CDATA, a broken attribute
    a.one(
        f"<authentication><login accountname='dave' password='x'><password><![CDATA[{password}]]></password></login></authentication>",
        0,
    )
    a.send(
        f'<message><request><authentication><login accountname="dave" password="{password}'.encode()
    )
    a.read()
    written = _everything_written(hub, tmp_path)
    for form in {password, _attr(password), _entities(password), single}:
        assert form.encode() not in written
    assert b'password="***"' in written and b"[refused frame of" in written


def test_session_ids_are_hidden_in_transcripts(frontend, tmp_path):
    hub = frontend.hub
    a = Conn(frontend)
    a.read()
    login(a, "ann")
    game = hub.lobby.create_game("hello", seats=["open", "open"])
    a.read()  # the lobby update
    wid = frontend.wire_id(game)
    r, _ = a.one(f'<game gameid="{wid}"><join/></game>')
    game_sid = r.get("sessionid")
    # chat lines, in the lobby and at the table, are sent with the session's id too
    r, _ = a.one('<game gameid="0"><chat sender="x"><message>hi lobby</message></chat></game>')
    assert outcome(r)[0], outcome(r)
    r, _ = a.one(f'<game gameid="{wid}"><chat sender="x"><message>hi table</message></chat></game>', int(game_sid))  # fmt: skip
    assert outcome(r)[0], outcome(r)
    a.read()
    written = _everything_written(hub, tmp_path)
    assert b"hi lobby" in written and b"hi table" in written
    assert str(a.sid).encode() not in written and game_sid.encode() not in written
    assert b'sessionid="*"' in written


def test_only_frames_within_the_rate_limit_are_recorded(tmp_path):
    hub = FakeHub(tmp_path, xml_rate=0.001, xml_burst=3)
    from hub.frontends.xml.server import XMLFrontend

    frontend = XMLFrontend(hub)
    a = Conn(frontend)
    a.read()
    for _ in range(20):
        a.send(b"\x00" * 1000)  # not XML at all
        a.request("<lobby><gamelist/></lobby>", 0)
    answers = a.read()
    assert sum(outcome(d)[1] == 429 for d in answers) == 40 - 3
    lobby = hub.transcripts.read("lobby-xml")
    assert lobby.count(" in  ") == 3 and lobby.count(" out ") == 3
    assert "\\x00" not in lobby  # refused frames are kept as their size only


def test_a_seats_private_frames_are_marked_and_its_owner_named(tmp_path):
    from games.poker.server import TexasHoldemFactory
    from hub.frontends.xml.server import XMLFrontend

    hub = FakeHub(tmp_path)
    hub.registry._games["texas-holdem"] = TexasHoldemFactory()
    frontend = XMLFrontend(hub)
    game = hub.lobby.create_game("texas-holdem", seats=["open", "open"])
    wid = frontend.wire_id(game)
    for seat, name in enumerate(("ann", "bob")):
        game.take_seat(name, seat, buyin=Decimal(100))
        c = Conn(frontend)
        c.read()
        login(c, name)
        c.read()
        r, _ = c.one(f'<game gameid="{wid}"><join/></game>')
        assert outcome(r)[2] == f"back at seat {seat}"
    hub.reactor.advance(0)  # the first hand is dealt at the end of the reactor turn
    for _ in range(6):  # post the blinds: the hole cards are dealt
        for seat in (0, 1):
            legal = game.legal_actions(seat)
            if legal:
                game.act(seat, legal[0])
    hub.reactor.advance(0)
    parts = hub.transcripts.paths(game.id)
    text = b"".join(stream(parts, Access(admin=True))).decode()
    holes = [
        line
        for line in text.splitlines()
        if "<hand seat=" in line and "<event" not in line and "<card>-1" not in line
    ]
    assert holes, text[-3000:]
    for line in holes:
        assert "~ann#0 out" in line or "~bob#1 out" in line, line
    watcher = b"".join(stream(parts, Access(public=True))).decode()
    assert "#0" not in watcher and "#1" not in watcher
    assert '<event type="5"' in watcher  # cards shown down are public
    ann = b"".join(stream(parts, Access(owners=frozenset({owner_token("ann")})))).decode()
    assert "~ann#0" in ann and "~bob" not in ann


def test_game_creation_is_rate_limited_per_account_and_address(tmp_path):
    from hub.frontends.xml.server import XMLFrontend

    hub = FakeHub(tmp_path, create_rate=0.001, create_burst=2)
    frontend = XMLFrontend(hub)
    a = Conn(frontend)
    a.read()
    login(a, "ann")
    create = '<game><create gametype="hello" name="g"/></game>'
    codes = [outcome(a.one(create)[0])[1] for _ in range(3)]
    assert codes == [None, None, 429]
    b = Conn(frontend, host="127.0.0.2")  # another address, another account
    b.read()
    login(b, "bob")
    assert outcome(b.one(create)[0])[0]
    assert len(hub.lobby.games()) == 3


def _poker_table(tmp_path, names):
    """An XML front end and a two-seat hold'em table where ``names`` sit and joined
    over XML, after one hand played (whoever is to act folds, or posts)."""
    from games.poker.server import TexasHoldemFactory
    from hub.frontends.xml.server import XMLFrontend

    hub = FakeHub(tmp_path)
    hub.registry._games["texas-holdem"] = TexasHoldemFactory()
    frontend = XMLFrontend(hub)
    game = hub.lobby.create_game("texas-holdem", seats=["open", "open"])
    wid = frontend.wire_id(game)
    conns = {}
    for seat, name in enumerate(names):
        game.take_seat(name, seat, buyin=Decimal(100))
        conns[name] = _joined(frontend, game, name)
    _play_hand(game, hub.reactor)
    return hub, frontend, game, wid, conns


def _play_hand(game, clock):
    """Play the next hand (whoever is to act folds or mucks, or posts), waiting for it to
    start."""
    played = len(game.engine.hands)
    for _ in range(1000):  # bounded
        if len(game.engine.hands) > played:
            break
        seat = next((s for s in (0, 1) if game.legal_actions(s)), None)
        if seat is None:
            clock.advance(1)  # the pause between hands
            continue
        legal = game.legal_actions(seat)
        quiet = [a for a in legal if a.get("name") in ("fold", "muck")]  # nothing shown
        game.act(seat, (quiet or legal)[0])
    clock.advance(0)


def _joined(frontend, game, name, create=True):
    c = Conn(frontend)
    c.read()
    login(c, name, create=create)
    c.read()
    wid = frontend.wire_id(game)
    r, _ = c.one(f'<game gameid="{wid}"><join/></game>')
    c.game_sids[wid] = int(r.get("sessionid"))
    return c


def _hand_history(conn, wid, handid=""):
    conn.read()
    attr = f' handid="{handid}"' if handid else ""
    r, _ = conn.one(
        f'<game gameid="{wid}"><custom><handhistory{attr}/></custom></game>', conn.game_sids[wid]
    )
    return codec_text(r)


def test_a_seats_own_hand_history_is_private_to_it_in_the_transcript(tmp_path):
    """``<custom><handhistory/>`` from a seat answers with the seat's own hole cards
    (``Dealt to``): the recorded answer is that seat's, not public after the game."""
    hub, _, game, wid, conns = _poker_table(tmp_path, ("ann", "bob"))
    told = _hand_history(conns["ann"], wid)
    assert "Dealt to ann" in told, told
    parts = hub.transcripts.paths(game.id)
    everything = b"".join(stream(parts, Access(admin=True))).decode()
    assert "Dealt to ann" in everything
    public = b"".join(stream(parts, Access(public=True))).decode()
    assert "Dealt to" not in public
    bob = b"".join(stream(parts, Access(owners=frozenset({owner_token("bob")})))).decode()
    assert "Dealt to" not in bob
    mine = b"".join(stream(parts, Access(owners=frozenset({owner_token("ann")})))).decode()
    assert "Dealt to ann" in mine


def test_a_seats_next_player_never_reads_the_last_ones_hole_cards(tmp_path):
    """The hand history of a hand played before one sat down shows nobody's cards
    that were not shown, though it was the same seat."""
    hub, frontend, game, wid, conns = _poker_table(tmp_path, ("ann", "bob"))
    hand = game.engine.hands[-1].hand_id
    assert "Dealt to ann" in _hand_history(conns["ann"], wid, hand)
    hub.leave_seat(game, 0)
    hub.reactor.advance(0)
    game.take_seat("carl", 0, buyin=Decimal(100))
    carl = _joined(frontend, game, "carl")
    told = _hand_history(carl, wid, hand)
    assert "ann" in told and "Dealt to" not in told, told


def test_a_connection_whose_seat_was_left_elsewhere_neither_sees_nor_plays_it(tmp_path):
    """Ann follows her seat on two connections and leaves it on one; the other no
    longer gets the seat's private events nor acts for it once Eve sits there."""
    from lxml import etree

    hub, frontend, game, wid, conns = _poker_table(tmp_path, ("ann", "bob"))
    again = _joined(frontend, game, "ann", create=False)  # back at seat 0
    first = conns["ann"]
    first.read()
    first.one(f'<game gameid="{wid}"><part/></game>', first.game_sids[wid])
    hub.reactor.advance(0)
    assert game.seats[0].player is None
    game.take_seat("eve", 0, buyin=Decimal(100))
    eve = _joined(frontend, game, "eve")
    again.read()
    _play_hand(game, hub.reactor)  # the next hand: Eve gets cards at seat 0
    eve_cards = [
        etree.tostring(h)
        for doc in eve.read()
        for h in doc.iterfind(".//texasmessage/hand[@seat='0']")
        if "-1" not in etree.tostring(h).decode()
    ]
    assert eve_cards
    seen = b"".join(etree.tostring(doc) for doc in again.read())
    assert not any(cards in seen for cards in eve_cards)
    r, _ = again.one(
        f'<game gameid="{wid}"><action><parameters><texasmessage><action><index>0</index>'
        "</action></texasmessage></parameters></action></game>",
        again.game_sids[wid],
    )
    assert not outcome(r)[0] and outcome(r)[1] == 403, outcome(r)


def codec_text(document) -> str:
    from lxml import etree

    return etree.tostring(document).decode()
