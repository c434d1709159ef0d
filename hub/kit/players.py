"""How a generic player picks a kit game's move from what it is shown: the seat's view
(``KitGame.view``: the engine's ``view`` under ``game``) and the legal actions
(``{"move", "label"}``).  Shared by the in-hub bots (``bots/kit``) and ``gamehub play
--bot``, so a bot plays the same in the hub and over the network."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from .engine import Engine, Json, KitError, jsonable
from .search import MCTS

#: the policies of the generic bots
POLICIES = ("random", "mcts")
#: share of the time given that the search may use (the rest: handing the answer back)
TIME_SHARE = 0.7
#: the most seconds one search thinks
MAX_SECONDS = 2.5


def choose_move(
    engine: Engine[object, object],
    policy: str,
    view: Mapping[str, object],
    legal: Sequence[Mapping[str, object]],
    seat: int,
    rng: random.Random,
    seconds: float | None = None,
    iterations: int | None = None,
) -> Json:
    """The move (as JSON) that ``policy`` plays for ``seat``: one of ``legal`` at random,
    or the search's, over the state the engine restores from the view (at random when
    it cannot restore one).

    :raises KitError: ``legal`` is empty or ``policy`` unknown."""
    if policy not in POLICIES:
        raise KitError(f"no policy {policy!r} (known: {', '.join(POLICIES)})")
    moves = [jsonable(a.get("move")) for a in legal]
    if not moves:
        raise KitError("no legal move to choose from")
    if policy == "mcts":
        players = view.get("players")
        seats = len(players) if isinstance(players, list) else 2
        try:
            state = engine.restore(jsonable(view.get("game")), seat)
        except (KitError, NotImplementedError, TypeError, KeyError):
            state = None
        if state is not None and engine.legal(state, seat):
            if seconds is not None:
                seconds = min(MAX_SECONDS, max(0.01, seconds * TIME_SHARE))
            move = jsonable(MCTS(engine, seats, rng).choose(state, seat, iterations, seconds))
            if move in moves:
                return move
    return moves[rng.randrange(len(moves))]


__all__ = ["MAX_SECONDS", "POLICIES", "TIME_SHARE", "choose_move"]
