"""Nine Men's Morris search: bitboards, alpha-beta with iterative deepening.

Self-contained (a bot plugin carries its own board knowledge): a position is a tuple
``(own0, own1, hand0, hand1, side)`` where ``own<p>`` is a 24-bit mask of player
``p``'s pieces (bit ``ring * 8 + i`` for point ``A0``..``C7``), ``hand<p>`` the pieces
still to place and ``side`` the player to move.  A search move is a whole turn:
``(src, dst, captures)`` with ``src = -1`` for a placement and ``captures`` a tuple of
the points captured with it (empty, or one; two with the double-mill option).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

Pos = tuple[int, int, int, int, int]
Turn = tuple[int, int, tuple[int, ...]]

FULL = (1 << 24) - 1
WIN = 1_000_000
RINGS = "ABC"


def _geometry() -> tuple[list[int], list[list[int]], list[int]]:
    neigh = [0] * 24
    mills: list[int] = []
    for ring in range(3):
        b = ring * 8
        for i in range(8):
            neigh[b + i] |= 1 << (b + (i + 1) % 8) | 1 << (b + (i - 1) % 8)
        for s in (0, 2, 4, 6):
            mills.append(1 << (b + s) | 1 << (b + s + 1) | 1 << (b + (s + 2) % 8))
    for odd in (1, 3, 5, 7):
        a, m, c = odd, odd + 8, odd + 16
        neigh[a] |= 1 << m
        neigh[m] |= 1 << a | 1 << c
        neigh[c] |= 1 << m
        mills.append(1 << a | 1 << m | 1 << c)
    pairs = [[mask & ~(1 << p) for mask in mills if mask >> p & 1] for p in range(24)]
    return neigh, pairs, mills


NEIGH, PAIRS, MILLS = _geometry()


def bits(mask: int) -> list[int]:
    """The set bits of ``mask`` (points), lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def name(point: int) -> str:
    """``13`` → ``B5``."""
    return f"{RINGS[point // 8]}{point % 8}"


def parse(text: str) -> int:
    """``B5`` → ``13``."""
    return RINGS.index(text[0]) * 8 + int(text[1])


def turn_text(turn: Turn) -> list[str]:
    """The wire texts of a turn: the move, then one text per capture."""
    src, dst, caps = turn
    out = [] if dst < 0 else [name(dst) if src < 0 else f"{name(src)}:{name(dst)}"]
    return out + [name(c) for c in caps]


def capturable(opp: int) -> int:
    """Pieces of ``opp`` that may be captured: those outside mills, else all."""
    in_mill = 0
    for m in MILLS:
        if opp & m == m:
            in_mill |= m
    free = opp & ~in_mill
    return free or opp


def _capture_sets(opp: int, count: int) -> list[tuple[int, ...]]:
    firsts = bits(capturable(opp))
    if count == 1:
        return [(c,) for c in firsts]
    seen: set[frozenset[int]] = set()
    out: list[tuple[int, ...]] = []
    for c in firsts:
        rest = opp & ~(1 << c)
        if not rest:
            out.append((c,))
            continue
        for c2 in bits(capturable(rest)):
            key = frozenset((c, c2))
            if key not in seen:
                seen.add(key)
                out.append((c, c2))
    return out


def gen_turns(pos: Pos, double: int = 1) -> list[Turn]:
    """Every turn the side to move can make (empty: it is blocked)."""
    side = pos[4]
    me, opp = pos[side], pos[1 - side]
    empty = FULL & ~(me | opp)
    basic: list[tuple[int, int]]
    if pos[2 + side]:
        basic = [(-1, d) for d in bits(empty)]
    elif me.bit_count() == 3:
        basic = [(s, d) for s in bits(me) for d in bits(empty)]
    else:
        basic = [(s, d) for s in bits(me) for d in bits(NEIGH[s] & empty)]
    out: list[Turn] = []
    for s, d in basic:
        after = (me & ~(1 << s) if s >= 0 else me) | 1 << d
        mills = 0
        for pm in PAIRS[d]:
            if after & pm == pm:
                mills += 1
        if mills and opp:
            for caps in _capture_sets(opp, 1 if mills == 1 else double):
                out.append((s, d, caps))
        else:
            out.append((s, d, ()))
    return out


