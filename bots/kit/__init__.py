"""The generic bots of kit games (``hub.kit``): ``kit-random`` (a random legal move) and
``kit-mcts`` (a Monte-Carlo tree search over the game's own engine).  They play every
kit game type loaded in the hub, dropped-in ones included, with no code of the game's:
the driver (``hub.play.botdriver``) asks them in its worker thread with the decision's time
left, and the search stops by then.

A kit game of an isolated plugin (``hub.plugins.isolation``) has no engine in the hub:
``kit-random`` plays it from the legal actions alone, and ``kit-mcts`` asks a worker of
that game type to search (:meth:`hub.plugins.isolation.host.IsolatedFactory.think`, from the
seat's view and legal actions, with the decision's time); when that worker cannot
answer (it failed, or is out of time) the bot plays a random legal move."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from twisted.internet import defer
from twisted.logger import Logger
from zope.interface import implementer

from hub import kit
from hub.interfaces import IBot, IBotFactory
from hub.kit.players import MAX_SECONDS, TIME_SHARE, choose_move
from hub.optional_interfaces import IDeferredBot
from hub.plugins.isolation.host import IsolatedFactory, kit_type, kit_types

log = Logger()


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


@implementer(IBot, IDeferredBot)
class IsolatedKitBot:
    """One seat of one game of an isolated kit game type: ``random`` from the legal
    actions, ``mcts`` searched in a worker of the type (a random move if it fails)."""

    def __init__(self, game_type: IsolatedFactory, seat: int, policy: str, seed: object):
        self.game_type = game_type
        self.seat = seat
        self.policy = policy
        self.rng = random.Random(None if seed is None else f"{seed}/{seat}")

    def choose(
        self, view: Mapping[str, object], legal: Sequence[Mapping[str, object]], deadline: float
    ) -> dict[str, object]:
        """A random legal action (what the bot plays when no search answers)."""
        return {"move": legal[self.rng.randrange(len(legal))].get("move")}

    def choose_later(
        self, view: Mapping[str, object], legal: Sequence[Mapping[str, object]], deadline: float
    ) -> defer.Deferred[dict[str, object]]:
        """The search's move, from the game type's worker, within ``deadline``."""
        fallback = self.choose(view, legal, deadline)
        if self.policy == "random":
            return defer.succeed(fallback)
        seconds = min(MAX_SECONDS, max(0.01, deadline * TIME_SHARE))
        seed = self.rng.getrandbits(256).to_bytes(32, "big")
        d = self.game_type.think(self.seat, self.policy, view, list(legal), seconds, seed)

        def searched(move: object) -> dict[str, object]:
            return {"move": move}

        def failed(failure: object) -> dict[str, object]:
            log.warn(
                "kit bot {policy} on {game}: no search ({why}); a random move",
                policy=self.policy,
                game=self.game_type.name,
                why=str(getattr(failure, "value", failure)),
            )
            return fallback

        return d.addCallbacks(searched, failed)


@implementer(IBotFactory)
class KitBotFactory:
    """A generic bot: it plays every kit game type loaded (:func:`hub.kit.loaded_types`)."""

    name = ""
    summary = ""
    policy = ""

    @property
    def games(self) -> tuple[str, ...]:
        """Every kit game type loaded now, in the hub or isolated."""
        return tuple(sorted({*kit.loaded_types(), *kit_types()}))

    def create(
        self, game_type: str, seat: int, options: Mapping[str, object] | None
    ) -> KitBot | IsolatedKitBot:
        """A bot for one seat of a game of ``game_type``."""
        seed = (options or {}).get("bot_seed")
        engine = kit.game_type(game_type)
        if engine is not None:
            return KitBot(engine, seat, self.policy, seed)
        isolated = kit_type(game_type)
        if isolated is not None:
            return IsolatedKitBot(isolated, seat, self.policy, seed)
        raise kit.KitError(f"{game_type} is not a kit game")


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
