"""A rolling deploy of three hubs loses no game (issue 31): three ``twistd gamehub``
processes on one PostgreSQL database, with games in flight on each — a chip table of
bots, morris and King Domino games of a web player against bots, and hello games of
XML clients (``hub.client`` with ``reconnect=True``, each connected to one hub's door
and knowing the other two). Each hub in turn is drained, stopped and started again
(on the same ports, as behind a balancer), as docs/cluster.md "Deploy a new version"
says. Then every game is played to its end: none aborted, no refund, the tables
dealt on, ``gamehub ledger check`` OK.

54 games are in flight (``MIX``): short games (a few moves each), so that the whole
test stays within a minute. Waits poll with a deadline; nothing is timed.
"""

from __future__ import annotations

import os
import signal
import socket
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from twisted.internet import reactor, task, threads

from hub.client import HubClient
from hub.frontends.xml.payload import wire_game_id
from tests.hubprocess import HubProcess
from tests.integration.test_cluster import cluster_dsn, health, wait_for
from tests.integration.test_cluster_outage import hands_of, ledger_ok, postgres, refunds
from tests.integration.test_resume_restart import Player, create, game, play
from tests.store.test_cli_and_crash import gamehub

#: games in flight per hub: (morris, King Domino, hello); plus one chip table each:
#: 54 in all (the whole test took 40 s on a loaded 2-core machine: CI runs all of it)
MIX = (3, 3, 11)
#: XML clients sharing the hello games
CLIENTS = 5
LIMIT = 60.0
SOAK = os.environ.get("GAMEHUB_SOAK") == "full"
#: a table of bots on purpose deals on however long the test runs (one that is not
#: closes after ``unattended_seconds``, 180 s) and a broke bot buys in again
BOT_TABLE = {"bots_only": True, "broke_bots": "rebuy"}
#: seconds between hands: none in CI's short run; in the soak about two hands a second,
#: so that its table's journal (some 15 entries a hand) stays far below
#: ``journal_max_entries`` for the whole soak (a journal given up would not survive)
PAUSE = 0.5 if SOAK else 0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def fixed_hub(tmp: Path, name: str, dsn: str) -> HubProcess:
    """A hub on ports of its own that stay the same across its restarts."""
    folder = tmp / name
    folder.mkdir()
    ends = {f: f"tcp:{free_port()}:interface=127.0.0.1" for f in ("xml", "mnm", "web", "domino")}
    hub = HubProcess(folder, data=tmp / f"{name}-data", **ends)
    hub.extra = ["--db", dsn]
    return hub.start()


def hub_id(hub: HubProcess) -> str:
    return str(health(hub)["cluster"]["hub"])


def all_alive(hubs: list[HubProcess]) -> None:
    wanted = {hub_id(h) for h in hubs}
    for hub in hubs:
        wait_for(
            lambda h=hub: (
                {x["id"] for x in health(h)["cluster"]["hubs"]} == wanted
                and health(h)["cluster"]["alive"] == len(wanted)
            ),
            "every hub sees the three alive",
            LIMIT,
        )


def owner(hubs: list[HubProcess], game_id: str) -> HubProcess:
    """The hub that runs ``game_id`` now (as the directory says)."""
    by_id = {hub_id(h): h for h in hubs}

    def found() -> HubProcess | None:
        for hub in hubs:
            status, raw, _ = hub.request("GET", "/api/games")
            if status != 200:
                continue
            import json

            for g in json.loads(raw):
                if g["id"] == game_id and g.get("hub") in by_id:
                    return by_id[g["hub"]]
        return None

    return wait_for(found, f"{game_id} listed on a live hub", LIMIT)


def deploy(hub: HubProcess, dsn: str) -> list[str]:
    """Drain, stop and start ``hub`` again (blocking); the errors of its old life."""
    r = gamehub("cluster", "drain", hub_id(hub), "--db", dsn, "--wait", str(int(LIMIT)))
    assert r.returncode == 0, r.stdout + r.stderr + hub.log()[-4000:]
    return restart(hub)


def restart(hub: HubProcess, sig: int = signal.SIGTERM) -> list[str]:
    """Stop ``hub`` with ``sig`` and start it again on its ports: its old life's errors
    (that life's log is kept beside, numbered)."""
    hub.stop(sig)
    errors = hub.errors()
    n = len(list(hub.tmp.glob("hub.log.*")))
    hub.log_path.rename(hub.log_path.with_name(f"hub.log.{n}"))
    hub.start()
    return errors


