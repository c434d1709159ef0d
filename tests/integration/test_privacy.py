"""Nothing private leaves the hub, tried from outside on a real ``twistd -n gamehub``:
hole cards on every route, passwords on disk, lockouts, bounded transcripts."""

from __future__ import annotations

import http.client
import json
import re
import select
import socket
import time
from pathlib import Path

import pytest
from lxml import etree

from tests.hubprocess import LOOPBACK, HubProcess

from .xmlsocket import XMLClient, ok, outcome

FOLD, CHECK, CALL, BET, RAISE, SHOW, MUCK = 0, 1, 2, 3, 4, 8, 9


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("privacy")
    running = HubProcess(tmp, xml=LOOPBACK, web=LOOPBACK)
    running.extra = ["--set", "xml_rate=500", "--set", "xml_burst=500"]
    with running:
        yield running
    assert running.errors() == [], running.log()[-3000:]


class Web:
    """A browser-like HTTP client: one cookie session, its CSRF token."""

    def __init__(self, hub: HubProcess, source: str = "127.0.0.1") -> None:
        self.hub, self.source = hub, source
        self.cookie: str | None = None
        self.csrf: str | None = None

    def call(self, method: str, path: str, body: object = None) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection(
            "127.0.0.1", self.hub.ports["web"], timeout=15, source_address=(self.source, 0)
        )
        headers = {"Content-Type": "application/json"}
        if self.cookie:
            headers["Cookie"] = self.cookie
        if self.csrf and method != "GET":
            headers["X-CSRF-Token"] = self.csrf
        conn.request(method, path, None if body is None else json.dumps(body), headers)
        response = conn.getresponse()
        raw = response.read()
        conn.close()
        cookie = response.getheader("Set-Cookie")
        if cookie:
            self.cookie = cookie.split(";", 1)[0]
        if raw[:1] == b"{":
            self.csrf = json.loads(raw).get("csrf", self.csrf)
        return response.status, raw

    def start(self) -> None:
        assert self.call("GET", "/api/session")[0] == 200

    def opened(self, path: str) -> bytes:
        """What an event stream sends as it opens (up to its snapshot)."""
        conn = http.client.HTTPConnection("127.0.0.1", self.hub.ports["web"], timeout=15)
        conn.request("GET", path, headers={"Cookie": self.cookie} if self.cookie else {})
        response = conn.getresponse()
        opened = b""
        while b"event: snapshot" not in opened or not opened.endswith(b"\n\n"):
            opened += response.read1(65536)
        conn.close()
        return opened


# -- hole cards ----------------------------------------------------------------------


def _texas(doc) -> list:
    return list(doc.iterfind(".//parameters/texasmessage"))


def _own_holes(client: XMLClient, seat: int) -> set[tuple[int, ...]]:
    holes = set()
    for frame in client.frames:
        for msg in _texas(etree.fromstring(frame)):
            if msg[0].tag == "hand" and int(msg[0].get("seat")) == seat:
                cards = tuple(int(c.text) for c in msg[0].iterfind("cards/card"))
                if cards and -1 not in cards:
                    holes.add(cards)
    return holes


#: keys under which a table's JSON lists seats, not cards: hole cards such as ``[0, 1]``
#: read the same as the seats ``[0, 1]`` a pot is for, so a bare list there is no leak
SEAT_LISTS = frozenset({"seats", "playerstoact", "winners"})
#: no table has more seats (cards from this one on are never a seat's number)
MAX_SEATS = 10


def _patterns(seat: int, cards: tuple[int, ...]) -> list[str]:
    """Ways the hole cards ``cards`` of ``seat`` could be written on any route but as
    a bare JSON list (:func:`_json_lists`)."""
    xml = "".join(f"<cards><card>{c}</card></cards>" for c in cards)
    return [
        f'<hand seat="{seat}">{xml}',
        f'<holecards seat="{seat}">{xml}',
        f'<hand seat=\\"{seat}\\">{xml}',  # as a transcript escapes nothing here, but JSON would
    ]


def _json_lists(text: str, cards: tuple[int, ...]) -> list[str]:
    """The hole cards ``cards`` written as a JSON list anywhere in ``text`` but as the
    value of a key that lists seats (:data:`SEAT_LISTS`) when they could be seats."""
    found = []
    seats = max(cards) < MAX_SEATS
    for spaced in (json.dumps(list(cards), separators=(",", ":")), json.dumps(list(cards))):
        for at in re.finditer(re.escape(spaced), text):
            key = re.search(r'"(\w+)":\s*$', text[max(0, at.start() - 40) : at.start()])
            if not (seats and key is not None and key.group(1) in SEAT_LISTS):
                found.append(spaced)
    return found


