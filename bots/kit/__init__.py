"""The generic bots of kit games (``hub.kit``): ``kit-random`` (a random legal move) and
``kit-mcts`` (a Monte-Carlo tree search over the game's own engine).  They play every
kit game type loaded in the hub, dropped-in ones included, with no code of the game's:
the driver (``hub.botdriver``) asks them in its worker thread with the decision's time
left, and the search stops by then."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from zope.interface import implementer

from hub import kit
from hub.interfaces import IBot, IBotFactory
from hub.kit.players import choose_move


@implementer(IBot)
class KitBot:
    """One seat of one kit game, played by ``policy``."""

    def __init__(self, engine: kit.Engine[object, object], seat: int, policy: str, seed: object):
        self.engine = engine
        self.seat = seat
        self.policy = policy
        self.rng = random.Random(None if seed is None else f"{seed}/{seat}")

    def choose(
        self, view: Mapping[str, object], legal: Sequence[Mapping[str, object]], deadline: float
    ) -> dict[str, kit.Json]:
        """A legal action within ``deadline`` seconds."""
        move = choose_move(self.engine, self.policy, view, legal, self.seat, self.rng, deadline)
        return {"move": move}


@implementer(IBotFactory)
class KitBotFactory:
    """A generic bot: it plays every kit game type loaded (:func:`hub.kit.loaded_types`)."""

    name = ""
    summary = ""
    policy = ""

    @property
    def games(self) -> tuple[str, ...]:
        """Every kit game type loaded now."""
        return tuple(kit.loaded_types())

    def create(self, game_type: str, seat: int, options: Mapping[str, object] | None) -> KitBot:
        """A bot for one seat of a game of ``game_type``."""
        engine = kit.game_type(game_type)
        if engine is None:
            raise kit.KitError(f"{game_type} is not a kit game")
        seed = (options or {}).get("bot_seed")
        return KitBot(engine, seat, self.policy, seed)


class RandomBotFactory(KitBotFactory):
    """``kit-random``."""

    name = "kit-random"
    summary = "Any kit game: a random legal move (a baseline)."
    policy = "random"


class MCTSBotFactory(KitBotFactory):
    """``kit-mcts``."""

    name = "kit-mcts"
    summary = "Any kit game: Monte-Carlo tree search over the game's own rules."
    policy = "mcts"
