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

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol

from twisted.logger import Logger

from .. import rules, views
from . import agree, deck, group, seal
from .agree import Added, Conflict, Outcome, Phase
from .gather import Roster
from .hand import HandPlay
from .wire import (
    Identity,
    Signed,
    WireError,
    b64,
    box_public,
    key_text,
    open_frame,
    position_map,
    positions_out,
    text,
    unb64,
    verify,
)
from .wire import (
    field as wire_field,
)

#: frames kept for phases this peer has not reached yet
MAX_PENDING = 512
#: voters' limits a phase may run through before the table stops
MAX_VOTER_ROUNDS = 3
#: betting decisions in one hand (fixed limit with a cap needs far fewer)
MAX_DECISIONS = 400
#: frames in one dump
MAX_DUMP = 1000
#: the least time limit of a table's first phase (seconds)
START = 30.0
#: the kinds of the phases, by the letters of their names
KIND_OF = {"k": "key", "kc": "keyok", "s": "shuffle", "l": "lock", "a": "act", "b": "board",
           "e": "end", "d": "done"}  # fmt: skip


class Link(Protocol):
    """Where a peer's frames go."""

    def send(self, to: int | None, frame: bytes) -> None:
        """Send ``frame`` to the peer at seat ``to`` (``None``: every other peer)."""


class Player(Protocol):
    """Who decides for this peer."""

    def ask(
        self,
        view: Mapping[str, Any],
        legal: list[dict[str, Any]],
        seconds: float,
        answer: Callable[[Mapping[str, Any]], None],
    ) -> None:
        """Decide on one of ``legal`` (``{"name": ...}``) within ``seconds``; call
        ``answer`` with it (on the reactor's thread)."""

    def cancel(self) -> None:
        """The question is void (the hand ended, the table stopped)."""


class Watcher(Protocol):
    """Who follows a table: a terminal, the hub's lobby, a test."""

    def records(self, table: rules.Table, records: Sequence[rules.Record]) -> None:
        """Engine records of the hand, cards as they really are (``table``: where they
        happened, for names)."""

    def note(self, kind: str, data: Mapping[str, Any]) -> None:
        """Something of the table: ``started``, ``hand``, ``hole``, ``left``,
        ``cheater``, ``void``, ``result``, ``stopped``, ``over``."""


class NoPlayer:
    """An observer's player: it is never asked."""

    def ask(self, view: Any, legal: Any, seconds: float, answer: Any) -> None:
        """Never called for an observer."""
        raise AssertionError("an observer has no decisions")

    def cancel(self) -> None:
        """Nothing to cancel."""


class Problem(Exception):
    """A message whose content breaks the rules: its author is a cheater."""


@dataclass
class HandState:
    """What a peer holds of the hand being played."""

    number: int
    play: HandPlay
    secrets: deck.DealSecrets | None
    deal: deck.Deal
    #: (seat, position) → an unlock key it revealed
    revealed: dict[tuple[int, int], bytes] = field(default_factory=dict)
    #: position → card, as opened for this peer
    cards: dict[int, int] = field(default_factory=dict)
    #: positions opened for everyone (the board, shown hands)
    public: set[int] = field(default_factory=set)
    #: players who left the table during the hand
    gone: set[int] = field(default_factory=set)
    cheaters: dict[int, str] = field(default_factory=dict)
    alarms: dict[int, str] = field(default_factory=dict)
    my_alarm: str = ""
    void: str = ""  #: why the hand is void ("": it is not)
    audit: bool = False  #: something did not open: the end keys will tell who
    step: int = 0  #: deal phases done
    decisions: int = 0
    boards: int = 0
    sent_records: int = 0  #: records of the play given to the watcher
    end_keys: dict[int, deck.EndKeys] = field(default_factory=dict)
    result: rules.Table | None = None
    verdict: dict[str, Any] | None = None
    finalized: bool = False
    #: the betting decisions, for the history: ``{"frame": base64}`` (a signed
    #: action) or ``{"silent": seat, "fold": bool}`` (time ran out)
    acts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def order(self) -> tuple[int, ...]:
        """The hand's peers, in dealing (and shuffling) order."""
        return self.play.layout.order

    def keys_of(self, position: int) -> list[bytes] | None:
        """Every peer's unlock key of ``position`` (``None``: one is missing)."""
        out = []
        for seat in self.order:
            key = self.revealed.get((seat, position))
            if key is None:
                return None
            out.append(key)
        return out

    def holds(self, seat: int, positions: Iterable[int]) -> bool:
        """Whether ``seat`` still holds a key of one of ``positions`` nobody has seen."""
        return any((seat, p) not in self.revealed for p in positions)


def chain(previous: bytes, key: str, outcome: Outcome, expected: Iterable[int]) -> bytes:
    """The transcript hash after a phase: ``SHA-256(previous || phase || per seat: the
    digest of its message, or "-" when silent)``."""
    h = hashlib.sha256(previous + key.encode("ascii"))
    for seat in sorted(set(expected) | outcome.silent):
        msg = outcome.messages.get(seat)
        h.update(seat.to_bytes(2, "big") + (msg.digest if msg is not None else b"-"))
    return h.digest()


