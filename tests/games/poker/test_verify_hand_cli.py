"""``gamehub verify-hand``: stored poker hands checked against their shuffle seeds."""

from __future__ import annotations

import io

import pytest_twisted

from games.poker import history, rules, shuffle
from games.poker import verify_hand_cli as command
from tests.store.test_cli_and_crash import gamehub

from .test_verify_hand import played_hand


async def record(store, rec: rules.HandRecord, seed: bytes, key: str, whole: bool) -> int:
    holes = dict(rec.hole)
    return await store.record_hand(
        "g1",
        rec.button,
        [
            {"name": name, "seat": s, "hole": list(holes[s]) if s in rec.shown else []}
            for s, name, _ in rec.players
        ],
        board=list(rec.board),
        commitment=shuffle.commitment(seed),
        seed=seed.hex(),
        actions=history.to_dict(rec) if whole else [["p0", "call", "10"]],
        hand_key=key,
    )


@pytest_twisted.ensureDeferred
async def test_stored_hands_verify(store):
    seed = shuffle.new_seed()
    rec = played_hand(seed, players=4)
    whole = await record(store, rec, seed, "g1-1", whole=True)
    slim = await record(store, rec, seed, "g1-2", whole=False)
    for hand in (str(whole), "g1-1", str(slim), "g1-2"):
        out = io.StringIO()
        assert await command.verify_work(store, hand, out) == 0, out.getvalue()
        assert ": OK: commitment matches" in out.getvalue()
    # a hand whose seed does not open its commitment fails
    other = shuffle.new_seed()
    bad = await store.record_hand(
        "g1",
        rec.button,
        [{"name": "p0", "seat": 0}],
        board=list(rec.board),
        commitment=shuffle.commitment(other),
        seed=seed.hex(),
        hand_key="g1-3",
    )
    out = io.StringIO()
    assert await command.verify_work(store, str(bad), out) == 1
    assert "FAILED: the seed does not match the commitment" in out.getvalue()
    assert await command.verify_work(store, "no-such-hand", io.StringIO()) == 1


def test_command_line(tmp_path):
    db = f"sqlite:{tmp_path}/hub.sqlite"
    done = gamehub("verify-hand", "42", "--db", db)
    assert done.returncode == 1 and "no hand '42'" in done.stderr
    assert gamehub("verify-hand").returncode == 2
