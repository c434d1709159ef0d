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


def contributed_hand():
    """A hand of three players who each added entropy to its shuffle, as the hub stores
    it (:func:`history.summary`)."""
    from hub.model import contribution
    from tests.games.poker.test_hand_shuffle import check_down, three_players

    g = three_players()
    for seat in range(3):
        g.game.act(seat, contribution(bytes([0xC0 + seat]) * 24, 1))
    check_down(g)
    return g.game.hands[-1]


async def store_summary(store, rec, key: str, record_changes=None, sealed_changes=None) -> int:
    kept = history.summary(rec)
    return await store.record_hand(
        "g1",
        [{"name": p.name, "seat": p.seat, "private": p.private} for p in kept.players],
        game_type="texas-holdem",
        record=dict(kept.record, **(record_changes or {})),
        sealed=dict(kept.sealed, **(sealed_changes or {})),
        hand_key=key,
    )


@pytest_twisted.ensureDeferred
async def test_a_hand_with_three_contributions_verifies_and_any_change_fails(store):
    rec = contributed_hand()
    kept = history.summary(rec)
    given = kept.record["contributions"]
    assert sorted(given) == ["0", "1", "2"]
    good = await store_summary(store, rec, "c-1")
    out = io.StringIO()
    assert await command.verify_work(store, str(good), out) == 0, out.getvalue()
    assert "3 contributions" in out.getvalue()
    changed = []
    for seat in given:  # one contribution changed (in the public record, or left out)
        other = dict(given, **{seat: "ee" * 24})
        changed.append(await store_summary(store, rec, f"c-{seat}x", {"contributions": other}))
    fewer = {k: v for k, v in given.items() if k != "1"}
    changed.append(await store_summary(store, rec, "c-fewer", {"contributions": fewer}))
    for hand in changed:
        out = io.StringIO()
        assert await command.verify_work(store, str(hand), out) == 1, out.getvalue()
        assert "FAILED" in out.getvalue()
    # another seed (with the engine's record kept: the cards no longer follow)
    seed = shuffle.new_seed()
    forged = await store_summary(
        store,
        rec,
        "c-seed",
        {"commitment": shuffle.commitment(seed)},
        {"seed": seed.hex(), "engine": dict(kept.sealed["engine"], extra=[])},
    )
    out = io.StringIO()
    assert await command.verify_work(store, str(forged), out) == 1
    assert "FAILED" in out.getvalue()


@pytest_twisted.ensureDeferred
async def test_the_command_line_verifies_a_hand_with_contributions(store, dsn):
    rec = contributed_hand()
    good = await store_summary(store, rec, "cli-1")
    bad = await store_summary(store, rec, "cli-2", {"contributions": {"0": "00"}})
    done = gamehub("verify-hand", str(good), "--db", dsn)
    assert done.returncode == 0 and "OK" in done.stdout and "3 contributions" in done.stdout
    done = gamehub("verify-hand", str(bad), "--db", dsn)
    assert done.returncode == 1 and "FAILED" in done.stdout
