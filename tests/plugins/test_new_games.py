"""Acceptance of issue 14: a new game is a drop-in plugin, and nothing under ``hub/``
changes for it.

Two games written only as plugin packages (``fixtures/tictactoe``, ``fixtures/chiphello``:
their own files, importing the hub only through ``hub.interfaces``, ``hub.model`` and
``hub.frontends.xml.payload``) are zipped into a temporary folder and dropped into the
data folder of a running ``twistd gamehub`` (real loopback sockets, its SQLite store):

- Tic-Tac-Toe is played to the end over XML (``hub.client.HubClient``) and over the
  web's JSON API (sessions, seats, actions);
- ``chip-hello``, a ``hello`` that costs a buy-in and an ante (the last to say hello
  takes the pot), is an ``IChipGameFactory``: its hand settles through the hub's table
  money, over XML and over the web, the balances move by the payoffs and
  ``gamehub ledger check`` passes.
"""

from __future__ import annotations

from decimal import Decimal

import pytest
import pytest_twisted
from twisted.internet import defer, reactor, task

from hub.client import HubClient, RequestFailed
from tests.hubprocess import HubProcess
from tests.support import wait_until
from tests.web.test_web_api import Browser

from .helpers import FIXTURES, write_meta, zip_folder
from .test_live import gamehub

LIMIT = 15.0  # seconds any single wait of the XML clients may take


def bounded(d: defer.Deferred) -> defer.Deferred:
    return d.addTimeout(LIMIT, reactor)


#: plugin name → (fixture folder, factory)
DROPPED = {
    "tictactoe": ("tictactoe", "TicTacToeFactory"),
    "chip-hello": ("chiphello", "ChipHelloFactory"),
}


def drop(data, name: str) -> None:
    """Zip fixture ``name`` into ``<data>/plugins`` and then write its ``.meta``, as an
    operator drops a plugin into a running hub."""
    folder, factory = DROPPED[name]
    archive = data / "plugins" / f"{folder}-1.0.0.zip"
    archive.parent.mkdir(parents=True, exist_ok=True)
    digest = zip_folder(FIXTURES / folder, archive)
    write_meta(
        data / "plugins" / "meta",
        name,
        f"{folder}.server:{factory}",
        package=archive.name,
        client=f"{folder}.client",
        frontends=["xml", "web"],
        sha256=digest,
    )


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """A running hub (XML and web front ends) with both plugins dropped in after it
    started."""
    running = HubProcess(
        tmp_path_factory.mktemp("hub"),
        xml="tcp:0:interface=127.0.0.1",
        web="tcp:0:interface=127.0.0.1",
    )
    # they bring their own XML adapters and a chip game: they run in the hub's process
    # (unsigned drop-ins are isolated by default: tests/isolation)
    running.extra = ["--set", "in_process_plugins=" + ",".join(DROPPED)]
    running.start()
    try:
        for name in DROPPED:
            drop(running.data, name)

        def loaded() -> bool:
            index = {p["name"]: p for p in running.get_json("/plugins/index.json")["plugins"]}
            return all(index.get(n, {}).get("status") == "loaded" for n in DROPPED)

        wait_until(loaded, "the dropped plugins loaded", 10.0)
        yield running
    finally:
        running.stop()
    assert running.errors() == [], running.log()


async def player(hub: HubProcess, name: str) -> HubClient:
    client = await bounded(HubClient.connect(reactor, "127.0.0.1", hub.ports["xml"]))
    await bounded(client.create_account(name, name + "-secret"))
    await bounded(client.login(name, name + "-secret"))
    return client


def payload(tag: str, **attrs: str):
    """A predicate: a game update whose payload is ``<tag>`` with these attributes."""

    def match(update) -> bool:
        p = update.payload
        return p is not None and p.tag == tag and all(p.get(k) == v for k, v in attrs.items())

    return match


async def refused(d: defer.Deferred) -> int:
    try:
        await bounded(d)
    except RequestFailed as e:
        return e.code
    raise AssertionError("the request was not refused")


# -- Tic-Tac-Toe -------------------------------------------------------------------------


