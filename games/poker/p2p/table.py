"""One peer's table: the hands, phase by phase, with no trusted dealer (no I/O).

:class:`PeerTable` is fed frames (:meth:`PeerTable.receive`), the loss of a peer
(:meth:`PeerTable.peer_lost`) and its player's decisions; it sends frames through a
:class:`Link`, asks its :class:`Player` when it must act and tells a :class:`Watcher`
what happens.  Time is an injected clock (``IReactorTime``: the reactor, or
``task.Clock`` in tests).  An *observer* (no key, ``me=None``: a hub relaying the table)
follows the public messages the same way and never sends.

A hand is a sequence of phases (:mod:`.agree` decides each one alike at every peer):

====================  ===================================================================
``k<n>``, ``kc<n>``   (after a peer left) a new table key: boxes, then its check value
``s<i>``              the ``i``-th peer of the hand's order shuffles the deck (the last
                      one locks it too, and reveals its keys of the others' hole cards)
``l<i>``              the ``i``-th peer locks the deck, revealing its keys of the others'
                      hole cards: after the last lock each player opens its own cards
``a<j>``              the ``j``-th betting decision, by the player to act (a fold hands
                      over the folder's keys of the board)
``b<j>``              the keys of a street just dealt, from every peer who still holds
                      some: everyone opens the street
``e``                 every peer's keys of the hand, sealed with the table key, and
                      (at a showdown) the keys of the hands still in, in the clear
``d``                 every peer's verdict: the stacks, void or not, the cheaters
====================  ===================================================================

Every message names the phase and carries ``prev``, the transcript hash the author had
when the phase began (``SHA-256`` chained over every phase's outcome, from the table
id).  A message whose ``prev`` is not this peer's shows that the peers saw different
things: the peer sends every message of the hand it holds to everyone (a *dump*);
two different signed messages of one author for one phase are then found and prove
that author sent different messages to different peers.  A hand counts once every
peer's verdict (``d``) carries the same hash and result.

What ends a hand otherwise:

- a peer that stays silent through a phase's time limit (:mod:`.agree`) leaves the
  table; if the hand still needs its keys (it holds a lock on a card still to be
  opened: a board card, or its own cards at a showdown), the hand is void: every bet
  goes back (the table as it was before the hand, :meth:`HandPlay.void`);
- a message whose content breaks the rules (an illegal action, a deck that is no deck,
  keys that are no keys), a card that does not open, or an alarm (a player whose hole
  card opens to no card says so): the hand is void, every peer publishes its keys and
  :func:`.deck.check_deal` names the peer whose keys do not verify (or the player whose
  alarm was false); a named peer leaves the table.
"""

from __future__ import annotations

from collections.abc import Callable

from .. import rules
from . import deck
from .agree import Outcome
from .base import (
    MAX_DECISIONS,
    START,
    HandState,
    Link,
    NoPlayer,
    PeerBase,
    Player,
    Watcher,
    split_phase,
)
from .dealing import DealingPart
from .hand import HandPlay
from .phases import PhasesPart
from .wire import key_text


