"""Any door works over XML too (docs/cluster.md, "XML: relayed game sessions"): three
``twistd gamehub`` processes on one PostgreSQL database; an XML client of hub B plays
a poker table hub A runs, its game session relayed by B, while a watcher on C sees
the public events and no hole card.

Waits poll with a deadline (or read a socket with a timeout); nothing is timed.
"""

from __future__ import annotations

import re
import signal
import time

from lxml import etree

from hub.frontends.xml.payload import wire_game_id
from tests.integration.test_cluster import cluster_dsn, create, health, three, wait_for
from tests.integration.test_privacy import _leaks, _own_holes, _play, join, sit

from .xmlsocket import XMLClient, ok, outcome

__all__ = ["cluster_dsn", "three"]  # the fixtures, used by name

TABLE = {"stakes": "10/20", "buyin": 400, "showdown_pause": 0, "auto_post": True}


def _action(gameid: int, index: int) -> str:
    return (
        f'<game gameid="{gameid}"><action><parameters><texasmessage>'
        f"<action><index>{index}</index></action></texasmessage></parameters></action></game>"
    )


def _error(doc) -> tuple[str | None, str | None]:
    node = doc[0][0]
    if node.tag != "general" and len(node):
        node = node[0]
    return node.get("errorcode"), node.findtext("description")


