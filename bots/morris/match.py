"""Play morris bots against each other in-process, refereed by the real engine.

Used by ``bench/morris_strength.py`` and the tests; no hub and no network.
"""

from __future__ import annotations

from typing import Any

from games.morris import rules


def view_of(state: rules.MorrisState) -> dict[str, Any]:
    """The part of the game's view the bots read."""
    return {
        "pieces": state.piece_list(),
        "to_move": state.to_move,
        "capture": state.pending_captures,
        "in_hand": [state.in_hand(0), state.in_hand(1)],
        "history": [r.move.text() for r in state.history],
    }


def play(
    white: Any, black: Any, game_rules: rules.MorrisRules | None = None, seconds: float = 1.0
) -> rules.MorrisState:
    """Play one game; ``white`` and ``black`` provide ``IBot``.  Returns the final state.

    A bot that answers with an illegal move loses the game (reason ``illegal``).
    """
    state = rules.MorrisState(game_rules or rules.MorrisRules())
    bots = (white, black)
    while not state.over:
        legal = [{"move": m.text()} for m in state.legal_moves()]
        seat = state.to_move
        action = bots[seat].choose(view_of(state), legal, seconds)
        try:
            state.apply(state.parse(action["move"]))
        except rules.MorrisError:
            state.resign(seat, "illegal")
    return state