class PeerTable(PhasesPart, DealingPart):
    """One peer's (or an observer's) table: see the module docstring, and
    :class:`.base.PeerBase` for its parameters."""

    def start(self) -> None:
        """Play: agree on a table key, then deal the first hand."""
        self.watcher.note(
            "started",
            {"names": list(self.roster.names), "stakes": self.params.stakes,
             "stack": str(self.params.stack), "me": self.me, "table": self.roster.table_id.hex(),
             "keys": [key_text(k) for k in self.roster.keys], "params": self.params.to_json()},
        )  # fmt: skip
        self._next_hand()

    def stop(self, reason: str, failed: bool = False) -> None:
        """Stop the table here (a hand in progress does not count); ``failed``: it could
        not go on as it should (the peers disagree, or cannot agree)."""
        if self.over:
            return
        self.over = True
        self.reason = reason
        self.failed = failed
        self._cancel_timers()
        self.player.cancel()
        self.hand = None
        self.phase = None
        self.watcher.note(
            "over",
            {"reason": reason, "hands": self.hands_played,
             "stacks": {str(s): str(v) for s, v in sorted(self.stacks.items())}},
        )  # fmt: skip

    def _next_hand(self) -> None:
        """Start the next hand (a new table key first, when a peer left)."""
        if self.over:
            return
        self.player.cancel()
        self.phase = None
        self._forked = False
        self._drop_old_phases()
        for seat in sorted(self.table.players):
            p = self.table.players[seat]
            if seat not in self.live or p.stack <= 0:
                self.table.remove(seat)
                if seat in self.live:
                    self._leave(seat, "out of chips")
        self.table.drain()
        if self.me is not None and self.me not in self.live:
            self.stop("this peer left the table")
            return
        if len(self.live) < 2:
            self.stop("fewer than two players are left")
            return
        if self.params.hands and self.hands_played >= self.params.hands:
            self.stop(f"{self.hands_played} hands played")
            return
        self.hand_no += 1
        self.seq = 0
        if self.table_key is None:
            self._rekey()
            return
        self._deal_hand()

    def _rekey(self) -> None:
        """Agree on a new table key (a peer left, or the table starts)."""
        if len(self.live) < 2:
            self.stop("fewer than two players are left")
            return
        self._key_round += 1
        self._contributions = {}
        # the first key waits for every peer to have agreed the table, which they learn
        # at different moments
        limit = self.params.step_time if self._key_round > 1 else max(self.params.step_time, START)
        self._begin(f"k{self._key_round}", self.live, limit)

    def _drop_old_phases(self) -> None:
        """Keep the phases of the last hand (to echo them), drop older ones."""
        keep = str(self.hand_no)
        self.phases = {
            k: p for k, p in self.phases.items() if k.split("/")[0] in (keep, str(self.hand_no + 1))
        }
        self.prev = {k: v for k, v in self.prev.items() if k in self.phases}

    def _deal_hand(self) -> None:
        hand_id = f"{self.roster.table_id.hex()[:8]}-{self.hand_no}"
        try:
            play = HandPlay(self.table, hand_id)
        except rules.RuleError as e:
            self.stop(f"no hand can be dealt: {e.reason}", failed=True)
            return
        order = play.layout.order
        secrets_ = None
        if self.me is not None and self.me in order:
            secrets_ = self.dealer(self.me == order[-1])
        self.hand = HandState(self.hand_no, play, secrets_, deck.Deal(order))
        self._flush_records()
        self.watcher.note(
            "hand", {"hand": self.hand_no, "button": play.button, "order": list(order)}
        )
        self._advance()

    def _advance(self) -> None:
        """Begin the phase that comes next in the hand."""
        hs = self.hand
        if hs is None or self.over:
            return
        n = len(hs.order)
        if hs.step < 2 * n - 1:
            if hs.void:
                self._begin_done()
                return
            if hs.step < n:
                self._begin(f"s{hs.step}", [hs.order[hs.step]], self.params.step_time)
            else:
                self._begin(f"l{hs.step - n}", [hs.order[hs.step - n]], self.params.step_time)
            return
        if hs.void or hs.audit:
            self._begin_end()
            return
        unopened = [p for p in hs.play.dealt_board() if p not in hs.public]
        if unopened:
            holders = [s for s in hs.order if s in self.live and hs.holds(s, unopened)]
            hs.boards += 1
            self._begin(f"b{hs.boards}", holders, self.params.step_time)
            return
        turn = hs.play.turn
        if turn is not None and hs.decisions < MAX_DECISIONS:
            hs.decisions += 1
            self._begin(f"a{hs.decisions}", [turn.seat], self.params.action_time)
            return
        self._begin_end()

    def _begin_end(self) -> None:
        hs = self.hand
        assert hs is not None
        self._flush_records()
        self._begin("e", [s for s in hs.order if s in self.live], self.params.step_time)

    def _begin_done(self) -> None:
        hs = self.hand
        assert hs is not None
        self._verdict()
        self._begin("d", sorted(self.live), self.params.step_time)

    def _finalize(self, go_on: bool = True) -> None:
        hs = self.hand
        assert hs is not None and hs.result is not None and hs.verdict is not None
        hs.finalized = True
        self.player.cancel()
        for seat, why in sorted(hs.cheaters.items()):
            if seat in self.live:
                self.named[seat] = why
                self.watcher.note("cheater", {"seat": seat, "name": self.name_of(seat), "why": why})
                self._leave(seat, f"named a cheater: {why}")
        if hs.void:
            self.watcher.note("void", {"hand": hs.number, "why": hs.void})
            self.table = hs.result
            self.table.drain()
        else:
            self.table = hs.result
            records = self.table.drain()
            tail = records[hs.sent_records :]
            self.watcher.records(self.table, tail)
        self.watcher.note(
            "result",
            {"hand": hs.number, "void": hs.void, "stacks": dict(hs.verdict["stacks"]),
             "before": {str(s): str(v) for s, v in sorted(hs.play.base.stacks().items())},
             "button": hs.play.button, "actions": hs.acts, "cheaters": hs.verdict["cheaters"],
             "cards": {str(p): c for p, c in sorted(hs.cards.items())
                       if p in hs.public or not self.observer}},
        )  # fmt: skip
        self.hands_played += 1
        self.last_final = hs.number
        self.final_hash = self.hash
        self.hand = None
        if go_on:
            self._next_hand()

    def _flush_records(self) -> None:
        """Give the watcher the records of the play that are true already (cards as
        opened); the showdown's come with the hand played again on its cards."""
        hs = self.hand
        if hs is None:
            return
        records = hs.play.play.hand.records if hs.play.play.hand is not None else []
        out = []
        for rec in records[hs.sent_records :]:
            if rec.kind in ("show", "award", "muck", "handover"):
                break
            if rec.kind == "board":
                if any(p not in hs.public for p in rec.cards):
                    break
                rec = rec._replace(
                    cards=tuple(hs.cards[p] for p in rec.cards),
                    extra=(("board", tuple(hs.cards[p] for p in rec.get("board", ()))),),
                )
            elif rec.kind == "hole":
                rec = rec._replace(cards=tuple(hs.cards.get(p, -1) for p in rec.cards))
            out.append(rec)
        if out:
            hs.sent_records += len(out)
            self.watcher.records(hs.play.play, out)

    def _produce(self, name: str) -> None:
        """This peer's message for the phase ``name``."""
        PRODUCERS[split_phase(name)](self, name)

    def _apply(self, name: str, outcome: Outcome) -> None:
        """What the decided phase ``name`` does."""
        APPLIERS[split_phase(name)](self, name, outcome)


#: phase letters → how this peer makes its message for it
PRODUCERS: dict[str, Callable[[PeerTable, str], None]] = {
    "k": PeerTable._make_key,
    "kc": PeerTable._make_keyok,
    "s": PeerTable._make_deal,
    "l": PeerTable._make_deal,
    "a": PeerTable._make_act,
    "b": PeerTable._make_board,
    "e": PeerTable._make_end,
    "d": PeerTable._make_done,
}
#: phase letters → how a decided phase changes the table
APPLIERS: dict[str, Callable[[PeerTable, str, Outcome], None]] = {
    "k": PeerTable._apply_key,
    "kc": PeerTable._apply_keyok,
    "s": PeerTable._apply_deal,
    "l": PeerTable._apply_deal,
    "a": PeerTable._apply_act,
    "b": PeerTable._apply_board,
    "e": PeerTable._apply_end,
    "d": PeerTable._apply_done,
}

__all__ = ["HandState", "Link", "NoPlayer", "PeerBase", "PeerTable", "Player", "Watcher"]
