"""The admin commands (in subprocesses) and recovery after a SIGKILL."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pytest
import pytest_twisted

from hub.cli import store as cli
from hub.model import GameError
from tests.hubprocess import HubProcess

from .conftest import make_store

ROOT = Path(__file__).resolve().parents[2]
D = Decimal


def gamehub(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``gamehub ARGS`` (the checkout's ``hub.cli``) and capture its output."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, "-m", "hub.cli", *args],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


async def account(store, capsys, *argv: str, secret: str = "") -> tuple[int, str, str]:
    """Run ``gamehub account ARGV`` in this process on a started store."""
    args = cli.account_parser().parse_args(list(argv))
    try:
        status = await cli.account_work(store, args, secret)
    except GameError as e:
        print(e.reason, file=sys.stderr)
        status = 1
    out, err = capsys.readouterr()
    return status, out, err


@pytest_twisted.ensureDeferred
async def test_account_commands(store, capsys):
    status, out, _ = await account(store, capsys, "create", "alice", secret="secret1")
    assert status == 0 and "balance 1000.00" in out
    status, out, _ = await account(store, capsys, "create", "robot", "--type", "bot", secret="pw12")
    assert status == 0 and "robot (bot)" in out
    status, _, err = await account(store, capsys, "create", "ALICE", secret="secret1")
    assert status == 1 and "taken" in err
    status, _, err = await account(store, capsys, "create", "bad name", secret="secret1")
    assert status == 1 and "account name" in err
    status, out, _ = await account(store, capsys, "grant", "alice", "0.1", "--key", "once")
    assert status == 0 and "balance 1000.10" in out
    status, out, _ = await account(store, capsys, "grant", "alice", "0.1", "--key", "once")
    assert status == 0 and "already applied" in out and "1000.10" in out
    status, out, _ = await account(store, capsys, "grant", "alice", "0.2")
    assert "balance 1000.30" in out
    status, _, err = await account(store, capsys, "grant", "alice", "0.001")
    assert status == 1 and "two fraction digits" in err
    status, out, _ = await account(store, capsys, "set-type", "alice", "admin")
    assert status == 0 and "now admin" in out
    status, out, _ = await account(store, capsys, "list")
    lines = out.splitlines()
    assert lines[0].split() == ["alice", "admin", "1000.30"]
    assert lines[1].split() == ["robot", "bot", "1000.00"]
    assert lines[-1] == "2 account(s)"
    status, out, _ = await account(store, capsys, "list", "rob", "--type", "bot")
    assert out.splitlines()[-1] == "1 account(s)"
    status, out, _ = await account(store, capsys, "password", "robot", secret="newpass")
    assert status == 0 and (await store.authenticate("robot", "newpass")).name == "robot"
    status, out, _ = await account(store, capsys, "delete", "robot")
    assert status == 0 and "closed balance 1000.00" in out
    status, _, err = await account(store, capsys, "delete", "robot")
    assert status == 1 and "no account" in err
    report = await store.ledger_check()
    assert report.ok and report.issued == D("1000.30")


def test_account_and_ledger_commands_in_a_process(dsn):
    db = ["--db", dsn]
    r = gamehub("account", "create", "alice", "--password-stdin", *db, stdin="secret1\n")
    assert r.returncode == 0, r.stderr
    assert "balance 1000.00" in r.stdout
    r = gamehub("account", "grant", "alice", "0.1", *db)
    assert r.returncode == 0 and "balance 1000.10" in r.stdout, r.stderr
    r = gamehub("account", "create", "ALICE", "--password", "secret1", *db)
    assert r.returncode == 1 and "taken" in r.stderr
    r = gamehub("ledger", "check", *db)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "ledger OK" in r.stdout and "issued 1000.10" in r.stdout


def test_command_errors():
    r = gamehub("account", "frobnicate")
    assert r.returncode == 2
    r = gamehub("ledger", "check", "--db", "mysql://x")
    assert r.returncode == 2 and "--db must be sqlite:PATH or postgresql://" in r.stderr


@pytest_twisted.ensureDeferred
async def test_ledger_check_command_fails_on_bad_books(store, dsn):
    await store.create_account("ann", "secret1")
    await store._run(lambda cur: cur.run("UPDATE account SET balance = balance + 1"))
    r = gamehub("ledger", "check", "--db", dsn)
    assert r.returncode == 1
    assert "ledger FAILED" in r.stdout and "problem:" in r.stdout


def kill_holder(dsn: str) -> None:
    """Run ``tests.store.holder`` until it has bought in and settled hands, then
    SIGKILL it in the middle of its work."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    holder = subprocess.Popen(
        [sys.executable, "-m", "tests.store.holder", dsn],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = []
        for _ in range(30):  # READY, then hands are being settled when the kill lands
            line = holder.stdout.readline()
            assert line, holder.stderr.read()
            lines.append(line.strip())
        assert lines[0] == "READY"
        holder.send_signal(signal.SIGKILL)
        assert holder.wait(timeout=30) == -signal.SIGKILL
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        holder.stdout.close()
        holder.stderr.close()
    # the books balance even now (the chips are recorded at the tables), but the check
    # fails: no live hub holds those tables any more
    r = gamehub("ledger", "check", "--db", dsn)
    assert r.returncode == 1, r.stdout + r.stderr
    assert "at tables 600.60 = 2000.00; issued 2000.00" in r.stdout
    dead = [line for line in r.stdout.splitlines() if "is not alive" in line]
    assert len(dead) == 4 and all(" at table-" in line for line in dead), r.stdout