def apply(pos: Pos, turn: Turn) -> Pos:
    """The position after ``turn`` (the other side to move)."""
    side = pos[4]
    src, dst, caps = turn
    own = [pos[0], pos[1]]
    hand = [pos[2], pos[3]]
    if dst >= 0:
        if src < 0:
            hand[side] -= 1
        else:
            own[side] &= ~(1 << src)
        own[side] |= 1 << dst
    for c in caps:
        own[1 - side] &= ~(1 << c)
    return (own[0], own[1], hand[0], hand[1], 1 - side)


def blocked(pos: Pos) -> bool:
    """Whether the side to move has no turn (nothing in hand, not flying, no free
    neighbour), without listing the turns."""
    side = pos[4]
    me = pos[side]
    if pos[2 + side] or me.bit_count() <= 3:
        return False
    empty = FULL & ~(me | pos[1 - side])
    return not any(NEIGH[p] & empty for p in bits(me))


def alive(pos: Pos, player: int) -> int:
    """Pieces ``player`` still has, on the board or in hand."""
    return pos[player].bit_count() + pos[2 + player]


def _side_terms(own: int, opp: int, hand: int) -> tuple[int, int, int, int]:
    empty = FULL & ~(own | opp)
    mills = 0
    twos = 0
    for m in MILLS:
        mine = own & m
        if mine == m:
            mills += 1
        elif mine.bit_count() == 2 and not opp & m:
            twos += 1
    mobility = 0
    blocked = 0
    if own.bit_count() > 3 or hand:
        for p in bits(own):
            free = (NEIGH[p] & empty).bit_count()
            mobility += free
            if not free:
                blocked += 1
    else:
        mobility = 8  # flying: as mobile as it gets
    return mills, twos, mobility, blocked


def evaluate(pos: Pos) -> int:
    """Static score for the side to move: material, mills, open twos, mobility,
    blocked pieces."""
    side = pos[4]
    me, opp = pos[side], pos[1 - side]
    hm, ho = pos[2 + side], pos[3 - side]
    m1, t1, mob1, bl1 = _side_terms(me, opp, hm)
    m2, t2, mob2, bl2 = _side_terms(opp, me, ho)
    score = 1000 * ((me.bit_count() + hm) - (opp.bit_count() + ho))
    # a blocked piece is worth a quarter of a piece: a side shut in loses the game, and
    # a searcher that counts material alone walks into that (it lost half its games
    # to depth 2 by blockade)
    score += 60 * (m1 - m2) + 40 * (t1 - t2) + 50 * (mob1 - mob2) + 250 * (bl2 - bl1)
    # few free moves are a danger, for both sides
    score -= 250 * max(0, 4 - mob1) - 250 * max(0, 4 - mob2)
    if not ho and opp.bit_count() > 3 and mob2 == 0:
        score += WIN // 2  # the opponent will have no move
    return score


class OutOfTime(Exception):
    """The search ran out of its time or node budget."""


@dataclass
class SearchResult:
    """What :meth:`Searcher.best` found: the turn, its score and the depth reached."""

    turn: Turn
    score: int
    depth: int
    nodes: int


