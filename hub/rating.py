"""Ratings as data: results in, standings out.  No Twisted, no store.

A rating is openskill's Plackett-Luce (Weng-Lin) estimate of a player's skill: ``mu``,
its uncertainty ``sigma`` and the ``games`` it rests on.  :func:`rate` turns the ratings
of one finished game's players and their ranks (0 is best, equal ranks tie) into their
new ratings; :class:`Ladder` applies results one after another to an in-memory table,
which is what a rebuild from the stored results does, what the ladder command does, and
what a tournament can use for its standings.

The model's parameters are openskill's defaults (``mu`` 25, ``sigma`` 25/3, ``beta``
25/6, ``tau`` 25/300) and are fixed: a rebuild must compute what the live updates did.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from openskill.models import PlackettLuce

#: the one model every rating of the hub is computed with
MODEL = PlackettLuce()
#: a new player's rating
MU, SIGMA = float(MODEL.mu), float(MODEL.sigma)
#: how a player is named in a pool: an account of the store, or an in-hub bot
KINDS = ("account", "bot")


@dataclass(frozen=True)
class Rating:
    """One player's rating in one pool.

    :ivar mu: the estimated skill.
    :ivar sigma: its uncertainty (one standard deviation).
    :ivar games: rated games played in the pool.
    """

    mu: float = MU
    sigma: float = SIGMA
    games: int = 0

    @property
    def ordinal(self) -> float:
        """``mu - 3 sigma``: the skill one is nearly sure of, what leaderboards sort by."""
        return self.mu - 3 * self.sigma

    def interval(self, width: float = 2.0) -> tuple[float, float]:
        """``mu ∓ width * sigma`` (2: about 95% of the belief)."""
        return self.mu - width * self.sigma, self.mu + width * self.sigma


@dataclass(frozen=True)
class Player:
    """Who a rating belongs to: ``kind`` (:data:`KINDS`) and ``name``."""

    kind: str
    name: str

    @property
    def key(self) -> tuple[str, str]:
        """The player's key in a pool: kind and the name in lower case."""
        return self.kind, self.name.casefold()


@dataclass(frozen=True)
class Placed:
    """A player's place in one rated game: their seat and rank (0 is best)."""

    seat: int
    player: Player
    rank: int


@dataclass(frozen=True)
class RatedGame:
    """One rated game, as the store keeps it for a rebuild.

    :ivar pool: ``(game type, variant key)``.
    :ivar placed: the rated seats (at least two).
    :ivar source: ``hub`` (a game of the lobby), ``ladder`` (``gamehub ladder``) or
        whatever a caller names (a tournament).
    """

    game_id: str
    pool: tuple[str, str]
    finished: float
    placed: tuple[Placed, ...]
    source: str = "hub"


@dataclass(frozen=True)
class Update:
    """What one game did to one player's rating."""

    seat: int
    player: Player
    rank: int
    before: Rating
    after: Rating


def rate(before: Sequence[Rating], ranks: Sequence[int]) -> list[Rating]:
    """The ratings after one game of players rated ``before`` finishing at ``ranks``
    (one per player, 0 is best; equal ranks tie).  Every player is their own team."""
    if len(before) != len(ranks) or len(before) < 2:
        raise ValueError("a rated game has two players or more, each with a rank")
    teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in before]
    after = MODEL.rate(teams, ranks=[float(r) for r in ranks])
    return [
        Rating(float(team[0].mu), float(team[0].sigma), old.games + 1)
        for team, old in zip(after, before, strict=True)
    ]


def apply(current: Mapping[tuple[str, str], Rating], game: RatedGame) -> list[Update]:
    """The updates one game makes, given the ``current`` ratings of its pool (by
    :attr:`Player.key`; a missing player starts at the default rating)."""
    before = [current.get(p.player.key, Rating()) for p in game.placed]
    after = rate(before, [p.rank for p in game.placed])
    return [
        Update(p.seat, p.player, p.rank, old, new)
        for p, old, new in zip(game.placed, before, after, strict=True)
    ]


@dataclass
class Ladder:
    """Ratings of every pool, kept in memory, with results applied in order."""

    pools: dict[tuple[str, str], dict[tuple[str, str], Rating]] = field(default_factory=dict)
    names: dict[tuple[str, str], str] = field(default_factory=dict)

    def add(self, game: RatedGame) -> list[Update]:
        """Apply one game; returns what it changed."""
        table = self.pools.setdefault(game.pool, {})
        updates = apply(table, game)
        for u in updates:
            table[u.player.key] = u.after
            self.names[u.player.key] = u.player.name
        return updates

    def extend(self, games: Iterable[RatedGame]) -> None:
        """Apply games in order."""
        for game in games:
            self.add(game)

    def standings(self, pool: tuple[str, str]) -> list[tuple[Player, Rating]]:
        """The pool's players, best first (by :attr:`Rating.ordinal`, then name)."""
        table = self.pools.get(pool, {})
        rows = [(Player(key[0], self.names.get(key, key[1])), r) for key, r in table.items()]
        return sorted(rows, key=lambda row: (-row[1].ordinal, row[0].key))


def default_ranks(result: Mapping[str, Any] | None, seats: int) -> list[int] | None:
    """The ranks of ``seats`` seats from a game's result: by ``scores`` (higher is
    better; equal scores tie), else ``winners`` first and the rest after; ``None`` when
    the result says neither (the game is not rated)."""
    if not isinstance(result, Mapping):
        return None
    scores = result.get("scores")
    if isinstance(scores, Sequence) and not isinstance(scores, str) and len(scores) == seats:
        found = [_number(s) for s in scores]
        numbers = [n for n in found if n is not None]
        if len(numbers) == seats:
            return [sum(1 for other in numbers if other > n) for n in numbers]
    winners = result.get("winners")
    if isinstance(winners, Sequence) and not isinstance(winners, str) and winners:
        return [0 if seat in winners else 1 for seat in range(seats)]
    return None


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool):
        return None
    try:
        return Decimal(str(value))
    except (InvalidOperation, ValueError):
        return None
