"""A player's own table, tried from outside with hostile actions (issue 35's sit out,
sit in, auto-post, auto-muck switches and every other poker action share the route):
each is refused with a clear 4xx, never a 500 with a traceback in the hub's log."""

from __future__ import annotations

import json
from pathlib import Path

from tests.hubprocess import LOOPBACK, HubProcess
from tests.integration.test_privacy import Web


def test_malformed_poker_actions_are_refused_clearly(tmp_path: Path):
    with HubProcess(tmp_path, web=LOOPBACK) as hub:
        ann = Web(hub)
        ann.start()
        assert ann.call("POST", "/api/accounts", {"name": "ann", "password": "ann-pw1"})[0] == 201
        status, body = ann.call("POST", "/api/games", {
            "type": "texas-holdem", "seats": ["human", "bot:caller"], "sit": 0,
        })  # fmt: skip
        assert status == 201, body
        path = f"/api/games/{json.loads(body)['id']}/actions"
        for action, code in (
            ({"name": "post", "amount": "1e999999"}, 400),
            ({"name": "raise", "amount": "9" * 5000}, 400),
            ({"name": "bet", "amount": "-1e30"}, 400),
            ({"name": "muck", "auto": "yes"}, 400),
            ({"name": "post", "amount": "NaN"}, 400),
        ):
            status, raw = ann.call("POST", path, {"action": action})
            assert status == code, (action, status, raw)
            assert len(raw) < 300, raw  # the error does not echo a huge number back
        status, raw = ann.call("POST", f"{path[: -len('/actions')]}/seats", {"amount": "9" * 5000})
        assert status in (400, 409) and len(raw) < 300, raw
        assert ann.call("POST", path, {"action": {"name": "muck", "auto": True}})[0] == 200
        assert hub.errors() == [], hub.log()[-3000:]
