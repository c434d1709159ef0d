"""``gamehub hand-history HANDID``: print a stored poker hand as readable text.

``HANDID`` is the store's hand id (an integer, as ``lobby/history`` lists it) or the
engine's hand key.  The text is :func:`.history.format_hand` of the hand
record the hub stored with the hand; ``--reveal`` shows every hole card (the operator's
view), otherwise only the cards shown at the table.  Exit status 0 when found, 1 when
not, 2 on bad usage.  The command comes with the poker plugin
(``[commands.hand-history]`` in ``meta/texas-holdem.meta``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from hub.cli.store import store_dsn, store_options, with_store

from .history import engine_record, format_hand, from_dict
from .verify_hand_cli import find_hand


def parser() -> argparse.ArgumentParser:
    """The options of ``gamehub hand-history``."""
    p = argparse.ArgumentParser(
        prog="gamehub hand-history", description="Print a stored poker hand as text."
    )
    p.add_argument("hand", metavar="HANDID", help="store hand id, or the engine's hand key")
    p.add_argument("--reveal", action="store_true", help="show every player's hole cards")
    store_options(p)
    return p


async def history_work(store: Any, hand: str, reveal: bool = False, out: Any = None) -> int:
    """Print hand ``hand`` of ``store``; 0 if found and readable."""
    out = out if out is not None else sys.stdout
    record = await find_hand(store, hand)
    if record is None:
        return 1
    engine = engine_record(record)
    if engine is None:
        print(f"gamehub: hand {hand!r} has no engine record to print", file=sys.stderr)
        return 1
    print(format_hand(from_dict(engine), reveal=reveal), file=out)
    return 0


def main(argv: Sequence[str]) -> int:
    """Entry point of ``gamehub hand-history``."""
    args = parser().parse_args(list(argv))

    async def work(store: Any) -> int:
        return await history_work(store, args.hand, args.reveal)

    return with_store(store_dsn(args), work)
