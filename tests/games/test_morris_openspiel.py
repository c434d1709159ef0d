"""Cross-check of the morris engine's legal moves against OpenSpiel's ``nine_mens_morris``.

OpenSpiel numbers its 24 points row by row on the drawing; the mapping to our ``A0``..``C7``
is derived here from the board OpenSpiel draws (place a piece, find it on the picture),
not typed in by hand.
"""

from __future__ import annotations

import os
import random

import pytest

from games.morris import rules
from games.morris.rules import MorrisRules, MorrisState, Move

pyspiel = pytest.importorskip(
    "pyspiel", reason="open-spiel is not installed (pip install open-spiel)"
)

GAMES = 10_000 if os.environ.get("GAMEHUB_SOAK") == "full" else 1_000
#: Character columns of the points in OpenSpiel's drawing → grid column.
_COLS = {0: 0, 2: 1, 4: 2, 7: 3, 10: 4, 12: 5, 14: 6}


def _mapping() -> dict[int, int]:
    """OpenSpiel point number → our point, found by where OpenSpiel draws it."""
    game = pyspiel.load_game("nine_mens_morris")
    by_coord = {xy: p for p, xy in enumerate(rules.COORDS)}
    mapping = {}
    for n in range(24):
        state = game.new_initial_state()
        state.apply_action(n)
        lines = str(state).splitlines()
        spots = [
            (r, c) for r, line in enumerate(lines[:13]) for c, ch in enumerate(line) if ch == "W"
        ]
        assert len(spots) == 1
        r, c = spots[0]
        mapping[n] = by_coord[(_COLS[c], r // 2)]
    return mapping


MAP = _mapping()


def _ours(text: str) -> tuple[int | None, int]:
    """An OpenSpiel action string → (source, destination) in our numbering."""
    if text.startswith("Point "):
        return None, MAP[int(text.split()[1])]
    assert text.startswith("Move "), text
    _, a, _, b = text.split()
    return MAP[int(a)], MAP[int(b)]


def test_mapping_is_the_geometry() -> None:
    assert sorted(MAP.values()) == list(range(24))
    # OpenSpiel's point 0 is the outer top-left corner, 23 the outer bottom-right.
    assert rules.point_name(MAP[0]) == "A0"
    assert rules.point_name(MAP[23]) == "A4"
    assert rules.point_name(MAP[4]) == "B1"


def test_legal_moves_agree_with_openspiel() -> None:
    game = pyspiel.load_game("nine_mens_morris")
    rng = random.Random(20261129)
    positions = 0
    ends = {"pieces": 0, "blocked": 0, "turns": 0}
    for _ in range(GAMES):
        theirs = game.new_initial_state()
        ours = MorrisState(MorrisRules(repetitions=0, max_turns=200))
        while True:
            positions += 1
            assert theirs.is_terminal() == ours.over, str(theirs)
            if ours.over:
                returns = theirs.returns()
                assert ours.outcome is not None
                if ours.outcome.winner is None:
                    assert returns == [0.0, 0.0]
                else:
                    assert returns[ours.outcome.winner] == 1.0
                ends[ours.outcome.reason] += 1
                break
            assert theirs.current_player() == ours.to_move
            actions = theirs.legal_actions()
            theirs_set = {_ours(theirs.action_to_string(a)) for a in actions}
            ours_set = {(m.src, m.dst) for m in ours.legal_moves()}
            assert ours_set == theirs_set, str(theirs)
            action = rng.choice(actions)
            src, dst = _ours(theirs.action_to_string(action))
            mover = theirs.current_player()
            theirs.apply_action(action)
            kind = "move" if src is not None else "capture" if ours.pending_captures else "place"
            ours.apply(Move(kind, dst, src))
            # a capture is pending exactly when OpenSpiel lets the same player act again
            if not theirs.is_terminal():
                assert (theirs.current_player() == mover) == (ours.pending_captures > 0)
    assert positions > GAMES * 50
    # random games end both by captures and by the turn limit (blocked endings are rare
    # in random play; test_morris_rules covers them)
    assert ends["pieces"] and ends["turns"], ends
