"""Three ``twistd gamehub`` processes on one PostgreSQL database are one service
(docs/cluster.md, stage 1): one lobby, membership, a dead hub recovered by the others.

Each test gets a database of its own (``CREATE DATABASE``, dropped afterwards), so no
test sees another's hubs.  Waits poll with a deadline; nothing is timed.
"""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
import pytest_twisted
from twisted.internet import reactor
from twisted.internet.task import deferLater

from hub.client import HubClient
from hub.frontends.xml.payload import wire_game_id
from hub.store import TEST_PG_DSN_VARIABLE
from tests.hubprocess import HubProcess
from tests.store.conftest import make_store
from tests.store.test_cli_and_crash import gamehub

#: the longest any wait here lasts (a generous bound, not a timing assertion)
DEADLINE = 30.0
LOOPBACK = "tcp:0:interface=127.0.0.1"


def wait_for(check: Callable[[], Any], what: str, seconds: float = DEADLINE) -> Any:
    """Poll ``check()`` until it returns something true (bounded); returns it."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.1)
    raise AssertionError(f"never: {what}")


@pytest.fixture
def cluster_dsn() -> Iterator[str]:
    """A fresh PostgreSQL database of this test's own."""
    base = os.environ.get(TEST_PG_DSN_VARIABLE)
    if not base:
        pytest.skip(
            f"cluster tests need PostgreSQL: set {TEST_PG_DSN_VARIABLE}"
            " (e.g. postgresql://postgres@127.0.0.1:5432/test)"
        )
    import psycopg2

    name = "gh_cluster_" + uuid.uuid4().hex[:12]
    admin = psycopg2.connect(base)
    admin.autocommit = True
    try:
        with admin.cursor() as cur:
            cur.execute(f"CREATE DATABASE {name}")
        yield urlsplit(base)._replace(path="/" + name).geturl()
    finally:
        with admin.cursor() as cur:
            cur.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.close()


def start_hub(
    tmp: Path, name: str, dsn: str | None, run: int = 0, extra: list[str] | None = None
) -> HubProcess:
    """A hub with every front end on loopback, on ``dsn`` (``None``: its SQLite);
    ``extra``: more of its command line."""
    folder = tmp / f"{name}{run}"
    folder.mkdir()
    hub = HubProcess(
        folder,
        data=tmp / f"{name}-data",
        xml=LOOPBACK,
        mnm=LOOPBACK,
        web=LOOPBACK,
        domino=LOOPBACK,
    )
    if dsn is not None:
        hub.extra = ["--db", dsn]
    hub.extra += extra or []
    return hub.start()


def games_of(hub: HubProcess) -> dict[str, dict[str, Any]]:
    """The JSON API's game list of ``hub``, by id."""
    return {g["id"]: g for g in hub.get_json("/api/games")}


def health(hub: HubProcess) -> dict[str, Any]:
    return hub.get_json("/api/health")  # type: ignore[return-value]


def create(hub: HubProcess, body: dict[str, Any]) -> dict[str, Any]:
    status, raw, _ = hub.request("POST", "/api/games", body)
    assert status == 201, (status, raw)
    return json.loads(raw)


@pytest.fixture
def three(tmp_path: Path, cluster_dsn: str) -> Iterator[list[HubProcess]]:
    hubs: list[HubProcess] = []
    try:
        for name in "abc":
            hubs.append(start_hub(tmp_path, name, cluster_dsn))
        ids = [health(h)["cluster"]["hub"] for h in hubs]
        for hub in hubs:  # every hub knows the three
            wait_for(
                lambda h=hub: {x["id"] for x in health(h)["cluster"]["hubs"]} >= set(ids),
                "each hub lists the three",
            )
        yield hubs
    finally:
        for hub in hubs:
            hub.stop()


