"""A peer of the table sends garbage, signed or not, at every moment of a hand: no
exception escapes an honest peer or an observer (the hub), which name the sender or
ignore it, and never stop by fault."""

from __future__ import annotations

import random

import pytest

from games.poker.p2p.params import Params
from tests.p2p import sim

VALUES = [None, True, 0, -1, 2**70, 1.5, "", "x" * 300, "AAAA", [], [1, "a"], {}, {"0": "AA=="},
          {"3": [1]}, {"x": {"y": {}}}, "ed25519:AAAA"]  # fmt: skip
FIELDS = ["k", "h", "ph", "prev", "a", "t", "act", "deck", "hole", "keys", "board", "show",
          "sealed", "boxes", "check", "void", "cheaters", "stacks", "silent", "frame",
          "frames", "alarm", "bad"]  # fmt: skip
KINDS = ["key", "keyok", "shuffle", "lock", "act", "board", "end", "done", "claim", "echo",
         "dump", "nonsense"]  # fmt: skip


def garbage(rng: random.Random, peer, author: int, table_id: str) -> bytes:
    """A message signed by ``author`` for the hand and phase ``peer`` is in, with some
    fields of the right kind and shape and the rest anything."""
    phase = peer.phase
    body = {
        "k": rng.choice(KINDS),
        "a": author,
        "t": table_id,
        "h": peer.hand_no,
        "ph": peer.seq if phase is not None else 1,
        "prev": peer.prev[phase.key].hex() if phase is not None else "00" * 32,
    }
    for name in rng.sample(FIELDS, rng.randint(1, 6)):
        body[name] = rng.choice(VALUES)
    return body


@pytest.mark.parametrize("seed", range(1, 13))
def test_signed_garbage_and_junk_never_break_a_peer_or_the_observer(seed):
    rng = random.Random(seed)
    clock, net, peers = sim.table(Params(players=3, hands=6, buyin="100000", step_time=1,
                                         action_time=2), seed=seed, observe=True)  # fmt: skip
    observer = net.observers[0]
    cheat = peers[2].identity
    table_id = peers[0].roster.table_id.hex()
    sent = 0

    def inject() -> None:
        nonlocal sent
        if all(p.over for p in peers[:2]):
            return
        for _ in range(3):
            body = garbage(rng, peers[0], 2, table_id)
            frame = cheat.sign(body) if rng.random() < 0.8 else rng.randbytes(rng.randint(0, 200))
            for target in (peers[0], peers[1], observer):
                target.receive(2, frame)  # nothing may raise
            sent += 1
        clock.callLater(rng.uniform(0.0005, 0.01), inject)

    for p in peers + [observer]:
        p.start()
    clock.callLater(rng.uniform(0.001, 0.12), inject)  # from some moment of the first hands
    sim.run(clock, peers + [observer], seconds=3600)
    assert sent > 0
    for honest in peers[:2]:
        assert honest.over and not honest.failed, honest.reason
    assert peers[0].stacks == peers[1].stacks
    assert peers[0].departed == peers[1].departed
    assert observer.over
