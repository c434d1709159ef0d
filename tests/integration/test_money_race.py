"""Twenty chip tables created at once on a fresh database (SQLite and PostgreSQL), their
seats shared by three bot types, through a real ``twistd gamehub``'s JSON API.

Every table is funded (each bot's account granted what it lacks and bought in, one
transaction each, under the account's row lock) or cleanly refused; the hub logs no
CRITICAL line and no traceback; the ledger check passes while the tables play and after
the hub stopped.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from decimal import Decimal

import pytest_twisted

from tests.hubprocess import HubProcess
from tests.store.conftest import dsn, make_store  # noqa: F401 (the dsn fixture)
from tests.store.test_cli_and_crash import gamehub

TABLES = 20
BOTS = ("caller", "raiser", "poker-random")
BUYIN = Decimal(1000)  # the default: 100 big blinds (10 at stakes 10/20)


def table_body(i: int) -> dict:
    """Table ``i``: two or three of the bots, hold'em or draw, every betting style."""
    first, second, third = (BOTS[(i + k) % 3] for k in range(3))
    seats = [f"bot:{first}", f"bot:{second}"] + (["open"] if i % 2 else [f"bot:{third}"])
    return {
        "type": "five-card-draw" if i % 4 == 3 else "texas-holdem",
        "name": f"race {i}",
        "variant": ("fixed-limit", "no-limit", "pot-limit")[i % 3],
        "seats": seats,
        "options": {"showdown_pause": 0},
    }


@pytest_twisted.ensureDeferred
async def test_twenty_tables_created_at_once_share_three_bots(dsn, tmp_path):  # noqa: F811
    hub = HubProcess(tmp_path, web="tcp:0:interface=127.0.0.1")
    hub.extra = ["--db", dsn]
    tool = make_store(dsn)
    with hub:
        with ThreadPoolExecutor(TABLES) as pool:
            answers = list(
                pool.map(lambda i: hub.request("POST", "/api/games", table_body(i)), range(TABLES))
            )
        created = []
        for i, (status, body, _) in enumerate(answers):
            answer = json.loads(body)
            if status == 201:
                created.append((i, answer))
            else:  # cleanly refused: a reason, and no table left behind
                assert 400 <= status < 600 and answer["error"], (status, answer)
                assert all(g["name"] != f"race {i}" for g in hub.get_json("/api/games"))
        assert len(created) == TABLES, answers  # a healthy database funds them all
        await tool.start(recover=False)
        for i, game in created:
            bots = [s["player"] for s in game["seats"] if s["kind"] == "bot"]
            assert sorted(bots) == sorted(b[4:] for b in table_body(i)["seats"] if b != "open")
            chips = await tool.chips_at(game["id"])
            assert set(chips) == {f"bot.{b}" for b in bots}
            assert sum(chips.values()) == BUYIN * len(bots)  # bots play among themselves
        r = gamehub("ledger", "check", "--db", dsn)  # beside the running hub
        assert r.returncode == 0, r.stdout + r.stderr
        assert hub.get_json("/api/health")["status"] == "ok"
    log = hub.log()
    assert hub.errors() == [] and "#critical]" not in log, log
    granted = sum(
        (r["balance_delta"] for r in await tool.ledger(limit=10**6) if r["kind"] == "grant"),
        Decimal(0),
    )
    expected = BUYIN * sum(
        len([s for s in table_body(i)["seats"] if s != "open"]) for i, _ in created
    )
    report = await tool.ledger_check()
    await tool.stop()
    # every bot's account was granted exactly what its buy-ins needed, no more
    assert granted == expected
    # the stopped hub's tables keep their chips in their journals, to be resumed at its
    # next start (docs/journal.md): the books hold with every chip still at a table
    assert report.ok and report.at_tables == expected and report.issued == expected, str(report)