@pytest_twisted.ensureDeferred
async def test_tictactoe_dropped_in_is_played_to_the_end_over_xml(hub):
    ann, bob = await player(hub, "tina"), await player(hub, "otto")
    types = {t["type"]: t for t in await bounded(ann.available_games())}
    assert types["tictactoe"]["clientgame"] == "tictactoe.client"
    gameid = await bounded(ann.create_game("tictactoe", "noughts", seats=2))
    await bounded(ann.join(gameid))  # X: seat 0
    await bounded(bob.join(gameid))  # O: seat 1
    await bounded(ann.wait_for(payload("turn", seat="0")))
    assert await refused(bob.act(gameid, '<mark cell="4"/>')) == 422  # not O's turn
    assert await refused(ann.act(gameid, "<cross/>")) == 400  # not a move
    for client, cell in ((ann, 0), (bob, 4), (ann, 1), (bob, 8)):
        await bounded(client.act(gameid, f'<mark cell="{cell}"/>'))
    assert await refused(ann.act(gameid, '<mark cell="4"/>')) == 422  # taken
    await bounded(ann.act(gameid, '<mark cell="2"/>'))  # the top row
    over = await bounded(bob.wait_for(payload("over")))
    assert over.payload.get("summary") == "tina wins"
    assert [w.get("seat") for w in over.payload.iterfind("winner")] == ["0"]
    marked = await bounded(bob.wait_for(payload("marked", cell="2")))
    assert marked.payload.get("board") == "XXX.O...O"
    history = await bounded(ann.history(gameid=gameid))
    assert history and {p["name"] for p in history[0]["players"]} == {"tina", "otto"}
    assert ann.invalid == [] and bob.invalid == []  # every document valid
    await ann.close()
    await bob.close()


def browser(hub: HubProcess, account: str | None = None) -> Browser:
    """A web session (cookies, CSRF token), logged in with a new account if named."""
    person = Browser(hub)
    person.start()
    if account is not None:
        status, body = person.call(
            "POST", "/api/accounts", {"name": account, "password": account + "-pw1"}
        )
        assert status == 201, body
    return person


def act(person: Browser, game_id: str, action: dict) -> dict:
    status, body = person.call("POST", f"/api/games/{game_id}/actions", {"action": action})
    assert status == 200, body
    return body


def test_tictactoe_dropped_in_is_played_to_the_end_over_the_web(hub):
    x, o = browser(hub), browser(hub)
    status, game = x.call(
        "POST", "/api/games", {"type": "tictactoe", "seats": ["human", "human"], "sit": 0}
    )
    assert status == 201 and game["seat"] == 0, game
    gid = game["id"]
    status, seated = o.call("POST", f"/api/games/{gid}/seats", {})
    assert status == 200 and seated["seat"] == 1, seated
    assert hub.get_json(f"/api/games/{gid}")["state"] == "running"
    status, body = o.call("POST", f"/api/games/{gid}/actions", {"action": {"mark": 4}})
    assert status == 422, body  # X moves first
    legal = act(x, gid, {"mark": 4})["legal"]
    assert legal == []  # O's turn now
    for person, cell in ((o, 0), (x, 8), (o, 2), (x, 1), (o, 7), (x, 6), (o, 3), (x, 5)):
        act(person, gid, {"mark": cell})
    final = hub.get_json(f"/api/games/{gid}")
    assert final["state"] == "over", final
    assert final["result"]["winners"] == [] and final["result"]["summary"] == "a draw"
    # the page script the plugin brings is served like a built-in game's
    status, script, headers = hub.request("GET", "/plugin-scripts/tictactoe.js")
    assert status == 200 and b"GameRenderers.tictactoe" in script


# -- chip-hello: a hello for chips, through the table money -------------------------------


def ledger_ok(hub: HubProcess) -> None:
    done = gamehub("ledger", "check", "--db", f"sqlite:{hub.data}/hub.sqlite", cwd=hub.tmp)
    assert done.returncode == 0 and "ledger OK" in done.stdout, done.stdout + done.stderr


async def balance(hub: HubProcess, name: str) -> Decimal:
    client = await bounded(HubClient.connect(reactor, "127.0.0.1", hub.ports["xml"]))
    try:
        me = await bounded(client.login(name, name + "-secret"))
    finally:
        await client.close()
    return me["balance"]


async def balances_become(hub: HubProcess, expected: dict[str, Decimal]) -> None:
    """Wait (bounded) until the accounts hold ``expected``: the table money moves the
    chips back after the game is over, one movement after another."""
    for _ in range(100):
        found = {name: await balance(hub, name) for name in expected}
        if found == expected:
            return
        await bounded(task.deferLater(reactor, 0.1, lambda: None))
    raise AssertionError(f"balances {found}, expected {expected}")


