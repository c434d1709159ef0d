"""Nine Men's Morris: the pure rules engine (no I/O, no Twisted).

The board has three rings, ``A`` (outer), ``B`` (middle) and ``C`` (inner), with points
0-7 clockwise from the top-left corner.  A point is an ``int`` 0-23 (``ring * 8 + i``);
:func:`point_name` and :func:`parse_point` convert to and from ``"A0"`` ... ``"C7"``.

A :class:`MorrisState` follows pokerkit's verify/can/do style: for each kind of move
there is ``verify_x`` (raises :class:`MorrisError` with a reason a person understands),
``can_x`` (yes/no) and ``x`` (verifies, changes the state and returns a frozen
:class:`MoveRecord`).  :meth:`MorrisState.legal_moves` lists every :class:`Move` the
player to act may make; :meth:`MorrisState.apply` applies any of them.

A *turn* is one placement or move plus the captures it earns; while a capture is
pending (:attr:`MorrisState.pending_captures` > 0) the same player acts again and must
name an opponent piece to remove.

Inside, the position is kept as bitboards: :attr:`MorrisState.own` holds one 24-bit
mask per player (bit ``p`` for point ``p``) and :attr:`MorrisState.hand` the pieces
each still has to place; mills, neighbours and legal-move lists are precomputed masks
and tables, so a move costs a few integer operations.  ``board`` and ``pieces`` keep
each piece's identity (for :class:`MoveRecord` and :meth:`MorrisState.piece_list`) and
are updated with the masks, one entry per move.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

RINGS = "ABC"
PLAYERS = 2
PIECES = 9
POINTS = 24
#: the players' names when nobody gave one: seat 0 plays white, seat 1 black
DEFAULT_NAMES = ("white", "black")

#: Position codes of a piece in the piece list: not yet placed, captured.
UNPLACED = -1
CAPTURED = -2


def point_name(point: int) -> str:
    """``13`` → ``"B5"``."""
    return f"{RINGS[point // 8]}{point % 8}"


def parse_point(text: str) -> int:
    """``"B5"`` → ``13``.

    :raises MorrisError: ``text`` names no point of the board.
    """
    if len(text) == 2 and text[0] in RINGS and text[1] in "01234567":
        return RINGS.index(text[0]) * 8 + int(text[1])
    raise MorrisError(f"Invalid move: {text} is not a field")


def _build_geometry() -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, int, int], ...]]:
    neigh: list[set[int]] = [set() for _ in range(POINTS)]
    mills: list[tuple[int, int, int]] = []
    for ring in range(3):
        base = ring * 8
        for i in range(8):
            neigh[base + i].add(base + (i + 1) % 8)
            neigh[base + i].add(base + (i - 1) % 8)
        for start in (0, 2, 4, 6):
            mills.append((base + start, base + start + 1, base + (start + 2) % 8))
    for odd in (1, 3, 5, 7):
        a, b, c = odd, 8 + odd, 16 + odd
        neigh[a].add(b)
        neigh[b].update((a, c))
        neigh[c].add(b)
        mills.append((a, b, c))
    return tuple(tuple(sorted(n)) for n in neigh), tuple(mills)


#: ``NEIGHBOURS[p]``: the points adjacent to point ``p``.
#: ``MILLS``: the 16 lines of three.
NEIGHBOURS, MILLS = _build_geometry()
#: ``MILLS_OF[p]``: for each mill through ``p``, the other two points.
MILLS_OF: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple(tuple(q for q in mill if q != p) for mill in MILLS if p in mill)  # type: ignore[misc]  # a mill's other points: two
    for p in range(POINTS)
)

#: Grid coordinates (column, row) on the usual 7×7 drawing, for renderers and tests.
COORDS: tuple[tuple[int, int], ...] = tuple(
    (
        (ring, ring),
        (3, ring),
        (6 - ring, ring),
        (6 - ring, 3),
        (6 - ring, 6 - ring),
        (3, 6 - ring),
        (ring, 6 - ring),
        (ring, 3),
    )[i]
    for ring in range(3)
    for i in range(8)
)


class MorrisError(ValueError):
    """A move that is not legal now; ``reason`` says why, for people."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