def over(client: HubClient, gameid: int) -> bool:
    return any(
        u.payload is not None and u.payload.tag == "over" for u in client.updates.get(gameid, [])
    )


async def until(check: Any, what: str) -> None:
    for _ in range(int(LIMIT / 0.05)):
        if check():
            return
        await task.deferLater(reactor, 0.05, lambda: None)
    raise AssertionError(f"never: {what}")


#: what happens to the hubs while the games are in flight: the errors of the hubs'
#: lives that ended meanwhile
Disruption = Callable[[list[HubProcess]], Awaitable[list[str]]]


@pytest.mark.slow
@pytest_twisted.ensureDeferred
async def test_a_rolling_deploy_of_three_hubs_loses_no_game(tmp_path: Path, cluster_dsn: str):  # noqa: F811
    async def rolling(hubs: list[HubProcess]) -> list[str]:
        errors: list[str] = []
        for hub in hubs:  # one hub at a time, drained, stopped, started again
            errors += await threads.deferToThread(deploy, hub, cluster_dsn)
            await threads.deferToThread(all_alive, hubs)
        return errors

    await in_flight_through(tmp_path, cluster_dsn, rolling)


async def in_flight_through(tmp_path: Path, dsn: str, disrupt: Disruption) -> None:
    """Three hubs on ``dsn`` with the games of ``MIX`` in flight through ``disrupt``:
    then every game is played to its end; nothing aborted, refunded or lost."""
    hubs: list[HubProcess] = []
    clients: list[HubClient] = []
    try:
        for name in "abc":
            hubs.append(fixed_hub(tmp_path, name, dsn))
        all_alive(hubs)
        Player(hubs[0], "alice", "alice-pw-1", create=True)
        sitting = {h.ports["web"]: Player(h, "alice", "alice-pw-1", create=False) for h in hubs}
        tables, boards, hellos = [], [], []
        morris_n, domino_n, hello_n = MIX
        for hub in hubs:
            here = hub_id(hub)
            tables.append(
                create(
                    hub,
                    {
                        "type": "texas-holdem",
                        "seats": ["bot:caller", "bot:raiser"],
                        "options": {"showdown_pause": PAUSE, "buyin": 10000, "stakes": "1/2"},
                        "hub": here,
                        **BOT_TABLE,
                    },
                )
            )
            for _ in range(morris_n):
                boards.append(
                    create(
                        hub,
                        {
                            "type": "nmmorris",
                            "seats": ["human", "bot:morris-random"],
                            "options": {"move_time_ms": 600_000},  # never lost on time
                            "hub": here,
                        },
                    )
                )
            for _ in range(domino_n):
                boards.append(
                    create(
                        hub,
                        {
                            "type": "kingdomino",
                            "seats": ["human"] + ["bot:domino-random"] * 3,
                            "options": {"answer_seconds": 600},
                            "hub": here,
                        },
                    )
                )
            for _ in range(hello_n):
                hellos.append(
                    create(hub, {"type": "hello", "seats": ["open", "bot:hello-bot"], "hub": here})
                )
        in_flight = len(tables) + len(boards) + len(hellos)
        for g in boards:  # alice sits down at the game's own hub
            me = sitting[owner(hubs, g).ports["web"]]
            status, answer = me.call("POST", f"/api/games/{g}/seats", {"seat": 0})
            assert status == 200, answer
        xml = [("127.0.0.1", h.ports["xml"]) for h in hubs]
        for n in range(CLIENTS):
            door = xml[n % 3]
            client = await HubClient.connect(
                reactor, *door, reconnect=True, hubs=[a for a in xml if a != door]
            ).addTimeout(LIMIT, reactor)
            client.RECONNECT_DELAY = 0.05
            clients.append(client)
            await client.create_account(f"xml{n}", f"pw-xml{n}-123").addTimeout(LIMIT, reactor)
            await client.login(f"xml{n}", f"pw-xml{n}-123").addTimeout(LIMIT, reactor)
        mine = {g: clients[i % CLIENTS] for i, g in enumerate(hellos)}
        for g, client in mine.items():
            joined = await client.join(wire_game_id(g)).addTimeout(LIMIT, reactor)
            assert joined.description == "seated at seat 0", joined.description
        hands = [await threads.deferToThread(hands_of, dsn, t) for t in tables]

        errors = await disrupt(hubs)
        assert errors == [], errors

        # every game goes on to its end
        # a relayed XML game session follows its game to its new hub (the door's relay,
        # tests/integration/test_cluster_xml_follow.py); one that did not (its client
        # resumed through another door meanwhile) is joined again: counted below
        lost = [g for g, c in mine.items() if wire_game_id(g) not in c.game_sessions]
        for g in lost:
            joined = await mine[g].join(wire_game_id(g)).addTimeout(LIMIT, reactor)
            assert "seat 0" in joined.description, joined.description
        for g, client in mine.items():
            await client.act(wire_game_id(g), "<hello>after the deploy</hello>").addTimeout(
                LIMIT, reactor
            )
        for g, client in mine.items():
            wid = wire_game_id(g)
            await until(lambda c=client, w=wid: over(c, w), f"hello {g} over")
        assert all(c.invalid == [] and not c.closed.called for c in clients)
        resumed = sum(c.reconnected for c in clients)

        def finish() -> None:
            players: dict[str, Player] = {}
            for g in boards:
                hub = owner(hubs, g)
                key = hub_id(hub)
                if key not in players:
                    players[key] = Player(hub, "alice", "alice-pw-1", create=False)
                me = players[key]
                status, answer = me.call("POST", f"/api/games/{g}/seats", {"seat": 0})
                seated = game(hub, g)["seats"][0]["player"]
                assert (status == 200 and answer["seat"] == 0) or seated == "alice", answer
                play(me, g, 1000)
                wait_for(lambda h=hub, g=g: game(h, g)["state"] == "over", f"{g} ends", LIMIT)

        await threads.deferToThread(finish)
        for table, before in zip(tables, hands, strict=True):
            wait_for(lambda t=table, b=before: hands_of(dsn, t) > b, f"table {table} dealt on")
            state = game(owner(hubs, table), table)["state"]
            # not aborted: it deals on, or ended normally when a bot went broke
            assert state in ("running", "waiting", "over"), state
        assert await threads.deferToThread(refunds, dsn) == []
        await threads.deferToThread(ledger_ok, dsn)
        for hub in hubs:
            assert hub.errors() == [], hub.log()
        print(
            f"in flight: {in_flight} games in flight, XML sessions resumed {resumed}x,"
            f" {len(lost)} of {len(mine)} relayed hello sessions joined again"
        )
    finally:
        for client in clients:
            await client.close()
        for hub in hubs:
            hub.stop()