def _leaks(text: str, seat: int, holes: set[tuple[int, ...]]) -> list[str]:
    return [
        leak
        for cards in holes
        for leak in [p for p in _patterns(seat, cards) if p in text] + _json_lists(text, cards)
    ]


def _choose(actions: list[int], prefer: list[int]) -> int:
    for index in prefer:
        if index in actions:
            return index
    return actions[0]


def join(client: XMLClient, gameid: int) -> int:
    """``game/join``: the game session id."""
    joined = client.request(f'<game gameid="{gameid}"><join/></game>')
    assert ok(joined), outcome(joined)
    return int(joined.get("sessionid"))


def sit(client: XMLClient, gameid: int, seat: int, buyin: int = 400) -> None:
    """Take ``seat`` of the table with ``buyin`` chips (``client.game_sid``)."""
    answer = client.request(
        f'<game gameid="{gameid}"><action><parameters><texasmessage><action>'
        f"<index>11</index><amount>{buyin}</amount><seat>{seat}</seat></action>"
        "</texasmessage></parameters></action></game>",
        client.game_sid,
    )
    assert ok(answer), outcome(answer)


def _play(players: dict[int, XMLClient], gameid: int, hands: int) -> None:
    """Play until ``hands`` hands are over: seat 0 always raises, seat 1 always folds
    (so no hole card is ever shown down)."""
    prefer = {0: [RAISE, BET, CALL, CHECK, MUCK], 1: [FOLD, CHECK, MUCK]}
    done = 0
    deadline = time.monotonic() + 120
    while done < hands:
        assert time.monotonic() < deadline, "the hands did not finish"
        for seat, client in players.items():
            while client.pending:
                doc = client.pending.pop(0)
                for msg in _texas(doc):
                    event = msg[0]
                    if event.tag != "event":
                        continue
                    if event.get("type") == "7" and seat == 0 and event.findtext("handid"):
                        done += 1
                    if event.get("type") == "10" and int(event.get("seat")) == seat:
                        actions = [int(a.findtext("index")) for a in event.iterfind("action")]
                        if actions:
                            index = _choose(actions, prefer[seat])
                            body = (
                                f'<game gameid="{gameid}"><action><parameters><texasmessage>'
                                f"<action><index>{index}</index></action></texasmessage>"
                                "</parameters></action></game>"
                            )
                            client.request(body, client.game_sid)
        ready, _, _ = select.select([c.sock for c in players.values()], [], [], 0.2)
        for client in players.values():
            if client.sock in ready or client.buffer:
                client.pending.append(client.next())


