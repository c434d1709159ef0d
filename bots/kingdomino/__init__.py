"""King Domino bots: ``domino-random``, ``greedy`` and ``domino`` (flat Monte-Carlo).

In the hub each is an :class:`IBotFactory` plugin (``meta/domino-random.meta``,
``meta/greedy.meta``, ``meta/domino.meta``); over the network
``python -m bots.kingdomino --host H --port P --login NAME [--bot greedy]`` plays the
domino line protocol with the same decision code (:mod:`.policy`).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from zope.interface import implementer

from games.kingdomino import rules
from hub.interfaces import IBot, IBotFactory

from . import policy

GAME = "kingdomino"


class Brain:
    """One player's decisions on a :class:`rules.State`: ``decide(state, me, seconds)``
    returns a domino number or a :class:`rules.Placement`."""

    def __init__(self, kind: str, rng: random.Random, **options: Any) -> None:
        if kind not in ("random", "greedy", "montecarlo"):
            raise ValueError(f"no bot kind {kind!r}")
        self.kind = kind
        self.rng = rng
        self.mc = policy.MonteCarlo(rng, **options) if kind == "montecarlo" else None

    def decide(
        self, state: rules.State, me: int, seconds: float, hard: float | None = None
    ) -> int | rules.Placement:
        """The next choice or move of player ``me`` (thinking ``seconds``, at most
        ``hard`` when the search needs more rounds)."""
        choosing = state.phase == rules.CHOOSE
        if self.mc is not None:
            if choosing:
                return self.mc.choose(state, me, seconds, hard)
            return self.mc.move(state, me, seconds, hard)
        if self.kind == "greedy":
            if choosing:
                return policy.greedy_choice(state, me, self.rng)
            return policy.greedy_move(state, me, self.rng)
        if choosing:
            return policy.random_choice(state, me, self.rng)
        return policy.random_move(state, me, self.rng)


def to_action(decision: int | rules.Placement) -> dict[str, Any]:
    """A decision as a game action mapping."""
    if isinstance(decision, rules.Placement):
        return {"move": decision.as_list()}
    return {"choose": decision}


@implementer(IBot)
class KingDominoBot:
    """An in-hub King Domino player around a :class:`Brain`.

    :param think: the share of the deadline it means to think.
    :param most: the share it may take to finish the search's fewest rounds (a loaded
        machine); the rest is the answer's way back.
    """

    def __init__(
        self, seat: int, brain: Brain, think: float = 0.5, cap: float = 1.0, most: float = 0.85
    ) -> None:
        self.seat = seat
        self.brain = brain
        self.think = think
        self.most = most
        self.cap = cap
        #: the game as this bot follows it, brought up to date at each prompt
        self.state: rules.State | None = None

    def follow(self, view: Mapping[str, Any]) -> rules.State:
        """The game of ``view``: the followed state with what happened since the last
        prompt added (a new one only when ``view`` does not continue it)."""
        state = self.state
        if state is None or not state.catch_up(view, self.brain.rng):
            state = self.state = rules.State.from_public(view, self.brain.rng)
        return state

    def choose(
        self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], deadline: float
    ) -> Mapping[str, Any]:
        """Follow the game to ``view`` and decide; always one of ``legal``."""
        if len(legal) == 1:
            return legal[0]
        state = self.follow(view)
        seconds = max(0.01, min(self.cap, deadline * self.think))
        hard = max(seconds, min(2 * self.cap, deadline * self.most))
        action = to_action(self.brain.decide(state, self.seat, seconds, hard))
        return action if action in legal else self.brain.rng.choice(list(legal))


class _Factory:
    kind = "random"
    games = (GAME,)

    def create(self, game_type: str, seat: int, options: Any) -> KingDominoBot:
        """A bot for one seat (option ``think_seconds`` caps the Monte-Carlo time)."""
        options = options if isinstance(options, Mapping) else {}
        seed = options.get("bot_seed")
        rng = random.Random(seed + seat) if isinstance(seed, int) else random.Random()
        cap = options.get("think_seconds", 1.0)
        cap = float(cap) if isinstance(cap, int | float) and 0 < cap <= 60 else 1.0
        return KingDominoBot(seat, Brain(self.kind, rng), cap=cap)


@implementer(IBotFactory)
class RandomBotFactory(_Factory):
    """Uniformly random choices and placements (a baseline)."""

    name = "domino-random"
    summary = "King Domino: random picks and placements (a baseline)."
    kind = "random"


@implementer(IBotFactory)
class GreedyBotFactory(_Factory):
    """The best immediate score over every offered domino and placement."""

    name = "greedy"
    summary = "King Domino: the best immediate score over every offered domino and placement."
    kind = "greedy"


@implementer(IBotFactory)
class MonteCarloBotFactory(_Factory):
    """Flat Monte-Carlo over (placement, pick) with greedy-vs-random playouts."""

    name = "domino"
    summary = "King Domino: flat Monte-Carlo over (placement, pick), greedy playouts."
    kind = "montecarlo"