def split_phase(name: str) -> str:
    """The kind letters of a phase name (``a12`` → ``a``)."""
    return name.rstrip("0123456789")


class PeerTable:
    """One peer's (or an observer's) table; see the module docstring.

    :param roster: the agreed table.
    :param me: this peer's key (``None``: an observer).
    :param clock: ``IReactorTime``.
    :param link: where frames go.
    :param player: who decides for this peer.
    :param watcher: who follows the table.
    """

    log = Logger()

    def __init__(
        self,
        roster: Roster,
        me: Identity | None,
        clock: Any,
        link: Link,
        player: Player,
        watcher: Watcher,
    ) -> None:
        self.roster = roster
        self.params = roster.params
        self.identity = me
        self.me = None if me is None else roster.seat_of(me.verify_key)
        if me is not None and self.me is None:
            raise ValueError("this peer is not at the table")
        self.clock = clock
        self.link = link
        self.player = player
        self.watcher = watcher
        import random

        cfg = self.params.config()
        self.table = rules.Table(cfg, rng=random.Random(roster.seed))
        for seat, name in enumerate(roster.names):
            self.table.seat_player(seat, name, self.params.stack)
            self.table.players[seat].auto_post = True
        self.table.drain()
        self.live: set[int] = set(range(len(roster.keys)))
        #: seat → why it was named a cheater
        self.named: dict[int, str] = {}
        #: seat → why it left (silent, out of chips, named)
        self.departed: dict[int, str] = {}
        self.hash = hashlib.sha256(b"gamehub p2p transcript v1\x00" + roster.table_id).digest()
        self.final_hash = self.hash
        self.last_final = 0  #: the number of the last hand that counted
        self.hands_played = 0
        self.hand: HandState | None = None
        self.phase: Phase | None = None
        self.phases: dict[str, Phase] = {}
        self.prev: dict[str, bytes] = {}  #: phase key → the hash it began with
        self._pending: list[tuple[int, Signed]] = []
        self._timer: Any = None
        self._voter_rounds = 0
        self._fork_timer: Any = None
        self._mismatched: list[Signed] = []
        self._dumped: set[int] = set()
        self._lost: set[int] = set()
        self._cut: set[int] = set()  #: peers whose frames are not taken (forgers)
        self.table_key: bytes | None = None
        self._key_round = 0
        self._contribution: bytes | None = None
        self._contributions: dict[int, bytes] = {}
        self._asked = False
        self.over = False
        self.failed = False
        self.reason = ""
        self.hand_no = 0
        self.seq = 0  #: phases begun in the hand
        #: how this peer makes the deal's secrets of a hand (tests give cheaters theirs)
        self.dealer: Callable[[bool], deck.DealSecrets] = deck.DealSecrets

    # -- what others read ---------------------------------------------------------------------

    @property
    def stacks(self) -> dict[int, Decimal]:
        """Seat → chips, as of the last hand that counted."""
        return self.table.stacks()

    @property
    def observer(self) -> bool:
        """Whether this is an observer (it never sends)."""
        return self.me is None

    def name_of(self, seat: int) -> str:
        """The name of the player at ``seat``."""
        return self.roster.names[seat]

    # -- starting and stopping --------------------------------------------------------------

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

    def _cancel_timers(self) -> None:
        for timer in (self._timer, self._fork_timer):
            if timer is not None and timer.active():
                timer.cancel()
        self._timer = self._fork_timer = None

    # -- frames in ------------------------------------------------------------------------------

    def receive(self, via: int, frame: bytes) -> None:
        """A frame from the peer at seat ``via`` (for an observer: whoever the relay says
        sent it).  Frames that are malformed or forged change nothing; a forgery is
        logged against ``via``."""
        if self.over or via in self._cut:
            return
        try:
            body, _, _ = open_frame(frame)
        except WireError as e:
            self._forged(via, str(e))
            return
        if body.get("t") != self.roster.table_id.hex():
            return  # another table's, or the gathering's
        try:
            author = wire_field(body, "a", int)
            if not 0 <= author < len(self.roster.keys):
                raise WireError("no such seat")
            signed = verify(frame, self.roster.keys[author])
        except WireError as e:
            self._forged(via, str(e))
            return
        kind = signed.kind
        if kind == "echo":
            self._on_echo(author, signed)
        elif kind == "dump":
            self._on_dump(author, signed)
        else:
            self._on_phase_message(author, signed, via)

    def _forged(self, via: int, why: str) -> None:
        """A frame from ``via`` that is malformed or not signed by its author: ``via``
        is named, and cut off (nothing more is taken from it but echoes of it from the
        others; so it is claimed silent wherever it is awaited, and leaves the table
        once every other peer cut it off too)."""
        self.log.warn("a bad frame from seat {seat}: {why}", seat=via, why=why)
        if not 0 <= via < len(self.roster.keys) or via == self.me or via in self._cut:
            return
        self._cut.add(via)
        self.watcher.note("forged", {"seat": via, "name": self.name_of(via), "why": why})
        self.peer_lost(via)

    def peer_lost(self, seat: int) -> None:
        """The connection to ``seat`` is gone: claim it silent at once where it is
        awaited (its messages can still come through other peers)."""
        self._lost.add(seat)
        phase = self.phase
        if phase is not None and seat in self.live and seat != self.me:
            self._claim(phase, phase.claim([seat]))

    def _on_echo(self, echoer: int, signed: Signed) -> None:
        try:
            inner = unb64(signed.body.get("frame"))
            body, _, _ = open_frame(inner)
            author = wire_field(body, "a", int)
            if not 0 <= author < len(self.roster.keys) or body.get("k") in ("echo", "dump"):
                raise WireError("an echo of nothing to echo")
            msg = verify(inner, self.roster.keys[author])
        except WireError as e:
            self._forged(echoer, f"a bad echo: {e}")
            return
        self._on_phase_message(author, msg, echoer)

    def _on_phase_message(self, author: int, msg: Signed, via: int) -> None:
        try:
            hand = wire_field(msg.body, "h", int)
            seq = wire_field(msg.body, "ph", int)
            prev = text(msg.body, "prev", 64)
        except WireError as e:
            self._forged(via, str(e))
            return
        key = f"{hand}/{seq}"
        phase = self.phases.get(key)
        if phase is None:
            if hand >= self.hand_no and len(self._pending) < MAX_PENDING:
                self._pending.append((via, msg))
            return
        if prev != self.prev[key].hex():
            if phase is self.phase:
                self._mismatch(msg)
            return
        if msg.kind == "claim":
            self._on_claim(phase, author, msg, via)
            return
        if author not in phase.expected:
            return
        added = phase.add_message(author, msg, via)
        if isinstance(added, Conflict):
            self._proven(added.author, "sent different messages to different peers", added)
        elif added is Added.NEW:
            self._echo(phase, author, msg)
            if phase is self.phase:
                self._check()

    def _on_claim(self, phase: Phase, voter: int, msg: Signed, via: int) -> None:
        try:
            silent = msg.body.get("silent")
            if not isinstance(silent, list) or len(silent) > len(self.roster.keys):
                raise WireError("a claim names seats")
            seats = frozenset(int(s) for s in silent if isinstance(s, int))
        except (WireError, ValueError) as e:
            self._forged(via, str(e))
            return
        for echo in phase.add_claim(voter, msg, seats, via):
            if self.identity is not None and voter != self.me:
                self.link.send(voter, self._sign({"k": "echo", "frame": b64(echo.frame)}))
        if phase.claims.get(voter) is msg:
            self._echo(phase, voter, msg)
        if phase is self.phase:
            self._check()

    def _echo(self, phase: Phase, speaker: int, msg: Signed) -> None:
        """Pass ``speaker``'s message (or claim) on to the peers that claimed it silent."""
        if self.identity is None:
            return
        for claimer in phase.claimers_of(speaker):
            self.link.send(claimer, self._sign({"k": "echo", "frame": b64(msg.frame)}))

    # -- forks and proofs -------------------------------------------------------------------------

    def _mismatch(self, msg: Signed) -> None:
        """A message built on another transcript: dump, and wait for a proof."""
        self._mismatched.append(msg)
        self._dump()
        if self._fork_timer is None and not self.observer:
            self._fork_timer = self.clock.callLater(
                2 * self.params.step_time, self._fork_unresolved
            )

    def _dump(self) -> None:
        if self.identity is None or self.hand_no in self._dumped:
            return
        self._dumped.add(self.hand_no)
        frames: list[str] = []
        for key, phase in self.phases.items():
            if key.split("/")[0] != str(self.hand_no):
                continue
            for msg in list(phase.messages.values()) + list(phase.claims.values()):
                frames.append(b64(msg.frame))
        self.link.send(None, self._sign({"k": "dump", "frames": frames[:MAX_DUMP]}))

    def _on_dump(self, sender: int, signed: Signed) -> None:
        frames = signed.body.get("frames")
        if not isinstance(frames, list):
            return
        seen: dict[tuple[str, int], Signed] = {}
        for item in frames[:MAX_DUMP]:
            try:
                inner = unb64(item)
                body, _, _ = open_frame(inner)
                author = wire_field(body, "a", int)
                if not 0 <= author < len(self.roster.keys):
                    continue
                msg = verify(inner, self.roster.keys[author])
                key = f"{wire_field(body, 'h', int)}/{wire_field(body, 'ph', int)}"
            except WireError:
                continue
            if msg.kind == "claim":
                continue
            other = seen.setdefault((key, author), msg)
            phase = self.phases.get(key)
            mine = phase.messages.get(author) if phase is not None else None
            for first in (other, mine):
                if first is not None and first.digest != msg.digest:
                    conflict = Conflict(author, first, msg)
                    self._proven(author, "sent different messages to different peers", conflict)
                    return
        self._dump()

    def _fork_unresolved(self) -> None:
        """No proof came: the authors of the messages built on another transcript are
        the ones who broke it."""
        self._fork_timer = None
        for msg in list(self._mismatched):
            author = msg.body.get("a")
            if isinstance(author, int) and author in self.live:
                self._proven(author, "built a message on a transcript no other peer has")
                return

    def _proven(self, author: int, why: str, conflict: Conflict | None = None) -> None:
        """``author`` is proven to cheat: out; the hand in progress does not count
        (unless only its verdict is left and the others agree on it)."""
        if author not in self.live or self.over:
            return
        if author == self.me:
            self.stop(
                "this peer is said to have sent different messages: a fault of ours", failed=True
            )
            return
        if conflict is not None and self.identity is not None:
            # the proof, for every peer
            frames = [b64(conflict.first.frame), b64(conflict.second.frame)]
            self.link.send(None, self._sign({"k": "dump", "frames": frames}))
        if self._fork_timer is not None and self._fork_timer.active():
            self._fork_timer.cancel()
        self._fork_timer = None
        self._mismatched.clear()
        self.named[author] = why
        self.watcher.note("cheater", {"seat": author, "name": self.name_of(author), "why": why})
        self._leave(author, f"named a cheater: {why}")
        hs = self.hand
        if hs is not None and not hs.finalized:
            phase = self.phase
            if phase is not None and phase.label == "d" and self._done_agrees(phase):
                self._finalize(go_on=False)
            else:
                self.player.cancel()
                self.watcher.note("void", {"hand": hs.number, "why": why})
                self.hand = None
        self.hash = hashlib.sha256(self.final_hash + b"proof" + bytes([author])).digest()
        self.final_hash = self.hash
        self.hand_no = self.last_final + 1  # _next_hand adds one more: this number is spent
        self._cancel_timers()
        self.phase = None
        self._next_hand()

    def _done_agrees(self, phase: Phase) -> bool:
        """Whether every verdict of the live peers is in and the same."""
        if self.hand is None or self.hand.verdict is None:
            return False
        for seat in phase.expected & self.live - set(self.hand.cheaters):
            msg = phase.messages.get(seat)
            if msg is None or _verdict_of(msg.body) != self.hand.verdict:
                return False
        return True

    def _leave(self, seat: int, why: str) -> None:
        if seat not in self.live:
            return
        self.live.discard(seat)
        self.departed[seat] = why
        self.table_key = None  # a new key before the next hand
        if self.hand is not None:
            self.hand.gone.add(seat)
        self.watcher.note("left", {"seat": seat, "name": self.name_of(seat), "why": why})

    # -- phases --------------------------------------------------------------------------------

    def _sign(self, body: dict[str, Any]) -> bytes:
        assert self.identity is not None and self.me is not None
        body["a"] = self.me
        body["t"] = self.roster.table_id.hex()
        return self.identity.sign(body)

    def _begin(self, name: str, expected: Iterable[int], limit: float) -> None:
        """Begin the next phase of the current hand, ``name`` (``s0``, ``a3``...)."""
        self.seq += 1
        key = f"{self.hand_no}/{self.seq}"
        phase = Phase(key, expected, self.live, self.me, name)
        self.phase = phase
        self.phases[key] = phase
        self.prev[key] = self.hash
        self._voter_rounds = 0
        if not self.observer:
            self._timer = self.clock.callLater(limit, self._expired)
        if self.me is not None and self.me in phase.expected:
            PRODUCERS[split_phase(name)](self, name)
        now: list[tuple[int, Signed]] = []
        later: list[tuple[int, Signed]] = []
        for via, msg in self._pending:
            if msg.body.get("h") == self.hand_no and msg.body.get("ph") == self.seq:
                now.append((via, msg))
            elif msg.body["h"] >= self.hand_no:
                later.append((via, msg))
        self._pending = later
        for via, msg in now:
            if self.phase is not phase:
                return
            self._on_phase_message(msg.body["a"], msg, via)
        lost = self._lost & self.live - {self.me}
        if lost and self.phase is phase:
            self._claim(phase, phase.claim(lost))
        if self.phase is phase:
            self._check()

    def _send(self, name: str, body: dict[str, Any]) -> None:
        """Send this peer's message for the phase ``name`` (and take it)."""
        phase = self.phase
        assert phase is not None and self.me is not None
        body.update({"k": KIND_OF[split_phase(name)], "h": self.hand_no, "ph": self.seq,
                     "prev": self.prev[phase.key].hex()})  # fmt: skip
        frame = self._sign(body)
        msg = verify(frame, self.roster.keys[self.me])
        phase.add_message(self.me, msg, self.me)
        self.link.send(None, frame)

    def _claim(self, phase: Phase, silent: frozenset[int] | None) -> None:
        if silent is None or self.identity is None:
            return
        hand, _, seq = phase.key.partition("/")
        frame = self._sign({"k": "claim", "h": int(hand), "ph": int(seq),
                            "prev": self.prev[phase.key].hex(), "silent": sorted(silent)})  # fmt: skip
        phase.claims[self.me] = verify(frame, self.roster.keys[self.me])  # type: ignore[index]
        self.link.send(None, frame)
        self._check()

    def _expired(self) -> None:
        """The phase's limit ran out: claim the silent authors; then the voters."""
        self._timer = None
        phase = self.phase
        if phase is None or phase.outcome is not None or self._fork_timer is not None:
            return
        if self._voter_rounds == 0:
            self._claim(phase, phase.expire())
        else:
            self._claim(phase, phase.expire_voters())
        if self.phase is not phase or phase.outcome is not None:
            return
        self._voter_rounds += 1
        if self._voter_rounds > MAX_VOTER_ROUNDS:
            self.stop(f"the peers cannot agree on phase {phase.key}", failed=True)
            return
        self._timer = self.clock.callLater(self.params.step_time, self._expired)

    def _check(self) -> None:
        """If the current phase is decided: chain it, apply it, go on."""
        phase = self.phase
        if phase is None or self._fork_timer is not None:
            return
        outcome = phase.decide()
        if outcome is None:
            return
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None
        self.hash = chain(self.hash, phase.key, outcome, phase.expected)
        for seat in sorted(outcome.silent):
            self._leave(seat, "stopped answering")
        APPLIERS[split_phase(phase.label)](self, phase.label, outcome)

    # -- the flow of a hand ------------------------------------------------------------------------

    def _next_hand(self) -> None:
        """Start the next hand (a new table key first, when a peer left)."""
        if self.over:
            return
        self.player.cancel()
        self.phase = None
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

    def _void(self, why: str) -> None:
        hs = self.hand
        if hs is not None and not hs.void:
            hs.void = why
            self.player.cancel()

    def _needs(self, seat: int) -> bool:
        """Whether the hand still needs keys of ``seat`` (who left)."""
        hs = self.hand
        assert hs is not None
        if hs.step < 2 * len(hs.order) - 1:
            return True  # the deal is not done
        live = hs.play.live()
        board = [p for p in hs.play.layout.board if p not in hs.public]
        if seat in live:
            return len(live) >= 2
        return len(live) >= 2 and bool(board) and hs.holds(seat, board)

    def _departures(self) -> None:
        """Void the hand if it needs the keys of a player who left during it."""
        hs = self.hand
        if hs is None or hs.void:
            return
        for seat in sorted(hs.gone):
            if seat in hs.order and self._needs(seat):
                self._void(f"{self.name_of(seat)} left while the hand needed its keys")
                return

    # -- producing this peer's messages -------------------------------------------------------------

    def _make_key(self, name: str) -> None:
        assert self.identity is not None
        mine = seal.contribution()
        self._contribution = mine
        boxes = {}
        for seat in sorted(self.live):
            if seat != self.me:
                theirs = box_public(self.roster.keys[seat])
                boxes[str(seat)] = b64(seal.box_for(self.identity.box_key, theirs, mine))
        self._send(name, {"boxes": boxes})

    def _make_keyok(self, name: str) -> None:
        assert self._contributions
        key = seal.table_key(self.roster.table_id, self._contributions)
        self._send(name, {"check": seal.check_value(key)})

    def _make_shuffle(self, name: str) -> None:
        hs = self.hand
        assert hs is not None and hs.secrets is not None
        given = hs.deal.input_of_shuffle(self.me)  # type: ignore[arg-type]
        try:
            out = hs.secrets.shuffle(given)
        except group.GroupError:
            self._send(
                name, {"bad": "the deck given to me holds a value that is no encrypted card"}
            )
            return
        body: dict[str, Any] = {"deck": b64(b"".join(out))}
        if hs.secrets.last:
            body["hole"] = positions_out(hs.secrets.reveal(hs.play.layout.holes_of_others(self.me)))  # type: ignore[arg-type]
        self._send(name, body)

    def _make_lock(self, name: str) -> None:
        hs = self.hand
        assert hs is not None and hs.secrets is not None and self.me is not None
        try:
            out = hs.secrets.lock(hs.deal.input_of_lock(self.me))
        except group.GroupError:
            self._send(
                name, {"bad": "the deck given to me holds a value that is no encrypted card"}
            )
            return
        holes = hs.secrets.reveal(hs.play.layout.holes_of_others(self.me))
        self._send(name, {"deck": b64(b"".join(out)), "hole": positions_out(holes)})

    def _make_act(self, name: str) -> None:
        hs = self.hand
        assert hs is not None and self.me is not None
        legal = hs.play.legal(self.me)
        facts = views.TableFacts("fixed-limit", self.roster.table_id.hex()[:8], "p2p",
                                 int(self.params.action_time * 1000), None, None,
                                 str(self.params.stack))  # fmt: skip
        view = hs.play.view(self.me, hs.cards, facts)
        asked = self.phase

        def answer(action: Mapping[str, Any]) -> None:
            if self.hand is not hs or self.phase is not asked or self.over:
                return
            self._act(name, action, legal)

        self.player.ask(view, legal, self.params.action_time, answer)

    def _act(self, name: str, action: Mapping[str, Any], legal: list[dict[str, Any]]) -> None:
        hs = self.hand
        assert hs is not None and self.me is not None
        act = action.get("name")
        if not any(a["name"] == act for a in legal):
            act = "check" if any(a["name"] == "check" for a in legal) else "fold"
        body: dict[str, Any] = {"act": act}
        if act == "fold" and hs.secrets is not None:
            board = [p for p in hs.play.layout.board if p not in hs.public]
            body["board"] = positions_out(hs.secrets.reveal(board))
        if hs.my_alarm:
            body["alarm"] = hs.my_alarm
        self._send(name, body)
        self._check()

    def _make_board(self, name: str) -> None:
        hs = self.hand
        assert hs is not None and hs.secrets is not None
        unopened = [p for p in hs.play.dealt_board() if p not in hs.public]
        body: dict[str, Any] = {"keys": positions_out(hs.secrets.reveal(unopened))}
        if hs.my_alarm:
            body["alarm"] = hs.my_alarm
        self._send(name, body)

    def _make_end(self, name: str) -> None:
        hs = self.hand
        assert hs is not None and self.me is not None
        body: dict[str, Any] = {}
        if hs.secrets is not None and self.table_key is not None:
            body["sealed"] = b64(seal.seal(self.table_key, hs.number, hs.secrets.end_keys()))
            if self.me in hs.play.live() and hs.play.showdown and not (hs.void or hs.audit):
                body["show"] = positions_out(hs.secrets.reveal(hs.play.layout.hole[self.me]))
        if hs.my_alarm:
            body["alarm"] = hs.my_alarm
        self._send(name, body)

    def _make_done(self, name: str) -> None:
        hs = self.hand
        assert hs is not None and hs.verdict is not None
        self._send(name, dict(hs.verdict))

    # -- applying decided phases -------------------------------------------------------------------

    def _apply_key(self, name: str, outcome: Outcome) -> None:
        if outcome.silent:
            self._rekey()
            return
        self._contributions = {}
        if self.identity is not None:
            assert self._contribution is not None and self.me is not None
            self._contributions[self.me] = self._contribution
            for seat, msg in outcome.messages.items():
                if seat == self.me:
                    continue
                try:
                    boxes = wire_field(msg.body, "boxes", dict)
                    sealed = unb64(boxes.get(str(self.me)), most=256)
                    theirs = box_public(self.roster.keys[seat])
                    self._contributions[seat] = seal.open_box(self.identity.box_key, theirs, sealed)
                except (WireError, seal.SealError):
                    self.stop(
                        f"{self.name_of(seat)} sent no usable share of the table key", failed=True
                    )
                    return
        self._begin(f"kc{self._key_round}", self.live, self.params.step_time)

    def _apply_keyok(self, name: str, outcome: Outcome) -> None:
        if outcome.silent:
            self._rekey()
            return
        checks = {msg.body.get("check") for msg in outcome.messages.values()}
        if self.identity is not None:
            key = seal.table_key(self.roster.table_id, self._contributions)
            if checks != {seal.check_value(key)}:
                self.stop(
                    "the peers hold different table keys (a peer sent different shares)",
                    failed=True,
                )
                return
            self.table_key = key
        elif len(checks) == 1:
            self.table_key = b"observed"
        self._deal_hand()

    def _apply_deal(self, name: str, outcome: Outcome) -> None:
        hs = self.hand
        assert hs is not None
        n = len(hs.order)
        seat = hs.order[hs.step] if hs.step < n else hs.order[hs.step - n]
        msg = outcome.messages.get(seat)
        hs.step += 1
        if msg is None:
            self._void(f"{self.name_of(seat)} did not take its turn to deal")
            self._advance()
            return
        if "bad" in msg.body:
            self._bad_deck(seat)
            self._advance()
            return
        try:
            points = unb64(msg.body.get("deck"), deck.DECK_SIZE * group.POINT_BYTES)
            decked = tuple(points[i * 32 : i * 32 + 32] for i in range(deck.DECK_SIZE))
            if len(set(decked)) != deck.DECK_SIZE:
                raise Problem("a deck that is not 52 different encrypted cards")
            expect_holes = hs.step > n - 1 or seat == hs.order[-1]
            if expect_holes:
                holes = position_map(msg.body.get("hole"), group.SCALAR_BYTES)
                wanted = set(hs.play.layout.holes_of_others(seat))
                if set(holes) != wanted:
                    raise Problem("keys of other positions than the others' hole cards")
                for p, key in holes.items():
                    group.check_scalar(key)
                    hs.revealed[(seat, p)] = key
        except (WireError, Problem, group.GroupError) as e:
            self._cheat(seat, f"dealt wrongly: {e}")
            self._advance()
            return
        if hs.step <= n:
            hs.deal.shuffles[seat] = decked
        else:
            hs.deal.locks[seat] = decked
        if hs.step == 2 * n - 1:
            self._open_own_cards()
        self._advance()

    def _bad_deck(self, seat: int) -> None:
        """``seat`` says the deck it was given holds a value that is no point (points are
        checked as they are used, not as they come): whoever is wrong is a cheater."""
        hs = self.hand
        assert hs is not None
        n = len(hs.order)
        i = hs.step - 1  # the step ``seat`` refused
        given = hs.deal.input_of_shuffle(seat) if i < n else hs.deal.input_of_lock(seat)
        if i == 0 or all(group.is_point(p) for p in given):
            self._cheat(seat, "refused a deck that was good")
            return
        before = hs.order[i - 1] if i < n else (hs.order[-1] if i == n else hs.order[i - n - 1])
        self._cheat(before, "dealt a deck that holds a value that is no encrypted card")

    def _open_own_cards(self) -> None:
        hs = self.hand
        assert hs is not None
        if self.me is None or hs.secrets is None:
            return
        final = hs.deal.final
        assert final is not None
        mine = hs.play.layout.hole[self.me]
        for p in mine:
            hs.revealed[(self.me, p)] = hs.secrets.unlock_keys[p]
        for p in mine:
            keys = hs.keys_of(p)
            card = None if keys is None else deck.open_card(final[p], keys)
            if card is None or card in hs.cards.values():
                hs.my_alarm = f"my card at position {p} opens to no card"
                return
            hs.cards[p] = card
        self.watcher.note("hole", {"cards": [hs.cards[p] for p in mine]})

    def _apply_act(self, name: str, outcome: Outcome) -> None:
        hs = self.hand
        assert hs is not None
        turn = hs.play.turn
        assert turn is not None
        seat = turn.seat
        msg = outcome.messages.get(seat)
        if msg is None:
            self._silent_turn(seat)
            hs.acts.append({"silent": seat, "fold": seat in hs.play.folded()})
            self._after_act()
            return
        hs.acts.append({"frame": b64(msg.frame)})
        try:
            self._take_alarm(seat, msg)
            act = text(msg.body, "act", 10)
            hs.play.act(seat, act)
            if act == "fold" and "board" in msg.body:
                keys = position_map(msg.body["board"], group.SCALAR_BYTES)
                for p, key in keys.items():
                    if p in hs.play.layout.board:
                        hs.revealed[(seat, p)] = group.check_scalar(key)
        except (WireError, rules.RuleError, group.GroupError) as e:
            self._cheat(seat, f"acted against the rules: {e}")
        self._after_act()

    def _silent_turn(self, seat: int) -> None:
        """The player to act said nothing: folded when it may fold."""
        hs = self.hand
        assert hs is not None
        legal = hs.play.legal(seat)
        if any(a["name"] == "fold" for a in legal):
            hs.play.act(seat, "fold")
        self._departures()
        if not hs.void and seat in hs.play.live():
            self._void(f"{self.name_of(seat)} left while the hand needed its keys")

    def _after_act(self) -> None:
        self._departures()
        self._flush_records()
        self._advance()

    def _apply_board(self, name: str, outcome: Outcome) -> None:
        hs = self.hand
        assert hs is not None
        unopened = [p for p in hs.play.dealt_board() if p not in hs.public]
        for seat, msg in outcome.messages.items():
            try:
                self._take_alarm(seat, msg)
                keys = position_map(msg.body.get("keys"), group.SCALAR_BYTES)
                if set(keys) != set(unopened):
                    raise Problem("keys of other positions than the street's")
                for p, key in keys.items():
                    hs.revealed[(seat, p)] = group.check_scalar(key)
            except (WireError, Problem, group.GroupError) as e:
                self._cheat(seat, f"sent wrong board keys: {e}")
        self._departures()
        if not hs.void and not hs.audit:
            self._open_public(unopened)
        self._flush_records()
        self._advance()

    def _open_public(self, positions: Sequence[int]) -> None:
        """Open ``positions`` for everyone with the keys revealed; a position that does
        not open to a card nobody has seen yet starts an audit."""
        hs = self.hand
        assert hs is not None
        final = hs.deal.final
        assert final is not None
        for p in positions:
            keys = hs.keys_of(p)
            if keys is None:
                self._void("a card cannot be opened: keys are missing")
                return
            try:
                card = deck.open_card(final[p], keys)
            except group.GroupError:
                card = None
            seen = {c for q, c in hs.cards.items() if q != p}
            if card is None or card in seen:
                hs.audit = True
                self._void(f"position {p} does not open to a card: the keys will tell who")
                return
            hs.cards[p] = card
            hs.public.add(p)

    def _take_alarm(self, seat: int, msg: Signed) -> None:
        hs = self.hand
        assert hs is not None
        alarm = msg.body.get("alarm")
        if alarm is not None and seat not in hs.alarms:
            hs.alarms[seat] = str(alarm)[:200]
            hs.audit = True
            self._void(f"{self.name_of(seat)} says its cards do not open")

    def _cheat(self, seat: int, why: str) -> None:
        hs = self.hand
        assert hs is not None
        hs.cheaters.setdefault(seat, why)
        self._void(f"{self.name_of(seat)} {why}")

    def _apply_end(self, name: str, outcome: Outcome) -> None:
        hs = self.hand
        assert hs is not None
        for seat, msg in sorted(outcome.messages.items()):
            try:
                self._take_alarm(seat, msg)
                if "show" in msg.body:
                    shown = position_map(msg.body["show"], group.SCALAR_BYTES)
                    if set(shown) != set(hs.play.layout.hole.get(seat, ())):
                        raise Problem("shows keys of cards that are not its own")
                    for p, key in shown.items():
                        hs.revealed[(seat, p)] = group.check_scalar(key)
                if self.table_key is not None and self.identity is not None:
                    data = seal.unseal(
                        self.table_key, hs.number, unb64(msg.body.get("sealed"), most=4096)
                    )
                    hs.end_keys[seat] = deck.parse_end_keys(data, last=seat == hs.order[-1])
            except (WireError, Problem, group.GroupError, seal.SealError) as e:
                self._cheat(seat, f"published keys that are no keys: {e}")
        self._departures()
        self._judge()
        self._begin_done()

    def _judge(self) -> None:
        """Check the deal with every end key; play the hand again on its cards."""
        hs = self.hand
        assert hs is not None
        complete = self.identity is not None and set(hs.end_keys) == set(hs.order)
        if complete and hs.deal.final is not None:
            opened = {p: c for p, c in hs.cards.items()}
            found = deck.check_deal(hs.deal, hs.end_keys, hs.revealed, opened)
            for seat, why in found.cheaters.items():
                self._cheat(seat, why)
            if found.cards is not None:
                hs.cards = dict(enumerate(found.cards))
                for seat in hs.alarms:
                    self._cheat(seat, "raised a false alarm")
        if hs.void:
            return
        if hs.play.showdown:
            for seat in hs.play.live():
                for p in hs.play.layout.hole[seat]:
                    if p in hs.cards and complete:
                        continue
                    keys = hs.keys_of(p)
                    final = hs.deal.final
                    try:
                        card = (
                            None
                            if keys is None or final is None
                            else deck.open_card(final[p], keys)
                        )
                    except group.GroupError:
                        card = None
                    if card is None:
                        self._void(f"{self.name_of(seat)}'s cards cannot be shown")
                        return
                    hs.cards[p] = card
            hs.public.update(p for seat in hs.play.live() for p in hs.play.layout.hole[seat])

    def _verdict(self) -> None:
        """This peer's verdict on the hand (the ``d`` message's content)."""
        hs = self.hand
        assert hs is not None
        if hs.void:
            result = hs.play.void()
        else:
            result = hs.play.final(hs.cards)
        hs.result = result
        hs.verdict = {
            "void": hs.void,
            "cheaters": {str(s): why for s, why in sorted(hs.cheaters.items())},
            "stacks": {str(s): str(p.stack) for s, p in sorted(result.players.items())},
        }

    def _apply_done(self, name: str, outcome: Outcome) -> None:
        hs = self.hand
        assert hs is not None and hs.verdict is not None
        verdicts = [_verdict_of(m.body) for m in outcome.messages.values()]
        if self.observer:
            if not verdicts:
                self.stop("no peer gave its verdict on a hand", failed=True)
                return
            # what most peers say (a cheater's word is one against the others')
            seen = max(verdicts, key=verdicts.count)
            if seen != hs.verdict:
                # the peers know what an observer does not (sealed keys): their word
                hs.void = str(seen.get("void") or "")
                hs.cheaters = {int(s): w for s, w in seen.get("cheaters", {}).items()}
                self._verdict()
        elif any(
            _verdict_of(m.body) != hs.verdict
            for seat, m in outcome.messages.items()
            if seat not in hs.cheaters
        ):
            self.stop("the peers disagree on the result of a hand", failed=True)
            return
        self._finalize()

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


def _verdict_of(body: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "void": body.get("void"),
        "cheaters": body.get("cheaters"),
        "stacks": body.get("stacks"),
    }


#: phase letters → how this peer makes its message for it
PRODUCERS: dict[str, Callable[[PeerTable, str], None]] = {
    "k": PeerTable._make_key,
    "kc": PeerTable._make_keyok,
    "s": PeerTable._make_shuffle,
    "l": PeerTable._make_lock,
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

__all__ = ["Link", "NoPlayer", "PeerTable", "Player", "Watcher", "agree"]