def test_hole_cards_stay_private_on_every_route(hub):
    xml = hub.ports["xml"]
    ann, bob, carl = XMLClient(xml), XMLClient(xml), XMLClient(xml)
    for client, name in ((ann, "ann"), (bob, "bob"), (carl, "carl")):
        assert ok(client.login(name, f"pw-{name}-123"))
    options = {"stakes": "10/20", "buyin": 400, "showdown_pause": 0, "auto_post": "true"}
    options |= {"empty_timeout": 1}
    option_xml = "".join(f'<option name="{k}">{v}</option>' for k, v in options.items())
    answer = ann.request(
        '<game><create gametype="texas-holdem" name="private table">'
        f"<parameters><seats>2</seats>{option_xml}</parameters></create></game>"
    )
    assert ok(answer), json.dumps(outcome(answer))
    gameid = int(answer.find(".//create").get("gameid"))
    game_id = next(g["id"] for g in hub.get_json("/api/games") if g["type"] == "texas-holdem")
    for seat, client in enumerate((ann, bob, carl)):
        client.game_sid = join(client, gameid)
        if seat < 2:
            sit(client, gameid, seat)
    # a web spectator follows the table too
    spectator = socket.create_connection(("127.0.0.1", hub.ports["web"]), timeout=15)
    spectator.sendall(
        f"GET /api/games/{game_id}/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode()
    )
    _play({0: ann, 1: bob}, gameid, hands=3)

    ann_holes, bob_holes = _own_holes(ann, 0), _own_holes(bob, 1)
    assert len(ann_holes) >= 3 and len(bob_holes) >= 3  # each saw their own cards
    everyone = {0: ann_holes, 1: bob_holes}

    def private(text: str, *, but: int | None = None) -> list[str]:
        """The other seats' hole cards in ``text`` (``but``'s may be there: the hands
        ``but`` was dealt the very cards another seat was dealt in another hand read
        the same, and are left out: the structural checks below see those)."""
        own = everyone[but] if but is not None else set()
        return [leak for s, h in everyone.items() if s != but for leak in _leaks(text, s, h - own)]

    # the XML routes: what the other player and the watcher received, hand history, history
    assert private(b"".join(ann.frames).decode(), but=0) == []
    assert private(b"".join(bob.frames).decode(), but=1) == []
    custom = carl.request(
        f'<game gameid="{gameid}"><custom><handhistory/></custom></game>', carl.game_sid
    )
    carl.pending.clear()
    history = carl.request(f'<lobby><history gameid="{gameid}"/></lobby>')
    # a seat's own hand history shows its own hole cards, to it only (also later)
    own = ann.request(
        f'<game gameid="{gameid}"><custom><handhistory/></custom></game>', ann.game_sid
    )
    ann.pending.clear()
    assert "Dealt to ann" in etree.tostring(own).decode()
    for text in (b"".join(carl.frames).decode(), json.dumps(carl.greeting.tag)):
        assert private(text) == []
    told = etree.tostring(custom).decode() + etree.tostring(history).decode()
    assert "Dealt to" not in told and not re.search(r"[0-9a-f]{64}", told.split("commitment")[0])
    assert "Shuffle seed: withheld" in told
    # the seed (the whole deck) is never broadcast for a hand whose cards were not shown
    for frame in carl.frames:
        for seed in etree.fromstring(frame).iterfind(".//seed"):
            assert not (seed.text or "").strip()

    # the web routes, anonymous
    anonymous = Web(hub)
    texts = []
    for path in (
        f"/api/games/{game_id}",
        "/api/games",
        f"/api/hands?game={game_id}",
        "/api/history",
        "/api/stats",
        f"/api/games/{game_id}/replay",
        "/api/health",
    ):
        status, raw = anonymous.call("GET", path)
        assert status == 200, path
        texts.append(raw.decode())
    hands = json.loads(texts[2])
    assert hands and all(h["seed"] is None and h["seed_withheld"] for h in hands)
    assert all(not h.get("hole") for h in hands)  # nobody's hole cards to nobody
    replay = json.loads(texts[5])
    handovers = [e["data"] for e in replay["events"] if e["kind"] == "handover"]
    assert len(handovers) >= 3 and all(h["seed"] is None for h in handovers)
    assert "hole" not in {e["kind"] for e in replay["events"]}
    # a page opened late gets the game's events so far: the public ones only
    opened = anonymous.opened(f"/api/games/{game_id}/events")
    snapshot = json.loads(opened.split(b"event: snapshot\ndata: ", 1)[1].split(b"\n", 1)[0])
    kinds = {e["kind"] for e in snapshot["events"]}
    assert {"hand", "handover"} <= kinds and "hole" not in kinds
    texts.append(opened.decode())
    status, raw = anonymous.call("GET", f"/api/games/{game_id}/transcript")
    assert status == 401  # no credentials: a session or the token would read
    spectator.settimeout(2)
    seen = b""
    try:
        while len(seen) < 1_000_000:
            chunk = spectator.recv(65536)
            if not chunk:
                break
            seen += chunk
    except TimeoutError:
        pass
    assert b"event: snapshot" in seen
    texts.append(seen.decode())
    for text in texts:
        assert private(text) == [], text[:500]

    # a seated player reads their own lines of the transcript, and nobody else's
    web_ann = Web(hub)
    web_ann.start()
    assert web_ann.call("POST", "/api/session", {"name": "ann", "password": "pw-ann-123"})[0] == 200
    status, raw = web_ann.call("GET", f"/api/games/{game_id}/transcript?tail=100000")
    assert status == 200
    mine = raw.decode()
    assert "~ann#0 out" in mine and _leaks(mine, 0, ann_holes)  # her own hole cards
    assert private(mine, but=0) == [] and "~bob" not in mine and "~carl" not in mine
    # the other seated player, on the web too, sees nothing of ann's
    web_bob = Web(hub)
    web_bob.start()
    assert web_bob.call("POST", "/api/session", {"name": "bob", "password": "pw-bob-123"})[0] == 200
    seen = [web_bob.opened(f"/api/games/{game_id}/events").decode()]
    for path in (f"/api/games/{game_id}", f"/api/games/{game_id}/transcript", "/api/games",
                 f"/api/hands?game={game_id}", f"/api/games/{game_id}/replay"):  # fmt: skip
        status, raw = web_bob.call("GET", path)
        assert status == 200, path
        seen.append(raw.decode())
    assert "~bob#1 out" in seen[2]  # his own lines, his cards among them
    bobs = json.loads(seen[4])  # the hands: his own hole cards only, under his seat
    assert bobs and all(set(h.get("hole") or {}) <= {"1"} for h in bobs)
    assert any(h.get("hole") for h in bobs)
    for text in seen:
        assert private(text, but=1) == [], text[:500]

    # after the game: everyone reads the transcript, without anybody's private lines
    for client in (ann, bob):
        client.request(f'<game gameid="{gameid}"><part/></game>', client.game_sid)
    deadline = time.monotonic() + 30
    while hub.get_json(f"/api/games/{game_id}")["state"] != "over":
        assert time.monotonic() < deadline, "the empty table did not close"
        time.sleep(0.2)
    status, raw = anonymous.call("GET", f"/api/games/{game_id}/transcript")
    assert status == 200
    after = raw.decode()
    assert "texasmessage" in after and "#0 out" not in after and "#1 out" not in after
    assert "Dealt to" not in after
    assert private(after) == []
    status, raw = anonymous.call("GET", f"/api/games/{game_id}/replay")
    assert status == 200 and private(raw.decode()) == []
    status, raw = web_ann.call("GET", f"/api/games/{game_id}/transcript")
    assert _leaks(raw.decode(), 0, ann_holes) and private(raw.decode(), but=0) == []
    status, raw, _ = hub.request("GET", f"/api/games/{game_id}/transcript", admin=True)
    assert _leaks(raw.decode(), 1, bob_holes)  # the admin reads everything
    last = after.splitlines()[-3:]  # ?tail=N: the last N lines the reader may read
    status, raw = anonymous.call("GET", f"/api/games/{game_id}/transcript?tail=3")
    assert status == 200 and raw.decode().splitlines() == last
    for bad in ("0", "-1", "x", "100001"):
        assert anonymous.call("GET", f"/api/games/{game_id}/transcript?tail={bad}")[0] == 400
    status, raw = anonymous.call("GET", "/api/games/lobby-xml/transcript")
    assert status == 401
    for client in (ann, bob, carl):
        client.close()
    spectator.close()