@pytest_twisted.ensureDeferred
async def test_a_game_made_on_one_hub_is_listed_by_the_others(three):
    a, b, c = three
    a_id = health(a)["cluster"]["hub"]
    for hub in three:
        view = health(hub)["cluster"]
        assert view["mode"] == "cluster" and view["alive"] == 3
        assert view["hub"] == health(hub)["cluster"]["hub"]
    lobby = urllib.request.urlopen(b.url("/api/lobby/events"), timeout=DEADLINE)  # noqa: S310
    game = create(a, {"type": "hello", "seats": ["open", "bot:hello-bot"]})
    assert game["hub"] == a_id
    with lobby:  # B's web lobby is told live
        for _ in range(500):
            line = lobby.readline().decode()
            if line.startswith("data:") and game["id"] in line:
                assert json.loads(line[5:])["hub"] == a_id
                break
        else:
            raise AssertionError("B's web lobby was not told of A's game")
    for hub in (b, c):
        listed = wait_for(lambda h=hub: games_of(h).get(game["id"]), "B and C list A's game")
        assert listed["hub"] == a_id and listed["remote"] is True
        assert listed["port"] == a.ports["xml"]  # its front end, on its own hub
        assert listed["type"] == "hello" and listed["seats"][1]["player"] == "hello-bot"
    # the XML lobby of B lists it too
    client = await HubClient.connect(reactor, "127.0.0.1", b.ports["xml"]).addTimeout(30, reactor)
    try:
        await client.create_account("carol", "secret-carol").addTimeout(30, reactor)
        await client.login("carol", "secret-carol").addTimeout(30, reactor)
        rows = await client.game_list().addTimeout(30, reactor)
        assert wire_game_id(game["id"]) in {r["gameid"] for r in rows}
    finally:
        await client.close()
    # through B's web front end A answers (docs/cluster.md: any door works), and
    # an MNM client of C is passed through to A (tests/integration/test_cluster_doors.py)
    status, raw, _ = b.request("GET", f"/api/games/{game['id']}")
    assert status == 200 and "remote" not in json.loads(raw), raw  # A's own answer
    # a change on A reaches the others: a bot takes the open seat
    status, raw, _ = a.request(
        "POST", f"/api/games/{game['id']}/bots", {"seat": 0, "bot": "hello-bot"}
    )
    assert status == 200, raw
    for hub in (b, c):
        wait_for(
            lambda h=hub: games_of(h)[game["id"]]["seats"][0]["player"] is not None,
            "the others see the seat taken",
        )
    # joining it over B's XML front end watches it on A, relayed (test_cluster_xml.py)
    client = await HubClient.connect(reactor, "127.0.0.1", b.ports["xml"]).addTimeout(30, reactor)
    try:
        await client.login("carol", "secret-carol").addTimeout(30, reactor)
        joined = await client.join(wire_game_id(game["id"])).addTimeout(30, reactor)
        assert joined.sessionid and joined.sessionid != client.session
        await client.part(wire_game_id(game["id"])).addTimeout(30, reactor)
    finally:
        await client.close()
    r = gamehub("cluster", "status", "--db", a.extra[1])
    assert r.returncode == 0 and a_id in r.stdout and game["id"] in r.stdout, r.stdout + r.stderr
    assert "3 hub(s) alive" in r.stdout
    for hub in three:
        assert hub.errors() == [], hub.log()


async def deals_on(
    tool: Any,
    game_id: str,
    what: str,
    since: int | None = None,
    hubs: tuple[HubProcess, ...] = (),
) -> None:
    """Wait (bounded) until the chip table ``game_id`` has settled two hands more than
    ``since`` (default: than now); on failure, say how ``hubs`` list the table."""
    if since is None:
        since = len(await tool.hands(game_id=game_id, limit=10**6))
    for _ in range(300):
        if len(await tool.hands(game_id=game_id, limit=10**6)) > since + 1:
            return
        await deferLater(reactor, 0.1, lambda: None)
    listed = [games_of(h).get(game_id) for h in hubs]
    raise AssertionError(f"{what} deals no more hands (after {since}); listed as {listed}")


