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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

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
    tuple(tuple(q for q in mill if q != p) for mill in MILLS if p in mill)  # type: ignore[misc]
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
        if self.kind == "move":
            assert self.src is not None
            return f"{point_name(self.src)}:{point_name(self.dst)}"
        return point_name(self.dst)


@dataclass(frozen=True)
class MoveRecord:
    """What a move did.

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


@dataclass
class MorrisState:
    """A game in progress.  Create with ``MorrisState()`` or ``MorrisState(rules)``."""

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
    seen: dict[tuple[object, ...], int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._remember()

    # -- queries ------------------------------------------------------------------

    @property
    def over(self) -> bool:
        """Whether the game has ended."""
        return self.outcome is not None

    def in_hand(self, player: int) -> int:
        """Pieces ``player`` has not placed yet."""
        return self.pieces[player].count(UNPLACED)

    def on_board(self, player: int) -> int:
        """Pieces ``player`` has on the board."""
        return sum(1 for p in self.pieces[player] if p >= 0)

    def alive(self, player: int) -> int:
        """Pieces ``player`` still has (on the board or in hand)."""
        return PIECES - self.pieces[player].count(CAPTURED)

    def phase(self, player: int | None = None) -> str:
        """``placing``, ``moving`` or ``flying`` for ``player`` (default: to move)."""
        p = self.to_move if player is None else player
        if self.in_hand(p):
            return "placing"
        return "flying" if self.on_board(p) == 3 else "moving"

    def owner(self, point: int) -> int | None:
        """The player whose piece is on ``point``, or ``None``."""
        cell = self.board[point]
        return None if cell is None else cell[0]

    def in_mill(self, point: int) -> bool:
        """Whether the piece on ``point`` is part of a mill."""
        who = self.owner(point)
        if who is None:
            return False
        board = self.board
        for a, b in MILLS_OF[point]:
            ca, cb = board[a], board[b]
            if ca is not None and cb is not None and ca[0] == who and cb[0] == who:
                return True
        return False

    def _mills_with(self, player: int, point: int, vacated: int | None = None) -> int:
        board = self.board
        count = 0
        for a, b in MILLS_OF[point]:
            if a == vacated or b == vacated:
                continue
            ca, cb = board[a], board[b]
            if ca is not None and cb is not None and ca[0] == player and cb[0] == player:
                count += 1
        return count

    def position_key(self) -> tuple[object, ...]:
        """The position for repetition: board occupancy, hands and the player to move."""
        return (
            tuple(-1 if c is None else c[0] for c in self.board),
            self.in_hand(0),
            self.in_hand(1),
            self.to_move,
        )

    def piece_list(self) -> list[list[str]]:
        """Per player, per piece: ``"A"`` (in hand), ``"A0"``..``"C7"``, or ``"C"``."""
        return [
            ["A" if p == UNPLACED else "C" if p == CAPTURED else point_name(p) for p in row]
            for row in self.pieces
        ]

    def capturable(self, player: int) -> list[int]:
        """Points of ``player``'s pieces that the opponent may capture now."""
        mine = [p for p in self.pieces[player] if p >= 0]
        free = [p for p in mine if not self.in_mill(p)]
        return sorted(free or mine)

    def legal_moves(self) -> list[Move]:
        """Every move the player to act may make (empty when the game is over)."""
        if self.outcome is not None:
            return []
        me = self.to_move
        if self.pending_captures:
            return [Move("capture", p) for p in self.capturable(1 - me)]
        empty = [p for p in range(POINTS) if self.board[p] is None]
        if self.in_hand(me):
            return [Move("place", p) for p in empty]
        mine = sorted(p for p in self.pieces[me] if p >= 0)
        if len(mine) == 3:
            return [Move("move", d, s) for s in mine for d in empty]
        board = self.board
        return [Move("move", d, s) for s in mine for d in NEIGHBOURS[s] if board[d] is None]

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
        if not self.in_hand(self.to_move):
            raise MorrisError("All your pieces are placed: move one (FROM:TO)")
        if self.board[dst] is not None:
            raise MorrisError("Destination is already occupied")

    def verify_move(self, src: int, dst: int) -> None:
        """Raise :class:`MorrisError` unless moving ``src``→``dst`` is legal now."""
        self._verify_running(False)
        me = self.to_move
        if self.in_hand(me):
            raise MorrisError("You still have pieces to place: name an empty field")
        who = self.owner(src)
        if who is None:
            raise MorrisError(f"There is no piece on {point_name(src)}")
        if who != me:
            raise MorrisError(f"The piece on {point_name(src)} is not yours")
        if self.board[dst] is not None:
            raise MorrisError("Destination is already occupied")
        if self.on_board(me) != 3 and dst not in NEIGHBOURS[src]:
            raise MorrisError(f"{point_name(dst)} is not adjacent to {point_name(src)}")

    def verify_capture(self, point: int) -> None:
        """Raise :class:`MorrisError` unless capturing at ``point`` is legal now."""
        self._verify_running(True)
        who = self.owner(point)
        if who is None:
            raise MorrisError(f"There is no piece on {point_name(point)} to capture")
        if who == self.to_move:
            raise MorrisError("You cannot capture your own piece")
        if point not in self.capturable(who):
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
        return self.can(Move("place", dst))

    def can_move(self, src: int, dst: int) -> bool:
        """Whether moving ``src``→``dst`` is legal now."""
        return self.can(Move("move", dst, src))

    def can_capture(self, point: int) -> bool:
        """Whether capturing at ``point`` is legal now."""
        return self.can(Move("capture", point))

    def place(self, dst: int) -> MoveRecord:
        """Place a piece of the player to move on ``dst``."""
        self.verify_place(dst)
        me = self.to_move
        piece = self.pieces[me].index(UNPLACED)
        return self._land(me, piece, Move("place", dst), None)

    def move(self, src: int, dst: int) -> MoveRecord:
        """Move (or fly) the piece on ``src`` to ``dst``."""
        self.verify_move(src, dst)
        me = self.to_move
        cell = self.board[src]
        assert cell is not None
        self.board[src] = None
        return self._land(me, cell[1], Move("move", dst, src), src)

    def capture(self, point: int) -> MoveRecord:
        """Remove the opponent's piece on ``point`` (a capture is pending)."""
        self.verify_capture(point)
        me = self.to_move
        cell = self.board[point]
        assert cell is not None
        self.board[point] = None
        self.pieces[1 - me][cell[1]] = CAPTURED
        self.pending_captures -= 1
        if self.alive(1 - me) < 3:
            self.pending_captures = 0
        elif self.pending_captures and not self.on_board(1 - me):
            self.pending_captures = 0
        rec = MoveRecord(me, Move("capture", point), cell[1], 0, self.pending_captures)
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
            return Move("move", dst, src)
        dst = parse_point(text)
        return Move("capture" if self.pending_captures else "place", dst)

    def resign(self, player: int, reason: str) -> None:
        """End the game: ``player`` loses (forfeit, timeout, invalid move)."""
        if self.outcome is None:
            self.outcome = Outcome(1 - player, reason)
            self.pending_captures = 0

    # -- internals --------------------------------------------------------------

    def _land(self, me: int, piece: int, move: Move, vacated: int | None) -> MoveRecord:
        dst = move.dst
        self.board[dst] = (me, piece)
        self.pieces[me][piece] = dst
        mills = self._mills_with(me, dst, vacated)
        captures = 0
        if mills and self.on_board(1 - me):
            captures = 1 if mills == 1 else min(2, self.rules.double_mill_captures)
        self.pending_captures = captures
        rec = MoveRecord(me, move, piece, mills, captures)
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
        self.turns += 1
        self.to_move = 1 - me
        if self.alive(1 - me) < 3:
            self.outcome = Outcome(me, "pieces")
            return
        if not self.legal_moves():
            self.outcome = Outcome(me, "blocked")
            return
        count = self._remember()
        if self.rules.repetitions and count >= self.rules.repetitions:
            self.outcome = Outcome(None, "repetition")
        elif self.rules.max_turns and self.turns >= self.rules.max_turns:
            self.outcome = Outcome(None, "turns")

    def _remember(self) -> int:
        key = self.position_key()
        count = self.seen.get(key, 0) + 1
        self.seen[key] = count
        return count
