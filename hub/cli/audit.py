"""``gamehub audit``: the audit log of admin actions, newest first.

Every admin action, from the admin API (``/api/admin/...``) or a ``gamehub account``
command, is one row: when, who (``actor``), from where (``via`` and ``source``),
what (``action`` and ``target``, with details) and how it ended.  Takes the hub's
``--data``, ``--db`` and ``--config`` (:func:`hub.cli.store.store_options`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from hub.cli.store import store_dsn, store_options, with_store
from hub.store.store import Store


def parser() -> argparse.ArgumentParser:
    """The options of ``gamehub audit``."""
    p = argparse.ArgumentParser(
        prog="gamehub audit", description="List the audit log of admin actions, newest first."
    )
    p.add_argument("--limit", type=int, default=50, help="rows to list (default 50)")
    p.add_argument("--action", help="only this action (kick, chips, ban, account_grant...)")
    p.add_argument("--actor", help="only the actions of this admin (api-token, an account...)")
    p.add_argument("--target", help="only the actions on this player, game, address...")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    store_options(p)
    return p


def line(row: dict[str, Any]) -> str:
    """One row as a line of text."""
    when = datetime.fromtimestamp(float(row["created"] or 0), UTC).strftime("%Y-%m-%d %H:%M:%S")
    detail = "" if row["detail"] in (None, {}) else " " + json.dumps(row["detail"], sort_keys=True)
    return (
        f"#{row['id']} {when}Z {row['actor']} ({row['via']} from {row['source']})"
        f" {row['action']} {row['target'] or '-'}{detail}: {row['outcome']}"
    )


def main(argv: Sequence[str]) -> int:
    """``gamehub audit [--limit N] [--action A] [--actor X] [--target T] [--json]``."""
    args = parser().parse_args(list(argv))
    if not 1 <= args.limit <= 100_000:
        print("gamehub audit: --limit must be from 1 to 100000", file=sys.stderr)
        return 2
    try:
        dsn = store_dsn(args)
    except SystemExit as e:
        return int(e.code or 0)

    async def work(store: Store) -> int:
        rows = await store.audit_log(
            args.limit, action=args.action, actor=args.actor, target=args.target
        )
        for row in rows:
            print(json.dumps(row, sort_keys=True) if args.json else line(row))
        if not args.json:
            print(f"{len(rows)} row(s)")
        return 0

    return with_store(dsn, work)