@dataclass
class Searcher:
    """Iterative-deepening negamax alpha-beta with a transposition table.

    :ivar max_depth: deepest iteration (plies = whole turns).
    :ivar max_nodes: node budget per decision (0: none); makes tests deterministic.
    :ivar double: captures a double mill earns (the game's option).
    :ivar rng: breaks ties between equally ordered moves.
    """

    max_depth: int = 64
    max_nodes: int = 0
    double: int = 1
    rng: random.Random = field(default_factory=random.Random)
    clock: Callable[[], float] = time.monotonic
    table: dict[Pos, tuple[int, int, int, Turn | None]] = field(default_factory=dict)
    #: positions that already occurred in the game: reaching one again scores as a
    #: draw (the game is drawn on a threefold repetition)
    history: set[Pos] = field(default_factory=set)
    #: how much worse than an even position a draw is for the searching side
    contempt: int = 150
    #: a position of ``history`` that does not count (the one the search starts from)
    ignore: Pos | None = None
    #: the game followed so far (see :func:`bots.morris.decide`)
    replay: Replay | None = None

    def best(self, pos: Pos, seconds: float | None = None, pending: int = 0) -> SearchResult:
        """The best turn from ``pos`` within ``seconds`` (``None``: no time limit).

        With ``pending`` > 0 the side to move has already moved and only chooses the
        capture(s): the result's turn is ``(-1, -1, captures)``.
        """
        self._deadline = None if seconds is None else self.clock() + seconds
        # a short budget looks at the clock more often: on a loaded machine 512 nodes
        # can take a good share of a tenth of a second
        self._mask = 63 if seconds is not None and seconds < 1.0 else 511
        self._nodes = 0
        #: (side, src, dst) → how often (weighted by depth) that turn caused a cutoff
        self._order: dict[tuple[int, int, int], int] = {}
        self._root_side = pos[4]
        if len(self.table) > 500_000:
            self.table.clear()
        if pending:
            opp = pos[1 - pos[4]]
            root = [(-1, -1, caps) for caps in _capture_sets(opp, pending)]
        else:
            root = gen_turns(pos, self.double)
        if not root:
            raise ValueError("no legal move")
        self.rng.shuffle(root)
        root.sort(key=lambda t: -len(t[2]))
        best = SearchResult(root[0], 0, 0, 0)
        if len(root) == 1:
            return best
        for depth in range(1, self.max_depth + 1):
            try:
                score, turn = self._root(pos, root, depth)
            except OutOfTime:
                break
            best = SearchResult(turn, score, depth, self._nodes)
            root.remove(turn)
            root.insert(0, turn)
            if abs(score) > WIN - 1000:
                break  # a forced result: deeper search changes nothing
        best.nodes = self._nodes
        return best

    def _root(self, pos: Pos, root: list[Turn], depth: int) -> tuple[int, Turn]:
        alpha, beta = -WIN - 1, WIN + 1
        best_turn = root[0]
        for turn in root:
            value = -self._search(apply(pos, turn), depth - 1, -beta, -alpha, 1)
            if value > alpha:
                alpha, best_turn = value, turn
        return alpha, best_turn

    def _search(self, pos: Pos, depth: int, alpha: int, beta: int, ply: int) -> int:
        self._nodes += 1
        if not self._nodes & self._mask:
            if self._deadline is not None:
                if self.clock() > self._deadline:
                    raise OutOfTime
                time.sleep(0)  # let the reactor's thread (and its timers) run meanwhile
        if self.max_nodes and self._nodes > self.max_nodes:
            raise OutOfTime
        side = pos[4]
        if alive(pos, side) < 3:
            return -WIN + ply
        if pos in self.history and pos != self.ignore:
            return -self.contempt if side == self._root_side else self.contempt
        entry = self.table.get(pos)
        tt_turn = None
        if entry is not None:
            e_depth, e_value, e_flag, tt_turn = entry
            if e_depth >= depth:
                if e_flag == 0:
                    return e_value
                if e_flag < 0 and e_value <= alpha:
                    return e_value
                if e_flag > 0 and e_value >= beta:
                    return e_value
        if depth <= 0:
            if blocked(pos):
                return -WIN + ply
            return evaluate(pos)
        turns = gen_turns(pos, self.double)
        if not turns:
            return -WIN + ply
        order = self._order
        turns.sort(key=lambda t: (-len(t[2]), -order.get((side, t[0], t[1]), 0)))
        if tt_turn is not None and tt_turn in turns:
            turns.remove(tt_turn)
            turns.insert(0, tt_turn)
        original_alpha = alpha
        best_value = -WIN - 1
        best_turn = turns[0]
        for turn in turns:
            value = -self._search(apply(pos, turn), depth - 1, -beta, -alpha, ply + 1)
            if value > best_value:
                best_value, best_turn = value, turn
                if value > alpha:
                    alpha = value
                    if alpha >= beta:
                        if not turn[2]:  # a quiet turn that refuted: try it early again
                            key = (side, turn[0], turn[1])
                            order[key] = order.get(key, 0) + depth * depth
                        break
        flag = 0
        if best_value <= original_alpha:
            flag = -1
        elif best_value >= beta:
            flag = 1
        self.table[pos] = (depth, best_value, flag, best_turn)
        return best_value


