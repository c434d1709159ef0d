"""How the peers agree on a phase, silence included (:mod:`games.poker.p2p.agree`):
the rules one by one, then a property: whatever the order messages, claims and echoes
arrive in, no two peers decide differently."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from games.poker.p2p.agree import Added, Conflict, Phase
from games.poker.p2p.wire import Identity, verify

IDS = [Identity() for _ in range(4)]


def msg(author: int, text: str = "m"):
    frame = IDS[author].sign({"a": author, "x": text})
    return verify(frame, IDS[author].verify_key)


def test_a_phase_with_every_message_is_decided_without_claims():
    p = Phase("1/1", [0, 1], [0, 1, 2], me=2)
    assert p.add_message(0, msg(0), 0) is Added.NEW
    assert p.decide() is None
    assert p.add_message(1, msg(1), 1) is Added.NEW
    out = p.decide()
    assert out is not None and set(out.messages) == {0, 1} and out.silent == frozenset()
    assert p.add_message(0, msg(0), 0) is Added.SAME


def test_two_messages_of_one_author_are_the_proof_of_an_equivocation():
    p = Phase("1/1", [0], [0, 1, 2], me=1)
    p.add_message(0, msg(0, "call"), 0)
    conflict = p.add_message(0, msg(0, "fold"), 2)
    assert isinstance(conflict, Conflict) and conflict.author == 0


def test_silence_is_agreed_when_every_other_peer_claimed_it():
    p = Phase("1/1", [0], [0, 1, 2], me=1)
    assert p.expire() == frozenset({0})
    assert p.decide() is None  # peer 2 has not claimed yet
    p.add_claim(2, msg(2, "claim"), frozenset({0}), 2)
    out = p.decide()
    assert out is not None and out.silent == frozenset({0}) and out.messages == {}


def test_a_peer_never_claims_itself_and_an_observer_never_claims():
    p = Phase("1/1", [1], [0, 1], me=1)
    assert p.expire() is None
    observer = Phase("1/1", [0], [0, 1], me=None)
    assert observer.expire() is None and observer.expire_voters() is None


def test_after_a_claim_only_an_echo_from_a_peer_that_did_not_claim_is_taken():
    p = Phase("1/1", [0], [0, 1, 2], me=1)
    p.expire()
    assert p.add_message(0, msg(0), via=0) is Added.IGNORED  # late, from its author
    p.add_claim(2, msg(2, "claim"), frozenset({0}), 2)
    assert p.add_message(0, msg(0), via=2) is Added.IGNORED  # 2 claimed it too
    q = Phase("1/1", [0], [0, 1, 2], me=1)
    q.expire()
    assert q.add_message(0, msg(0), via=2) is Added.NEW  # 2 holds it: its echo counts


def test_a_claim_is_answered_with_the_echo_of_what_this_peer_holds():
    p = Phase("1/1", [0], [0, 1, 2], me=2)
    m = msg(0)
    p.add_message(0, m, 0)
    assert p.add_claim(1, msg(1, "claim"), frozenset({0}), 1) == [m]


def test_a_silent_voter_is_claimed_in_turn():
    p = Phase("1/1", [0], [0, 1, 2, 3], me=1)
    p.expire()
    p.add_claim(2, msg(2, "c"), frozenset({0}), 2)
    assert p.decide() is None  # waits for 3's claim
    assert p.expire_voters() == frozenset({0, 3})
    p.add_claim(2, msg(2, "c2"), frozenset({0, 3}), 2)
    out = p.decide()
    assert out is not None and out.silent == frozenset({0, 3})


@settings(max_examples=300)
@given(
    st.integers(2, 5),
    st.integers(0, 2**32 - 1),
    st.sets(st.integers(0, 4)),
    st.integers(0, 4),
)
def test_no_two_peers_decide_differently_whatever_the_order(n, seed, got, author):
    """One author's message reaches some peers (``got``); the phase's limit runs out at
    random moments, claims and echoes arrive in a random order; the voters' limit runs
    out only once nothing is on its way (it is far longer than a message and its answer
    take: a peer slower than that is gone, and the transcript hashes catch it).  Every
    two peers that decide, neither silent to the other, decide the same: the message,
    or silence (a peer the others agree is silent may be left alone with its view: it
    leaves the table)."""
    author %= n
    got = {g % n for g in got if g % n != author}
    rng = random.Random(seed)
    live = list(range(n))
    voters = [v for v in live if v != author]  # the author itself crashed
    phases = {v: Phase("1/1", [author], live, me=v) for v in voters}
    m = msg(author % 4)
    queue: list[tuple] = [("msg", v, author) for v in got]
    queue += [("expire", v) for v in voters]
    rounds = 0
    while queue and rounds < 2000:
        rounds += 1
        item = queue.pop(rng.randrange(len(queue)))
        kind, v = item[0], item[1]
        phase = phases[v]
        if kind == "msg":
            if phase.add_message(author, m, item[2]) is Added.NEW:
                for claimer in phase.claimers_of(author):
                    queue.append(("msg", claimer, v))  # the echo to who asked before
        elif kind == "expire":
            claim = phase.expire()
            if claim is None and all(q[0] == "expire" for q in queue):
                claim = phase.expire_voters()
            if claim is not None:
                for other in voters:
                    if other != v:
                        queue.append(("claim", other, v, claim))
            if phase.decide() is None:
                queue.append(("expire", v))
        elif kind == "claim":
            claimer, claim = item[2], item[3]
            for _echo in phase.add_claim(claimer, msg(claimer % 4, "c"), claim, claimer):
                queue.append(("msg", claimer, v))  # the echo, from v to the claimer
    decisions = {v: p.decide() for v, p in phases.items()}
    # every two peers that are not silent to each other decided the same
    for v, d in decisions.items():
        for w, e in decisions.items():
            if d is not None and e is not None and v not in e.silent and w not in d.silent:
                assert bool(d.messages) == bool(e.messages), decisions
