"""Acceptance of the XML front end: a real hub (HubService with the plugin registry and
the SQLite store) on loopback sockets, driven by ``hub.client``.

Every document the server sends is validated by the clients against the schema fetched
from ``GET /schema/message.xsd`` (the front end's ``http_resources``, as the web front
end mounts them).
"""

from __future__ import annotations

import io
from decimal import Decimal
from importlib import resources

import pytest
import pytest_twisted
from lxml import etree
from twisted.internet import defer, reactor
from twisted.logger import globalLogPublisher
from twisted.web.resource import Resource
from twisted.web.server import Site

from hub.client import HubClient, RequestFailed
from hub.frontends.xml import codec
from hub.plugins.registry import Registry
from hub.service import HubService
from hub.store import open_store
from hub.store.accounts import ScryptParams

LIMIT = 10.0  # seconds any single wait may take before the test fails


def bounded(d: defer.Deferred, seconds: float = LIMIT) -> defer.Deferred:
    return d.addTimeout(seconds, reactor)


class ErrorLog:
    """Collects logged failures and errors while a test runs."""

    def __init__(self) -> None:
        self.events: list[dict] = []

    def __call__(self, event: dict) -> None:
        level = event.get("log_level")
        if "log_failure" in event or (level is not None and level.name in ("error", "critical")):
            self.events.append(event)

    def texts(self) -> list[str]:
        from twisted.logger import formatEvent

        return [formatEvent(e) for e in self.events]


@pytest.fixture
def errors():
    log = ErrorLog()
    globalLogPublisher.addObserver(log)
    yield log
    globalLogPublisher.removeObserver(log)


@pytest.fixture
def hub(tmp_path):
    store = open_store(
        f"sqlite:{tmp_path}/hub.sqlite", reactor, scrypt=ScryptParams(n=16, r=8, p=1)
    )
    service = HubService(
        reactor,
        tmp_path / "data",
        {"xml": "tcp:0:interface=127.0.0.1"},
        Registry(tmp_path / "data", reactor),
        store=store,
        options={"xml_frame_deadline": 0.5, "xml_max_per_address": 64},
    )
    service.startService()
    pytest_twisted.blockon(bounded(service._starting))
    site = Site(_SchemaRoot(service))
    port = reactor.listenTCP(0, site, interface="127.0.0.1")
    service.schema_port = port.getHost().port
    yield service
    pytest_twisted.blockon(bounded(defer.maybeDeferred(port.stopListening)))
    pytest_twisted.blockon(bounded(service.stopService()))


class _SchemaRoot(Resource):
    """What the web front end mounts of the hub's HTTP resources (``/schema``)."""

    def __init__(self, service: HubService) -> None:
        super().__init__()
        for path, resource in service.http_resources():
            self.putChild(path, resource)


async def published_schema(hub) -> etree.XMLSchema:
    import treq

    url = f"http://127.0.0.1:{hub.schema_port}/schema/message.xsd"
    response = await bounded(treq.get(url))
    assert response.code == 200
    assert response.headers.getRawHeaders(b"content-type")[0].startswith(b"application/xml")
    body = await bounded(treq.content(response))
    assert body == codec.schema_bytes("message.xsd")
    texas = await bounded(treq.get(f"http://127.0.0.1:{hub.schema_port}/schema/texas.xsd"))
    poker = resources.files("games.poker").joinpath("texas.xsd").read_bytes()
    assert (await bounded(treq.content(texas))) == poker  # the poker plugin's own schema
    missing = await bounded(treq.get(f"http://127.0.0.1:{hub.schema_port}/schema/../x"))
    await treq.content(missing)
    assert missing.code == 404
    return etree.XMLSchema(etree.fromstring(body))


async def connect(hub) -> HubClient:
    return await bounded(HubClient.connect(reactor, "127.0.0.1", hub.bound_ports["xml"]))


def all_valid(schema: etree.XMLSchema, *clients: HubClient) -> None:
    for client in clients:
        assert client.invalid == []
        for frame in client.received:
            root = etree.fromstring(frame)
            assert schema.validate(root), (frame, schema.error_log.last_error)


