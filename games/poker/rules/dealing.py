"""Dealing: cards from the deck to the players and the board, and the draw."""

from __future__ import annotations

from collections.abc import Iterable

from .base import TableBase
from .constants import DISCARD, DISCARDING
from .errors import RuleError
from .records import Record, new


class DealingPart(TableBase):
    """The table's dealing and the discard round of draw games (verify/can/do)."""

    def _draw(self) -> int:
        h = self.hand
        assert h is not None
        c = h.deck[h.deck_pos]
        h.deck_pos += 1
        return c

    # dealing ----------------------------------------------------------------------------

    def _deal_hole(self, count: int) -> None:
        h = self.hand
        assert h is not None
        seats, deck, hole = h.seats, h.deck, h.hole
        pos = h.deck_pos
        n = len(seats)
        end = pos + n * count
        for i, s in enumerate(seats):
            hole[s] = deck[pos + i : end : n]  # one card a seat, round after round
        h.deck_pos = end
        log, records = self._log, h.records  # :meth:`_emit`: the hand goes on
        for s in seats:
            rec = new(
                Record, ("hole", s, None, None, tuple(hole[s]), None, False, None, "", (), ())
            )
            log.append(rec)
            records.append(rec)

    def _deal_board(self, count: int) -> None:
        h = self.hand
        assert h is not None
        deck = h.deck
        pos = h.deck_pos
        if self.config.burn:
            pos += 1
        cards = tuple(deck[pos : pos + count])
        h.deck_pos = pos + count
        board = h.board
        board.extend(cards)
        rec = new(
            Record,
            (
                "board",
                None,
                None,
                None,
                cards,
                None,
                False,
                h.stage + 1,
                "",
                (),
                (("board", tuple(board)),),
            ),
        )
        self._log.append(rec)  # :meth:`_emit`: the hand goes on
        h.records.append(rec)

    # discard round (draw games) ---------------------------------------------------------

    def _discard_step(self) -> bool:
        h = self.hand
        assert h is not None
        pending = [s for s in h.live() if s not in h.discarded]
        if not pending or len(h.live()) < 2:
            self._next_step()
            return False
        nxt = self._ring_after(h.button, pending)[0]
        h.to_act, h.kind = nxt, DISCARDING
        if self.players[nxt].leaving:
            self._default_action(nxt)
            return False
        return True

    def verify_discard(self, seat: int, positions: Iterable[int]) -> tuple[int, ...]:
        """Check ``seat`` may change the cards at ``positions`` (0-based in the hand)."""
        h = self.hand
        if h is None or h.over or h.kind != DISCARDING:
            raise RuleError("no discard round is waiting for a player")
        if h.to_act != seat:
            raise RuleError(f"it is seat {h.to_act}'s turn to discard")
        try:
            pos = tuple(positions)
        except TypeError:
            raise RuleError("discarded must be a list of card positions") from None
        n = len(h.hole[seat])
        if any(type(i) is not int or not 0 <= i < n for i in pos):
            raise RuleError(f"card positions are 0 to {n - 1}")
        if len(set(pos)) != len(pos):
            raise RuleError("a card position is named twice")
        if len(pos) > self.config.variant.max_discard:
            raise RuleError(f"at most {self.config.variant.max_discard} cards may be changed")
        return tuple(sorted(pos))

    def can_discard(self, seat: int, positions: Iterable[int]) -> bool:
        """Whether :meth:`discard` would succeed."""
        return self._can(self.verify_discard, seat, positions)

    def discard(self, seat: int, positions: Iterable[int] = ()) -> Record:
        """Change the cards at ``positions``; the new cards take their places."""
        pos = self.verify_discard(seat, positions)
        h = self.hand
        assert h is not None
        for i in pos:
            h.hole[seat][i] = self._draw()
        h.discarded.add(seat)
        h.to_act = h.kind = None
        rec = self._emit(
            Record(
                "discard",
                seat,
                index=DISCARD,
                cards=tuple(h.hole[seat][i] for i in pos),
                stage=h.stage,
                extra=(("positions", pos), ("count", len(pos)), ("hand", tuple(h.hole[seat]))),
            )
        )
        self._advance()
        return rec
