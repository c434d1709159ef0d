"""A hand of a peer-to-peer table on the hub's own engine (:mod:`games.poker.rules`).

The engine deals from a deck it is given when the hand starts, but at a peer-to-peer
table nobody knows the deck: cards are opened one by one as the hand goes.  Yet the
engine's betting never looks at a card; only the showdown does.  So every peer plays
the hand twice on forks of the same table (:meth:`rules.Table.fork`):

- **on positions**, as it goes: the engine is given the deck ``0, 1, …, 51``, so each
  "card" it deals is the deck position it came from (which is what the peers open);
  whose turn it is, what is legal, when a street is dealt and whether the hand ends in
  a showdown all come from this play.  Its showdown values are meaningless and never
  used;
- **on cards**, once the hand is over and its cards are known
  (:meth:`HandPlay.final`): the same actions on the real deck (unknown positions,
  which nobody played, filled with the cards left), which gives the payoffs, exactly
  as the hub's engine computes them.

At a peer-to-peer showdown every hand still in is shown (its owner's keys are needed
to award the pot); a player who wins uncontested mucks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from .. import rules, views

#: the deck of the play on positions: the card dealt is the position it came from
POSITIONS = tuple(range(52))


@dataclass(frozen=True)
class Layout:
    """Where a hand's cards are in the deck.

    :ivar order: the seats dealt in, in dealing order (left of the button first); the
        order the peers shuffle and lock in.
    :ivar hole: seat → the positions of its hole cards.
    :ivar streets: the positions of each street of the board (flop, turn, river).
    """

    order: tuple[int, ...]
    hole: dict[int, tuple[int, ...]]
    streets: tuple[tuple[int, ...], ...]

    @property
    def board(self) -> tuple[int, ...]:
        """Every board position."""
        return tuple(p for street in self.streets for p in street)

    def holes_of_others(self, seat: int) -> tuple[int, ...]:
        """The hole positions of every seat but ``seat`` (what it opens for them)."""
        return tuple(p for s, ps in sorted(self.hole.items()) if s != seat for p in ps)


def layout_of(table: rules.Table) -> Layout:
    """The layout of the hand ``table`` has just started on positions (hole cards
    dealt, as the engine deals them before any betting)."""
    h = table.hand
    assert h is not None and h.hole, "the hole cards are dealt with the blinds"
    pos = len(h.seats) * table.config.variant.hole_count
    streets = []
    for step in table.config.variant.steps:
        if step.state == rules.DEAL_CARDS:
            if table.config.burn:
                pos += 1
            streets.append(tuple(range(pos, pos + step.count)))
            pos += step.count
    return Layout(tuple(h.seats), {s: tuple(h.hole[s]) for s in h.seats}, tuple(streets))


def legal_of(table: rules.Table, seat: int) -> list[dict[str, Any]]:
    """``seat``'s legal actions in the game's words (``{"name", "amount"}``)."""
    out = []
    for a in table.legal_actions(seat):
        d = a.to_dict()
        d.pop("index", None)
        out.append(d)
    return out


def deck_of(cards: Mapping[int, int]) -> list[int]:
    """A deck with ``cards`` at their positions and the other cards, in order, at the
    other positions."""
    rest = iter(sorted(set(range(52)) - set(cards.values())))
    return [cards[p] if p in cards else next(rest) for p in range(52)]


class HandPlay:
    """One hand: the table before it and the hand played on positions.

    :param table: the table between hands (it is not changed).
    :param hand_id: the hand's id (``<table>-<number>``).
    :raises rules.RuleError: fewer than two players can play.
    """

    def __init__(self, table: rules.Table, hand_id: str) -> None:
        self.hand_id = hand_id
        self.base = table.fork()
        self.play = table.fork()
        self.play.start_hand(POSITIONS, hand_id=hand_id)
        h = self.play.hand
        assert h is not None
        self.button = h.button
        self.layout = layout_of(self.play)
        #: every action taken: (seat, action index, amount)
        self.actions: list[tuple[int, int, Decimal | None]] = []

    # -- the play on positions ------------------------------------------------------------

    @property
    def turn(self) -> rules.Turn | None:
        """The betting decision pending (``None``: the betting is over)."""
        t = self.play.turn
        return t if t is not None and t.kind == rules.BETTING else None

    def legal(self, seat: int) -> list[dict[str, Any]]:
        """What ``seat`` may do now."""
        return legal_of(self.play, seat) if self.turn is not None else []

    def act(self, seat: int, name: str, amount: Decimal | None = None) -> None:
        """``seat`` does the betting action ``name``.

        :raises rules.RuleError: not ``seat``'s turn, or not legal.
        """
        t = self.turn
        if t is None or t.seat != seat:
            raise rules.RuleError(f"it is not seat {seat}'s turn to bet")
        if name not in ("fold", "check", "call", "bet", "raise"):
            raise rules.RuleError(f"{name!r} is not a betting action")
        index = rules.ACTION_NAMES.index(name)
        if index in (rules.BET, rules.RAISE) and amount is None:
            for a in self.play.legal_actions(seat):
                if a.index == index:
                    amount = a.amount
        self.play.act(seat, index, amount)
        self.actions.append((seat, index, amount))

    def dealt_board(self) -> tuple[int, ...]:
        """The board positions dealt so far."""
        h = self.play.hand
        assert h is not None
        return tuple(h.board)

    def folded(self) -> frozenset[int]:
        """The seats that folded."""
        h = self.play.hand
        assert h is not None
        return frozenset(h.folded)

    def live(self) -> tuple[int, ...]:
        """The seats still in the hand."""
        h = self.play.hand
        assert h is not None
        return tuple(h.live())

    @property
    def showdown(self) -> bool:
        """Whether the betting is over with two or more hands still in."""
        return self.turn is None and len(self.live()) >= 2

    def view(
        self, seat: int | None, cards: Mapping[int, int], facts: views.TableFacts
    ) -> dict[str, Any]:
        """The table as ``seat`` sees it during the hand, in the hub's view words, with
        the cards opened so far (``cards``: position → card) in place of positions; a
        board card not yet opened is left out, a hole card unseen is ``-1``."""
        view = views.table_view(
            self.play,
            self.play.config.seats,
            seat,
            self.legal(seat) if seat is not None else [],
            facts,
        )
        view["boardcards"] = [cards[p] for p in view["boardcards"] if p in cards]
        for player in view["players"]:
            player["holecards"] = [cards.get(p, -1) if p >= 0 else -1 for p in player["holecards"]]
        view["winners"] = []
        return view

    # -- the play on cards ------------------------------------------------------------------

    def final(self, cards: Mapping[int, int]) -> rules.Table:
        """The hand played again on its cards (``cards``: position → card, at least every
        card the result depends on); the finished table."""
        table = self.base.fork()
        table.start_hand(deck_of(cards), hand_id=self.hand_id, button=self.button)
        for seat, index, amount in self.actions:
            table.act(seat, index, amount)
        showdown = len(table.hand.live()) >= 2 if table.hand is not None else False
        while table.turn is not None and table.turn.kind == rules.SHOWING:
            seat = table.turn.seat
            (table.show if showdown else table.muck)(seat)
        assert not table.in_hand, "a hand played again on its cards ends"
        return table

    def void(self) -> rules.Table:
        """The table as it was before the hand (a void hand: every bet returned)."""
        return self.base.fork()