async def refused(d: defer.Deferred) -> RequestFailed:
    try:
        await bounded(d)
    except RequestFailed as e:
        return e
    raise AssertionError("the request was not refused")


async def play_setup(hub):
    ann, bob = await connect(hub), await connect(hub)
    assert ann.info.find("frontends/frontend").get("name") == "xml"
    await bounded(ann.create_account("ann", "secret1"))
    await bounded(bob.create_account("bob", "secret2"))
    me = await bounded(ann.login("ann", "secret1"))
    assert me == {"name": "ann", "type": 0, "balance": Decimal("1000.00")}
    await bounded(bob.login("bob", "secret2"))
    types = await bounded(ann.available_games())
    hello = [t for t in types if t["type"] == "hello"]
    assert hello and hello[0]["clientgame"] == "games.hello.client"
    gameid = await bounded(ann.create_game("hello", "acceptance", seats=2))
    listed = await bounded(bob.game_list("hello"))
    assert [g["gameid"] for g in listed] == [gameid]
    await bounded(ann.join(gameid))
    await bounded(bob.join(gameid))
    return ann, bob, gameid


@pytest_twisted.ensureDeferred
async def test_two_clients_play_hello(hub, errors):
    schema = await published_schema(hub)
    ann, bob, gameid = await play_setup(hub)
    await bounded(ann.chat(gameid, "good luck"))
    chat = await bounded(bob.wait_for(lambda u: u.text == "good luck"))
    assert chat.sender == "ann"
    await bounded(bob.wait_for(lambda u: u.payload is not None and u.payload.tag == "turn"))
    await bounded(ann.act(gameid, "<hello>hi bob</hello>"))
    said = await bounded(bob.wait_for(lambda u: u.payload is not None and u.payload.tag == "hello"))
    assert said.payload.text == "Hello from ann: hi bob"
    e = await refused(ann.act(gameid, "<hello>twice</hello>"))
    assert e.code == 422
    await bounded(bob.act(gameid, "<hello>hi ann</hello>"))
    await bounded(ann.wait_for(lambda u: u.payload is not None and u.payload.tag == "over"))
    history = await bounded(ann.history(gameid=gameid))
    assert history and {p["name"] for p in history[0]["players"]} == {"ann", "bob"}
    await bounded(ann.part(gameid))
    await bounded(bob.part(gameid))
    await bounded(ann.logout())
    await bounded(bob.logout())
    e = await refused(ann.game_list())
    assert e.code == 401
    all_valid(schema, ann, bob)
    await ann.close()
    await bob.close()
    game = hub.lobby.games()[0]
    text = game.transcript.read()
    assert "good luck" in text and "Hello from ann: hi bob" in text
    assert errors.texts() == []


def _frame(document: bytes) -> bytes:
    return len(document).to_bytes(4, "big") + document


