"""hub.connections.states: a connection's machine moves only along its table."""

from __future__ import annotations

from enum import Enum

import pytest

from hub.connections.states import IllegalMove, Machine, check_table


class S(Enum):
    A = "a"
    B = "b"
    C = "c"


class In(Enum):
    GO = "go"
    BACK = "back"


TABLE = {S.A: {In.GO: S.B}, S.B: {In.BACK: S.A, In.GO: S.C}, S.C: {}}


def test_a_machine_moves_along_its_table():
    m: Machine[S, In] = Machine(TABLE, S.A)
    assert m.allows(In.GO) and not m.allows(In.BACK)
    assert m.move(In.GO) is S.B and m.state is S.B
    assert m.move(In.BACK) is S.A


def test_a_move_the_table_lacks_is_refused_and_changes_nothing():
    m: Machine[S, In] = Machine(TABLE, S.A)
    with pytest.raises(IllegalMove, match="no move BACK from A"):
        m.move(In.BACK)
    assert m.state is S.A
    m.move(In.GO)
    m.move(In.GO)
    assert not m.allows(In.GO) and not m.allows(In.BACK)


def test_check_table_finds_what_is_wrong():
    assert check_table(S, TABLE, S.A) == []
    broken = {S.A: {In.GO: "b"}, S.B: {}}
    assert check_table(S, broken, S.A) == [  # type: ignore[arg-type]
        "C has no row",
        "A --GO--> 'b' is not a state",
        "B cannot be reached",
        "C cannot be reached",
    ]