# -- passwords -----------------------------------------------------------------------

PASSWORDS = ["it's-Secret-42", 'say "cheese" & <go> now', "a'b\"c&d<e>f>g"]


def _xml_attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


def _forms(password: str) -> set[str]:
    return {
        password,
        _xml_attr(password),
        password.replace("&", "&amp;").replace("'", "&apos;").replace("<", "&lt;"),
        "".join(f"&#{ord(c)};" for c in password),
        json.dumps(password)[1:-1],
    }


def test_passwords_never_reach_the_data_folder_or_the_logs(hub):
    _every_password_route(hub)
    _no_password_written(hub)


@pytest.fixture(scope="module")
def json_hub(tmp_path_factory):
    """A hub whose log is JSON lines (``--log-format json``)."""
    tmp = tmp_path_factory.mktemp("privacy-json")
    running = HubProcess(tmp, xml=LOOPBACK, web=LOOPBACK)
    running.extra = ["--log-format", "json", "--set", "xml_rate=500", "--set", "xml_burst=500"]
    with running:
        yield running
    assert running.errors() == [], running.log()[-3000:]


def test_passwords_and_tokens_never_reach_the_json_log(json_hub):
    _every_password_route(json_hub)
    status, _, _ = json_hub.request("GET", "/metrics", admin=True)  # the API token, sent
    assert status == 200
    _no_password_written(json_hub)
    lines = [json.loads(line) for line in json_hub.log().splitlines() if line.strip()]
    assert lines and all(isinstance(event, dict) for event in lines)
    assert HubProcess.TOKEN not in json_hub.log()


def _every_password_route(hub: HubProcess) -> None:
    """Use each password on every route that takes one: XML create, login (as entities
    too), password change; web account, login, password change, a failed login."""
    for n, password in enumerate(PASSWORDS):
        name = f"secretive{n}"
        client = XMLClient(hub.ports["xml"])
        assert ok(client.login(name, _xml_attr(password)))
        entities = "".join(f"&#{ord(c)};" for c in password)
        client.request(
            f'<authentication><login accountname="{name}" password="{entities}"/></authentication>',
            0,
        )
        changed = client.request(
            f'<accountmanagement><changepassword accountname="{name}" '
            f'oldpassword="{_xml_attr(password)}" newpassword="{_xml_attr(password)}x"/>'
            "</accountmanagement>"
        )
        assert ok(changed), outcome(changed)
        client.request(
            f'<authentication><login accountname="{name}" password="{entities}"/></authentication>',
            0,
        )
        client.close()
        web = Web(hub)
        web.start()
        status, _ = web.call("POST", "/api/accounts", {"name": f"web{name}", "password": password})
        assert status == 201
        web.call("DELETE", "/api/session")
        status, _ = web.call("POST", "/api/session", {"name": f"web{name}", "password": password})
        assert status == 200
        status, _ = web.call(
            "POST", "/api/account/password", {"old": password, "new": password + "y"}
        )
        assert status == 200
        web.call("POST", "/api/session", {"name": f"web{name}", "password": password + "wrong"})


