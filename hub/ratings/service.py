"""The hub's ratings: which games are rated, and their results into the store.

The creator of a game chooses rated or casual (:meth:`RatingService.choose`; the
``rated_default`` setting when they do not say).  When a rated game is over, its
result ranks the seats (the game's :class:`hub.interfaces.IRatedGameFactory`, else
:func:`hub.rating.default_ranks`): a player who timed out, left or was removed
ranks where the game's rules put them.  The store applies the ranking in a pool thread
(:meth:`hub.store.ratings.RatingsMixin.rate_game`), never on the reactor.
"""

from __future__ import annotations

from typing import Any

from twisted.internet import defer
from twisted.logger import Logger
from zope.interface import implementer

from hub.interfaces import ILobbyListener, IRatedGameFactory
from hub.model import GameError
from hub.rating import Placed, Player, RatedGame, default_ranks
from hub.store.errors import StoreUnavailable


def pool_of(factory: Any, variant: str | None) -> tuple[str, str]:
    """The rating pool of a game of ``factory`` and ``variant``: ``(type, variant
    key)``; the key is ``""`` unless the factory keeps its variants apart."""
    key = ""
    if IRatedGameFactory.providedBy(factory):
        key = str(factory.rating_variant(variant) or "")
    return str(factory.name), key


def ranks_of(factory: Any, result: Any, seats: int) -> list[int] | None:
    """The rank of each seat in a finished game (``None``: the result ranks nobody)."""
    if IRatedGameFactory.providedBy(factory):
        ranks = factory.rating_ranks(result)
        if ranks is not None:
            return [int(r) for r in ranks]
    return default_ranks(result, seats)


def rated_game(game: Any, source: str = "hub") -> RatedGame | None:
    """A finished lobby game (``hub.play.lobby.GameInstance``) as a rated game: every seat
    someone sat in, an in-hub bot under its bot's name, anyone else under the name they
    sat with (the store keeps only those that are accounts).  ``None``: no ranking."""
    ranks = ranks_of(game.factory, game.result(), len(game.seats))
    if ranks is None or len(ranks) != len(game.seats):
        return None
    placed = []
    for seat, rank in zip(game.seats, ranks, strict=True):
        if seat.kind == "bot" and seat.bot:
            placed.append(Placed(seat.index, Player("bot", seat.bot), rank))
        elif seat.player:
            placed.append(Placed(seat.index, Player("account", seat.player), rank))
    finished = game.finished if game.finished is not None else game.lobby.clock.seconds()
    return RatedGame(
        game.id, pool_of(game.factory, game.variant), float(finished), tuple(placed), source
    )


def check_rated(value: Any) -> bool | None:
    """A creator's ``rated`` choice: ``true``, ``false`` or absent (``None``).

    :raises hub.model.GameError: 400, anything else.
    """
    if value is None or isinstance(value, bool):
        return value
    raise GameError("'rated' is true (the game counts for ratings) or false (casual)", 400)


@implementer(ILobbyListener)
class RatingService:
    """Rated games of one lobby, and their results into the store.

    :param default: whether a game is rated when its creator does not say.
    """

    log = Logger()

    def __init__(self, lobby: Any, store: Any, default: bool = False) -> None:
        self.lobby = lobby
        self.store = store
        self.default = bool(default)
        self._rated: set[str] = set()
        self._pending: set[defer.Deferred[Any]] = set()
        self._stopping = False
        lobby.on_game_over(self.game_over)
        lobby.add_listener(self)

    def choose(self, game: Any, rated: Any = None) -> bool:
        """Make ``game`` rated or casual (``None``: the default); returns which."""
        choice = check_rated(rated)
        if self.default if choice is None else choice:
            self._rated.add(game.id)
            if game.transcript is not None:
                game.transcript.note("rated game")
            return True
        self._rated.discard(game.id)
        return False

    def is_rated(self, game_id: str) -> bool:
        """Whether the game with this id counts for ratings."""
        return game_id in self._rated

    def lobby_changed(self, change: str, game: Any) -> None:
        """A new game is as the default says until its creator chooses (games a front
        end makes itself, such as the domino queue's, keep the default); a removed
        game is forgotten."""
        if change == "created" and self.default:
            self._rated.add(game.id)
        elif change == "removed":
            self._rated.discard(game.id)

    def game_over(self, game: Any, event: Any) -> defer.Deferred[Any] | None:
        """Rate a finished rated game (not one the hub stopped while stopping)."""
        if self._stopping or game.id not in self._rated:
            return None
        record = rated_game(game)
        if record is None or len(record.placed) < 2:
            return None
        d = self.store.rate_game(record)
        d.addCallback(self._rated_now, game.id)
        d.addErrback(self._failed, game.id)
        self._pending.add(d)
        d.addBoth(self._done, d)
        return d

    def _rated_now(self, updates: list[Any], game_id: str) -> None:
        if updates:
            self.log.info(
                "game {game} rated: {players}",
                game=game_id,
                players=", ".join(f"{u.player.name} {u.after.mu:.1f}" for u in updates),
            )

    def _failed(self, failure: Any, game_id: str) -> None:
        if failure.check(StoreUnavailable):
            self.log.warn("game {game} not rated: {e}", game=game_id, e=failure.getErrorMessage())
        else:
            self.log.failure("rating game {game} failed", failure, game=game_id)

    def _done(self, result: Any, d: defer.Deferred[Any]) -> Any:
        self._pending.discard(d)
        return result

    def stop(self) -> defer.Deferred[Any]:
        """Rate no more games (the hub is stopping: games it stops are not finished
        ones); fires when the ratings under way are stored."""
        self._stopping = True
        self.lobby.remove_listener(self)
        return defer.DeferredList(list(self._pending))
