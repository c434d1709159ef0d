"""Bans as an operator slips with them, on a real ``twistd -n gamehub`` (issue 32): a
ban wider than an IPv4 /8 or an IPv6 /32, or covering loopback or the asking admin's
own address, needs ``"force": true``; and ``gamehub admin bans|unban`` works on the
store whether the hub runs or not, so even a forced ban of everyone can be lifted."""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys

from tests.hubprocess import LOOPBACK, ROOT, HubProcess
from tests.integration.test_acpc_access import other_address
from tests.integration.test_admin_api import _served_from
from tests.support import wait_until


def gamehub(hub: HubProcess, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "hub.cli", *args, "--data", str(hub.data)],
        capture_output=True,
        text=True,
        timeout=60,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        cwd=hub.tmp,
    )


def ban(hub: HubProcess, source: str = "127.0.0.1", **body: object) -> tuple[int, dict]:
    conn = http.client.HTTPConnection("127.0.0.1", hub.ports["web"], timeout=10,
                                      source_address=(source, 0))  # fmt: skip
    try:
        headers = {"Authorization": f"Bearer {hub.TOKEN}", "Content-Type": "application/json"}
        conn.request("POST", "/api/admin/ban", json.dumps(body), headers)
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        conn.close()


def served(hub: HubProcess) -> bool:
    return _served_from(hub, "127.0.0.1")


def bans(hub: HubProcess) -> list[str]:
    status, body, _ = hub.request("GET", "/api/admin/bans", admin=True)
    assert status == 200, body
    return [row["address"] for row in json.loads(body)]


def test_risky_bans_need_force_and_the_cli_lifts_any_ban(tmp_path):
    hub = HubProcess(tmp_path, web=LOOPBACK)
    hub.extra += ["--set", "ban_refresh_seconds=0.2"]
    with hub:
        for address in ("0.0.0.0/0", "10.0.0.0/7", "::/0", "2001:db8::/31", "127.0.0.1",
                        "127.0.0.0/8", "::1", "::/1", "::ffff:0.0.0.0/96", "::ffff:127.0.0.1"):  # fmt: skip
            status, answer = ban(hub, address=address)
            assert status == 409 and "force" in answer["error"], (address, answer)
        assert bans(hub) == [] and served(hub)
        status, answer = ban(hub, address="0.0.0.0/0", force="yes")
        assert status == 400
        for address in ("10.0.0.0/8", "2001:db8::/32", "192.0.2.77"):  # at the limits: fine
            status, answer = ban(hub, address=address)
            assert status == 200, (address, answer)
        mine = other_address()
        if mine is not None:  # an admin does not lock out the address it asks from
            network = ".".join(mine.split(".")[:3]) + ".0/24"
            status, answer = ban(hub, source=mine, address=network)
            assert status == 409 and "your own address" in answer["error"], answer
        # the slip of issue 32, forced: everyone is out, loopback included
        try:
            status, answer = ban(hub, address="0.0.0.0/0", force=True, reason="slip")
            assert status == 200, answer
        except http.client.RemoteDisconnected:
            pass  # its own connection is closed with the others: it may get no answer
        assert not served(hub)
        listed = gamehub(hub, "admin", "bans")  # the hub runs: the store still answers
        assert listed.returncode == 0, listed.stderr
        assert "0.0.0.0/0" in listed.stdout and "slip" in listed.stdout
        lifted = gamehub(hub, "admin", "unban", "0.0.0.0/0")
        assert lifted.returncode == 0 and "unbanned 0.0.0.0/0" in lifted.stdout, lifted.stderr
        wait_until(
            lambda: served(hub), "the hub to serve loopback again", 30
        )  # the running hub reads the bans again
        assert "0.0.0.0/0" not in bans(hub)
        status, answer = ban(hub, address="::/0", force=True)
        assert status == 200
        audit = gamehub(hub, "audit", "--target", "0.0.0.0/0")
        assert "unban 0.0.0.0/0" in audit.stdout and "ban 0.0.0.0/0" in audit.stdout
        assert hub.errors() == []
    # the hub stopped: the commands work on the store alone
    again = gamehub(hub, "admin", "unban", "::/0")
    assert again.returncode == 0, again.stderr
    listed = gamehub(hub, "admin", "bans")
    assert listed.returncode == 0 and "::/0" not in listed.stdout and "10.0.0.0/8" in listed.stdout
    missing = gamehub(hub, "admin", "unban", "198.51.100.1")
    assert missing.returncode == 1 and "not banned" in missing.stderr
    bad = gamehub(hub, "admin", "unban", "not-an-address")
    assert bad.returncode == 2 and "not an IP address" in bad.stderr