def _no_password_written(hub: HubProcess) -> None:
    """No form of any password in the data folder (transcripts, database) or the log."""
    time.sleep(1.5)  # transcripts are written on a one-second timer
    written = b""
    for path in list(Path(hub.data).rglob("*")) + [Path(hub.log_path)]:
        if path.is_file():
            written += path.read_bytes()
    for password in PASSWORDS:
        for form in _forms(password):
            assert form.encode() not in written, form


# -- lockouts ------------------------------------------------------------------------


def test_failures_from_one_address_never_lock_out_another(hub):
    """Issue 13's lockout: wrong passwords from 127.0.0.1 until refused; the right
    password from 127.0.0.2 logs in, over XML and over the web."""
    XMLClient(hub.ports["xml"]).login("target", "right-pw-1")
    attacker = XMLClient(hub.ports["xml"])
    codes = []
    for _ in range(12):
        answer = attacker.login("target", "wrong-pw", create=False)
        codes.append(outcome(answer)[1])
        if codes[-1] == 429:
            break
    assert codes[0] == 401 and codes[-1] == 429
    assert outcome(attacker.login("target", "right-pw-1", create=False))[1] == 429
    friend = XMLClient(hub.ports["xml"], source="127.0.0.2")
    assert ok(friend.login("target", "right-pw-1", create=False))
    web_attacker = Web(hub)
    web_attacker.start()
    statuses = [
        web_attacker.call("POST", "/api/session", {"name": "target", "password": "nope"})[0]
        for _ in range(5)
    ]
    assert statuses[-1] == 429
    web_friend = Web(hub, source="127.0.0.2")
    web_friend.start()
    status, _ = web_friend.call(
        "POST", "/api/session", {"name": "target", "password": "right-pw-1"}
    )
    assert status == 200
    for client in (attacker, friend):
        client.close()


# -- bounded transcripts -------------------------------------------------------------


def test_a_flood_of_invalid_frames_is_recorded_within_bounds(tmp_path):
    """One connection sends 64 KiB frames that are not XML as fast as it can (issue 13:
    19 MB of transcript in 10 s): only frames within its rate limit are recorded, as
    their size, never their bytes, and no more than the connection's recording cap."""
    cap = 20_000
    flood_hub = HubProcess(tmp_path, xml=LOOPBACK)
    flood_hub.extra = ["--set", f"transcript_max_per_connection={cap}"]
    with flood_hub:
        lobby = Path(flood_hub.data) / "transcripts" / "lobby-xml.log"
        flooder = XMLClient(flood_hub.ports["xml"])
        frame = b"\x01" * 65536
        sent = 0
        deadline = time.monotonic() + 3
        try:
            while time.monotonic() < deadline and sent < 400:
                flooder.send(frame)
                sent += 1
        except OSError:
            pass
        flooder.close()
        time.sleep(1.5)  # written on the transcript timer
        text = lobby.read_text()
    assert sent >= 50
    assert len(text) < cap + 2_000
    assert "reached the recording cap of 20000 bytes" in text
    assert "were not recorded" in text  # the summary when the connection ended
    assert "[refused frame of 65536 bytes: error 400]" in text and "\\x01" not in text


def test_hole_cards_read_as_seats_are_found_only_where_they_are_cards():
    """The finder of leaks itself: hole cards ``[0, 1]`` are the seats a pot is for in
    a table's JSON (no leak), but a leak under any other key, or as XML."""
    table = (
        '{"pots": [{"amount": "20", "seats": [0, 1]}], "playerstoact": [0,1], "winners": [0, 1]}'
    )
    assert _leaks(table, 0, {(0, 1)}) == []
    assert _leaks('{"players": [{"holecards": [0, 1]}]}', 0, {(0, 1)}) == ["[0, 1]"]
    assert _leaks('{"hole":[0,1]}', 0, {(0, 1)}) == ["[0,1]"]
    assert _leaks("[0, 1]", 0, {(0, 1)}) == ["[0, 1]"]
    xml = '<hand seat="0"><cards><card>0</card></cards><cards><card>1</card></cards>'
    assert _leaks(xml, 0, {(0, 1)}) == [xml]
    assert _leaks('{"seats": [12, 40]}', 1, {(12, 40)}) == ["[12, 40]"]  # never seats