HOSTILE: dict[str, tuple[str, bytes, int, bool]] = {
    # name: (how, bytes, expected errorcode, closes)
    "billion laughs": (
        "frame",
        b'<?xml version="1.0"?><!DOCTYPE message [<!ENTITY a "aaaaaaaaaa">'
        + b"".join(b'<!ENTITY a%d "%s">' % (i, b"&a;" * 10) for i in range(1, 10))
        + b']><message><request><lobby><findplayer name="&a9;"/></lobby></request></message>',
        400,
        False,
    ),
    "quadratic blowup": (
        "frame",
        b'<!DOCTYPE message [<!ENTITY a "' + b"x" * 20000 + b'">]><message><request><lobby>'
        b'<findplayer name="' + b"&a;" * 5000 + b'"/></lobby></request></message>',
        400,
        False,
    ),
    "external entity": (
        "frame",
        b'<!DOCTYPE message [<!ENTITY e SYSTEM "file:///etc/passwd">]><message><request>'
        b'<lobby><findplayer name="&e;"/></lobby></request></message>',
        400,
        False,
    ),
    "doctype entity reaching the schema": (
        "frame",
        b'<!DOCTYPE message [<!ENTITY t "2">]><message><request><accountmanagement>'
        b'<create accountname="root" password="rootroot" accounttype="&t;"/>'
        b"</accountmanagement></request></message>",
        400,
        False,
    ),
    "100,000-deep nesting": (
        "frame",
        b"<message>" + b"<a>" * 100_000 + b"</a>" * 100_000 + b"</message>",
        413,
        True,
    ),
    "10,000-deep nesting inside the limit": (
        "frame",
        b"<message>" + b"<a>" * 8000 + b"</a>" * 8000 + b"</message>",
        400,
        False,
    ),
    "20 MiB attribute": (
        "frame",
        b'<message><request><lobby><findplayer name="' + b"x" * (20 << 20) + b'"/>'
        b"</lobby></request></message>",
        413,
        True,
    ),
    "non-UTF-8 bytes": (
        "frame",
        b'<message><request><authentication><login accountname="\xe9\xff" password="x"/>'
        b"</authentication></request></message>",
        400,
        False,
    ),
    "UTF-16 bytes": (
        "frame",
        "<message><request><lobby><availablegames/></lobby></request></message>".encode("utf-16"),
        400,
        False,
    ),
    "length 0": ("raw", b"\x00\x00\x00\x00", 413, True),
    "length 2^31-1": ("raw", (2**31 - 1).to_bytes(4, "big") + b"<message>", 413, True),
    "a frame that never completes": ("raw", (500).to_bytes(4, "big") + b"<message>", 408, True),
    "random bytes in a frame": ("raw", _frame(bytes(range(255, -1, -1)) * 4), 400, False),
    "random bytes as a stream": ("raw", b"GET / HTTP/1.1\r\nHost: x\r\n\r\n", 413, True),
}


@pytest_twisted.ensureDeferred
async def test_hostile_inputs_leave_other_players_and_accounts_alone(hub, errors):
    schema = await published_schema(hub)
    ann, bob, gameid = await play_setup(hub)
    store = hub.store
    before = {a.name: a.balance for a in await bounded(store.list_accounts())}
    for number, (name, (how, data, code, closes)) in enumerate(HOSTILE.items()):
        evil = await connect(hub)
        answers: list = []
        if how == "frame":
            d = evil.send_frame(data)
        else:
            d = defer.Deferred()
            evil.proto.pending.append((d, data))  # expect one answer to the raw bytes
            evil.write_raw(data)
        d.addCallbacks(answers.append, lambda f: None)
        await bounded(evil.closed if closes else d)
        (answer,) = answers + evil.unmatched
        assert (answer.success, answer.code) == (False, code), (name, answer)
        assert answer.description, name
        if not closes:
            probe = evil.request("<lobby><gamelist/></lobby>", check=False)
            assert (await bounded(probe)).code == 401, name
            await evil.close()
        # the game goes on for everybody else
        text = f"still here {number}"
        await bounded(ann.chat(gameid, text))
        got = await bounded(bob.wait_for(lambda u, t=text: u.text == t))
        assert got.sender == "ann", name
        all_valid(schema, evil)
    await bounded(ann.act(gameid, "<hello>done</hello>"))
    await bounded(bob.act(gameid, "<hello>done too</hello>"))
    await bounded(bob.wait_for(lambda u: u.payload is not None and u.payload.tag == "over"))
    after = {a.name: a.balance for a in await bounded(store.list_accounts())}
    assert after == before
    report = await bounded(store.ledger_check())
    assert report.ok
    all_valid(schema, ann, bob)
    assert errors.texts() == []


