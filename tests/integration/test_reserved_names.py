"""Reserved names on a real ``twistd -n gamehub`` (issue 32): nobody takes a bot's, an
ACPC program's, a guest's or an admin's name on any front end (web, XML, domino,
tournament entries), so every table with ``bot:caller`` still plays; ``gamehub doctor``
lists the accounts that took one before; the operator creates admins' names only as
admins."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time

import pytest

from tests.hubprocess import LOOPBACK, ROOT, HubProcess
from tests.web.test_web_api import Browser

from .xmlsocket import XMLClient, outcome

TAKEN = ["bot.caller", "BOT.Raiser", "acpc.ann", "guest-abc123", "admin", "Admin.bob",
         "administrator", "api-token", "root"]  # fmt: skip


def gamehub(hub: HubProcess, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hub.cli", *args, "--data", str(hub.data)],
        input=stdin, capture_output=True, text=True, timeout=60,
        env=dict(os.environ, PYTHONPATH=str(ROOT)), cwd=hub.tmp,
    )  # fmt: skip


def domino_login(port: int, name: str) -> list[str]:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        reader = sock.makefile("rb")
        lines = [reader.readline().decode().strip()]  # CONNECT
        sock.sendall(f"LOGIN {name}\n".encode())
        lines.append(reader.readline().decode().strip())
        return lines


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    h = HubProcess(tmp_path_factory.mktemp("names"), web=LOOPBACK, xml=LOOPBACK, domino=LOOPBACK)
    with h:
        yield h
    assert h.errors() == []


def test_no_person_takes_a_reserved_name_on_the_web(hub):
    browser = Browser(hub)
    browser.start()
    for name in TAKEN:
        status, body = browser.call(
            "POST", "/api/accounts", {"name": name, "password": "pw-123456"}
        )
        assert status == 400 and "reserved" in body["error"], (name, body)
    status, body = browser.call(
        "POST", "/api/accounts", {"name": "botany", "password": "pw-123456"}
    )
    assert status == 201, body


def test_no_person_takes_a_reserved_name_over_xml(hub):
    client = XMLClient(hub.ports["xml"])
    try:
        for name in TAKEN:
            for kind in (0, 1):  # a player, or a network bot's account
                answer = client.request(
                    f'<accountmanagement><create accountname="{name}" password="pw-123456"'
                    f' accounttype="{kind}"/></accountmanagement>',
                    0,
                )
                done, code = outcome(answer)
                assert not done and code == 400, (name, kind, json.dumps(code))
    finally:
        client.close()


def test_no_domino_player_logs_in_under_a_reserved_name(hub):
    for name in ("bot.greedy", "guest-1a2b3c", "admin"):
        assert domino_login(hub.ports["domino"], name)[1] == "ERROR", name
    assert domino_login(hub.ports["domino"], "dora")[1] == "OK"


def test_tables_with_bots_still_play_and_tournaments_enter_no_reserved_client(hub):
    status, body, _ = hub.request(
        "POST", "/api/games", {"type": "texas-holdem", "seats": ["open", "bot:caller"]}
    )
    assert status == 201, body
    status, body, _ = hub.request(
        "POST", "/api/tournaments", {"type": "nmmorris", "format": "round-robin"}
    )
    assert status == 201, body
    tid = json.loads(body)["id"]
    for name in ("bot.morris", "guest-abcdef", "admin"):
        status, body, _ = hub.request("POST", f"/api/tournaments/{tid}/entries",
                                      {"kind": "client", "name": name, "frontend": "mnm"})  # fmt: skip
        assert status == 400 and "reserved" in json.loads(body)["error"], (name, body)


def test_doctor_lists_the_accounts_that_took_one_before(tmp_path):
    hub = HubProcess(tmp_path, web=LOOPBACK)
    with hub:
        pass  # the store exists
    now = time.strftime("%Y-%m-%dT%H:%M:%S.000000Z", time.gmtime())
    with sqlite3.connect(hub.data / "hub.sqlite") as db:  # as the hub of last year made them
        for name, kind, password in (("bot.caller", 0, "x"), ("bot.holdem", 1, "scrypt$1"),
                                     ("bot.raiser", 1, "!"), ("Admin", 0, "x"),
                                     ("alice", 0, "x")):  # fmt: skip
            db.execute(
                "INSERT INTO account (name, name_key, password, type, balance, created)"
                " VALUES (?, ?, ?, ?, 0, ?)",
                (name, name.lower(), password, kind, now),
            )
    done = gamehub(hub, "doctor")
    assert done.returncode == 1, done.stdout + done.stderr
    listed = [line for line in done.stdout.splitlines() if line.startswith("reserved name:")]
    assert [line.split()[2] for line in listed] == ["Admin", "bot.caller", "bot.holdem"], listed
    assert "ledger OK" in done.stdout and "3 account(s) took a reserved name" in done.stdout
    made = gamehub(hub, "account", "create", "bot.x", "--type", "bot", "--password-stdin",
                   stdin="pw-123456\n")  # fmt: skip
    assert made.returncode == 1 and "reserved" in made.stderr, made.stderr
    made = gamehub(hub, "account", "create", "administrator", "--type", "admin",
                   "--password-stdin", stdin="pw-123456\n")  # fmt: skip
    assert made.returncode == 0, made.stderr
    gamehub(hub, "account", "set-type", "Admin", "admin")
    gamehub(hub, "account", "delete", "bot.caller")
    gamehub(hub, "account", "delete", "bot.holdem")
    done = gamehub(hub, "doctor")
    assert done.returncode == 0 and "reserved names OK" in done.stdout, done.stdout
