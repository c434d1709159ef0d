"""Poker over XML (issue 33): ``lobby/gamedetails`` gives each seat's chips at the
table (as the seed's lobby shows who plays where with how much money), and a client
may add its own entropy to the next shuffle with action 14 (``texas.xsd``'s optional
``entropy`` element), the commitment (event 11) before it and its contribution (event
12) and the hand-over's list after it."""

from __future__ import annotations

from decimal import Decimal

from tests.xml_support import Conn, FakeHub, login, outcome


def table(tmp_path, **options):
    from games.poker.server import TexasHoldemFactory
    from hub.frontends.xml.server import XMLFrontend

    hub = FakeHub(tmp_path)
    hub.registry._games["texas-holdem"] = TexasHoldemFactory()
    frontend = XMLFrontend(hub)
    game = hub.lobby.create_game("texas-holdem", seats=["open", "open", "open"], options=options)
    wid = frontend.wire_id(game)
    conns = {}
    for seat, (name, buyin) in enumerate((("ann", 150), ("bob", 275))):
        game.take_seat(name, seat, buyin=Decimal(buyin))
        c = Conn(frontend)
        c.read()
        login(c, name)
        c.read()
        r, _ = c.one(f'<game gameid="{wid}"><join/></game>')
        conns[name] = (c, int(r.get("sessionid") or 0) or c.sid)
    return hub, frontend, game, wid, conns


def details(conn: Conn, wid) -> list[dict[str, str]]:
    conn.request(f'<lobby><gamedetails gameid="{wid}"/></lobby>')
    (r,) = [d for d in conn.read() if d.find("response/lobby/gamedetails") is not None]
    columns = [s.text for s in r.findall(".//gamedetails/columnnames/string")]
    rows = []
    for player in r.findall(".//gamedetails/players/player"):
        rows.append({c: player.findtext(f"info/parameters/{c}") or "" for c in columns})
    return rows


def test_game_details_give_each_seats_chips(tmp_path):
    hub, frontend, game, wid, conns = table(tmp_path)
    ann, _ = conns["ann"]
    rows = details(ann, wid)
    assert [(r["seat"], r["name"], r["chips"]) for r in rows] == [
        ("0", "ann", "150"), ("1", "bob", "275"), ("2", "", "")
    ]  # fmt: skip
    hub.reactor.advance(0)  # the first hand: the blinds are in the pot, still at the table
    for _ in range(4):
        for seat in (0, 1):
            legal = game.legal_actions(seat)
            if legal and legal[0]["name"] == "post":
                game.act(seat, legal[0])
    stacks = {int(r["seat"]): Decimal(r["chips"]) for r in details(ann, wid) if r["chips"]}
    players = game.engine.table.players
    assert stacks == {s: p.stack for s, p in players.items()}
    assert sum(stacks.values()) < Decimal(425)  # the blinds are in the pot


def test_an_xml_client_adds_entropy_between_the_commitment_and_the_deal(tmp_path):
    hub, frontend, game, wid, conns = table(tmp_path, entropy_time=5, showdown_pause=0)
    (ann, ann_sid), (bob, bob_sid) = conns["ann"], conns["bob"]
    hub.reactor.advance(0)
    shuffles = [e for d in ann.read() for e in d.iterfind(".//texasmessage/event[@type='11']")]
    assert shuffles and len(shuffles[-1].findtext("commitment")) == 64
    assert game.engine.table.hand is None  # the deal waits for the contributions

    def contribute(conn, sid, body):
        r, _ = conn.one(
            f'<game gameid="{wid}"><action><parameters><texasmessage><action>{body}'
            "</action></texasmessage></parameters></action></game>",
            sid,
        )
        return outcome(r)

    assert contribute(ann, ann_sid, "<index>14</index><entropy>zz</entropy>")[1] == 400
    assert contribute(ann, ann_sid, "<index>14</index>")[1] == 400
    assert game.engine._next.contributions == {}
    assert contribute(ann, ann_sid, f"<index>14</index><entropy>{'a1' * 32}</entropy>")[0]
    assert contribute(ann, ann_sid, f"<index>14</index><entropy>{'a2' * 32}</entropy>")[1] == 422
    taken = [e for d in bob.read() for e in d.iterfind(".//texasmessage/event[@type='12']")]
    assert [(e.get("seat"), e.findtext("entropy")) for e in taken] == [("0", "a1" * 32)]
    assert contribute(bob, bob_sid, f"<index>14</index><entropy>{'b2' * 8}</entropy>")[0]
    assert game.engine.table.hand is not None  # everyone sitting in gave one: dealt
    assert game.engine._dealt.contributions == {
        0: bytes.fromhex("a1" * 32),
        1: bytes.fromhex("b2" * 8),
    }
