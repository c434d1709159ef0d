"""``gamehub verify-hand HANDID``: check a stored poker hand against its shuffle seed.

``HANDID`` is the store's hand id (an integer) or the engine's hand key (e.g.
``k3x9…-17``).  The command reads the hand from the store and runs
:func:`.verify.verify_hand`: the revealed seed must match the commitment
published before the deal, and every card in the record must be where the seed's deck
puts it.  Exit status 0 when the hand verifies, 1 when it does not or is not found,
2 on bad usage.  The command comes with the poker plugin (``[commands.verify-hand]`` in
``meta/texas-holdem.meta``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, TextIO

from hub.cli.store import store_dsn, store_options, with_store

from .verify import verify_hand


def parser() -> argparse.ArgumentParser:
    """The options of ``gamehub verify-hand``."""
    p = argparse.ArgumentParser(
        prog="gamehub verify-hand",
        description="Check a stored poker hand: the revealed seed against the "
        "commitment, and every card against the deck the seed determines.",
    )
    p.add_argument("hand", metavar="HANDID", help="store hand id, or the engine's hand key")
    store_options(p)
    return p


async def find_hand(store: Any, hand: str) -> dict[str, Any] | None:
    """The stored hand with id or key ``hand``, with its sealed part (the operator's
    command); ``None`` (and a line on stderr) when there is none, or more than one with
    that key."""
    found: list[dict[str, Any]] = []
    if hand.isdigit():
        found = await store.hands(hand_id=int(hand), limit=1, sealed=True)
    if not found:
        found = await store.hands(hand_key=hand, limit=2, sealed=True)
    if not found:
        print(f"gamehub: no hand {hand!r} in the store", file=sys.stderr)
        return None
    if len(found) > 1:
        print(f"gamehub: hand key {hand!r} is ambiguous; use the store's hand id", file=sys.stderr)
        return None
    return found[0]


async def verify_work(store: Any, hand: str, out: TextIO | None = None) -> int:
    """Look ``hand`` up in ``store`` and verify it; print the verdict; 0 if it holds."""
    out = out if out is not None else sys.stdout
    record = await find_hand(store, hand)
    if record is None:
        return 1
    ok, reason = verify_hand(record)
    label = f"hand {record['hand_id']} (game {record.get('game_id')}, key {record.get('hand_key')})"
    print(f"{label}: {'OK' if ok else 'FAILED'}: {reason}", file=out)
    return 0 if ok else 1


def main(argv: Sequence[str]) -> int:
    """Entry point of ``gamehub verify-hand``."""
    args = parser().parse_args(list(argv))

    async def work(store: Any) -> int:
        return await verify_work(store, args.hand)

    return with_store(store_dsn(args), work)