MoveKind = Literal["place", "move", "capture"]


@dataclass(frozen=True, order=True)
class Move:
    """One decision: place on ``dst``, move ``src``→``dst``, or capture at ``dst``."""

    kind: MoveKind
    dst: int
    src: int | None = None

    def text(self) -> str:
        """Wire text: ``B3``, ``A1:B1`` or (capture) ``C5``."""
        return self.wire

    @functools.cached_property
    def wire(self) -> str:
        """:meth:`text`, formatted once per move (the tables' moves are shared)."""
        if self.kind == "move":
            assert self.src is not None
            return f"{point_name(self.src)}:{point_name(self.dst)}"
        return point_name(self.dst)


#: builds a named tuple from all its fields, without its ``__new__``'s keyword handling
_new = tuple.__new__


class MoveRecord(NamedTuple):
    """What a move did (a named tuple: one is made every move).

    :ivar player: who moved.
    :ivar move: the :class:`Move`.
    :ivar piece: index (0-8) of the moving piece, or of the captured opponent piece.
    :ivar mills: mills newly closed by this move (0, 1 or 2).
    :ivar captures: captures now pending for ``player``.
    :ivar over: whether the game ended with this move.
    """

    player: int
    move: Move
    piece: int
    mills: int = 0
    captures: int = 0
    over: bool = False


@dataclass(frozen=True)
class Outcome:
    """How a game ended: ``winner`` is ``None`` for a draw."""

    winner: int | None
    reason: str


@dataclass(frozen=True)
class MorrisRules:
    """Immutable game parameters.

    :ivar double_mill_captures: captures earned by closing two mills at once (1 or 2).
    :ivar max_turns: draw after this many turns (0: never).
    :ivar repetitions: draw when a position occurs this often (0: never).
    """

    double_mill_captures: int = 1
    max_turns: int = 200
    repetitions: int = 3


# -- bitboards ---------------------------------------------------------------------

FULL = (1 << POINTS) - 1
#: ``BIT[p]``: the mask of point ``p``.
BIT: tuple[int, ...] = tuple(1 << p for p in range(POINTS))
#: ``NEIGHBOUR_MASK[p]``: the points adjacent to ``p``, as a mask.
NEIGHBOUR_MASK: tuple[int, ...] = tuple(sum(BIT[q] for q in NEIGHBOURS[p]) for p in range(POINTS))
#: ``MILL_MASKS``: the 16 mills as masks.
MILL_MASKS: tuple[int, ...] = tuple(sum(BIT[q] for q in mill) for mill in MILLS)
#: ``MILL_PAIRS[p]``: for each mill through ``p``, the mask of its other two points.
MILL_PAIRS: tuple[tuple[int, ...], ...] = tuple(
    tuple(BIT[a] | BIT[b] for a, b in MILLS_OF[p]) for p in range(POINTS)
)
_ODD = 0xAAAAAA  # the midpoints of the sides, where the rings are joined


def _ring_in_mill(byte: int) -> int:
    out = 0
    for m in MILL_MASKS:
        if m < 256 and byte & m == m:
            out |= m
    return out


#: ``_IN_RING_MILL[b]``: the points of one ring's occupancy byte ``b`` that are in a
#: mill along the ring.
_IN_RING_MILL: tuple[int, ...] = tuple(_ring_in_mill(b) for b in range(256))


def mill_points(mask: int) -> int:
    """The points of ``mask`` that are in a mill made of ``mask``'s points."""
    ring = _IN_RING_MILL
    out = ring[mask & 255] | ring[mask >> 8 & 255] << 8 | ring[mask >> 16] << 16
    return out | (mask & mask >> 8 & mask >> 16 & _ODD & 255) * 0x010101


def adjacent(mask: int) -> int:
    """Every point adjacent to a point of ``mask``."""
    around = mask << 1 & 0xFEFEFE | mask >> 7 & 0x010101 | mask >> 1 & 0x7F7F7F
    odd = mask & _ODD
    return around | mask << 7 & 0x808080 | odd << 8 & FULL | odd >> 8


_Table = tuple[tuple[tuple[Any, ...], ...], ...]