@pytest_twisted.ensureDeferred
async def test_another_connections_session_is_refused(hub, errors):
    ann, bob, gameid = await play_setup(hub)
    ann_game = ann.game_sessions[gameid]
    before = [g.to_json() for g in hub.lobby.games()]
    await bounded(bob.game_list())
    await bounded(ann.game_list())  # everything sent to ann before this has arrived
    seen = len(ann.received)
    for body, sid in (
        (f'<game gameid="{gameid}"><action><parameters><hello>x</hello></parameters></action></game>', ann_game),
        (f'<game gameid="{gameid}"><part/></game>', ann_game),
        (f'<game gameid="{gameid}"><chat sender="ann"><message>forged</message></chat></game>', ann_game),
        ('<game><create gametype="hello" name="forged"/></game>', ann.session),
        ("<authentication><logout/></authentication>", ann.session),
        (f'<game gameid="{gameid}"><delete/></game>', ann.session),
    ):  # fmt: skip
        answer = await bounded(bob.request(body, sessionid=sid, check=False))
        assert (answer.success, answer.code) == (False, 403), body
    assert [g.to_json() for g in hub.lobby.games()] == before
    await bounded(ann.game_list())
    assert len(ann.received) == seen + 1  # ann saw nothing of it but her own answer
    await bounded(ann.chat(gameid, "mine"))  # ann's sessions still work
    await ann.close()
    await bob.close()
    assert errors.texts() == []


@pytest_twisted.ensureDeferred
async def test_xml_client_console(hub, errors):
    from hub.cli import COMMANDS
    from hub.cli.xml_client import Console

    assert COMMANDS["xml-client"][0] == "hub.cli.xml_client:main"
    client = await connect(hub)
    out = io.StringIO()
    console = Console(client, out, defer.Deferred())
    assert await bounded(console.command("create", ["carl", "pass1234"])) == "account carl created"
    assert (await bounded(console.command("login", ["carl", "pass1234"]))).startswith(
        "logged in as carl, balance 1000.00"
    )
    assert "hello:" in await bounded(console.command("types", []))
    created = await bounded(console.command("new", ["hello", "cli", "1"]))
    gameid = int(created.split()[1])
    assert "cli" in await bounded(console.command("list", []))
    assert "seated" in await bounded(console.command("join", [str(gameid)]))
    hello = "<hello>from cli</hello>"  # a game's payload: the console knows no game
    assert await bounded(console.command("act", [str(gameid), hello])) == "ok"
    await bounded(client.wait_for(lambda u: u.payload is not None and u.payload.tag == "over"))
    assert "Hello from carl: from cli" in out.getvalue()
    assert (await bounded(console.command("nonsense", []))).startswith("? nonsense")
    # lines typed in a burst run one after the other
    await bounded(console.command("logout", []))
    console.lineReceived(b"login carl pass1234")
    console.lineReceived(b"types")
    await bounded(console._last)
    assert "refused" not in out.getvalue()
    assert out.getvalue().count("hello: The smallest") == 1
    await bounded(console.command("quit", []))
    assert client.invalid == []
    assert errors.texts() == []


def test_xml_client_bad_hub_argument(capsys):
    from hub.cli.xml_client import main

    with pytest.raises(SystemExit) as e:
        main(["--hub", "no-port"])
    assert e.value.code == 2
    assert "HOST:PORT" in capsys.readouterr().err


@pytest_twisted.ensureDeferred
async def test_play_against_an_in_hub_bot(hub, errors):
    dan = await connect(hub)
    await bounded(dan.create_account("dan", "secret4"))
    await bounded(dan.login("dan", "secret4"))
    gameid = await bounded(dan.create_game("hello", "vs bot", seats=["open", "bot:hello-bot"]))
    details = await bounded(dan.game_details(gameid))
    assert [p["kind"] for p in details["players"]] == ["open", "bot"]
    await bounded(dan.join(gameid))
    bot_said = await bounded(
        dan.wait_for(
            lambda u: (
                u.payload is not None and u.payload.tag == "hello" and u.payload.get("seat") == "1"
            )
        )
    )
    assert bot_said.payload.get("name") == "hello-bot"
    await bounded(dan.act(gameid, "<hello>beep</hello>"))
    await bounded(dan.wait_for(lambda u: u.payload is not None and u.payload.tag == "over"))
    found = await bounded(dan.find_player("hello-b"))
    assert [(f["player"], f["gameid"]) for f in found] == [("hello-bot", gameid)]
    assert dan.invalid == []
    await dan.close()
    assert errors.texts() == []