__all__ = ["cluster_dsn", "postgres"]  # the fixtures, used by name

#: the soak's cycles: PostgreSQL stopped for 12 s, kill -9 of a hub (started again),
#: ``gamehub cluster drain`` of a hub (stopped and started again), in turn
CYCLES = 20
#: the hubs' default lease grace (the soak runs with the defaults)
GRACE = 15.0


@pytest.mark.slow
@pytest.mark.skipif(
    not SOAK,
    reason="a soak of 20 outage, kill -9 and drain cycles (some minutes): GAMEHUB_SOAK=full",
)
@pytest_twisted.ensureDeferred
async def test_soak_outage_kill_and_drain_cycles_lose_no_game_and_no_chip(tmp_path, postgres):
    dsn = postgres.dsn

    async def cycles(hubs: list[HubProcess]) -> list[str]:
        errors: list[str] = []
        for n in range(CYCLES):
            hub = hubs[(n // 3) % 3]  # each hub in turn meets each kind of cycle
            if n % 3 == 0:  # the database goes away for 12 s: nobody is recovered
                members = [hub_id(h) for h in hubs]
                await threads.deferToThread(postgres.stop)
                await task.deferLater(reactor, 12.0, lambda: None)
                await threads.deferToThread(postgres.start)
                await threads.deferToThread(all_alive, hubs)
                await task.deferLater(reactor, GRACE + 3, lambda: None)
                assert [hub_id(h) for h in hubs] == members, f"cycle {n}: a hub was recovered"
            elif n % 3 == 1:  # kill -9, started again: a survivor resumes its games
                errors += await threads.deferToThread(restart, hub, signal.SIGKILL)
                await threads.deferToThread(all_alive, hubs)
            else:  # drained, stopped and started again
                errors += await threads.deferToThread(deploy, hub, dsn)
                await threads.deferToThread(all_alive, hubs)
            assert await threads.deferToThread(refunds, dsn) == [], f"cycle {n}: a refund"
            await threads.deferToThread(ledger_ok, dsn)
            print(f"soak: cycle {n + 1} of {CYCLES} done")
        return errors

    await in_flight_through(tmp_path, dsn, cycles)