def _by_byte(make: Callable[[int], Any]) -> _Table:
    """Per ring, per occupancy byte: the tuple of ``make(point)`` for its points."""
    return tuple(
        tuple(tuple(make(ring * 8 + i) for i in range(8) if byte >> i & 1) for byte in range(256))
        for ring in range(3)
    )


_POINTS_OF = _by_byte(lambda p: p)


def points(mask: int) -> tuple[int, ...]:
    """The points of ``mask``, lowest first."""
    t = _POINTS_OF
    return t[0][mask & 255] + t[1][mask >> 8 & 255] + t[2][mask >> 16]


#: One shared :class:`Move` per possible move (moves are immutable): legal-move lists
#: are built from these tables without making objects.
PLACE_MOVES: tuple[Move, ...] = tuple(Move("place", p) for p in range(POINTS))
CAPTURE_MOVES: tuple[Move, ...] = tuple(Move("capture", p) for p in range(POINTS))
MOVE_MOVES: tuple[tuple[Move, ...], ...] = tuple(
    tuple(Move("move", d, s) for d in range(POINTS)) for s in range(POINTS)
)
_PLACES = _by_byte(PLACE_MOVES.__getitem__)
_CAPTURES = _by_byte(CAPTURE_MOVES.__getitem__)
_FLIES = tuple(_by_byte(MOVE_MOVES[s].__getitem__) for s in range(POINTS))


def _steps(src: int) -> dict[int, tuple[Move, ...]]:
    near = NEIGHBOURS[src]
    out: dict[int, tuple[Move, ...]] = {}
    for chosen in range(1 << len(near)):
        picked = [d for i, d in enumerate(near) if chosen >> i & 1]
        out[sum(BIT[d] for d in picked)] = tuple(MOVE_MOVES[src][d] for d in picked)
    return out


#: ``_STEPS[s][m]``: the moves from ``s`` to the points of ``m``, a set of neighbours.
_STEPS: tuple[dict[int, tuple[Move, ...]], ...] = tuple(_steps(s) for s in range(POINTS))
#: ``_CELLS[player][piece]``: the shared ``board`` entry of a piece.
_CELLS: tuple[tuple[tuple[int, int], ...], ...] = tuple(
    tuple((player, i) for i in range(PIECES)) for player in range(PLAYERS)
)