@pytest_twisted.ensureDeferred
async def test_chip_hello_over_xml_settles_through_the_table_money(hub):
    ann, bob = await player(hub, "anna"), await player(hub, "bert")
    assert ann.account["balance"] == bob.account["balance"] == Decimal("1000.00")
    gameid = await bounded(ann.create_game("chip-hello", "for chips", seats=2))
    await bounded(ann.join(gameid))  # watching: a chip table seats with a buy-in
    await bounded(bob.join(gameid))
    assert await refused(ann.act(gameid, "<hello>too early</hello>")) == 403
    assert await refused(ann.act(gameid, '<takeseat buyin="5"/>')) == 422  # below one ante
    await bounded(ann.act(gameid, '<takeseat buyin="30"/>'))
    await bounded(bob.act(gameid, "<takeseat/>"))  # the table's buy-in: two antes
    ante = await bounded(bob.wait_for(payload("ante")))
    assert ante.payload.get("pot") == "20"
    await bounded(ann.act(gameid, "<hello>first</hello>"))
    await bounded(bob.act(gameid, "<hello>and last</hello>"))
    handover = await bounded(ann.wait_for(payload("handover")))
    deltas = {d.get("seat"): d.get("amount") for d in handover.payload.iterfind("delta")}
    assert deltas == {"0": "-10", "1": "10"}
    over = await bounded(ann.wait_for(payload("over")))
    assert over.payload.get("summary") == "bert said it last"
    await ann.close()
    await bob.close()
    await balances_become(hub, {"anna": Decimal("990.00"), "bert": Decimal("1010.00")})
    ledger_ok(hub)


def web_balance(person: Browser) -> Decimal:
    status, me = person.call("GET", "/api/account")
    assert status == 200, me
    return Decimal(str(me["balance"]))


def test_chip_hello_over_the_web_settles_through_the_table_money(hub):
    cy, dee = browser(hub, "cyra"), browser(hub, "dean")
    guest = browser(hub)
    status, game = cy.call(
        "POST",
        "/api/games",
        {"type": "chip-hello", "seats": ["human"] * 3, "sit": 0, "options": {"ante": "5"}},
    )
    assert status == 201, game
    gid = game["id"]
    status, body = guest.call("POST", f"/api/games/{gid}/seats", {})
    assert status == 401, body  # the chips come from an account
    status, body = dee.call("POST", f"/api/games/{gid}/seats", {"amount": "600"})
    assert status == 422, body  # at most 100 antes
    status, body = dee.call("POST", f"/api/games/{gid}/seats", {"amount": "50"})
    assert status == 200, body
    assert web_balance(cy) == Decimal("990.00") and web_balance(dee) == Decimal("950.00")
    eve = browser(hub, "evan")
    status, body = eve.call("POST", f"/api/games/{gid}/seats", {"amount": "5"})
    assert status == 200, body  # the table is full: everyone antes 5
    act(dee, gid, {"hello": "hi"})
    status, body = eve.call("POST", f"/api/games/{gid}/leave", {})
    assert status == 200, body  # eve leaves silent: her ante stays in the pot
    act(cy, gid, {"hello": "the last word"})
    wait_until(lambda: hub.get_json(f"/api/games/{gid}")["state"] == "over", "chip-hello over")
    result = hub.get_json(f"/api/games/{gid}")["result"]
    assert result["winners"] == [0] and result["scores"] == ["10", "-5", "-5"]

    def back() -> bool:
        return [web_balance(p) for p in (cy, dee, eve)] == [
            Decimal("1010.00"),
            Decimal("995.00"),
            Decimal("995.00"),
        ]

    wait_until(back, "the stacks back in the accounts")
    ledger_ok(hub)
    # the hand's history, as the table money wrote it with the settlement
    (hand,) = hub.get_json(f"/api/hands?game={gid}")
    paid = {p["name"]: (p["money_in"], p["winnings"]) for p in hand["players"]}
    assert {n: tuple(Decimal(v) for v in pv) for n, pv in paid.items()} == {
        "cyra": (Decimal(5), Decimal(15)),
        "dean": (Decimal(5), Decimal(0)),
        "evan": (Decimal(5), Decimal(0)),
    }
