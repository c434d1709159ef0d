"""``gamehub verify-hand``: stored poker hands checked against their shuffle seeds."""

from __future__ import annotations

import io

import pytest_twisted

from games.poker import history, rules, shuffle
from games.poker import verify_hand_cli as command
from tests.store.test_cli_and_crash import gamehub

from .test_verify_hand import played_hand


async def record(store, rec: rules.HandRecord, seed: bytes, key: str, whole: bool) -> int:
    """Store ``rec`` as the hub does (``whole``), or without the engine's record and
    the seats' private parts (then only the cards shown down are known)."""
    kept = history.summary(rec)
    sealed = {"seed": seed.hex(), **({"engine": history.to_dict(rec)} if whole else {})}
    return await store.record_hand(
        "g1",
        [{"name": p.name, "seat": p.seat, "private": p.private if whole else None}
         for p in kept.players],
        game_type="texas-holdem",
        record=dict(kept.record, commitment=shuffle.commitment(seed)),
        sealed=sealed,
        hand_key=key,
    )  # fmt: skip


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
        [{"name": "p0", "seat": 0}],
        record={"dealer": rec.button, "board": list(rec.board),
                "commitment": shuffle.commitment(other)},
        sealed={"seed": seed.hex()},
        hand_key="g1-3",
    )  # fmt: skip
    out = io.StringIO()
    assert await command.verify_work(store, str(bad), out) == 1
    assert "FAILED: the seed does not match the commitment" in out.getvalue()
    assert await command.verify_work(store, "no-such-hand", io.StringIO()) == 1


def test_command_line(tmp_path):
    db = f"sqlite:{tmp_path}/hub.sqlite"
    done = gamehub("verify-hand", "42", "--db", db)
    assert done.returncode == 1 and "no hand '42'" in done.stderr
    assert gamehub("verify-hand").returncode == 2
