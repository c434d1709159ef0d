"""Every front end creates games and seats players one way: through the hub's seating
(``IHub.create_game``, ``IHub.take_seat``: ``hub.service.Seating``), never the lobby's
``create_game`` or a game's ``take_seat`` directly (issue 34, point 4)."""

from __future__ import annotations

import re
from pathlib import Path

FRONTENDS = Path(__file__).resolve().parents[2] / "hub" / "frontends"
#: a call of ``create_game``/``take_seat`` (on what)
CALL = re.compile(r"(?<![\w.])([\w.]+)\.(create_game|take_seat)\(")
#: what they may be called on: the hub, or its seating
HUB = ("hub", "seating")


def direct_calls(text: str) -> list[str]:
    return [m.group(0) for m in CALL.finditer(text) if m.group(1).split(".")[-1] not in HUB]


def test_the_guard_sees_a_direct_call():
    assert direct_calls("game = self.lobby.create_game(t)") == ["self.lobby.create_game("]
    assert direct_calls("        game.take_seat(name, seat)") == ["game.take_seat("]
    assert direct_calls("await self.hub.take_seat(game, name)") == []
    assert direct_calls("await frontend.hub.create_game(t)") == []
    assert direct_calls("await self.seating.create_game(t)") == []


def test_no_front_end_creates_or_seats_past_the_hub():
    found = {
        str(path.relative_to(FRONTENDS)): calls
        for path in sorted(FRONTENDS.rglob("*.py"))
        if (calls := direct_calls(path.read_text(encoding="utf-8")))
    }
    assert found == {}
