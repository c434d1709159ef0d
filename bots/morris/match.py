"""Play morris bots against each other in-process, refereed by the real engine.

Used by ``bench/morris_strength.py`` and the tests; no hub and no network.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from games.morris import rules


def view_of(state: rules.MorrisState, texts: list[str] | None = None) -> dict[str, Any]:
    """The part of the game's view the bots read.

    :param texts: the moves' texts so far, kept by the caller as the game goes (else
        formatted here from the whole history).
    """
    if texts is None:
        texts = [r.move.text() for r in state.history]
    else:
        texts.extend(r.move.text() for r in state.history[len(texts) :])
    return {
        "pieces": state.piece_list(),
        "to_move": state.to_move,
        "capture": state.pending_captures,
        "in_hand": [state.in_hand(0), state.in_hand(1)],
        "history": list(texts),
    }


def play(
    white: Any, black: Any, game_rules: rules.MorrisRules | None = None, seconds: float = 1.0
) -> rules.MorrisState:
    """Play one game; ``white`` and ``black`` provide ``IBot``.  Returns the final state.

    A bot that answers with an illegal move loses the game (reason ``illegal``).
    """
    state = rules.MorrisState(game_rules or rules.MorrisRules())
    bots = (white, black)
    texts: list[str] = []
    while not state.over:
        legal = [{"move": m.text()} for m in state.legal_moves()]
        seat = state.to_move
        action = bots[seat].choose(view_of(state, texts), legal, seconds)
        try:
            state.apply(state.parse(action["move"]))
        except rules.MorrisError:
            state.resign(seat, "illegal")
    return state


def series(
    games: int,
    opponent: Callable[[random.Random], Any],
    seed: int,
    seconds: float = 0.1,
    nodes: int = 0,
    played: Callable[[int, int, int], object] | None = None,
) -> tuple[int, int, int]:
    """``games`` seeded games of ``morris`` against ``opponent(rng)``, colours
    alternating; returns morris's wins, draws and losses.

    :param seconds: morris's time per move.
    :param nodes: morris's search nodes per move as well (0: the time alone bounds it;
        with a budget the games are the same on any machine).
    :param played: called with the running W/D/L after each game.
    """
    from . import MorrisBot

    wins = draws = losses = 0
    for i in range(games):
        limit = 3600.0 if nodes else seconds
        morris = MorrisBot(rng=random.Random(seed + i), max_seconds=limit, max_nodes=nodes)
        other = opponent(random.Random(seed * 7 + i))
        seat = i % 2
        white, black = (morris, other) if seat == 0 else (other, morris)
        outcome = play(white, black, seconds=3600.0 if nodes else 60.0).outcome
        assert outcome is not None
        if outcome.winner is None:
            draws += 1
        elif outcome.winner == seat:
            wins += 1
        else:
            losses += 1
        if played is not None:
            played(wins, draws, losses)
    return wins, draws, losses


def score(wins: int, draws: int, losses: int) -> tuple[float, float]:
    """The score (a draw counts half) and the half-width of its 95% interval."""
    n = max(1, wins + draws + losses)
    mean = (wins + 0.5 * draws) / n
    return mean, 1.96 * math.sqrt(max(mean * (1 - mean), 1e-9) / n)
