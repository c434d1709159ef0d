"""The client side of King Domino: what a client downloads to play it.

:class:`Mirror` (no I/O) follows the domino line protocol's server lines (``START``,
``YOUR CHOICE``, ``PLAYER MOVE``, ``ROUND``, ``GAME OVER RESULTS``…) with a rules
engine of its own, so a client knows the whole game at each prompt, and writes the
client's commands (``CHOOSE n``, ``MOVE x y o``).  The protocol never says that a
player was removed, so the mirror infers it when the turn skips someone.  No imports
from the hub: it runs anywhere the rules run.
"""

from __future__ import annotations

from typing import Any

from . import rules


class ProtocolError(Exception):
    """The server said something the mirror cannot follow."""


class Mirror:
    """The game as one client sees it, rebuilt line by line.

    :meth:`feed` returns ``"choose"`` or ``"move"`` when the server prompts us,
    ``"over"`` at the end, ``"refused"`` when the login was refused, else ``None``.
    """

    def __init__(self) -> None:
        self.state: rules.State | None = None
        self.me: int | None = None
        self.results: list[tuple[str, int]] = []
        self._sent: int | rules.Placement | None = None
        self._announced = 1  # the draw the server last showed (START shows the first)
        self.errors = 0

    def feed(self, line: str) -> str | None:
        """Follow one server line."""
        words = line.split()
        if not words:
            raise ProtocolError("empty line")
        head = words[0]
        if line in ("CONNECT", "OK") and self._sent is None:
            return None
        if line == "OK":
            self._apply(self.me, self._sent)
            self._sent = None
            return None
        if line == "ERROR":
            self.errors += 1
            self._sent = None
            state = self.state
            if state is None:
                return "refused"  # the login was refused
            if state.to_act == self.me:
                return state.phase  # answer again
            return None
        if head == "START":
            numbers = [int(w) for w in words[1:]]
            self.me = numbers[0] - 1
            draws = [tuple(numbers[5:9])] + [()] * (rules.DRAWS - 1)
            self.state = rules.State(4, draws=draws, order=[n - 1 for n in numbers[1:5]])
            return None
        state = self.state
        if state is None:
            raise ProtocolError(f"{line!r} before START")
        if line == "YOUR CHOICE":
            self._sync(self.me, rules.CHOOSE)
            return "choose"
        if line == "YOUR MOVE":
            self._sync(self.me, rules.MOVE)
            return "move"
        if words[:2] == ["PLAYER", "CHOICE"]:
            player = int(words[2]) - 1
            self._sync(player, rules.CHOOSE)
            self._apply(player, int(words[3]))
            return None
        if words[:2] == ["PLAYER", "MOVE"]:
            player = int(words[2]) - 1
            self._sync(player, rules.MOVE)
            self._apply(player, rules.Placement(*(int(w) for w in words[3:6])))
            return None
        if head == "ROUND":
            draw = tuple(int(w) for w in words[1:])
            self._announced += 1
            while state.round < self._announced and state.to_act is not None:
                state.remove(state.to_act)  # whoever had not picked was removed
            if draw:
                state.current = draw
                state.draws[state.round - 1] = draw
            return None
        if words[:3] == ["GAME", "OVER", "RESULTS"]:
            rest = words[3:]
            self.results = [(rest[i], int(rest[i + 1])) for i in range(0, len(rest) - 1, 2)]
            return "over"
        raise ProtocolError(f"unknown line {line!r}")

    def command(self, decision: int | rules.Placement) -> str:
        """The line for ``decision``; remembered until the server's ``OK``."""
        self._sent = decision
        if isinstance(decision, rules.Placement):
            return f"MOVE {decision.x} {decision.y} {decision.orientation}"
        return f"CHOOSE {decision}"

    def _sync(self, player: int | None, phase: str) -> None:
        """Players the turn skipped were removed."""
        state = self.state
        assert state is not None and player is not None
        for _ in range(8):
            if state.over or (state.to_act == player and state.phase == phase):
                return
            if state.to_act == player or state.to_act is None:
                raise ProtocolError(f"player {player + 1} should {state.phase}, not {phase}")
            state.remove(state.to_act)
        raise ProtocolError("cannot follow the turn order")

    def _apply(self, player: int | None, decision: Any) -> None:
        state = self.state
        assert state is not None and player is not None
        if isinstance(decision, rules.Placement):
            state.move(player, decision)
        elif isinstance(decision, int):
            state.choose(player, decision)
