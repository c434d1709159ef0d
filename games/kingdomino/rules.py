"""Simplified King Domino: the pure rules engine.

The course's version (seed 004): 48 numbered dominoes, 12 draws of 4, each player
builds a kingdom around a castle on (0, 0); a domino may go anywhere where it touches
the kingdom by a side (no terrain matching, no size limit); a region of one terrain
scores ``size × (1 + crowns)``.

Players are numbered ``0 … players-1`` here (the wire's ids are one higher).  Each action
has ``verify_x`` (raises :class:`RuleError` with a reason), ``can_x`` (yes/no) and ``x``
(verifies, changes the state, returns frozen records of what happened).  Nothing here
knows of sockets, Twisted or wire formats.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

#: Terrain letters: forest, grass, sand, bog, water, mine.
TERRAINS = "fgsbwm"
#: The castle's pseudo-terrain: it belongs to no region and scores nothing.
CASTLE = "c"
#: Coordinates of both halves must lie within ``-LIMIT … LIMIT``.
LIMIT = 100
#: The four orientations (degrees) and where each puts the second half.
OFFSETS: Mapping[int, tuple[int, int]] = {0: (1, 0), 90: (0, 1), 180: (-1, 0), 270: (0, -1)}
ORIENTATIONS: tuple[int, ...] = (0, 90, 180, 270)
#: Dominoes per draw, and draws per game.
DRAW_SIZE = 4
DRAWS = 12

NEIGHBOURS = ((1, 0), (-1, 0), (0, 1), (0, -1))

_TABLE = """
 1 s s    2 s s    3 f f    4 f f    5 f f    6 f f    7 w w    8 w w
 9 w w   10 g g   11 g g   12 b b   13 s f   14 s w   15 s g   16 s b
17 f w   18 f g   19 s1 f  20 s1 w  21 s1 g  22 s1 b  23 s1 m  24 f1 s
25 f1 s  26 f1 s  27 f1 s  28 f1 w  29 f1 g  30 w1 s  31 w1 s  32 w1 f
33 w1 f  34 w1 f  35 w1 f  36 s g1  37 w g1  38 s b1  39 g b1  40 m1 s
41 s g2  42 w g2  43 s b2  44 g b2  45 m2 s  46 b m2  47 b m2  48 s m3
"""


@dataclass(frozen=True, slots=True)
class Half:
    """One half of a domino: a terrain letter and its crowns."""

    terrain: str
    crowns: int = 0

    @classmethod
    def parse(cls, text: str) -> Half:
        """``"s1"`` → ``Half("s", 1)``."""
        return cls(text[0], int(text[1:] or 0))


def _parse_table(text: str) -> dict[int, tuple[Half, Half]]:
    tokens = text.split()
    table: dict[int, tuple[Half, Half]] = {}
    for i in range(0, len(tokens), 3):
        table[int(tokens[i])] = (Half.parse(tokens[i + 1]), Half.parse(tokens[i + 2]))
    return table


#: Domino number → (first half, second half), as listed in the spec.
DOMINOES: Mapping[int, tuple[Half, Half]] = _parse_table(_TABLE)
CASTLE_HALF = Half(CASTLE, 0)


class RuleError(ValueError):
    """An action the rules do not allow now; ``reason`` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class Placement:
    """Where a domino goes: the cell of its first half and the orientation."""

    x: int
    y: int
    orientation: int

    def cells(self) -> tuple[tuple[int, int], tuple[int, int]]:
        """The cells of the first and the second half."""
        dx, dy = OFFSETS[self.orientation]
        return (self.x, self.y), (self.x + dx, self.y + dy)

    def as_list(self) -> list[int]:
        """``[x, y, orientation]`` (the JSON form)."""
        return [self.x, self.y, self.orientation]


# -- records of what happened ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Chosen:
    """``player`` took ``domino`` from the current draw."""

    player: int
    domino: int


@dataclass(frozen=True, slots=True)
class Placed:
    """``player`` placed ``domino`` at ``placement``."""

    player: int
    domino: int
    placement: Placement


@dataclass(frozen=True, slots=True)
class Dealt:
    """Draw number ``round`` (1-based; the first draw is dealt at the start) is on the
    table; ``dominoes`` is empty after the last draw."""

    round: int
    dominoes: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Removed:
    """``player`` left or was removed; takes no further turns."""

    player: int