async def assert_every_chip_back(dsn: str) -> None:
    """Both holders' chips are in their accounts, exactly as the settled hands left
    them, and ``gamehub ledger check`` agrees."""
    store = make_store(dsn)
    await store.start(recover=False)
    try:
        kim = (await store.get_account("kim")).balance
        lee = (await store.get_account("lee")).balance
        settled = {
            row["key"]
            for row in await store.ledger(game_id="table-a", limit=10**6)
            if row["kind"] == "settle"
        }
        hands = len(settled)
        assert hands >= 29 and settled == {f"hand-{n}" for n in range(1, hands + 1)}
        won = sum((D("0.10") if n % 3 else D("-0.10") for n in range(1, hands + 1)), D(0))
        assert (kim, lee) == (D("1000.00") + won, D("1000.00") - won)
        assert await store.chips_at("table-a") == {} and await store.chips_at("table-b") == {}
        refunds = [r for r in await store.ledger(limit=10**6) if r["kind"] == "refund"]
        assert len(refunds) == 4
    finally:
        await store.stop()
    r = gamehub("ledger", "check", "--db", dsn)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "at tables 0.00" in r.stdout and "issued 2000.00" in r.stdout


@pytest_twisted.ensureDeferred
async def test_sigkill_while_holding_chips_then_store_start_returns_every_chip(dsn):
    kill_holder(dsn)
    store = make_store(dsn)
    await store.start()  # what the hub does first: recovery
    try:
        assert sorted((n, g) for n, g, _ in store.recovered) == [
            ("kim", "table-a"),
            ("kim", "table-b"),
            ("lee", "table-a"),
            ("lee", "table-b"),
        ]
    finally:
        await store.stop()
    await assert_every_chip_back(dsn)


@pytest_twisted.ensureDeferred
async def test_sigkill_while_holding_chips_then_twistd_gamehub_returns_every_chip(dsn, tmp_path):
    kill_holder(dsn)
    hub = HubProcess(tmp_path, web="tcp:0:interface=127.0.0.1")
    hub.extra = ["--db", dsn]
    with hub:
        assert hub.get_json("/api/health")["status"] == "ok"
        log = hub.log()
    assert hub.proc.returncode is not None
    assert log.count("recovery:") == 4, log
    assert log.index("recovery:") < log.index("front end listening")
    assert not hub.errors(), hub.errors()
    await assert_every_chip_back(dsn)


@pytest_twisted.ensureDeferred
async def test_twistd_gamehub_refuses_a_newer_database(dsn, tmp_path):
    store = make_store(dsn)
    await store.start()
    await store._run(lambda cur: cur.run("UPDATE gamehub_schema SET version = version + 1"))
    await store.stop()
    hub = HubProcess(tmp_path, web="tcp:0:interface=127.0.0.1", startup=20)
    hub.extra = ["--db", dsn]
    with pytest.raises(RuntimeError, match="did not start"):
        hub.start()
    assert "newer Gamehub" in hub.log()
    assert "front end listening" not in hub.log()