def test_an_xml_client_of_b_plays_a_table_of_a_and_a_watcher_on_c_sees_no_hole_card(
    three,
):  # long: one cluster, the whole story
    a, b, c = three
    a_id = health(a)["cluster"]["hub"]
    game = create(a, {"type": "texas-holdem", "seats": ["open", "open"], "options": TABLE})
    assert game["hub"] == a_id
    gameid = wire_game_id(game["id"])
    ann, bob, carl = XMLClient(b.ports["xml"]), XMLClient(a.ports["xml"]), XMLClient(c.ports["xml"])
    for client, name in ((ann, "ann"), (bob, "bob"), (carl, "carl")):
        assert ok(client.login(name, f"pw-{name}-123"))
    for hub in (b, c):  # B and C list it before their clients join
        wait_for(lambda h=hub: game["id"] in {g["id"] for g in h.get_json("/api/games")}, "listed")
    for seat, client in enumerate((ann, bob, carl)):
        client.game_sid = join(client, gameid)
        if seat < 2:
            sit(client, gameid, seat)
    assert ann.game_sid not in (bob.game_sid, carl.game_sid)
    _play({0: ann, 1: bob}, gameid, hands=3)

    ann_holes, bob_holes = _own_holes(ann, 0), _own_holes(bob, 1)
    assert len(ann_holes) >= 3 and len(bob_holes) >= 3  # ann saw her own cards through B
    assert _leaks(b"".join(ann.frames).decode(), 1, bob_holes - ann_holes) == []
    assert _leaks(b"".join(bob.frames).decode(), 0, ann_holes - bob_holes) == []
    while True:  # the watcher on C saw the hands (public events) and no hole card
        try:
            carl.sock.settimeout(0.5)
            carl.pending.append(carl.next())
        except (TimeoutError, OSError):
            break
    carl.sock.settimeout(15)
    watched = b"".join(carl.frames).decode()
    assert "texasmessage" in watched and "<event" in watched
    assert _leaks(watched, 0, ann_holes) == [] and _leaks(watched, 1, bob_holes) == []
    # every frame the client of B got names its own session ids, never A's
    ids = {etree.fromstring(f).get("sessionid") for f in ann.frames}
    assert ids <= {None, str(ann.sid), str(ann.game_sid)} and str(ann.game_sid) in ids

    # hostile input on the relayed session: the answers a single hub gives
    bad = b'<message sessionid="%d"><request><game gameid="1"><act' % ann.game_sid
    ann.send(bad)
    bob.send(b'<message sessionid="%d"><request><game gameid="1"><act' % bob.game_sid)
    mine, theirs = _error(_response(ann)), _error(_response(bob))
    assert mine[0] == theirs[0] == "400"
    assert re.sub(r"column \d+", "", mine[1] or "") == re.sub(r"column \d+", "", theirs[1] or "")
    wrong_game = ann.request(_action(gameid + 1, 1), ann.game_sid)
    assert _error(wrong_game) == ("403", "that session belongs to another game")
    for client in (ann, bob):  # one of them is not to act now (or neither is)
        answer = client.request(_action(gameid, 7), client.game_sid)
        assert not ok(answer)
        assert _error(answer)[0] is not None and _error(answer)[0].startswith("4")
    history = ann.request(f'<game gameid="{gameid}"><custom><handhistory/></custom></game>',
                          ann.game_sid)  # fmt: skip
    assert history.find("response/game/custom") is not None, outcome(history)
    assert history.get("sessionid") == str(ann.game_sid)
    assert _leaks(etree.tostring(history).decode(), 1, bob_holes - ann_holes) == []
    dan = XMLClient(b.ports["xml"])
    assert ok(dan.login("dan", "pw-dan-123"))
    dan.game_sid = join(dan, gameid)
    watchers = f"/api/games/{game['id']}"
    wait_for(lambda: "dan" in a.get_json(watchers)["watchers"], "dan watches on A")
    dan.send_raw((1 << 30).to_bytes(4, "big"))  # oversized: refused by the door, closed
    assert _error(_response(dan))[0] == "413"
    # the door closed its relay too: A's session of dan ended
    wait_for(lambda: "dan" not in a.get_json(watchers)["watchers"], "dan's relay is closed")

    # A killed mid-game: the survivor that recovers A resumes the table from its
    # journal, and the doors' relayed sessions follow it there (issue 31): the same
    # session ids, nothing ended, the owner's answers again; the doors go on
    for client in (ann, carl):  # what came before the kill is read first
        _quiet(client)
    a.stop(signal.SIGKILL)
    a_id = game.get("hub")
    moved = wait_for(  # the hub that recovered A resumed its game from the journal
        lambda: (
            (g := {g["id"]: g for g in b.get_json("/api/games")}.get(game["id"], {})).get("hub")
            not in (None, a_id)
            and g
        ),
        "B lists A's game on the hub that resumed it",
    )
    assert moved["state"] != "aborted", moved
    for client in (ann, carl):
        state = _state(client)  # the full state from the new hub, under the client's id
        assert int(state.get("sessionid")) == client.game_sid
    history = ann.request(f'<game gameid="{gameid}"><custom><handhistory/></custom></game>',
                          ann.game_sid)  # fmt: skip
    assert history.find("response/game/custom") is not None, outcome(history)
    assert history.get("sessionid") == str(ann.game_sid)
    for client in (ann, carl):
        for doc in client.pending:
            assert doc.find("stateupdate/game/updatedgamestate[@success='false']") is None
    assert _leaks(b"".join(ann.frames).decode(), 1, bob_holes - ann_holes) == []
    watched = b"".join(carl.frames).decode()
    assert _leaks(watched, 0, ann_holes) == [] and _leaks(watched, 1, bob_holes) == []
    listing = ann.request("<lobby><gamelist/></lobby>")  # B's lobby goes on
    assert listing.find("response/lobby/gamelist") is not None, etree.tostring(listing)
    for hub in (b, c):
        assert hub.errors() == []


def _quiet(client: XMLClient) -> None:
    """Read what the client was sent until nothing comes for half a second."""
    while True:
        try:
            client.sock.settimeout(0.5)
            client.pending.append(client.next())
        except (TimeoutError, OSError):
            break
    client.sock.settimeout(15)


def _state(client: XMLClient, seconds: float = 60.0):
    """The next full state (``gameinfo``) of the client's game session (bounded wait;
    the documents read meanwhile are kept in ``pending``)."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        doc = client.next()
        client.pending.append(doc)
        if doc.get("sessionid") == str(client.game_sid) and doc.find(".//gameinfo") is not None:
            return doc
    raise AssertionError("no full state came")


def _response(client: XMLClient):
    """The next response (updates kept in ``pending``)."""
    while True:
        doc = client.next()
        if doc[0].tag == "response":
            return doc
        client.pending.append(doc)
