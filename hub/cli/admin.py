"""``gamehub admin bans`` and ``gamehub admin unban ADDRESS``: the banned addresses,
on the store, whether the hub runs or not.

The way back from a ban that locked everyone out (the admin API refuses a ban that
covers loopback or the admin's own address unless it is forced, but a forced one, or
one made before that rule, closes the very connections that could lift it): the
command works on the store itself, so it needs no connection to the hub.  A running
hub reads the bans again every ``ban_refresh_seconds`` (5), so an unban takes effect
there within that time.  Takes the hub's ``--data``, ``--db`` and ``--config``
(:func:`hub.cli.store.store_options`); an unban is one row of the audit log.  Exit
status 0, 1 when the store refuses or the address is not banned, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from datetime import UTC, datetime

from hub.cli.store import store_dsn, store_options, with_store
from hub.model import GameError, NotFound
from hub.ops.admin import audit_command, ban_key
from hub.store.store import Store


def parser() -> argparse.ArgumentParser:
    """The options of ``gamehub admin``."""
    p = argparse.ArgumentParser(
        prog="gamehub admin", description="The banned addresses, on the store."
    )
    sub = p.add_subparsers(dest="action", required=True)
    bans = sub.add_parser("bans", help="list every ban: address, since when, who, why")
    unban = sub.add_parser("unban", help="lift the ban of an address or network")
    unban.add_argument("address", help="as `gamehub admin bans` lists it (10.0.0.0/8, ::1...)")
    for command in (bans, unban):
        store_options(command)
    return p


def main(argv: Sequence[str]) -> int:
    """``gamehub admin bans|unban ADDRESS``."""
    args = parser().parse_args(list(argv))
    try:
        dsn = store_dsn(args)
        key = ban_key(args.address) if args.action == "unban" else ""
    except SystemExit as e:
        return int(e.code or 0)
    except GameError as e:
        print(f"gamehub admin: {e.reason}", file=sys.stderr)
        return 2

    async def work(store: Store) -> int:
        if args.action == "bans":
            rows = await store.banned_addresses()
            for row in rows:
                when = datetime.fromtimestamp(float(row["created"] or 0), UTC)
                print(f"{row['address']:<40} {when:%Y-%m-%d %H:%M:%S}Z {row['actor']}"
                      f" {row['reason'] or '-'}")  # fmt: skip
            print(f"{len(rows)} ban(s)")
            return 0

        async def lift() -> str:
            if not await store.unban_address(key):
                raise NotFound(f"{key} is not banned")
            return f"unbanned {key} (a running hub lets it in within ban_refresh_seconds)"

        print(await audit_command(store, "unban", key, None, lift))
        return 0

    return with_store(dsn, work)
