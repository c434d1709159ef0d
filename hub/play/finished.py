"""What a finished game keeps of its engine once it is retired: :class:`FinishedEngine`
(:meth:`hub.play.game.GameInstance.retire`)."""

from __future__ import annotations

import pickle
import random
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from zope.interface import implementer

from hub.interfaces import IGame
from hub.model import OVER, Conflict, GameContext, IllegalAction
from hub.play.summary import share_equal


@implementer(IGame)
class FinishedEngine:
    """What a finished game keeps of its engine once it is retired: the final views
    (public and per seat) and the result.  Everything else is in the store's history
    and the transcript file.

    The views are kept pickled, in one string of bytes (a finished King Domino game's
    boards were some 200 small lists; a view is read seldom once a game is over, and
    each read gets a copy of its own)."""

    state = OVER

    def __init__(self, seats: int, views: Mapping[int | None, Any], result: Any) -> None:
        self.seats = seats
        # (the hub's own data, pickled and read here only: never untrusted bytes)
        self._views = pickle.dumps(dict(views), pickle.HIGHEST_PROTOCOL)
        self._result = result

    @classmethod
    def of(cls, engine: Any, seats: int) -> FinishedEngine:
        """The summary of a finished ``engine``."""
        views: dict[int | None, Any] = {None: engine.view(None)}
        for seat in range(seats):
            view = engine.view(seat)
            if view != views[None]:
                views[seat] = share_equal(views[None], view)  # a seat keeps what differs
        return cls(seats, views, engine.result())

    def seat_player(self, seat: int, name: str, *buyin: Any) -> None:
        """Nobody sits down at a finished game."""
        raise Conflict("the game is over")

    def leave(self, seat: int) -> None:
        """Leaving a finished game changes nothing."""

    def act(self, seat: int, action: Mapping[str, Any]) -> None:
        """Nothing is legal any more."""
        raise IllegalAction("the game is over")

    def legal_actions(self, seat: int) -> list[Mapping[str, Any]]:
        """Nothing."""
        return []

    def view(self, seat: int | None = None) -> Any:
        """The final view from ``seat``."""
        views = pickle.loads(self._views)  # noqa: S301  (see __init__)
        return views.get(seat, views[None])

    def result(self) -> Any:
        """The result."""
        return self._result

    def stop(self) -> None:
        """No timers are left."""


#: the random source of every retired game (a finished game draws no more)
_SPENT = random.Random(0)


def spent(context: GameContext) -> GameContext:
    """``context`` of a retired game: its own random source (some 2.5 kB of state)
    goes, the shared :data:`_SPENT` in its place."""
    return replace(context, rng=_SPENT)


__all__ = ["FinishedEngine", "spent"]
