"""Generic players of any kit game, over its engine alone: :func:`random_move` and a
Monte-Carlo tree search (:class:`MCTS`, UCT with random playouts, as boardgame.io's
bot), both pure: the in-hub bots (``bots/kit``) run them in the bot driver's worker
thread with its deadline, ``gamehub play --bot`` in the client.

The search plays from a state the engine restores from the seat's view
(:meth:`~hub.kit.engine.Engine.restore`): the true state for a game of perfect
information.  When several seats may move at once it explores the first one's moves.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

from .engine import Engine, KitError, rewards

S = TypeVar("S")
M = TypeVar("M")

#: how often (in iterations) the search looks at its clock
CHECK_EVERY = 16
#: the most moves a playout makes before it is scored as a draw
MAX_PLAYOUT = 1000


def random_move(engine: Engine[S, M], state: S, seat: int, rng: random.Random) -> M:
    """One of ``seat``'s legal moves, at random.

    :raises KitError: it has none."""
    legal = engine.legal(state, seat)
    if not legal:
        raise KitError(f"seat {seat} has no move to make")
    return legal[rng.randrange(len(legal))]


class _Node(Generic[S, M]):
    __slots__ = ("children", "mover", "proven", "state", "totals", "untried", "visits")

    def __init__(
        self,
        state: S,
        mover: int,
        untried: list[M],
        proven: list[float] | None,
        seats: int,
    ) -> None:
        self.state = state
        self.mover = mover
        self.untried = untried
        #: each seat's share when the outcome from here is known (MCTS-Solver)
        self.proven = proven
        self.children: list[tuple[M, _Node[S, M]]] = []
        self.visits = 0
        self.totals = [0.0] * seats

    def prove(self) -> bool:
        """Whether the outcome from here is known: a child the mover wins in, or every
        child lost by the mover (a known draw stays open: a weaker player may yet
        lose it)."""
        if self.proven is not None:
            return True
        mover = self.mover
        known = []
        for _, child in self.children:
            if child.proven is None:
                continue
            if child.proven[mover] == 1.0:
                self.proven = child.proven
                return True
            if child.proven[mover] > 0.0:
                return False
            known.append(child.proven)
        if self.untried or len(known) < len(self.children) or not known:
            return False
        self.proven = max(known, key=lambda p: p[mover])
        return True


class MCTS(Generic[S, M]):
    """UCT over ``engine`` for a game of ``seats`` seats.

    :param exploration: the UCT constant (1 by default: the rewards are in [0, 1]).
    :param rng: the playouts' random source.
    """

    def __init__(
        self,
        engine: Engine[S, M],
        seats: int,
        rng: random.Random | None = None,
        exploration: float = 1.0,
    ) -> None:
        self.engine = engine
        self.seats = seats
        self.rng = rng if rng is not None else random.Random()
        self.exploration = exploration
        self.iterations = 0  # of the last search

    def choose(
        self,
        state: S,
        seat: int,
        iterations: int | None = None,
        seconds: float | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> M:
        """The move of ``seat`` the search thinks best after ``iterations`` playouts or
        ``seconds`` of thinking (whichever ends first; at least one playout).

        :raises KitError: ``seat`` has no move to make."""
        legal = self.engine.legal(state, seat)
        if not legal:
            raise KitError(f"seat {seat} has no move to make")
        if len(legal) == 1:
            return legal[0]
        root = self._node(state, seat)
        if len(root.untried) == 1 or root.proven is not None:
            return root.untried[0]  # a win at once, the one move that does not lose, or lost
        if iterations is None and seconds is None:
            iterations = 1000
        due = None if seconds is None else clock() + seconds
        done = 0
        while iterations is None or done < iterations:
            if root.proven is not None and root.proven[seat] == 1.0:
                break  # a win is known
            self._iterate(root)
            done += 1
            if due is not None and done % CHECK_EVERY == 0 and clock() >= due:
                break
        self.iterations = done
        return self._best(root, seat)

    @staticmethod
    def _best(root: _Node[S, M], seat: int) -> M:
        """A move known to win, else the most visited of those not known to lose."""
        children = root.children
        if not children:
            return root.untried[0]
        for move, child in children:
            if child.proven is not None and child.proven[seat] == 1.0:
                return move
        open_ = [(m, c) for m, c in children if c.proven is None or c.proven[seat] > 0.0]
        return max(open_ or children, key=lambda pair: pair[1].visits)[0]

    def _node(self, state: S, seat: int | None = None) -> _Node[S, M]:
        """A node of the tree for ``state`` (``seat``: the one to move, else the first),
        its moves screened for decisive and anti-decisive ones (Teytaud and Teytaud,
        2010): a move that wins at once is the only one kept (and the node is known);
        moves after which the next seat wins at once are left out while others remain
        (when none remains, the node is known lost)."""
        engine, seats = self.engine, self.seats
        scores = engine.result(state)
        if scores is not None:
            return _Node(state, -1, [], rewards(scores), seats)
        if seat is None:
            movers = engine.to_move(state, seats)
            if not movers:
                return _Node(state, -1, [], [0.5] * seats, seats)
            seat = movers[0]
        legal = list(engine.legal(state, seat))
        safe: list[M] = []
        lost: list[float] | None = None
        for move in legal:
            after = engine.apply(state, seat, move)
            scores = engine.result(after)
            if scores is not None:
                if rewards(scores)[seat] == 1.0:
                    return _Node(state, seat, [move], rewards(scores), seats)
                safe.append(move)
                continue
            threat = self._threat(after, seat)
            if threat is None:
                safe.append(move)
            else:
                lost = threat
        if not safe and lost is not None:
            return _Node(state, seat, legal, lost, seats)
        self.rng.shuffle(safe)
        return _Node(state, seat, safe, None, seats)

    def _threat(self, state: S, seat: int) -> list[float] | None:
        """The shares of an end the next seat to move in ``state`` can bring at once with
        ``seat`` beaten, or ``None``."""
        engine = self.engine
        for other in range(self.seats):  # the state is not over: legal() says who moves
            if other == seat:
                continue
            for reply in engine.legal(state, other):
                scores = engine.result(engine.apply(state, other, reply))
                if scores is not None and rewards(scores)[seat] < 0.5:
                    return rewards(scores)
        return None

    def _iterate(self, root: _Node[S, M]) -> None:
        engine = self.engine
        node, path = root, [root]
        while node.proven is None and not node.untried and node.children:  # selection
            node = self._select(node)
            path.append(node)
        if node.proven is None and node.untried:  # expansion
            move = node.untried.pop()
            child = self._node(engine.apply(node.state, node.mover, move))
            node.children.append((move, child))
            node = child
            path.append(node)
        shares = node.proven if node.proven is not None else rewards(self._playout(node.state))
        for visited in path:  # back-propagation
            visited.visits += 1
            for s, share in enumerate(shares):
                visited.totals[s] += share
        for parent in reversed(path[:-1]):  # what is now known, upwards
            if not parent.prove():
                break

    def _select(self, node: _Node[S, M]) -> _Node[S, M]:
        log_n = math.log(node.visits)
        mover, c = node.mover, self.exploration

        def ucb(pair: tuple[M, _Node[S, M]]) -> float:
            child = pair[1]
            if child.proven is not None:  # known: its value, no more exploring
                return child.proven[mover]
            return child.totals[mover] / child.visits + c * math.sqrt(log_n / child.visits)

        return max(node.children, key=ucb)[1]

    def _playout(self, state: S) -> Sequence[float]:
        engine, rng, seats = self.engine, self.rng, self.seats
        for _ in range(MAX_PLAYOUT):
            scores = engine.result(state)
            if scores is not None:
                return scores
            movers = engine.to_move(state, seats)
            if not movers:
                break
            seat = movers[0]
            legal = engine.legal(state, seat)
            pick = rng.randrange(len(legal))
            after = state
            for i, move in enumerate(legal):  # a move that wins at once is played
                done = engine.apply(state, seat, move)
                scores = engine.result(done)
                if scores is not None and rewards(scores)[seat] == 1.0:
                    return scores
                if i == pick:
                    after = done
            state = after
        return [0.0] * seats


__all__ = ["MCTS", "random_move"]
