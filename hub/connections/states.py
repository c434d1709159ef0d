"""Connection states as data: an enum of states and a table of the moves between them.

A front end's connection names its states (an :class:`enum.Enum`) and the inputs that
move it (what the client sends, what the server does), and writes its life as a table
``{state: {input: next state}}``, as h11 does in ``_state.py``.  A :class:`Machine`
holds one connection's state and makes only the moves of its table: whether a client's
command is acceptable now is a question to the table (:meth:`Machine.allows`), and a
move the table does not have raises :class:`IllegalMove` (a bug of ours, never the
peer's: a peer's out-of-state command is refused before any move is made).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import Enum
from typing import Generic, TypeVar

S = TypeVar("S", bound=Enum)
In = TypeVar("In", bound=Enum)


class IllegalMove(Exception):
    """The server tried a move its table does not allow from the current state."""


class Machine(Generic[S, In]):
    """The state of one connection, moved only along ``table``.

    :param table: every state (as a key, possibly with no moves) → its moves.
    :param initial: the state it starts in.
    """

    __slots__ = ("_table", "state")

    def __init__(self, table: Mapping[S, Mapping[In, S]], initial: S) -> None:
        self._table = table
        self.state = initial

    def allows(self, move: In) -> bool:
        """Whether ``move`` is one of the current state's moves."""
        return move in self._table[self.state]

    def step(self, move: In) -> S | None:
        """Make ``move`` if the current state has it (:meth:`allows`, then
        :meth:`move` in one look-up); the new state, or ``None`` (nothing changed)."""
        target = self._table[self.state].get(move)
        if target is not None:
            self.state = target
        return target

    def move(self, move: In) -> S:
        """Make ``move``; the new state.

        :raises IllegalMove: the current state has no such move.
        """
        try:
            self.state = self._table[self.state][move]
        except KeyError:
            raise IllegalMove(f"no move {move.name} from {self.state.name}") from None
        return self.state


def check_table(states: type[S], table: Mapping[S, Mapping[In, S]], initial: S) -> list[str]:
    """What is wrong with ``table`` (tests call it): a state without a row, a move to
    something that is not a state, a state that cannot be reached from ``initial``."""
    problems = [f"{s.name} has no row" for s in states if s not in table]
    for state, moves in table.items():
        problems += [
            f"{state.name} --{move.name}--> {target!r} is not a state"
            for move, target in moves.items()
            if not isinstance(target, states)
        ]
    reached, todo = {initial}, [initial]
    while todo:
        for target in table.get(todo.pop(), {}).values():
            if target not in reached:
                reached.add(target)
                todo.append(target)
    problems += [f"{s.name} cannot be reached" for s in states if s not in reached]
    return problems
