"""Signed canonical messages (:mod:`games.poker.p2p.wire`), table parameters and how
peers agree on a table (:mod:`.params`, :mod:`.gather`), hostile input included."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.poker.p2p.gather import Gathering, Witness, unique_names
from games.poker.p2p.params import Params
from games.poker.p2p.wire import (
    MAX_FRAME,
    Identity,
    WireError,
    canonical,
    open_frame,
    parse_key,
    position_map,
    verify,
)
from tests.p2p.sim import agree


def test_a_signed_frame_verifies_with_its_key_only():
    alice, bob = Identity(), Identity()
    frame = alice.sign({"k": "act", "act": "call", "a": 0})
    msg = verify(frame, alice.verify_key)
    assert msg.body == {"a": 0, "act": "call", "k": "act"}
    with pytest.raises(WireError):
        verify(frame, bob.verify_key)
    changed = frame.replace(b"call", b"fold")
    with pytest.raises(WireError):
        verify(changed, alice.verify_key)


def test_one_message_has_one_frame_so_two_frames_are_two_messages():
    alice = Identity()
    body = {"k": "act", "act": "call"}
    frame = alice.sign(body)
    assert frame == alice.sign(dict(reversed(list(body.items()))))  # canonical order
    sig, data = frame[:64], frame[64:]
    spaced = sig + json.dumps(body, sort_keys=True).encode()  # not canonical: refused
    with pytest.raises(WireError, match="canonical"):
        open_frame(spaced)
    assert canonical(body) == data


@pytest.mark.parametrize(
    "frame",
    [
        b"",
        b"x" * 64,
        b"x" * 64 + b"[1]",
        b"x" * 64 + b"\xff\xfe",
        b"x" * 64 + b'{"a": NaN}',
        b"x" * 64 + b"[" * 100_000 + b"]" * 100_000,
        b"x" * (MAX_FRAME + 1),
    ],
)
def test_hostile_frames_are_refused_with_a_wire_error(frame):
    with pytest.raises(WireError):
        open_frame(frame)


@given(st.binary(max_size=300))
def test_no_bytes_break_the_frame_reader(data):
    try:
        open_frame(data)
    except WireError:
        pass


def test_keys_and_position_maps_are_read_strictly():
    alice = Identity()
    assert parse_key(alice.text) == alice.verify_key
    for bad in ("ed25519:AAAA", "rsa:abc", 42, "ed25519:" + "A" * 44):
        with pytest.raises(WireError):
            parse_key(bad)
    assert position_map({"3": "AQ=="}, 1) == {3: b"\x01"}
    for bad in ({"52": "AQ=="}, {"-1": "AQ=="}, {"x": "AQ=="}, {"3": "AQ"}, [1], {"03": "AQ=="}):
        with pytest.raises(WireError):
            position_map(bad, 1)


def test_params_are_checked_and_read_back_exactly():
    p = Params(stakes="2/4", buyin="500", players=3, hands=10, action_time=5, step_time=2)
    assert Params.from_json(json.loads(json.dumps(p.to_json()))) == p
    assert p.config().big_blind == 2
    for bad in ({"stakes": "10"}, {"buyin": "-1"}, {"players": 11}, {"step_time": 0.0}):
        with pytest.raises(ValueError):
            Params(**bad)  # type: ignore[arg-type]
    with pytest.raises(WireError):
        Params.from_json({**p.to_json(), "players": True})
    with pytest.raises(WireError):
        Params.from_json({**p.to_json(), "extra": 1})


def test_peers_agree_on_one_roster_seed_and_table_id():
    roster, ids = agree(Params(players=3))
    assert list(roster.keys) == sorted(i.verify_key for i in ids)
    assert [roster.seat_of(i.verify_key) for i in ids] == [0, 1, 2]
    assert len(roster.table_id) == 32 and len(roster.seed) == 32


def test_a_peer_that_wants_another_table_is_not_seated():
    a, b = Identity(), Identity()
    ga = Gathering(a, "a", Params(players=2))
    gb = Gathering(b, "b", Params(players=2, stakes="1/2"))
    assert ga.take_hello(gb.hello) is None
    assert ga.seat_frame is None and ga.refused


def test_a_nonce_that_does_not_fit_its_commitment_is_refused():
    a, b = Identity(), Identity()
    ga, gb = Gathering(a, "a", Params()), Gathering(b, "b", Params())
    ga.take_hello(gb.hello)
    gb.take_hello(ga.hello)
    body, _, _ = open_frame(gb.seat_frame)
    body["nonce"] = "00" * 32
    with pytest.raises(WireError, match="commitment"):
        ga.take_seat(b.sign(body))
        ga.agreed  # noqa: B018


def test_a_witness_agrees_on_the_same_table_from_the_public_frames():
    params = Params(players=3)
    ids = [Identity() for _ in range(3)]
    gs = [Gathering(i, f"p{n}", params) for n, i in enumerate(ids)]
    for g in gs:
        for other in gs:
            if other is not g:
                g.take_hello(other.hello)
    witness = Witness(3)
    for g in gs:
        witness.take(g.hello)
    assert witness.roster is None
    for g in gs:
        for other in gs:
            if other is not g:
                g.take_seat(other.seat_frame)
        witness.take(g.seat_frame)
    assert witness.roster == gs[0].agreed == gs[2].agreed


def test_names_are_made_unique_in_seat_order():
    assert unique_names(["al", "bo", "al", "al"]) == ("al", "bo", "al-2", "al-3")
