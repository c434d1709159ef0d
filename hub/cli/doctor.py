"""``gamehub doctor``: the checks an operator runs on a hub's store, hub running or not.

- **The ledger**: every chip accounted for (``gamehub ledger check``).
- **Reserved names**: the accounts that took a name of the bots', the ACPC programs',
  the guests' or the admins' name spaces (:mod:`hub.connections.names`) before people were
  refused them: a person's ``bot.caller`` makes every table with ``bot:caller``
  refused (409), a person's ``bot.x`` account with a password holds the bot's chips.
  Each is listed with why; rename it away (``gamehub account delete`` and create the
  person's account again under another name) or, for an admin's name, make it an
  admin (``gamehub account set-type NAME admin``).

Takes the hub's ``--data``, ``--db`` and ``--config``.  Exit status 0 when every check
passes, 1 when one finds something (or the store refuses), 2 on bad usage.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from hub.cli.store import store_command, store_options
from hub.store.store import Store


def main(argv: Sequence[str]) -> int:
    """``gamehub doctor [--data DIR] [--db DSN] [--config FILE]``."""
    parser = argparse.ArgumentParser(
        prog="gamehub doctor", description="Check the ledger and the accounts' names."
    )
    store_options(parser)

    async def work(args: argparse.Namespace, store: Store) -> int:
        report = await store.ledger_check()
        print(report)
        taken = await store.reserved_accounts()
        for row in taken:
            print(f"reserved name: {row['name']} ({row['type']}): {row['why']}")
        if taken:
            print(f"{len(taken)} account(s) took a reserved name (docs/privacy.md)")
        else:
            print("reserved names OK: no account took one")
        return 0 if report.ok and not taken else 1

    return store_command(parser, argv, work)
