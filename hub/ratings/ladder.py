"""A bounded round robin among the installed bots of a game type (``gamehub ladder``).

Every group of bots (pairs for a two-player game; groups of the type's fewest seats
otherwise) plays ``games`` games, the seats rotating, in a lobby of its own driven by a
``task.Clock``: bots answer at once (in this thread), and the clock moves on only when
nothing is left to do now, so a bot that does not answer loses by the game's own
timer, as in the hub.  Each finished game is a :class:`~hub.rating.RatedGame`
of source ``ladder``; nothing here touches the store.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, replace
from typing import Any

from twisted.internet import task

from hub.model import OVER
from hub.play.lobby import Lobby, run_inline
from hub.rating import RatedGame

from .service import rated_game

#: most clock steps one game may take before it is given up (every loop is bounded)
MAX_STEPS = 200_000


@dataclass(frozen=True)
class Played:
    """One ladder game: the bots by seat, and its rated record (``None``: it did not
    finish within the steps, or its result ranks nobody)."""

    bots: tuple[str, ...]
    record: RatedGame | None


def bots_of(registry: Any, game_type: str) -> list[str]:
    """The names of the loaded bots that play ``game_type``, by name."""
    return sorted(b.name for b in registry.bots() if game_type in tuple(b.games))


def schedule(bots: list[str], seats: int, games: int) -> Iterator[tuple[str, ...]]:
    """Seatings: each group of ``seats`` bots plays ``games`` games, rotating seats."""
    for group in itertools.combinations(bots, seats):
        for n in range(games):
            yield group[n % seats :] + group[: n % seats]


def play(
    registry: Any,
    game_type: str,
    seating: tuple[str, ...],
    *,
    seconds: float,
    options: Mapping[str, Any] | None = None,
    max_steps: int = MAX_STEPS,
) -> Played:
    """Play one game of ``game_type`` with the bots of ``seating`` to the end.

    :param seconds: most seconds a bot may think about a move.
    """
    clock = task.Clock()
    lobby = Lobby(registry, clock, bot_runner=run_inline, bot_deadline=seconds / 10)
    game = lobby.create_game(
        game_type, seats=[f"bot:{b}" for b in seating], options=dict(options or {})
    )
    try:
        for _ in range(max_steps):
            if game.state == OVER:
                break
            now = [c for c in clock.getDelayedCalls() if c.getTime() <= clock.seconds()]
            if now:
                clock.advance(0)
                continue
            later = [c.getTime() for c in clock.getDelayedCalls()]
            if not later:
                break
            clock.advance(min(later) - clock.seconds())
        record = rated_game(game, source="ladder") if game.state == OVER else None
    finally:
        lobby.stop()
    return Played(seating, record)


def run(
    registry: Any,
    game_type: str,
    *,
    games: int,
    seconds: float,
    options: Mapping[str, Any] | None = None,
    bots: list[str] | None = None,
    run_id: str = "ladder",
    now: Any = None,
) -> Iterator[Played]:
    """Play the whole round robin, one game at a time (a generator: the caller stores
    each game as it comes).  Game ids are ``<run_id>-<n>``; ``now()`` gives each
    record's finishing time (default: the lobby clock's).

    :raises ValueError: fewer bots than a game of the type needs.
    """
    factory = registry.game_factory(game_type)
    names = bots_of(registry, game_type) if bots is None else list(bots)
    seats = max(2, int(factory.min_seats))
    if len(names) < seats:
        raise ValueError(
            f"a {game_type} ladder needs {seats} bots or more; installed: {', '.join(names) or 'none'}"
        )
    for n, seating in enumerate(schedule(names, seats, games)):
        played = play(registry, game_type, seating, seconds=seconds, options=options)
        if played.record is not None:
            finished = played.record.finished if now is None else float(now())
            played = replace(
                played, record=replace(played.record, game_id=f"{run_id}-{n}", finished=finished)
            )
        yield played
