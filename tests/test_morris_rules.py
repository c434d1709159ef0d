"""Unit and playout tests of the pure Nine Men's Morris engine."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from games.morris.rules import (
    CAPTURED,
    MILLS,
    NEIGHBOURS,
    UNPLACED,
    MorrisError,
    MorrisRules,
    MorrisState,
    parse_point,
    point_name,
)


def P(name: str) -> int:
    return parse_point(name)


def play(state: MorrisState, *texts: str) -> None:
    for text in texts:
        state.apply(state.parse(text))


def test_geometry() -> None:
    assert [point_name(p) for p in (0, 7, 8, 23)] == ["A0", "A7", "B0", "C7"]
    assert sorted(point_name(p) for p in NEIGHBOURS[P("B1")]) == ["A1", "B0", "B2", "C1"]
    assert sorted(point_name(p) for p in NEIGHBOURS[P("A0")]) == ["A1", "A7"]
    assert sorted(point_name(p) for p in NEIGHBOURS[P("C3")]) == ["B3", "C2", "C4"]
    assert len(MILLS) == 16
    assert (P("A6"), P("A7"), P("A0")) in MILLS
    assert (P("A5"), P("B5"), P("C5")) in MILLS
    assert sum(len(n) for n in NEIGHBOURS) == 2 * 32


@pytest.mark.parametrize("text", ["A9", "D1", "a1", "", "A", "A11", "B-1"])
def test_bad_field_names(text: str) -> None:
    with pytest.raises(MorrisError, match="is not a field"):
        parse_point(text)


def test_invalid_move_message() -> None:
    with pytest.raises(MorrisError) as err:
        MorrisState().parse("A9")
    assert err.value.reason == "Invalid move: A9 is not a field"


def test_placing_mill_capture_and_piece_identity() -> None:
    s = MorrisState()
    play(s, "A0", "B0", "A1", "B1")
    rec = s.place(P("A2"))
    assert rec.mills == 1 and rec.captures == 1 and s.pending_captures == 1
    assert s.to_move == 0
    assert [m.kind for m in s.legal_moves()] == ["capture", "capture"]
    with pytest.raises(MorrisError, match="name an opponent piece"):
        s.place(P("C0"))
    with pytest.raises(MorrisError, match="own piece"):
        s.capture(P("A0"))
    with pytest.raises(MorrisError, match="no piece on C0"):
        s.capture(P("C0"))
    rec = s.capture(P("B1"))
    assert rec.piece == 1 and s.to_move == 1 and s.pending_captures == 0
    pl = s.piece_list()
    assert pl[0][:4] == ["A0", "A1", "A2", "A"]
    assert pl[1][:3] == ["B0", "C", "A"]
    assert s.pieces[1][1] == CAPTURED and s.pieces[1][2] == UNPLACED


def test_occupied_and_wrong_owner() -> None:
    s = MorrisState()
    play(s, "A0")
    with pytest.raises(MorrisError) as err:
        s.place(P("A0"))
    assert err.value.reason == "Destination is already occupied"
    assert s.to_move == 1 and s.in_hand(1) == 9  # nothing changed
    with pytest.raises(MorrisError, match="still have pieces to place"):
        s.move(P("A0"), P("A1"))


def _moving_position() -> MorrisState:
    """All 18 placed, no mills: player 0 to move."""
    s = MorrisState()
    w = ["A0", "A2", "A5", "B1", "B3", "B6", "C0", "C4", "C7"]
    b = ["A1", "A3", "A6", "B0", "B2", "B5", "C2", "C3", "C5"]
    for x, y in zip(w, b, strict=True):
        play(s, x, y)
    assert s.pending_captures == 0 and s.phase() == "moving"
    return s


def test_moving_rules() -> None:
    s = _moving_position()
    with pytest.raises(MorrisError, match="not yours"):
        s.move(P("A1"), P("B1"))
    with pytest.raises(MorrisError, match="already occupied"):
        s.move(P("A0"), P("A1"))
    with pytest.raises(MorrisError, match="not adjacent"):
        s.move(P("C0"), P("C6"))
    with pytest.raises(MorrisError, match="no piece on A4"):
        s.move(P("A4"), P("A3"))
    moves = {m.text() for m in s.legal_moves()}
    assert "A0:A7" in moves and "C0:C6" not in moves
    rec = s.move(P("A0"), P("A7"))
    assert rec.piece == 0 and s.pieces[0][0] == P("A7")


def test_mill_protection_unless_all_in_mills() -> None:
    s = MorrisState()
    _setup(s, white=["A0", "A1", "A3", "C5"], black=["B0", "B1", "B2", "C7"], to_move=0)
    rec = s.move(P("A3"), P("A2"))
    assert rec.mills == 1
    assert [point_name(p) for p in s.capturable(1)] == ["C7"]
    with pytest.raises(MorrisError, match="in a mill"):
        s.capture(P("B1"))
    assert s.pending_captures == 1  # nothing changed
    s.capture(P("C7"))
    # every black piece is in a mill now: any of them may go
    s2 = MorrisState()
    # each still has one in hand (placing phase)
    _setup(s2, white=["A0", "A1", "A3", "C5"], black=["B0", "B1", "B2"], to_move=0, in_hand=(1, 1))
    assert s2.pieces[1][3] == UNPLACED and s2.pieces[0][4] == UNPLACED
    s2.place(P("A2"))
    assert {point_name(p) for p in s2.capturable(1)} == {"B0", "B1", "B2"}
    s2.capture(P("B1"))
    assert s2.to_move == 1 and not s2.over


def test_double_mill_configurable() -> None:
    opening = ["A1", "B0", "A2", "B1", "A6", "C0", "A7", "C1"]
    s = MorrisState(MorrisRules(double_mill_captures=2))
    play(s, *opening)
    rec = s.place(P("A0"))
    assert rec.mills == 2 and rec.captures == 2
    s.capture(P("B0"))
    assert s.pending_captures == 1 and s.to_move == 0
    s.capture(P("C0"))
    assert s.to_move == 1
    s = MorrisState()
    play(s, *opening)
    rec = s.place(P("A0"))
    assert rec.mills == 2 and rec.captures == 1


def test_flying() -> None:
    s = MorrisState()
    _setup(s, white=["A0", "A1", "C5"], black=["B4", "B5", "B6", "C3"], to_move=0)
    assert s.phase(0) == "flying" and s.phase(1) == "moving"
    assert len(s.legal_moves()) == 3 * 17
    s.move(P("C5"), P("A2"))
    assert s.pending_captures == 1
    s.capture(P("C3"))
    assert not s.over and s.phase(1) == "flying"
    s.move(P("B4"), P("A3"))  # black flies too
    assert s.pieces[1][0] == P("A3")


def _setup(
    s: MorrisState,
    white: list[str],
    black: list[str],
    to_move: int,
    in_hand: tuple[int, int] = (0, 0),
) -> None:
    s.set_position([P(n) for n in white], [P(n) for n in black], to_move, in_hand)
    for player, names in ((0, white), (1, black)):
        for i, name in enumerate(names):
            assert s.pieces[player][i] == P(name) and s.board[P(name)] == (player, i)
        assert s.pieces[player][len(names) + in_hand[player] :] == [CAPTURED] * (
            9 - len(names) - in_hand[player]
        )


def test_loss_by_fewer_than_three() -> None:
    s = MorrisState()
    _setup(s, white=["A0", "A1", "A3", "C6"], black=["B4", "B5", "B6"], to_move=0)
    s.move(P("A3"), P("A2"))
    s.capture(P("B5"))
    assert s.over and s.outcome is not None
    assert s.outcome.winner == 0 and s.outcome.reason == "pieces"
    assert s.legal_moves() == []
    with pytest.raises(MorrisError, match="over"):
        s.move(P("A0"), P("A7"))


def test_loss_by_blocking() -> None:
    s = MorrisState()
    _setup(
        s,
        white=["A7", "A2", "B1", "C1", "C7", "C2", "C4", "B3", "B5"],
        black=["A0", "A1", "C0", "C3"],
        to_move=0,
    )
    s.move(P("B5"), P("B4"))
    assert s.over and s.outcome is not None
    assert s.outcome.winner == 0 and s.outcome.reason == "blocked"


def test_threefold_repetition_draw() -> None:
    s = _moving_position()
    loop = ["A0:A7", "B0:B7", "A7:A0", "B7:B0"]
    play(s, *loop)
    assert not s.over
    play(s, *loop)
    assert s.over and s.outcome is not None
    assert s.outcome.winner is None and s.outcome.reason == "repetition"


def test_repetition_off_and_turn_limit() -> None:
    s = _moving_position()
    s.rules = MorrisRules(repetitions=0, max_turns=30)
    loop = ["A0:A7", "B0:B7", "A7:A0", "B7:B0"]
    assert s.turns == 18  # placements are turns too
    i = 0
    while not s.over:
        play(s, loop[i % 4])
        i += 1
    assert s.turns == 30 and s.outcome is not None
    assert s.outcome.reason == "turns" and s.outcome.winner is None


def test_resign() -> None:
    s = MorrisState()
    s.resign(1, "timeout")
    assert s.outcome is not None and s.outcome.winner == 0 and s.outcome.reason == "timeout"


def _random_game(seed: int, rules: MorrisRules) -> MorrisState:
    rng = random.Random(seed)
    s = MorrisState(rules)
    for _ in range(2000):
        if s.over:
            break
        legal = s.legal_moves()
        assert legal
        for m in legal:
            assert s.can(m)
        m = rng.choice(legal)
        before = sum(s.alive(p) for p in (0, 1))
        rec = s.apply(m)
        assert rec.move == m
        # invariants: board and piece list agree; identities never change owners
        for p in (0, 1):
            for i, pos in enumerate(s.pieces[p]):
                if pos >= 0:
                    assert s.board[pos] == (p, i)
        assert sum(1 for c in s.board if c is not None) == s.on_board(0) + s.on_board(1)
        # the masks agree with the piece list
        for p in (0, 1):
            assert s.own[p] == sum(1 << q for q in s.pieces[p] if q >= 0)
            assert s.in_hand(p) == s.pieces[p].count(UNPLACED)
        after = sum(s.alive(p) for p in (0, 1))
        assert before - after == (1 if m.kind == "capture" else 0)
    assert s.over
    return s


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), double=st.sampled_from([1, 2]))
def test_random_playout(seed: int, double: int) -> None:
    s = _random_game(seed, MorrisRules(double_mill_captures=double))
    assert s.outcome is not None
    if s.outcome.reason == "pieces":
        assert s.alive(1 - s.outcome.winner) < 3  # type: ignore[operator]
