"""Tables of bots made on purpose (``bots_only``, issue 35) play on with nobody seated,
so how many play at once is bounded, tried from outside on a real hub: per creator
(429) and in all (503), with a clear message; an over table makes room."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hubprocess import LOOPBACK, HubProcess
from tests.integration.test_privacy import Web

TABLE = {"type": "texas-holdem", "seats": ["bot:caller", "bot:caller"], "bots_only": True,
         "broke_bots": "rebuy"}  # fmt: skip


def test_tables_of_bots_only_are_bounded_per_creator_and_in_all(tmp_path: Path):
    hub = HubProcess(tmp_path, web=LOOPBACK)
    hub.extra += ["--set", "bots_only_per_creator=1", "--set", "bots_only_max=2"]
    with hub:
        people = []
        for name in ("ann", "bob", "cy"):
            web = Web(hub)
            web.start()
            made = web.call("POST", "/api/accounts", {"name": name, "password": name + "-pw1"})
            assert made[0] == 201, made
            people.append(web)
        ann, bob, cy = people
        status, body = ann.call("POST", "/api/games", TABLE)
        assert status == 201, body
        first = json.loads(body)["id"]
        status, body = ann.call("POST", "/api/games", TABLE)
        assert status == 429 and b"tables of bots only" in body, body
        assert bob.call("POST", "/api/games", TABLE)[0] == 201
        status, body = cy.call("POST", "/api/games", TABLE)
        assert status == 503 and b"2 tables of bots only" in body, body
        status, body, _ = hub.request("POST", f"/api/admin/games/{first}/close", {}, admin=True)
        assert status == 200, body
        assert cy.call("POST", "/api/games", TABLE)[0] == 201
        # a table with a person's seat is no table of bots only: not counted
        assert ann.call("POST", "/api/games", {"type": "texas-holdem",
                                               "seats": ["human", "bot:caller"]})[0] == 201  # fmt: skip
    assert hub.errors() == [], hub.log()[-3000:]
