"""Pairings and standings of tournaments, without I/O: lists of entry ids in, lists
of games out.

A *game* of a tournament is a tuple of entry ids in seat order; its *result* gives each
entrant points: one per opponent ranked below them and a half per opponent tied (so
a two-player game is 1-0 or ½-½, a four-player game hands out 6 points).  A bye scores
one point (:data:`BYE_POINTS`).

- :func:`round_robin`: every pair meets once (the circle method), seats alternating;
  an odd number of entrants gives one bye a round.
- :func:`swiss_round`: players with equal points meet, no pair twice while another
  pairing avoids it, the bye to the lowest player who had none.
- :func:`rotation`: tables of up to ``size`` players; each round seats players with
  those they met least, and the seats rotate.
- :func:`standings`: points, then the tie-break (Buchholz for Swiss, Sonneborn-Berger
  otherwise), then wins, then the seed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

#: the points of a bye
BYE_POINTS = 1.0
#: the most steps :func:`swiss_round` searches for a pairing without repeats
SEARCH_STEPS = 20000


@dataclass(frozen=True)
class Played:
    """One finished game: the entries in seat order and each one's points."""

    entries: tuple[str, ...]
    points: tuple[float, ...]


def points_of(ranks: Sequence[int]) -> tuple[float, ...]:
    """Each seat's points from the seats' ranks (0 is best, equal ranks tie)."""
    return tuple(
        float(sum(1.0 if other > mine else 0.5 if other == mine else 0.0 for other in ranks)) - 0.5
        for mine in ranks
    )