class Replay:
    """A game's positions at the start of each turn, read from its move texts as they
    come (``B3``, ``A1:B1``, captures as separate texts): :meth:`feed` only the new
    ones, so following a game costs one step per move, not the whole history again."""

    def __init__(self, double: int = 1) -> None:
        self.double = double
        start: Pos = (0, 0, 9, 9, 0)
        #: the positions, the start position first
        self.positions: list[Pos] = [start]
        #: the same, as a set
        self.seen: set[Pos] = {start}
        #: how many texts were fed, and the last one
        self.count = 0
        self.last: str | None = None
        self._pending = 0
        self._caps: list[int] = []
        self._src = self._dst = -1

    def follows(self, texts: list[str]) -> bool:
        """Whether ``texts`` continues what was fed (so only its tail is new)."""
        n = self.count
        return len(texts) >= n and (n == 0 or texts[n - 1] == self.last)

    def feed(self, texts: list[str]) -> None:
        """Read ``texts`` (each a move or a capture) in order."""
        for text in texts:
            self._step(text)
            self.count += 1
            self.last = text

    def _add(self, pos: Pos) -> None:
        self.positions.append(pos)
        self.seen.add(pos)

    def _step(self, text: str) -> None:
        pos = self.positions[-1]
        if self._pending:
            caps = self._caps
            caps.append(parse(text))
            self._pending -= 1
            opp = pos[1 - pos[4]] & ~sum(1 << c for c in caps)
            if opp == 0 or alive(_with(pos, opp), 1 - pos[4]) < 3:
                self._pending = 0
            if not self._pending:
                self._add(apply(pos, (self._src, self._dst, tuple(caps))))
            return
        if ":" in text:
            src, dst = parse(text[:2]), parse(text[3:])
        else:
            src, dst = -1, parse(text)
        side = pos[4]
        after = (pos[side] & ~(1 << src) if src >= 0 else pos[side]) | 1 << dst
        mills = sum(1 for pm in PAIRS[dst] if after & pm == pm)
        self._caps = []
        self._src, self._dst = src, dst
        if mills and pos[1 - side]:
            self._pending = 1 if mills == 1 else self.double
        else:
            self._add(apply(pos, (src, dst, ())))


def replay(texts: list[str], double: int = 1) -> list[Pos]:
    """The positions at the start of each turn of a game given by its move texts
    (``B3``, ``A1:B1``, captures as separate texts), the start position first."""
    r = Replay(double)
    r.feed(texts)
    return r.positions


def _with(pos: Pos, opp: int) -> Pos:
    side = pos[4]
    own = [pos[0], pos[1]]
    own[1 - side] = opp
    return (own[0], own[1], pos[2], pos[3], side)


def position_from_pieces(pieces: list[list[str]], to_move: int) -> Pos:
    """A search position from a protocol piece list (``A`` / ``A0``..``C7`` / ``C``)."""
    own = [0, 0]
    hand = [0, 0]
    for player in (0, 1):
        for pos in pieces[player]:
            if pos == "A":
                hand[player] += 1
            elif pos != "C":
                own[player] |= 1 << parse(pos)
    return (own[0], own[1], hand[0], hand[1], to_move)
