"""Helpers for poker engine tests: tables with stacked decks."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal

from games.poker import cards as C
from games.poker import rules as R


def cards(text: str) -> list[int]:
    """``"Ah Kd"`` → card ints."""
    return C.parse_many(text)


def stacked_deck(
    order: Sequence[int],
    holes: Mapping[int, Iterable[int]],
    board: Iterable[int] = (),
    burn: bool = True,
    streets: Sequence[int] = (3, 1, 1),
) -> list[int]:
    """A deck that deals ``holes`` (seat → cards) and ``board`` with the engine's order.

    :param order: seats in deal order (left of the button first).
    """
    holes = {s: list(h) for s, h in holes.items()}
    board = list(board)
    used = {c for h in holes.values() for c in h} | set(board)
    spare = [c for c in range(52) if c not in used]
    deck: list[int] = []
    n = len(next(iter(holes.values())))
    for i in range(n):
        for s in order:
            deck.append(holes[s][i] if s in holes else spare.pop())
    b = iter(board)
    for k in streets:
        if burn:
            deck.append(spare.pop())
        for _ in range(k):
            c = next(b, None)
            deck.append(spare.pop() if c is None else c)
    deck.extend(spare)
    assert sorted(deck) == list(range(52))
    return deck


def table(
    n: int,
    stacks: Decimal | int | Sequence[int | Decimal] = 1000,
    *,
    seats: int | None = None,
    auto_post: bool = True,
    **config,
) -> R.Table:
    """A table with ``n`` players at seats 0..n-1 (names p0..), blinds posted automatically."""
    cfg = R.TableConfig(seats=seats or max(n, 2), **config)
    t = R.Table(cfg, rng=random.Random(0))
    if not isinstance(stacks, Sequence):
        stacks = [stacks] * n
    for i in range(n):
        t.seat_player(i, f"p{i}", stacks[i])
        t.players[i].auto_post = auto_post
    return t


def deal_order(t: R.Table, button: int) -> list[int]:
    """Seats sitting in, left of ``button`` first."""
    return t._ring_after(button, t.sitting_in())


def legal(t: R.Table, seat: int) -> dict[str, R.Legal]:
    """Legal actions of ``seat`` by name."""
    return {a.name: a for a in t.legal_actions(seat)}


def do(t: R.Table, seat: int, name: str, amount=None) -> R.Record:
    """Act by action name, checking it is ``seat``'s turn."""
    turn = t.turn
    assert turn is not None and turn.seat == seat, f"expected seat {seat} to act, turn is {turn}"
    index = R.ACTION_NAMES.index(name)
    return t.act(seat, index, amount)


def fresh_deck(seed: int = 0) -> list[int]:
    d = list(range(52))
    random.Random(seed).shuffle(d)
    return d


def random_action(t: R.Table, rng: random.Random, unit: Decimal = Decimal(1)) -> R.Record:
    """Let the seat to act do a random legal thing (amounts in whole ``unit``)."""
    turn = t.turn
    assert turn is not None
    seat = turn.seat
    opts = t.legal_actions(seat)
    assert opts, f"no legal action for the seat to act: {turn}"
    a = rng.choice(opts)
    if a.index == R.DISCARD:
        k = rng.randint(0, a.count)
        return t.discard(seat, rng.sample(range(len(t.hand.hole[seat])), k))
    if a.index in (R.BET, R.RAISE) and a.min is not None:
        lo, hi = a.min, a.max
        if rng.random() < 0.25:
            amount = hi
        elif rng.random() < 0.3:
            amount = lo
        else:
            steps = int((hi - lo) / unit)
            amount = lo + unit * rng.randint(0, steps)
        return t.act(seat, a.index, amount)
    return t.act(seat, a.index, a.amount)