@pytest.mark.slow
@pytest_twisted.ensureDeferred
async def test_kill_9_of_a_hub_its_games_and_tables_resumed_once(three, tmp_path):
    a, b, c = three
    dsn = a.extra[1]
    a_id = health(a)["cluster"]["hub"]
    # a bot that goes broke buys in again: the table deals on however the cards fall
    bots = {"type": "texas-holdem", "seats": ["bot:caller", "bot:raiser"], "broke_bots": "rebuy"}
    options = {"options": {"showdown_pause": 0}}
    doomed = create(a, {**bots, **options, "name": "on A"})
    other = create(a, {"type": "hello", "seats": ["open", "bot:hello-bot"]})
    on_b = create(b, {**bots, **options, "name": "on B"})
    on_c = create(c, {"type": "hello", "seats": ["open", "bot:hello-bot"]})
    tool = make_store(dsn)
    await tool.start(recover=False)
    try:
        assert sum((await tool.chips_at(doomed["id"])).values()) > 0  # chips at A's table
        for hub in (b, c):
            wait_for(
                lambda h=hub: {doomed["id"], other["id"]} <= set(games_of(h)), "A's games listed"
            )
        hands_before = await tool.hands(game_id=on_b["id"], limit=10**6)

        a.stop(signal.SIGKILL)
        assert a.proc is not None and a.proc.returncode == -signal.SIGKILL
        for hub in (b, c):
            # A's games resume from their journal on the survivor that recovered A
            wait_for(
                lambda h=hub: games_of(h).get(doomed["id"], {}).get("hub") not in (None, a_id),
                "B and C list A's chip table on its new hub",
            )
            resumed = wait_for(
                lambda h=hub: (
                    (g := games_of(h).get(other["id"], {})).get("hub") not in (None, a_id) and g
                ),
                "B and C list A's other game on its new hub",
            )
            assert resumed["state"] == "waiting" and resumed["seats"][1]["player"] == "hello-bot"
            view = wait_for(
                lambda h=hub: (v := health(h)["cluster"])["alive"] == 2 and v, "A not alive"
            )
            assert a_id not in {x["id"] for x in view["hubs"]}
        # the table moved with its chips and deals on there: nothing refunded
        refunds = [r for r in await tool.ledger(limit=10**6) if r["kind"] == "refund"]
        assert refunds == []
        await deals_on(tool, doomed["id"], "A's table, where it was resumed", hubs=(b, c))
        assert sum((await tool.chips_at(doomed["id"])).values()) > 0
        # exactly once: one survivor recovered A (the other found nothing to do)
        gone = [
            line for h in (b, c) for line in h.log().splitlines() if f"hub {a_id} is gone" in line
        ]
        assert len(gone) == 1, gone
        r = gamehub("ledger", "check", "--db", dsn)
        assert r.returncode == 0, r.stdout + r.stderr
        # the games of B and C go on, untouched
        await deals_on(tool, on_b["id"], "B's table", len(hands_before), hubs=(b, c))
        # dealt on (above) and not aborted; "waiting" once a bot of it went broke
        assert games_of(b)[on_b["id"]]["state"] in ("running", "waiting")
        assert sum((await tool.chips_at(on_b["id"])).values()) > 0
        assert games_of(c)[on_c["id"]]["state"] != "aborted"
        assert games_of(b)[on_c["id"]]["remote"] is True

        # a restarted A rejoins (as a new member) and lists the others' games
        again = start_hub(tmp_path, "a", dsn, run=1)
        three.append(again)
        new_id = health(again)["cluster"]["hub"]
        assert new_id != a_id
        for hub in (b, c):
            wait_for(
                lambda h=hub: new_id in {x["id"] for x in health(h)["cluster"]["hubs"]},
                "A rejoined",
            )
        wait_for(lambda: {on_b["id"], on_c["id"]} <= set(games_of(again)), "A lists B's, C's")
        assert health(again)["cluster"]["alive"] == 3
        r = gamehub("ledger", "check", "--db", dsn)
        assert r.returncode == 0, r.stdout + r.stderr
        for hub in (b, c, again):
            assert hub.errors() == [], hub.log()
    finally:
        await tool.stop()


def test_a_hub_on_sqlite_is_single(tmp_path):
    hub = start_hub(tmp_path, "solo", None)
    try:
        view = health(hub)
        assert view["status"] == "ok"
        assert view["cluster"]["mode"] == "single" and view["cluster"]["hub"]
        game = create(hub, {"type": "hello", "seats": ["open", "bot:hello-bot"]})
        listed = games_of(hub)[game["id"]]
        assert "hub" not in listed and "remote" not in listed  # nothing new for it
        r = gamehub("cluster", "status", "--data", str(tmp_path / "solo-data"))
        assert r.returncode == 0 and "single hub" in r.stdout, r.stdout + r.stderr
    finally:
        hub.stop()
    assert hub.errors() == [], hub.log()
