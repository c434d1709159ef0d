"""King Domino decision code shared by the in-hub bots and the network client.

Every policy takes a :class:`games.kingdomino.rules.State` (the real one, or one
rebuilt from what a player may see) and the deciding player, and returns a domino
number (a choice) or a :class:`~games.kingdomino.rules.Placement` (a move).

- :func:`random_choice`, :func:`random_move`: uniform baselines.
- :func:`greedy_choice`, :func:`greedy_move`: the best immediate score over every
  offered domino and every placement.
- :class:`MonteCarlo`: flat Monte-Carlo over (placement, pick) pairs: each candidate
  is scored by playouts of the rest of the game (hidden draws dealt at random) in which
  every player plays greedily (or the others at random); the best mean margin wins.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from games.kingdomino import rules
from games.kingdomino.rules import Kingdom, Placement, State


def random_choice(state: State, player: int, rng: random.Random) -> int:
    """A random available domino."""
    return rng.choice(state.available())


def random_move(state: State, player: int, rng: random.Random) -> Placement:
    """A random legal placement."""
    return state.kingdoms[player].random_placement(rng)


def best_placement(kingdom: Kingdom, domino: int, rng: random.Random) -> tuple[int, Placement]:
    """The placement of ``domino`` that raises the score most (ties broken at random)."""
    gain, placements = kingdom.best_placements([domino])[domino]
    return gain, rng.choice(placements)


def _greedy_pick(state: State, player: int, rng: random.Random) -> tuple[int, Placement]:
    kingdom = state.kingdoms[player]
    table = kingdom.best_placements(state.available())
    best = max(table, key=lambda d: (table[d][0], rng.random()))
    return best, rng.choice(table[best][1])


def greedy_choice(state: State, player: int, rng: random.Random) -> int:
    """The available domino whose best placement scores most now."""
    return _greedy_pick(state, player, rng)[0]


def greedy_move(state: State, player: int, rng: random.Random) -> Placement:
    """The placement of the pending domino that scores most now."""
    domino = state.pending_domino(player)
    assert domino is not None
    return best_placement(state.kingdoms[player], domino, rng)[1]


def ranked_placements(state: State, player: int, limit: int) -> list[Placement]:
    """The ``limit`` placements of the pending domino with the highest immediate gain."""
    domino = state.pending_domino(player)
    assert domino is not None
    kingdom = state.kingdoms[player]
    scored = sorted(
        ((kingdom.gain(domino, p), i, p) for i, p in enumerate(kingdom.legal_placements())),
        key=lambda t: (-t[0], t[1]),
    )
    return [p for _, _, p in scored[:limit]]


def _fast_greedy_choice(state: State, player: int, rng: random.Random, plan: dict) -> int:
    """Greedy choice that remembers the best placement for the later move."""
    domino, placement = _greedy_pick(state, player, rng)
    plan[domino] = placement
    return domino


def playout(state: State, me: int, rng: random.Random, greedy_others: bool = False) -> None:
    """Play ``state`` to the end: ``me`` greedily, everyone else at random (or greedily
    too, with ``greedy_others``)."""
    plans: dict[int, dict[int, Placement]] = {}
    while not state.over:
        p = state.to_act
        assert p is not None
        greedy = p == me or greedy_others
        if state.phase == rules.CHOOSE:
            if greedy:
                state.choose(p, _fast_greedy_choice(state, p, rng, plans.setdefault(p, {})))
            else:
                state.choose(p, rng.choice(state.available()))
        else:
            if greedy:
                domino = state.pending_domino(p)
                plan = plans.get(p, {})
                placement = plan.pop(domino, None) if domino is not None else None
                if placement is None or not state.kingdoms[p].can_place(placement):
                    placement = greedy_move(state, p, rng)
                state.move(p, placement)
            else:
                state.move(p, state.kingdoms[p].random_placement(rng))


def margin(state: State, me: int) -> float:
    """My score minus the best other score (the playout's value)."""
    scores = state.scores()
    others = [s for i, s in enumerate(scores) if i != me]
    return float(scores[me] - (max(others) if others else 0))


@dataclass(frozen=True)
class Candidate:
    """One option: an optional placement now, then an optional pick."""

    placement: Placement | None
    pick: int | None


class MonteCarlo:
    """Flat Monte-Carlo evaluation of (placement, pick) pairs.

    :param placements: how many of the best-gain placements to consider.
    :param playouts: playouts per candidate (``None``: as many as time allows).
    :param seconds: thinking time per decision when ``playouts`` is ``None``.
    :param clock: a monotonic clock (injected for tests).
    :param min_rounds: with a time budget, rounds (a playout per candidate) it plays past
        the budget, as long as the next one still ends before the hard limit
        (``search(..., hard=...)``): a loaded machine does not leave it a coin toss.
    :param greedy_others: in the playouts the other players play greedily too (the
        default: a better guess at what they do than random play; else at random).
    """

    def __init__(
        self,
        rng: random.Random,
        placements: int = 5,
        playouts: int | None = None,
        seconds: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        greedy_others: bool = True,
        min_rounds: int = 4,
    ) -> None:
        self.rng = rng
        self.greedy_others = greedy_others
        self.placements = placements
        self.playouts = playouts
        self.seconds = seconds
        self.min_rounds = min_rounds
        self._clock = clock
        self._plan: tuple[int, int] | None = None  # (round, pick) decided with the move
        self.last_stats: dict[int, tuple[float, int]] = {}

    def candidates(self, state: State, me: int) -> list[Candidate]:
        """Every (placement, pick) pair worth evaluating now."""
        picks: list[int | None] = list(state.available()) or [None]
        if state.phase == rules.MOVE:
            places: list[Placement | None] = list(ranked_placements(state, me, self.placements))
        else:
            places = [None]
        return [Candidate(pl, pk) for pl in places for pk in picks]

    def _evaluate(self, state: State, me: int, candidate: Candidate) -> float:
        sim = state.copy()
        sim.resample_future(self.rng)
        if candidate.placement is not None:
            sim.move(me, candidate.placement)
        if candidate.pick is not None:
            sim.choose(me, candidate.pick)
        playout(sim, me, self.rng, self.greedy_others)
        return margin(sim, me)

    def search(
        self, state: State, me: int, seconds: float | None = None, hard: float | None = None
    ) -> Candidate:
        """The candidate with the best mean playout margin, searched for ``seconds``
        (and, while fewer than ``min_rounds`` rounds were played, for as long as the
        next round would end within ``hard`` seconds: its own clock says how long a
        round takes)."""
        cands = self.candidates(state, me)
        if len(cands) == 1:
            return cands[0]
        totals = [0.0] * len(cands)
        counts = [0] * len(cands)
        budget = self.seconds if seconds is None else seconds
        start = self._clock()
        stop = start + budget
        limit = start + max(budget, hard or 0.0)
        rounds = 0
        while True:
            for i, c in enumerate(cands):
                totals[i] += self._evaluate(state, me, c)
                counts[i] += 1
            rounds += 1
            if self.playouts is not None:
                if rounds >= self.playouts:
                    break
                continue
            now = self._clock()
            if now >= stop and (rounds >= self.min_rounds or now + (now - start) / rounds > limit):
                break
        best = max(range(len(cands)), key=lambda i: (totals[i] / counts[i], -i))
        self.last_stats = {i: (totals[i] / counts[i], counts[i]) for i in range(len(cands))}
        return cands[best]

    def choose(
        self, state: State, me: int, seconds: float | None = None, hard: float | None = None
    ) -> int:
        """A pick (uses the pick planned with this turn's move when there was one)."""
        if self._plan is not None:
            round_, pick = self._plan
            self._plan = None
            if round_ == state.round and state.can_choose(me, pick):
                return pick
        candidate = self.search(state, me, seconds, hard)
        assert candidate.pick is not None
        return candidate.pick

    def move(
        self, state: State, me: int, seconds: float | None = None, hard: float | None = None
    ) -> Placement:
        """A placement; the pick that went with it is kept for the following choice."""
        candidate = self.search(state, me, seconds, hard)
        assert candidate.placement is not None
        self._plan = (state.round, candidate.pick) if candidate.pick is not None else None
        return candidate.placement