@dataclass(frozen=True, slots=True)
class Finished:
    """The game is over; ``scores`` per player, ``ranking`` best first."""

    scores: tuple[int, ...]
    ranking: tuple[int, ...]


Record = Chosen | Placed | Dealt | Removed | Finished


# -- the kingdom ------------------------------------------------------------------------


_Cell = tuple[int, int]
#: ``(x, y, orientation)`` → the shared :class:`Placement` (placements are immutable, so
#: legal-placement lists reuse them) and its two cells
_PLACEMENTS: dict[tuple[int, int, int], tuple[Placement, _Cell, _Cell]] = {}


def _placement(x: int, y: int, o: int) -> tuple[Placement, _Cell, _Cell]:
    key = (x, y, o)
    entry = _PLACEMENTS.get(key)
    if entry is None:
        dx, dy = OFFSETS[o]
        entry = _PLACEMENTS[key] = (Placement(x, y, o), (x, y), (x + dx, y + dy))
    return entry


def _inside(cell: _Cell) -> bool:
    return -LIMIT <= cell[0] <= LIMIT and -LIMIT <= cell[1] <= LIMIT


class Kingdom:
    """One player's grid: the castle on (0, 0) and the placed halves.

    Regions (4-connected cells of one terrain) are kept up to date as dominoes are
    placed, and so is the frontier (the free cells next to the kingdom), so scoring,
    the legal placements and the gain of a placement are cheap.
    """

    __slots__ = ("cells", "_label", "_regions", "_next", "_frontier", "_legal")

    def __init__(self) -> None:
        self.cells: dict[_Cell, Half] = {(0, 0): CASTLE_HALF}
        # cell -> region id; region id -> [terrain, size, crowns, cells]
        self._label: dict[_Cell, int] = {}
        self._regions: dict[int, list[Any]] = {}
        self._next = 0
        #: free cells (inside the limits) that share a side with the kingdom
        self._frontier: set[_Cell] = {(dx, dy) for dx, dy in NEIGHBOURS}
        #: the legal placements with their cells, until the kingdom changes
        self._legal: list[tuple[Placement, _Cell, _Cell]] | None = None

    def copy(self) -> Kingdom:
        """An independent copy."""
        other = Kingdom.__new__(Kingdom)
        other.cells = dict(self.cells)
        other._label = dict(self._label)
        other._regions = {k: [t, s, c, list(cs)] for k, (t, s, c, cs) in self._regions.items()}
        other._next = self._next
        other._frontier = set(self._frontier)
        other._legal = self._legal
        return other

    def is_free(self, cell: _Cell) -> bool:
        """Inside the board limits and not occupied."""
        x, y = cell
        return -LIMIT <= x <= LIMIT and -LIMIT <= y <= LIMIT and cell not in self.cells

    def touches(self, cell: _Cell) -> bool:
        """Whether ``cell`` shares a side with an occupied cell."""
        x, y = cell
        cells = self.cells
        return any((x + dx, y + dy) in cells for dx, dy in NEIGHBOURS)

    def verify_place(self, placement: Placement) -> None:
        """Raise :class:`RuleError` unless ``placement`` is legal in this kingdom."""
        if placement.orientation not in OFFSETS:
            raise RuleError("orientation must be 0, 90, 180 or 270")
        first, second = placement.cells()
        for cell in (first, second):
            if not (-LIMIT <= cell[0] <= LIMIT and -LIMIT <= cell[1] <= LIMIT):
                raise RuleError(f"cell {cell[0]} {cell[1]} is outside -{LIMIT}..{LIMIT}")
            if cell in self.cells:
                raise RuleError(f"cell {cell[0]} {cell[1]} is occupied")
        if first not in self._frontier and second not in self._frontier:
            raise RuleError("the domino does not touch the kingdom")

    def can_place(self, placement: Placement) -> bool:
        """Whether ``placement`` is legal (any domino: legality ignores terrain)."""
        try:
            self.verify_place(placement)
        except RuleError:
            return False
        return True

    def _legal_entries(self) -> list[tuple[Placement, _Cell, _Cell]]:
        """The legal placements with their cells, sorted by (x, y, orientation)."""
        if self._legal is None:
            found: set[tuple[int, int, int]] = set()
            cells = self.cells
            for fx, fy in self._frontier:
                for o, (dx, dy) in OFFSETS.items():
                    # the frontier cell as first half, then as second half
                    other = (fx + dx, fy + dy)
                    if other not in cells and _inside(other):
                        found.add((fx, fy, o))
                    other = (fx - dx, fy - dy)
                    if other not in cells and _inside(other):
                        found.add((fx - dx, fy - dy, o))
            self._legal = [_placement(x, y, o) for x, y, o in sorted(found)]
        return self._legal

    def legal_placements(self) -> list[Placement]:
        """Every legal placement, sorted by (x, y, orientation)."""
        return [entry[0] for entry in self._legal_entries()]

    def random_placement(self, rng: random.Random) -> Placement:
        """A random legal placement, cheap enough for playouts (not exactly uniform:
        a random free cell next to the kingdom, a random orientation and half)."""
        frontier = list(self._frontier)
        cells = self.cells
        for _ in range(64):
            fx, fy = rng.choice(frontier)
            o = rng.choice(ORIENTATIONS)
            dx, dy = OFFSETS[o]
            if rng.random() < 0.5:
                other = (fx + dx, fy + dy)
                if other not in cells and _inside(other):
                    return _placement(fx, fy, o)[0]
            else:
                other = (fx - dx, fy - dy)
                if other not in cells and _inside(other):
                    return _placement(fx - dx, fy - dy, o)[0]
        return rng.choice(self.legal_placements())

    def _near(self, cell: _Cell, terrain: str) -> tuple[int, int, int, frozenset[int]]:
        """The regions of ``terrain`` next to ``cell``: their total size, total crowns,
        total score, and ids."""
        label, regions = self._label, self._regions
        x, y = cell
        ids = frozenset(
            rid
            for dx, dy in NEIGHBOURS
            if (rid := label.get((x + dx, y + dy))) is not None and regions[rid][0] == terrain
        )
        size = crowns = old = 0
        for rid in ids:
            _, s, c, _ = regions[rid]
            size += s
            crowns += c
            old += s * (1 + c)
        return size, crowns, old, ids

    def _region_gain(self, halves: Sequence[tuple[_Cell, Half]]) -> int:
        (c1, a), (c2, b) = halves
        s1, k1, o1, ids1 = self._near(c1, a.terrain)
        s2, k2, o2, ids2 = self._near(c2, b.terrain)
        if a.terrain != b.terrain:
            return (1 + s1) * (1 + k1 + a.crowns) - o1 + (1 + s2) * (1 + k2 + b.crowns) - o2
        if ids1 & ids2:
            s, k, o, _ = self._union(ids1 | ids2)
            return (2 + s) * (1 + k + a.crowns + b.crowns) - o
        return (2 + s1 + s2) * (1 + k1 + k2 + a.crowns + b.crowns) - o1 - o2

    def _union(self, ids: frozenset[int]) -> tuple[int, int, int, frozenset[int]]:
        size = crowns = old = 0
        for rid in ids:
            _, s, c, _ = self._regions[rid]
            size += s
            crowns += c
            old += s * (1 + c)
        return size, crowns, old, ids

    def gain(self, domino: int, placement: Placement) -> int:
        """How much the score rises if ``domino`` goes at ``placement`` (assumed legal)."""
        first, second = placement.cells()
        a, b = DOMINOES[domino]
        return self._region_gain(((first, a), (second, b)))

    def best_placements(
        self, dominoes: Iterable[int], placements: Sequence[Placement] | None = None
    ) -> dict[int, tuple[int, list[Placement]]]:
        """For each domino the highest gain over ``placements`` (default: every legal
        one) and the placements reaching it; one pass, for the greedy players."""
        if placements is None:
            entries = self._legal_entries()
        else:
            entries = [(p, *p.cells()) for p in placements]
        near_cache: dict[tuple[_Cell, str], tuple[int, int, int, frozenset[int]]] = {}

        def near(cell: _Cell, terrain: str) -> tuple[int, int, int, frozenset[int]]:
            key = (cell, terrain)
            found = near_cache.get(key)
            if found is None:
                found = near_cache[key] = self._near(cell, terrain)
            return found

        out: dict[int, tuple[int, list[Placement]]] = {}
        for domino in dominoes:
            a, b = DOMINOES[domino]
            ta, ka, tb, kb = a.terrain, a.crowns, b.terrain, b.crowns
            same = ta == tb
            # the gain of each half alone, by cell (different terrains add up)
            alone_a: dict[_Cell, int] = {}
            alone_b: dict[_Cell, int] = {}
            best = -1
            chosen: list[Placement] = []
            for placement, first, second in entries:
                if same:
                    ia, ib = near(first, ta), near(second, tb)
                    if ia[3] & ib[3]:
                        s, k, o, _ = self._union(ia[3] | ib[3])
                        g = (2 + s) * (1 + k + ka + kb) - o
                    else:
                        g = (2 + ia[0] + ib[0]) * (1 + ia[1] + ib[1] + ka + kb) - ia[2] - ib[2]
                else:
                    ga = alone_a.get(first)
                    if ga is None:
                        ia = near(first, ta)
                        ga = alone_a[first] = (1 + ia[0]) * (1 + ia[1] + ka) - ia[2]
                    gb = alone_b.get(second)
                    if gb is None:
                        ib = near(second, tb)
                        gb = alone_b[second] = (1 + ib[0]) * (1 + ib[1] + kb) - ib[2]
                    g = ga + gb
                if g > best:
                    best, chosen = g, [placement]
                elif g == best:
                    chosen.append(placement)
            out[domino] = (best, chosen)
        return out

    def place(self, domino: int, placement: Placement) -> None:
        """Put ``domino`` at ``placement``; raises :class:`RuleError` if not legal."""
        self.verify_place(placement)
        first, second = placement.cells()
        a, b = DOMINOES[domino]
        self._add(first, a)
        self._add(second, b)

    def _add(self, cell: tuple[int, int], half: Half) -> None:
        cells = self.cells
        cells[cell] = half
        self._legal = None
        frontier = self._frontier
        frontier.discard(cell)
        x, y = cell
        for dx, dy in NEIGHBOURS:
            near = (x + dx, y + dy)
            if near not in cells and _inside(near):
                frontier.add(near)
        label, regions = self._label, self._regions
        ids = {
            label[(x + dx, y + dy)]
            for dx, dy in NEIGHBOURS
            if (x + dx, y + dy) in label and regions[label[(x + dx, y + dy)]][0] == half.terrain
        }
        if not ids:
            rid = self._next
            self._next += 1
            regions[rid] = [half.terrain, 1, half.crowns, [cell]]
            label[cell] = rid
            return
        keep = max(ids, key=lambda r: regions[r][1])
        region = regions[keep]
        for rid in ids - {keep}:
            _, s, c, cs = regions.pop(rid)
            region[1] += s
            region[2] += c
            region[3].extend(cs)
            for other in cs:
                label[other] = keep
        region[1] += 1
        region[2] += half.crowns
        region[3].append(cell)
        label[cell] = keep

    def score(self) -> int:
        """Sum over regions of ``size × (1 + crowns)``; the castle scores nothing."""
        return sum(size * (1 + crowns) for _, size, crowns, _ in self._regions.values())

    def to_json(self) -> list[list[Any]]:
        """Every placed half as ``[x, y, terrain, crowns]`` (castle excluded), sorted."""
        return [
            [x, y, h.terrain, h.crowns]
            for (x, y), h in sorted(self.cells.items())
            if h is not CASTLE_HALF
        ]


