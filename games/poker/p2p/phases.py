"""How a peer's table agrees on each phase on the wire: frames in, this peer's own
messages and claims, time limits, echoes, dumps and the proofs of an equivocation
(the rules of :mod:`.agree`, applied to signed frames; see :mod:`.table`)."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

from .agree import Added, Conflict, Phase
from .base import (
    KIND_OF,
    MAX_DUMP,
    MAX_PENDING,
    MAX_VOTER_ROUNDS,
    PeerBase,
    chain,
    split_phase,
)
from .wire import (
    Signed,
    WireError,
    b64,
    open_frame,
    text,
    unb64,
    verify,
)
from .wire import field as wire_field


class PhasesPart(PeerBase):
    """The table's phases on the wire."""

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
        elif kind in ("dump", "proof"):
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

    def _mismatch(self, msg: Signed) -> None:
        """A message built on another transcript: it is not taken (its author, if it sends
        nothing better, is silent).  The peers' transcripts of this hand have forked:
        this peer sends every message of the hand it holds to everyone (once a hand), so
        that the equivocation behind the fork is proven, and the hand is discarded once it
        is.  Nobody is named for a mismatch alone: only this peer may have seen it."""
        self._forked = True
        self._dump()
        self._discard_if_forked()

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
        if signed.kind == "dump":  # its sender saw a fork: show it this peer's messages
            self._dump()

    def _proven(self, author: int, why: str, conflict: Conflict) -> None:
        """Two signed messages of ``author`` for one phase: it is named, and the proof
        goes to every peer.  The hand in progress does not count (the peers may have taken
        different versions): it is discarded at once, unless this peer gave its verdict
        already; then the hand counts if every other verdict agrees, the proof in them
        putting the author out (:meth:`.dealing.DealingPart._apply_done`), and is
        discarded if the transcripts forked (:meth:`_discard_if_forked`)."""
        if author not in self.live or self.over or author in self.proofs:
            return
        if author == self.me:
            self.stop(
                "this peer is said to have sent different messages: a fault of ours", failed=True
            )
            return
        self.proofs[author] = (conflict.first.frame, conflict.second.frame)
        if self.identity is not None:
            frames = [b64(conflict.first.frame), b64(conflict.second.frame)]
            self.link.send(None, self._sign({"k": "proof", "frames": frames}))
        self.named[author] = why
        self.watcher.note("cheater", {"seat": author, "name": self.name_of(author), "why": why})
        phase = self.phase
        if phase is None or phase.label != "d":
            self._forked = True
        self._discard_if_forked()

    def _discard_if_forked(self) -> None:
        """An equivocation is proven and this peer cannot count the hand (it had not given
        its verdict, or the transcripts forked): it discards the hand, puts the
        equivocators out and deals the next one, its number one further on (peers that
        were a hand apart meet again)."""
        hs = self.hand
        proven = sorted(a for a in self.proofs if a in self.live)
        if not self._forked or not proven or hs is None or hs.finalized:
            return
        self.player.cancel()
        self.watcher.note("void", {"hand": hs.number, "why": "the peers' messages forked"})
        self.hand = None
        for author in proven:
            self._leave(author, f"named a cheater: {self.named[author]}")
        self.hash = hashlib.sha256(self.final_hash + b"proof" + bytes(proven)).digest()
        self.final_hash = self.hash
        self.hand_no = self.last_final + 1  # _next_hand adds one more: this number is spent
        self._cancel_timers()
        self.phase = None
        self._next_hand()

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
            self._produce(name)
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
        hs = self.hand
        if hs is not None and hs.my_alarm and body["k"] in ("act", "board", "end"):
            body["alarm"] = hs.my_alarm  # this player's cards did not open: all must know
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
        phase.claims[self.me] = verify(frame, self.roster.keys[self.me])  # type: ignore[index]  # me is set with identity
        self.link.send(None, frame)
        self._check()

    def _expired(self) -> None:
        """The phase's limit ran out: claim the silent authors; then the voters."""
        self._timer = None
        phase = self.phase
        if phase is None or phase.outcome is not None:
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
        if phase is None:
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
        self._apply(phase.label, outcome)
