"""Nine Men's Morris bots: ``morris`` (alpha-beta search) and ``morris-random``.

Both are bot plugins (``IBotFactory``) for the ``nmmorris`` game; ``python -m
bots.morris`` runs the same decision code as a network client of the MNM protocol.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from zope.interface import implementer

from hub.interfaces import IBot, IBotFactory

from .search import Replay, Searcher, position_from_pieces, turn_text

__all__ = [
    "MorrisBot",
    "RandomMorrisBot",
    "Searcher",
    "decide",
    "MorrisBotFactory",
    "RandomMorrisBotFactory",
]

#: Share of the time it is given that the search may use: the rest covers the search's
#: own overrun (it looks at the clock every 64 nodes) and handing the answer back.  The
#: hub's bot driver gives an in-hub bot the decision's time left less what answers
#: cost on this machine (:class:`hub.play.botdriver.LoadMargin`).
TIME_SHARE = 0.7
MAX_SECONDS = 2.5


def decide(searcher: Searcher, view: Mapping[str, Any], seconds: float | None) -> tuple[str, Any]:
    """The move text for the decision in ``view`` and the search result."""
    pos = position_from_pieces(view["pieces"], int(view["to_move"]))
    pending = int(view.get("capture") or 0)
    history = view.get("history")
    if isinstance(history, list):
        known = searcher.replay
        if known is None or known.double != searcher.double or not known.follows(history):
            known = searcher.replay = Replay(searcher.double)
        known.feed(history[known.count :])
        searcher.history = known.seen
        searcher.ignore = pos
    result = searcher.best(pos, seconds, pending)
    texts = turn_text(result.turn)
    return texts[0], result


@implementer(IBot)
class MorrisBot:
    """Iterative-deepening alpha-beta within a share of the move time."""

    def __init__(
        self,
        rng: random.Random | None = None,
        double: int = 1,
        max_depth: int = 64,
        max_nodes: int = 0,
        max_seconds: float = MAX_SECONDS,
    ) -> None:
        self.searcher = Searcher(
            max_depth=max_depth, max_nodes=max_nodes, double=double, rng=rng or random.Random()
        )
        self.max_seconds = max_seconds
        self.last: Any = None

    def choose(
        self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], deadline: float
    ) -> dict[str, Any]:
        """The best move found in ``min(deadline * TIME_SHARE, max_seconds)`` seconds."""
        seconds = max(0.01, min(deadline * TIME_SHARE, self.max_seconds))
        text, self.last = decide(self.searcher, view, seconds)
        action = {"move": text}
        if legal and action not in legal:
            return dict(legal[0])  # cannot happen unless the rules disagree; stay legal
        return action


@implementer(IBot)
class RandomMorrisBot:
    """Plays a uniformly random legal move."""

    def __init__(self, rng: random.Random | None = None) -> None:
        self.rng = rng or random.Random()

    def choose(
        self, view: Mapping[str, Any], legal: Sequence[Mapping[str, Any]], deadline: float
    ) -> dict[str, Any]:
        """Any legal move."""
        return dict(self.rng.choice(list(legal)))


def _double(options: Mapping[str, Any] | None) -> int:
    value = (options or {}).get("double_mill_captures", 1)
    return value if value in (1, 2) else 1


@implementer(IBotFactory)
class MorrisBotFactory:
    """The ``morris`` bot plugin."""

    name = "morris"
    summary = "Nine Men's Morris: alpha-beta search with a transposition table."
    games = ("nmmorris",)

    def create(self, game_type: str, seat: int, options: Any) -> MorrisBot:
        """A bot for one seat."""
        return MorrisBot(double=_double(options))


@implementer(IBotFactory)
class RandomMorrisBotFactory:
    """The ``morris-random`` bot plugin."""

    name = "morris-random"
    summary = "Nine Men's Morris: random legal moves (a baseline)."
    games = ("nmmorris",)

    def create(self, game_type: str, seat: int, options: Any) -> RandomMorrisBot:
        """A bot for one seat."""
        return RandomMorrisBot()