def deal(rng: random.Random) -> list[tuple[int, ...]]:
    """Shuffle the 48 dominoes into 12 draws of 4, each sorted ascending."""
    numbers = list(DOMINOES)
    rng.shuffle(numbers)
    return [tuple(sorted(numbers[i : i + DRAW_SIZE])) for i in range(0, len(numbers), DRAW_SIZE)]


# -- the game state ---------------------------------------------------------------------

CHOOSE = "choose"
MOVE = "move"
OVER = "over"


class State:
    """One game of simplified King Domino.

    Draw 1 is on the table at the start and is picked in ``order``.  Then, for each
    following draw (and once more with an empty draw at the end), the players place the
    domino they picked from the previous draw in the order of those dominoes' numbers,
    each picking from the new draw right after placing.

    :param players: number of players (the course plays with 4).
    :param rng: the random source for the draws and the first pick order.
    :param draws: the 12 draws to use instead of dealing (tests, determinized playouts).
    :param order: the pick order of the first draw instead of a random one.
    """

    def __init__(
        self,
        players: int = 4,
        rng: random.Random | None = None,
        draws: Sequence[Sequence[int]] | None = None,
        order: Sequence[int] | None = None,
    ) -> None:
        if not 1 <= players <= 4:
            raise ValueError("between 1 and 4 players")
        rng = rng if rng is not None else random.Random()
        self.players = players
        self.draws: list[tuple[int, ...]] = (
            [tuple(sorted(d)) for d in draws] if draws is not None else deal(rng)
        )
        if len(self.draws) != DRAWS:
            raise ValueError(f"{DRAWS} draws needed")
        self.order: tuple[int, ...] = (
            tuple(order) if order is not None else tuple(rng.sample(range(players), players))
        )
        if sorted(self.order) != list(range(players)):
            raise ValueError("order must be a permutation of the players")
        self.kingdoms = [Kingdom() for _ in range(players)]
        self.active = [True] * players
        #: 1-based number of the draw on the table; ``DRAWS + 1`` after the last one.
        self.round = 1
        self.current: tuple[int, ...] = self.draws[0]
        #: domino of the current draw → player who took it
        self.taken: dict[int, int] = {}
        #: (domino, player) of the previous draw, lowest first: whose move is next
        self.previous: list[tuple[int, int]] = []
        self._queue: list[int] = list(self.order)
        self._index = 0
        self.phase = CHOOSE
        self.history: list[Record] = []
        self._skip_inactive([])

    # -- queries -------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.phase == OVER

    @property
    def to_act(self) -> int | None:
        """The player whose turn it is, or ``None`` when over."""
        return None if self.over else self._queue[self._index]

    def pending_domino(self, player: int) -> int | None:
        """The domino ``player`` picked from the previous draw and has not placed yet."""
        if self.phase == MOVE and self.to_act == player:
            return self.previous[self._index][0]
        return None

    def available(self) -> list[int]:
        """Dominoes of the current draw nobody has taken yet."""
        return [d for d in self.current if d not in self.taken]

    def scores(self) -> list[int]:
        """Each player's score now."""
        return [k.score() for k in self.kingdoms]

    def ranking(self) -> list[int]:
        """Players best first; ties: lower player number first."""
        scores = self.scores()
        return sorted(range(self.players), key=lambda p: (-scores[p], p))

    def legal_choices(self, player: int) -> list[int]:
        """The dominoes ``player`` may choose now (empty when not their choice)."""
        return self.available() if self.phase == CHOOSE and self.to_act == player else []

    def legal_moves(self, player: int) -> list[Placement]:
        """The placements ``player`` may make now (empty when not their move)."""
        if self.phase == MOVE and self.to_act == player:
            return self.kingdoms[player].legal_placements()
        return []

    # -- choose --------------------------------------------------------------------

    def verify_choose(self, player: int, domino: int) -> None:
        """Raise :class:`RuleError` unless ``player`` may take ``domino`` now."""
        self._verify_turn(player, CHOOSE)
        if domino not in self.current:
            raise RuleError(f"domino {domino} is not in the current draw")
        if domino in self.taken:
            raise RuleError(f"domino {domino} is already taken")

    def can_choose(self, player: int, domino: int) -> bool:
        """Whether ``player`` may take ``domino`` now."""
        return _can(self.verify_choose, player, domino)

    def choose(self, player: int, domino: int) -> list[Record]:
        """``player`` takes ``domino``; returns what happened (the pick, and a new draw
        or the end if the round is complete)."""
        self.verify_choose(player, domino)
        self.taken[domino] = player
        records: list[Record] = [Chosen(player, domino)]
        self._next_turn(records)
        return self._log(records)

    # -- move ----------------------------------------------------------------------

    def verify_move(self, player: int, placement: Placement) -> None:
        """Raise :class:`RuleError` unless ``player`` may place their domino there."""
        self._verify_turn(player, MOVE)
        self.kingdoms[player].verify_place(placement)

    def can_move(self, player: int, placement: Placement) -> bool:
        """Whether ``player`` may place their domino at ``placement`` now."""
        return _can(self.verify_move, player, placement)

    def move(self, player: int, placement: Placement) -> list[Record]:
        """``player`` places the domino picked from the previous draw."""
        self.verify_move(player, placement)
        domino = self.previous[self._index][0]
        self.kingdoms[player].place(domino, placement)
        records: list[Record] = [Placed(player, domino, placement)]
        if self.current:
            self.phase = CHOOSE
            self._skip_inactive(records)
        else:
            self._next_turn(records)
        return self._log(records)

    # -- leaving -------------------------------------------------------------------

    def verify_remove(self, player: int) -> None:
        """Raise :class:`RuleError` unless ``player`` is still playing."""
        if not 0 <= player < self.players:
            raise RuleError(f"no player {player}")
        if self.over:
            raise RuleError("the game is over")
        if not self.active[player]:
            raise RuleError(f"player {player} has already left")

    def can_remove(self, player: int) -> bool:
        """Whether ``player`` is still playing and may be removed."""
        return _can(self.verify_remove, player)

    def remove(self, player: int) -> list[Record]:
        """``player`` leaves: no further turns, their kingdom still scores."""
        self.verify_remove(player)
        self.active[player] = False
        records: list[Record] = [Removed(player)]
        self._skip_inactive(records)
        return self._log(records)

    # -- internals -------------------------------------------------------------------

    def _verify_turn(self, player: int, phase: str) -> None:
        if self.over:
            raise RuleError("the game is over")
        if self.to_act != player:
            raise RuleError("not your turn")
        if self.phase != phase:
            raise RuleError(f"you must {self.phase} now, not {phase}")

    def _log(self, records: list[Record]) -> list[Record]:
        self.history.extend(records)
        return records

    def _next_turn(self, records: list[Record]) -> None:
        self._index += 1
        self.phase = MOVE if self.previous else CHOOSE
        self._skip_inactive(records)

    def _skip_inactive(self, records: list[Record]) -> None:
        """Move the turn past players who left; deal or finish when a round is done."""
        while not self.over:
            if not any(self.active):
                self._finish(records)
                return
            if self._index < len(self._queue):
                if self.active[self._queue[self._index]]:
                    return
                self._index += 1
                self.phase = MOVE if self.previous else CHOOSE
                continue
            self._end_round(records)

    def _end_round(self, records: list[Record]) -> None:
        if not self.current:  # the placements after the last draw are done
            self._finish(records)
            return
        self.previous = sorted(self.taken.items())
        self.taken = {}
        self.round += 1
        self.current = self.draws[self.round - 1] if self.round <= DRAWS else ()
        records.append(Dealt(self.round, self.current))
        self._queue = [player for _, player in self.previous]
        self._index = 0
        self.phase = MOVE

    def _finish(self, records: list[Record]) -> None:
        self.phase = OVER
        records.append(Finished(tuple(self.scores()), tuple(self.ranking())))

    # -- snapshots (what every player may see) for bots --------------------------------

    def public(self) -> dict[str, Any]:
        """Everything public: not the draws still to come."""
        return {
            "players": self.players,
            "round": self.round,
            "phase": self.phase,
            "to_act": self.to_act,
            "order": list(self.order),
            "current": list(self.current),
            "taken": [[d, p] for d, p in sorted(self.taken.items())],
            "previous": [[d, p] for d, p in self.previous],
            "turn_index": self._index,
            "active": list(self.active),
            "kingdoms": [k.to_json() for k in self.kingdoms],
            "scores": self.scores(),
            "seen": sorted({d for draw in self.draws[: self.round] for d in draw}),
        }

    @staticmethod
    def _draws_from_public(public: Mapping[str, Any], rng: random.Random) -> list[tuple[int, ...]]:
        """Draws consistent with ``public``: the unseen dominoes dealt at random into
        the draws still to come."""
        seen = set(public["seen"])
        unseen = [d for d in DOMINOES if d not in seen]
        rng.shuffle(unseen)
        round_ = int(public["round"])
        draws: list[tuple[int, ...]] = []
        # the draws already on the table are irrelevant except the current one
        filler = iter(sorted(seen - set(public["current"])))
        for r in range(1, DRAWS + 1):
            if r < round_:
                draws.append(tuple(next(filler) for _ in range(DRAW_SIZE)))
            elif r == round_:
                draws.append(tuple(public["current"]))
            else:
                draws.append(tuple(sorted(unseen[:DRAW_SIZE])))
                unseen = unseen[DRAW_SIZE:]
        return draws

    def _turn_from_public(self, public: Mapping[str, Any]) -> None:
        self.active = list(public["active"])
        self.round = int(public["round"])
        self.current = tuple(public["current"])
        self.taken = {d: p for d, p in public["taken"]}
        self.previous = [(d, p) for d, p in public["previous"]]
        self._queue = [p for _, p in self.previous] if self.previous else list(self.order)
        self._index = int(public["turn_index"])
        self.phase = public["phase"]

    @classmethod
    def from_public(cls, public: Mapping[str, Any], rng: random.Random) -> State:
        """A state consistent with ``public``; the unseen dominoes are dealt at random
        into the draws still to come (a determinization, for playouts)."""
        state = cls.__new__(cls)
        state.players = int(public["players"])
        state.draws = cls._draws_from_public(public, rng)
        state.order = tuple(public["order"])
        state.kingdoms = []
        for cells in public["kingdoms"]:
            kingdom = Kingdom()
            for x, y, terrain, crowns in cells:
                kingdom._add((x, y), Half(terrain, crowns))
            state.kingdoms.append(kingdom)
        state._turn_from_public(public)
        state.history = []
        return state

    def catch_up(self, public: Mapping[str, Any], rng: random.Random) -> bool:
        """Bring a state made by :meth:`from_public` up to a later ``public`` snapshot of
        the same game: only the halves placed since are added (so a player following a
        game pays for each move once, not for the whole game at every turn).

        :returns: ``False`` (and changes nothing) when ``public`` does not continue
            this state; build a new one with :meth:`from_public` then.
        """
        views = public["kingdoms"]
        if (
            int(public["players"]) != self.players
            or tuple(public["order"]) != self.order
            or int(public["round"]) < self.round
            or len(views) != len(self.kingdoms)
        ):
            return False
        added: list[list[tuple[int, int, str, int]]] = []
        for kingdom, cells in zip(self.kingdoms, views, strict=True):
            have = len(kingdom.cells) - 1  # the castle is not listed
            if len(cells) == have:
                added.append([])
                continue
            new = [(x, y, t, c) for x, y, t, c in cells if (x, y) not in kingdom.cells]
            if len(new) != len(cells) - have:
                return False  # a half of ours is missing there: another game
            added.append(new)
        for kingdom, new in zip(self.kingdoms, added, strict=True):
            for x, y, terrain, crowns in new:
                kingdom._add((x, y), Half(terrain, crowns))
        if int(public["round"]) != self.round:
            self.draws = self._draws_from_public(public, rng)
        self._turn_from_public(public)
        return True

    def resample_future(self, rng: random.Random) -> None:
        """Deal the dominoes nobody has seen yet into the draws still to come at random
        (a fresh determinization of the hidden future, for playouts)."""
        seen = {d for draw in self.draws[: self.round] for d in draw}
        unseen = [d for d in DOMINOES if d not in seen]
        rng.shuffle(unseen)
        future = [tuple(sorted(unseen[i : i + DRAW_SIZE])) for i in range(0, len(unseen), 4)]
        self.draws = list(self.draws[: self.round]) + future

    def copy(self) -> State:
        """An independent copy (kingdoms copied, history not kept)."""
        other = State.__new__(State)
        other.players = self.players
        other.draws = self.draws
        other.order = self.order
        other.kingdoms = [k.copy() for k in self.kingdoms]
        other.active = list(self.active)
        other.round = self.round
        other.current = self.current
        other.taken = dict(self.taken)
        other.previous = list(self.previous)
        other._queue = list(self._queue)
        other._index = self._index
        other.phase = self.phase
        other.history = []
        return other


def _can(verify: Any, *args: Any) -> bool:
    try:
        verify(*args)
    except RuleError:
        return False
    return True


def result_lines(state: State, names: Iterable[str]) -> list[tuple[str, int]]:
    """``(name, points)`` best first (ties: lower player first)."""
    names = list(names)
    scores = state.scores()
    return [(names[p], scores[p]) for p in state.ranking()]
