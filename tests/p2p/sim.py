"""An in-memory network of peers for the tests of :mod:`games.poker.p2p` (no sockets).

Frames go through :class:`Net`, which delivers each one on a later turn of a
``task.Clock`` (so no peer is fed from inside its own output) and lets a test change,
drop or duplicate frames on their way (a cheating peer, a peer that went away).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from twisted.internet import task

from games.poker import rules
from games.poker.p2p.gather import Gathering, Roster
from games.poker.p2p.params import Params
from games.poker.p2p.table import PeerTable
from games.poker.p2p.wire import Identity

#: (sender, receiver or None for all, frame) → the frames to deliver instead
Tamper = Callable[[int, int, bytes], list[bytes]]


def agree(params: Params, names: Sequence[str] | None = None) -> tuple[Roster, list[Identity]]:
    """A table of ``params.players`` fresh peers, agreed in memory; the identities in
    seat order."""
    names = list(names or [f"p{i}" for i in range(params.players)])
    ids = [Identity() for _ in names]
    gatherings = [Gathering(i, n, params) for i, n in zip(ids, names, strict=True)]
    for g in gatherings:
        for other in gatherings:
            if other is not g:
                g.take_hello(other.hello)
    for g in gatherings:
        for other in gatherings:
            if other is not g and other.seat_frame is not None:
                g.take_seat(other.seat_frame)
    rosters = [g.agreed for g in gatherings]
    assert all(r is not None and r == rosters[0] for r in rosters), "the table is agreed"
    roster = rosters[0]
    assert roster is not None
    by_seat = sorted(ids, key=lambda i: roster.keys.index(i.verify_key))
    return roster, by_seat


class Net:
    """Delivers frames between the peers of one table."""

    def __init__(self, clock: task.Clock, delay: float = 0.001) -> None:
        self.clock = clock
        self.delay = delay
        self.peers: dict[int, Any] = {}
        self.observers: list[Any] = []
        self.tamper: dict[int, Tamper] = {}
        self.down: set[int] = set()
        self.sent = 0

    def link(self, seat: int) -> Link:
        return Link(self, seat)

    def send(self, sender: int, to: int | None, frame: bytes) -> None:
        if sender in self.down:
            return
        targets = [to] if to is not None else [s for s in self.peers if s != sender]
        for target in targets:
            frames = [frame]
            if sender in self.tamper:
                frames = self.tamper[sender](sender, target, frame)
            for f in frames:
                self.sent += 1
                self.clock.callLater(self.delay, self._deliver, sender, target, f)
        if to is None:
            for obs in self.observers:
                self.clock.callLater(self.delay, obs.receive, sender, frame)

    def _deliver(self, sender: int, target: int, frame: bytes) -> None:
        if target in self.down:  # what a crashed peer sent before still arrives (TCP)
            return
        peer = self.peers.get(target)
        if peer is not None:
            peer.receive(sender, frame)

    def crash(self, seat: int) -> None:
        """``seat`` is gone: nothing more from or to it; the others see the loss."""
        self.down.add(seat)
        for s, peer in self.peers.items():
            if s != seat:
                self.clock.callLater(self.delay, peer.peer_lost, seat)


class Link:
    def __init__(self, net: Net, seat: int) -> None:
        self.net, self.seat = net, seat

    def send(self, to: int | None, frame: bytes) -> None:
        self.net.send(self.seat, to, frame)


class Policy:
    """A player answering at once with a seeded random legal action (never folding
    when checking is free)."""

    def __init__(self, clock: task.Clock, seed: int, think: float = 0.0) -> None:
        self.clock = clock
        self.rng = random.Random(seed)
        self.think = think
        self.asked = 0
        self.mute = False

    def ask(
        self, view: Mapping[str, Any], legal: list[dict[str, Any]], seconds: float, answer: Any
    ) -> None:
        self.asked += 1
        if self.mute:
            return
        names = [a["name"] for a in legal]
        if "check" in names and "fold" in names:
            names.remove("fold")
        weights = {"fold": 1, "check": 4, "call": 4, "bet": 2, "raise": 1}
        choice = self.rng.choices(names, [weights.get(n, 1) for n in names])[0]
        self.clock.callLater(self.think, answer, {"name": choice})

    def cancel(self) -> None:
        pass


class Recorder:
    """A watcher that keeps everything."""

    def __init__(self) -> None:
        self.notes: list[tuple[str, dict[str, Any]]] = []
        self.recs: list[rules.Record] = []

    def records(self, table: rules.Table, records: Sequence[rules.Record]) -> None:
        self.recs.extend(records)

    def note(self, kind: str, data: Mapping[str, Any]) -> None:
        self.notes.append((kind, dict(data)))

    def kinds(self, kind: str) -> list[dict[str, Any]]:
        return [d for k, d in self.notes if k == kind]


def table(params: Params, seed: int = 1, observe: bool = False, delay: float = 0.001):
    """A clock, a network and one :class:`PeerTable` per seat (and an observer)."""
    clock = task.Clock()
    roster, ids = agree(params)
    net = Net(clock, delay)
    peers = []
    for seat, ident in enumerate(ids):
        peer = PeerTable(
            roster, ident, clock, net.link(seat), Policy(clock, seed * 100 + seat), Recorder()
        )
        net.peers[seat] = peer
        peers.append(peer)
    if observe:
        from games.poker.p2p.table import NoPlayer

        obs = PeerTable(roster, None, clock, net.link(-1), NoPlayer(), Recorder())
        net.observers.append(obs)
    return clock, net, peers


def run(
    clock: task.Clock, peers: Sequence[PeerTable], seconds: float = 3600.0, step: float = 0.001
) -> None:
    """Advance the clock until every peer's table is over (or ``seconds`` pass)."""
    spent = 0.0
    while spent < seconds and not all(p.over for p in peers):
        if not clock.getDelayedCalls():
            break
        nxt = min(c.getTime() for c in clock.getDelayedCalls())
        gap = max(nxt - clock.seconds(), 0.0)
        clock.advance(gap)
        spent += gap
