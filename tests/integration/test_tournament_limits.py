"""One account cannot take every tournament slot of a real ``twistd -n gamehub``
(issue 32): beside the hub's ``tournament_max_active``, each account has at most
``tournament_max_per_account`` tournaments under way; others still create theirs."""

from __future__ import annotations

from tests.hubprocess import LOOPBACK, HubProcess
from tests.integration.test_admin_api import person


def test_one_account_cannot_take_every_tournament_slot(tmp_path):
    hub = HubProcess(tmp_path, web=LOOPBACK)
    hub.extra += ["--set", "tournament_max_active=6", "--set", "create_rate=1000"]
    with hub:
        ann, bob = person(hub, "ann"), person(hub, "bob")
        spec = {"type": "nmmorris", "format": "round-robin"}
        made = [ann.call("POST", "/api/tournaments", spec) for _ in range(3)]
        assert [status for status, _ in made] == [201, 201, 201], made
        status, body = ann.call("POST", "/api/tournaments", spec)
        assert status == 409 and "ann has 3 tournaments under way" in body["error"], body
        status, body = bob.call("POST", "/api/tournaments", spec)  # the others still can
        assert status == 201, body
        status, body, _ = hub.request("POST", "/api/tournaments", spec)  # loopback: the hub's
        assert status == 201, body
        listed = hub.get_json("/api/tournaments")["tournaments"]
        assert len(listed) == 5
        assert hub.errors() == []
