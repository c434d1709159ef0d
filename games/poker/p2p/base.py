"""What every part of a peer's table shares: its state, the protocols it talks
through (:class:`Link`, :class:`Player`, :class:`Watcher`), a hand's state and the
transcript hash.

:class:`PeerBase` holds a table's state; :mod:`.phases` adds how phases are agreed
on the wire (frames in, claims, echoes, dumps and proofs), :mod:`.dealing` what each
phase's message is and does (the deal, the betting, the keys, the verdict), and
:class:`.table.PeerTable` puts them together with the flow of a hand.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, Protocol

from twisted.logger import Logger

from .. import rules
from . import deck
from .agree import Outcome, Phase
from .gather import Roster
from .hand import HandPlay
from .wire import (
    Identity,
    Signed,
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


#: how a player gives its decision: ``{"name": "raise"}``
Answer = Callable[[Mapping[str, Any]], None]


class Player(Protocol):
    """Who decides for this peer."""

    def ask(
        self, view: Mapping[str, Any], legal: list[dict[str, Any]], seconds: float, answer: Answer
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


def _verdict_of(body: Mapping[str, Any]) -> dict[str, Any]:
    """What of a verdict must be the same at every peer: void or not, who is named, the
    stacks (the reasons are words for people, the first one found)."""
    cheaters = body.get("cheaters")
    return {
        "void": bool(body.get("void")),
        "cheaters": sorted(cheaters) if isinstance(cheaters, dict) else cheaters,
        "stacks": body.get("stacks"),
    }


class PeerBase:
    """The state of one peer's (or an observer's) table and the helpers every part uses
    (see :class:`.table.PeerTable`).

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
        self._dumped: set[int] = set()
        self._lost: set[int] = set()
        self._cut: set[int] = set()  #: peers whose frames are not taken (forgers)
        #: author → the two signed messages that prove it equivocated
        self.proofs: dict[int, tuple[bytes, bytes]] = {}
        #: a message of this hand came built on another transcript (:meth:`_mismatch`)
        self._forked = False
        self.table_key: bytes | None = None
        self._key_round = 0
        self._contribution: bytes | None = None
        self._contributions: dict[int, bytes] = {}
        self.over = False
        self.failed = False
        self.reason = ""
        self.hand_no = 0
        self.seq = 0  #: phases begun in the hand
        #: how this peer makes the deal's secrets of a hand (tests give cheaters theirs)
        self.dealer: Callable[[bool], deck.DealSecrets] = deck.DealSecrets

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

    def _cancel_timers(self) -> None:
        if self._timer is not None and self._timer.active():
            self._timer.cancel()
        self._timer = None

    def _leave(self, seat: int, why: str) -> None:
        if seat not in self.live:
            return
        self.live.discard(seat)
        self.departed[seat] = why
        self.table_key = None  # a new key before the next hand
        if self.hand is not None:
            self.hand.gone.add(seat)
        self.watcher.note("left", {"seat": seat, "name": self.name_of(seat), "why": why})

    def _sign(self, body: dict[str, Any]) -> bytes:
        assert self.identity is not None and self.me is not None
        body["a"] = self.me
        body["t"] = self.roster.table_id.hex()
        return self.identity.sign(body)

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

    def _cheat(self, seat: int, why: str) -> None:
        hs = self.hand
        assert hs is not None
        hs.cheaters.setdefault(seat, why)
        self._void(f"{self.name_of(seat)} {why}")

    if TYPE_CHECKING:
        # the parts call each other through these; :class:`.table.PeerTable` has them all

        def stop(self, reason: str, failed: bool = False) -> None: ...

        def _next_hand(self) -> None: ...

        def _rekey(self) -> None: ...

        def _deal_hand(self) -> None: ...

        def _advance(self) -> None: ...

        def _begin(self, name: str, expected: Iterable[int], limit: float) -> None: ...

        def _begin_done(self) -> None: ...

        def _send(self, name: str, body: dict[str, Any]) -> None: ...

        def _check(self) -> None: ...

        def _claim(self, phase: Phase, silent: frozenset[int] | None) -> None: ...

        def _finalize(self, go_on: bool = True) -> None: ...

        def _flush_records(self) -> None: ...

        def _produce(self, name: str) -> None: ...

        def _apply(self, name: str, outcome: Outcome) -> None: ...

        def _verdict(self) -> None: ...

        def _peer_lost(self, seat: int) -> None: ...

        def _discard_if_forked(self) -> None: ...