@dataclass
class MorrisState:
    """A game in progress.  Create with ``MorrisState()`` or ``MorrisState(rules)``.

    ``pieces`` and ``board`` may be given (a position to start from); the masks are
    built from them.  To set up a position on an existing state, use
    :meth:`set_position`.
    """

    rules: MorrisRules = field(default_factory=MorrisRules)
    #: ``pieces[p][i]``: point of piece ``i`` of player ``p``, or UNPLACED/CAPTURED.
    pieces: list[list[int]] = field(default_factory=lambda: [[UNPLACED] * PIECES for _ in range(2)])
    #: ``board[point]``: ``(player, piece)`` or ``None``.
    board: list[tuple[int, int] | None] = field(default_factory=lambda: [None] * POINTS)
    to_move: int = 0
    pending_captures: int = 0
    turns: int = 0
    outcome: Outcome | None = None
    history: list[MoveRecord] = field(default_factory=list)
    #: how often each position (see :meth:`position_key`) occurred
    seen: dict[int, int] = field(default_factory=dict)
    #: ``own[p]``: the mask of player ``p``'s pieces on the board
    own: list[int] = field(init=False, repr=False, compare=False)
    #: ``hand[p]``: pieces player ``p`` has still to place
    hand: list[int] = field(init=False, repr=False, compare=False)
    #: ``lost[p]``: pieces of player ``p`` captured
    lost: list[int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._sync()
        self._remember()

    def _sync(self) -> None:
        """Rebuild the masks and counts from ``pieces``."""
        self.own = [sum(BIT[q] for q in row if q >= 0) for row in self.pieces]
        self.hand = [row.count(UNPLACED) for row in self.pieces]
        self.lost = [row.count(CAPTURED) for row in self.pieces]

    def set_position(
        self,
        white: Sequence[int],
        black: Sequence[int],
        to_move: int,
        in_hand: tuple[int, int] = (0, 0),
    ) -> None:
        """Put the pieces on ``white``'s and ``black``'s points (pieces 0, 1, ... in
        that order), ``in_hand`` more per player still to place, the rest captured;
        ``to_move`` acts next.  Forgets the positions seen; keeps the turn count."""
        self.board = [None] * POINTS
        self.pieces = [[CAPTURED] * PIECES for _ in range(PLAYERS)]
        for player, where in enumerate((white, black)):
            row = self.pieces[player]
            for i, point in enumerate(where):
                row[i] = point
                self.board[point] = _CELLS[player][i]
            for i in range(len(where), len(where) + in_hand[player]):
                row[i] = UNPLACED
        self.to_move = to_move
        self.pending_captures = 0
        self.outcome = None
        self._sync()
        self.seen.clear()

    # -- queries ------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.outcome is not None

    def in_hand(self, player: int) -> int:
        """Pieces ``player`` has not placed yet."""
        return self.hand[player]

    def on_board(self, player: int) -> int:
        """Pieces ``player`` has on the board."""
        return self.own[player].bit_count()

    def alive(self, player: int) -> int:
        """Pieces ``player`` still has (on the board or in hand)."""
        return PIECES - self.lost[player]

    def phase(self, player: int | None = None) -> str:
        """``placing``, ``moving`` or ``flying`` for ``player`` (default: to move)."""
        p = self.to_move if player is None else player
        if self.hand[p]:
            return "placing"
        return "flying" if self.own[p].bit_count() == 3 else "moving"

    def owner(self, point: int) -> int | None:
        """The player whose piece is on ``point``, or ``None``."""
        bit = BIT[point]
        if self.own[0] & bit:
            return 0
        return 1 if self.own[1] & bit else None

    def in_mill(self, point: int) -> bool:
        """Whether the piece on ``point`` is part of a mill."""
        who = self.owner(point)
        if who is None:
            return False
        mine = self.own[who]
        return any(mine & pair == pair for pair in MILL_PAIRS[point])

    def position_key(self) -> int:
        """The position for repetition: both masks, both hands and the player to move,
        packed in one number (24 bits a mask, 4 a hand, 1 the player: a number costs
        less than a tuple of five, and :attr:`seen` keeps one a position)."""
        own, hand = self.own, self.hand
        return own[0] | own[1] << 24 | hand[0] << 48 | hand[1] << 52 | self.to_move << 56

    def piece_list(self) -> list[list[str]]:
        """Per player, per piece: ``"A"`` (in hand), ``"A0"``..``"C7"``, or ``"C"``."""
        text = _PIECE_TEXT.__getitem__
        return [list(map(text, row)) for row in self.pieces]

    def piece_rows(self) -> tuple[tuple[str, ...], ...]:
        """:meth:`piece_list` as shared tuples: a row of positions is named once (a
        bounded cache; a move changes one player's row, the other's is the last one)."""
        return tuple([_row_names(tuple(row)) for row in self.pieces])

    def _capturable_mask(self, player: int) -> int:
        mine = self.own[player]
        return mine & ~mill_points(mine) or mine

    def capturable(self, player: int) -> list[int]:
        """Points of ``player``'s pieces that the opponent may capture now."""
        return list(points(self._capturable_mask(player)))

    def legal_moves(self) -> list[Move]:
        """Every move the player to act may make (empty when the game is over)."""
        if self.outcome is not None:
            return []
        me = self.to_move
        if self.pending_captures:
            m = self._capturable_mask(1 - me)
            t = _CAPTURES
            return list(t[0][m & 255] + t[1][m >> 8 & 255] + t[2][m >> 16])
        own = self.own
        mine = own[me]
        empty = FULL ^ (mine | own[1 - me])
        if self.hand[me]:
            t = _PLACES
            return list(t[0][empty & 255] + t[1][empty >> 8 & 255] + t[2][empty >> 16])
        if mine.bit_count() == 3:
            out: list[Move] = []
            lo, mid, hi = empty & 255, empty >> 8 & 255, empty >> 16
            for s in points(mine):
                t = _FLIES[s]
                out += t[0][lo] + t[1][mid] + t[2][hi]
            return out
        out = []
        for s in points(mine):
            step = NEIGHBOUR_MASK[s] & empty
            if step:
                out += _STEPS[s][step]
        return out

    def _blocked(self, player: int) -> bool:
        """Whether ``player`` (to move, no capture pending) has no move."""
        if self.hand[player]:
            return False
        own = self.own
        mine = own[player]
        empty = FULL ^ (mine | own[1 - player])
        if mine.bit_count() == 3:
            return not empty
        return not adjacent(mine) & empty

    # -- verify / can / do ----------------------------------------------------------

    def _verify_running(self, capture: bool) -> None:
        if self.outcome is not None:
            raise MorrisError("The game is over")
        if capture and not self.pending_captures:
            raise MorrisError("There is nothing to capture now")
        if not capture and self.pending_captures:
            raise MorrisError("You closed a mill: name an opponent piece to capture")

    def verify_place(self, dst: int) -> None:
        """Raise :class:`MorrisError` unless placing on ``dst`` is legal now."""
        self._verify_running(False)
        if not self.hand[self.to_move]:
            raise MorrisError("All your pieces are placed: move one (FROM:TO)")
        if self.board[dst] is not None:
            raise MorrisError("Destination is already occupied")

    def verify_move(self, src: int, dst: int) -> None:
        """Raise :class:`MorrisError` unless moving ``src``→``dst`` is legal now."""
        self._verify_running(False)
        me = self.to_move
        if self.hand[me]:
            raise MorrisError("You still have pieces to place: name an empty field")
        who = self.owner(src)
        if who is None:
            raise MorrisError(f"There is no piece on {point_name(src)}")
        if who != me:
            raise MorrisError(f"The piece on {point_name(src)} is not yours")
        if self.board[dst] is not None:
            raise MorrisError("Destination is already occupied")
        if not NEIGHBOUR_MASK[src] & BIT[dst] and self.own[me].bit_count() != 3:
            raise MorrisError(f"{point_name(dst)} is not adjacent to {point_name(src)}")

    def verify_capture(self, point: int) -> None:
        """Raise :class:`MorrisError` unless capturing at ``point`` is legal now."""
        self._verify_running(True)
        who = self.owner(point)
        if who is None:
            raise MorrisError(f"There is no piece on {point_name(point)} to capture")
        if who == self.to_move:
            raise MorrisError("You cannot capture your own piece")
        if not self._capturable_mask(who) & BIT[point]:
            raise MorrisError(
                f"The piece on {point_name(point)} is in a mill and other pieces are not"
            )

    def verify(self, move: Move) -> None:
        """Raise :class:`MorrisError` unless ``move`` is legal now."""
        if move.kind == "place":
            self.verify_place(move.dst)
        elif move.kind == "move":
            assert move.src is not None
            self.verify_move(move.src, move.dst)
        else:
            self.verify_capture(move.dst)

    def can(self, move: Move) -> bool:
        """Whether ``move`` is legal now."""
        try:
            self.verify(move)
        except MorrisError:
            return False
        return True

    def can_place(self, dst: int) -> bool:
        """Whether placing on ``dst`` is legal now."""
        return self.can(PLACE_MOVES[dst])

    def can_move(self, src: int, dst: int) -> bool:
        """Whether moving ``src``→``dst`` is legal now."""
        return self.can(MOVE_MOVES[src][dst])

    def can_capture(self, point: int) -> bool:
        """Whether capturing at ``point`` is legal now."""
        return self.can(CAPTURE_MOVES[point])

    def place(self, dst: int) -> MoveRecord:
        """Place a piece of the player to move on ``dst``."""
        self.verify_place(dst)
        me = self.to_move
        piece = self.pieces[me].index(UNPLACED)
        self.hand[me] -= 1
        return self._land(me, piece, PLACE_MOVES[dst])

    def move(self, src: int, dst: int) -> MoveRecord:
        """Move (or fly) the piece on ``src`` to ``dst``."""
        self.verify_move(src, dst)
        me = self.to_move
        cell = self.board[src]
        assert cell is not None
        self.board[src] = None
        self.own[me] ^= BIT[src]
        return self._land(me, cell[1], MOVE_MOVES[src][dst])

    def capture(self, point: int) -> MoveRecord:
        """Remove the opponent's piece on ``point`` (a capture is pending)."""
        self.verify_capture(point)
        me = self.to_move
        them = 1 - me
        cell = self.board[point]
        assert cell is not None
        self.board[point] = None
        self.pieces[them][cell[1]] = CAPTURED
        self.own[them] ^= BIT[point]
        self.lost[them] += 1
        self.pending_captures -= 1
        if self.lost[them] > PIECES - 3 or not self.own[them]:
            self.pending_captures = 0
        rec = _new(MoveRecord, (me, CAPTURE_MOVES[point], cell[1], 0, self.pending_captures, False))
        if not self.pending_captures:
            self._end_turn()
        return self._record(rec)

    def apply(self, move: Move) -> MoveRecord:
        """Apply any legal ``move``."""
        if move.kind == "place":
            return self.place(move.dst)
        if move.kind == "move":
            assert move.src is not None
            return self.move(move.src, move.dst)
        return self.capture(move.dst)

    def parse(self, text: str) -> Move:
        """Wire text → :class:`Move` (checks syntax only; capture if one is pending).

        :raises MorrisError: the text names no field or has the wrong form.
        """
        if ":" in text:
            src_text, _, dst_text = text.partition(":")
            src, dst = parse_point(src_text), parse_point(dst_text)
            if self.pending_captures:
                raise MorrisError("You closed a mill: name an opponent piece to capture")
            return MOVE_MOVES[src][dst]
        dst = parse_point(text)
        return (CAPTURE_MOVES if self.pending_captures else PLACE_MOVES)[dst]

    def resign(self, player: int, reason: str) -> None:
        """End the game: ``player`` loses (forfeit, timeout, invalid move)."""
        if self.outcome is None:
            self.outcome = Outcome(1 - player, reason)
            self.pending_captures = 0

    # -- internals --------------------------------------------------------------

    def _land(self, me: int, piece: int, move: Move) -> MoveRecord:
        dst = move.dst
        self.board[dst] = _CELLS[me][piece]
        self.pieces[me][piece] = dst
        own = self.own
        mine = own[me] | BIT[dst]
        own[me] = mine
        mills = 0
        for pair in MILL_PAIRS[dst]:
            if mine & pair == pair:
                mills += 1
        captures = 0
        if mills and own[1 - me]:
            captures = 1 if mills == 1 else min(2, self.rules.double_mill_captures)
        self.pending_captures = captures
        rec = _new(MoveRecord, (me, move, piece, mills, captures, False))
        if not captures:
            self._end_turn()
        return self._record(rec)

    def _record(self, rec: MoveRecord) -> MoveRecord:
        if self.outcome is not None:
            rec = MoveRecord(rec.player, rec.move, rec.piece, rec.mills, 0, True)
        self.history.append(rec)
        return rec

    def _end_turn(self) -> None:
        me = self.to_move
        them = 1 - me
        self.turns += 1
        self.to_move = them
        if self.lost[them] > PIECES - 3:
            self.outcome = Outcome(me, "pieces")
            return
        if self._blocked(them):
            self.outcome = Outcome(me, "blocked")
            return
        rules = self.rules
        if rules.repetitions and self._remember() >= rules.repetitions:
            self.outcome = Outcome(None, "repetition")
        elif rules.max_turns and self.turns >= rules.max_turns:
            self.outcome = Outcome(None, "turns")

    def _remember(self) -> int:
        key = self.position_key()
        count = self.seen.get(key, 0) + 1
        self.seen[key] = count
        return count


_PIECE_TEXT = {UNPLACED: "A", CAPTURED: "C", **{p: point_name(p) for p in range(POINTS)}}


@functools.lru_cache(maxsize=4096)
def _row_names(row: tuple[int, ...]) -> tuple[str, ...]:
    """One player's piece positions as :meth:`MorrisState.piece_list` names them."""
    return tuple(map(_PIECE_TEXT.__getitem__, row))