def round_robin(entries: Sequence[str]) -> list[list[tuple[str, ...]]]:
    """Every round of a round robin: each round a list of games ``(first, second)``;
    with an odd number a player sits out (listed as a one-entry game, the bye)."""
    players: list[str | None] = list(entries)
    if len(players) % 2:
        players.append(None)
    n = len(players)
    rounds = []
    for r in range(n - 1):
        games: list[tuple[str, ...]] = []
        for i in range(n // 2):
            a, b = players[i], players[n - 1 - i]
            if i == 0 and r % 2:
                a, b = b, a  # the fixed player changes colour every round
            if a is None or b is None:
                games.append((a or b,))  # type: ignore[arg-type]
            else:
                games.append((a, b))
        rounds.append(games)
        players = [players[0], players[-1], *players[1:-1]]
    return rounds


@dataclass
class Record:
    """What an entrant did so far: points, opponents, byes, wins, seat counts."""

    points: float = 0.0
    opponents: list[str] = field(default_factory=list)
    byes: int = 0
    wins: int = 0
    games: int = 0
    first_seats: int = 0
    #: (opponents in that game, points scored in it), for Sonneborn-Berger
    scored: list[tuple[tuple[str, ...], float]] = field(default_factory=list)


def records(
    entries: Sequence[str], played: Iterable[Played], byes: Iterable[str] = ()
) -> dict[str, Record]:
    """Each entrant's :class:`Record` from the games and byes so far."""
    out = {e: Record() for e in entries}
    for game in played:
        for seat, (entry, pts) in enumerate(zip(game.entries, game.points, strict=True)):
            rec = out.setdefault(entry, Record())
            others = tuple(e for e in game.entries if e != entry)
            rec.points += pts
            rec.opponents.extend(others)
            rec.games += 1
            rec.wins += pts >= len(others) > 0
            rec.first_seats += seat == 0
            rec.scored.append((others, pts))
    for entry in byes:
        rec = out.setdefault(entry, Record())
        rec.byes += 1
        rec.points += BYE_POINTS
    return out


def swiss_round(
    entries: Sequence[str], played: Sequence[Played], byes: Sequence[str] = ()
) -> tuple[list[tuple[str, str]], str | None]:
    """The next Swiss round: ``(games, bye)``.  ``entries`` in seed order (best first).

    Players are ordered by points (then seed); the bye goes to the lowest-placed player
    without one; each player in turn meets the highest-placed player left whom they have
    not met.  Only when no such pairing exists (searched for at most
    :data:`SEARCH_STEPS` steps) do players meet again, the fewest times possible in
    order.  The player who sat first less often sits first.
    """
    recs = records(entries, played, byes)
    seed = {e: i for i, e in enumerate(entries)}
    order = sorted(entries, key=lambda e: (-recs[e].points, seed[e]))
    bye = None
    if len(order) % 2:
        for candidate in reversed(order):
            if recs[candidate].byes == min(recs[e].byes for e in order):
                bye = candidate
                break
        order.remove(bye)  # type: ignore[arg-type]
    met = {e: set(recs[e].opponents) for e in order}
    pairs = _search(order, met)
    if pairs is None:
        pairs = _greedy(order, recs)
    games = []
    for a, b in pairs:
        if (recs[a].first_seats, seed[a]) > (recs[b].first_seats, seed[b]):
            a, b = b, a
        games.append((a, b))
    return games, bye


def _search(order: list[str], met: Mapping[str, set[str]]) -> list[tuple[str, str]] | None:
    """Pairs of ``order`` in which nobody meets someone in ``met`` (depth first, top
    down), or ``None`` (none exists, or not found within :data:`SEARCH_STEPS`)."""
    steps = 0

    def go(left: list[str]) -> list[tuple[str, str]] | None:
        nonlocal steps
        if not left:
            return []
        first, rest = left[0], left[1:]
        for i, other in enumerate(rest):
            steps += 1
            if steps > SEARCH_STEPS:
                return None
            if other in met[first]:
                continue
            found = go(rest[:i] + rest[i + 1 :])
            if found is not None:
                return [(first, other), *found]
        return None

    return go(order)


def _greedy(order: list[str], recs: Mapping[str, Record]) -> list[tuple[str, str]]:
    """Pairs of ``order``: each player in turn meets whom they met least, highest first."""
    left = list(order)
    pairs = []
    while left:
        first = left.pop(0)
        other = min(left, key=lambda e: (recs[first].opponents.count(e), left.index(e)))
        left.remove(other)
        pairs.append((first, other))
    return pairs


def table_sizes(count: int, size: int, smallest: int) -> list[int]:
    """How ``count`` players sit at tables of at most ``size``: as few tables as can be,
    as equal as can be (biggest first).

    :raises ValueError: a table would have fewer than ``smallest`` players.
    """
    tables = -(-count // size)
    sizes = [count // tables + (1 if i < count % tables else 0) for i in range(tables)]
    if not sizes or min(sizes) < smallest:
        raise ValueError(f"{count} players do not sit at tables of {smallest} to {size}")
    return sizes


def rotation(
    entries: Sequence[str], size: int, rounds: int, smallest: int = 2
) -> list[list[tuple[str, ...]]]:
    """Rounds of tables for games of up to ``size`` players.  Each round, each table is
    filled with the players who met its first player (and each other) least; every
    round the seats turn by one, so with ``size`` players and ``size`` rounds each
    player sits once in each seat.

    :raises ValueError: the players do not fill tables (see :func:`table_sizes`).
    """
    sizes = table_sizes(len(entries), size, smallest)
    met: dict[tuple[str, str], int] = {}
    seed = {e: i for i, e in enumerate(entries)}
    out = []
    for r in range(rounds):
        left = list(entries)
        tables: list[tuple[str, ...]] = []
        for n in sizes:
            table = [left.pop(0)]
            while len(table) < n:
                best = min(
                    left,
                    key=lambda e: (sum(met.get(_pair(e, t), 0) for t in table), left.index(e)),
                )
                left.remove(best)
                table.append(best)
            for i, a in enumerate(table):
                for b in table[i + 1 :]:
                    met[_pair(a, b)] = met.get(_pair(a, b), 0) + 1
            table.sort(key=seed.__getitem__)
            k = r % n
            tables.append(tuple(table[k:] + table[:k]))
        out.append(tables)
    return out


def _pair(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a < b else (b, a)


@dataclass(frozen=True)
class Standing:
    """One line of the standings."""

    place: int
    entry: str
    points: float
    tiebreak: float
    wins: int
    games: int
    byes: int


def standings(
    entries: Sequence[str],
    played: Sequence[Played],
    byes: Sequence[str] = (),
    tiebreak: str = "buchholz",
) -> list[Standing]:
    """The standings, best first.  ``tiebreak``: ``buchholz`` (the sum of the opponents'
    points, once per game against them) or ``sonneborn-berger`` (each game's points
    times the opponents' points, over the number of opponents).  Players equal in
    points, tie-break and wins share a place."""
    recs = records(entries, played, byes)
    seed = {e: i for i, e in enumerate(entries)}

    def tb(entry: str) -> float:
        rec = recs[entry]
        if tiebreak == "buchholz":
            return sum(recs[o].points for o in rec.opponents)
        return sum(
            pts * sum(recs[o].points for o in others) / len(others)
            for others, pts in rec.scored
            if others
        )

    keyed = [(e, recs[e].points, tb(e), recs[e].wins) for e in entries]
    keyed.sort(key=lambda k: (-k[1], -k[2], -k[3], seed[k[0]]))
    out: list[Standing] = []
    for i, (entry, pts, t, wins) in enumerate(keyed):
        place = i + 1
        if out and (out[-1].points, out[-1].tiebreak, out[-1].wins) == (pts, t, wins):
            place = out[-1].place
        rec = recs[entry]
        out.append(Standing(place, entry, pts, t, wins, rec.games, rec.byes))
    return out
