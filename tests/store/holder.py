"""A process that holds chips at tables, for the SIGKILL test.

``python -m tests.store.holder DSN`` creates two accounts, buys both in at two games,
prints ``READY``, then settles hands between them forever (printing ``HAND n``) until
it is killed.
"""

from __future__ import annotations

import sys
from decimal import Decimal

from twisted.internet import defer, task

from hub.store import open_store
from hub.store.accounts import ScryptParams


async def main(reactor, dsn: str) -> None:
    store = open_store(dsn, reactor, scrypt=ScryptParams(n=16))
    await store.start()
    for table in ("table-a", "table-b"):
        await store.open_table(table, "test")
    for name in ("kim", "lee"):
        await store.create_account(name, "secret1")
        await store.buy_in(name, "table-a", "300", f"{name}-a")
        await store.buy_in(name, "table-b", "0.30", f"{name}-b")
    print("READY", flush=True)
    hand = 0
    while True:
        hand += 1
        sign = 1 if hand % 3 else -1
        delta = Decimal("0.10") * sign
        await store.settle("table-a", {"kim": delta, "lee": -delta}, f"hand-{hand}")
        print(f"HAND {hand}", flush=True)


if __name__ == "__main__":
    task.react(lambda reactor: defer.ensureDeferred(main(reactor, sys.argv[1])))
