"""``gamehub account …`` and ``gamehub ledger …``: admin commands on either database.

Each command opens the store without crash recovery (a hub may be running on the same
database), does its work through the Deferred API under ``task.react``, and exits 0 on
success, 1 when the store refuses (the reason goes to stderr), 2 on bad usage.

:func:`db_option` and :func:`with_store` are public: a plugin's own command that reads
the store (``[commands]`` in its ``.meta``, see docs/plugins.md) uses them too, so
every command takes ``--db`` and reports a refused store the same way.
"""

from __future__ import annotations

import argparse
import getpass
import os
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from twisted.internet import defer, task

from hub.model import GameError
from hub.store import DEFAULT_DSN
from hub.store.errors import StoreError
from hub.store.store import Store, open_store


def db_option(parser: argparse.ArgumentParser) -> None:
    """Add the ``--db DSN`` option (default: ``$GAMEHUB_DB`` or the hub's default)."""
    parser.add_argument(
        "--db",
        default=os.environ.get("GAMEHUB_DB", DEFAULT_DSN),
        metavar="DSN",
        help=f"sqlite:<path> or postgresql://user@host/db (default {DEFAULT_DSN})",
    )


def with_store(dsn: str, work: Callable[[Store], Awaitable[int]]) -> int:
    """Open the store on ``dsn``, run ``work(store)`` in a reactor, return its status."""

    async def main(reactor: Any) -> None:
        try:
            store = open_store(dsn, reactor)
            await store.start(recover=False)
        except (StoreError, ValueError) as e:
            print(f"gamehub: {e}", file=sys.stderr)
            raise SystemExit(1) from None
        except Exception as e:  # the driver's own errors: no server, bad login...
            print(f"gamehub: cannot open the database: {e}".rstrip(), file=sys.stderr)
            raise SystemExit(1) from None
        try:
            status = await work(store)
        except GameError as e:
            print(f"gamehub: {e.reason}", file=sys.stderr)
            status = 1
        finally:
            await store.stop()
        if status:
            raise SystemExit(status)

    try:
        task.react(lambda reactor: defer.ensureDeferred(main(reactor)))
    except SystemExit as e:
        return int(e.code or 0)
    return 0


def _password(args: argparse.Namespace) -> str:
    if args.password is not None:
        return str(args.password)
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("password: ")
    if getpass.getpass("again: ") != first:
        raise SystemExit("gamehub: the passwords differ")
    return first


def account_parser() -> argparse.ArgumentParser:
    """The options of ``gamehub account``."""
    parser = argparse.ArgumentParser(prog="gamehub account", description="Manage accounts.")
    sub = parser.add_subparsers(dest="action", required=True)

    create = sub.add_parser("create", help="create an account")
    create.add_argument("name")
    create.add_argument("--type", default="player", choices=["player", "bot", "admin"])
    create.add_argument("--password", help="the password (else --password-stdin or a prompt)")
    create.add_argument("--password-stdin", action="store_true", help="read it from stdin")
    create.add_argument("--grant", help="starting chips (default: the hub's new-account grant)")

    password = sub.add_parser("password", help="set an account's password")
    password.add_argument("name")
    password.add_argument("--password")
    password.add_argument("--password-stdin", action="store_true")

    delete = sub.add_parser("delete", help="delete an account (its history stays)")
    delete.add_argument("name")

    listing = sub.add_parser("list", help="list accounts with their balances")
    listing.add_argument("prefix", nargs="?", default="")
    listing.add_argument("--type", choices=["player", "bot", "admin"])

    set_type = sub.add_parser("set-type", help="make an account a player, bot or admin")
    set_type.add_argument("name")
    set_type.add_argument("type", choices=["player", "bot", "admin"])

    grant = sub.add_parser("grant", help="give chips to an account (negative: take them)")
    grant.add_argument("name")
    grant.add_argument("amount")
    grant.add_argument("--key", help="idempotency key: the same key is applied once")

    for p in (create, password, delete, listing, set_type, grant):
        db_option(p)
    return parser


async def account_work(store: Store, args: argparse.Namespace, secret: str = "") -> int:
    """Do one parsed ``gamehub account`` command on a started store; print the outcome.

    :raises hub.model.GameError: the store refused.
    """
    if args.action == "create":
        account = await store.create_account(args.name, secret, args.type, args.grant)
        print(f"created {account.name} ({account.type}), balance {account.balance}")
    elif args.action == "password":
        await store.set_password(args.name, secret)
        print(f"password of {args.name} changed")
    elif args.action == "delete":
        closed = await store.delete_account(args.name)
        print(f"deleted {args.name} (closed balance {closed})")
    elif args.action == "list":
        accounts = await store.list_accounts(args.prefix, type=args.type)
        for a in accounts:
            print(f"{a.name:<32} {a.type:<6} {a.balance:>16}")
        print(f"{len(accounts)} account(s)")
    elif args.action == "set-type":
        account = await store.set_type(args.name, args.type)
        print(f"{account.name} is now {account.type}")
    elif args.action == "grant":
        moved = await store.grant(args.name, args.amount, args.key)
        state = "granted" if moved.applied else "already applied:"
        print(f"{state} {moved.amount} to {args.name}, balance {moved.balance}")
    return 0


def account_main(argv: Sequence[str]) -> int:
    """``gamehub account create|delete|list|set-type|grant|password``."""
    args = account_parser().parse_args(list(argv))
    secret = _password(args) if args.action in ("create", "password") else ""
    return with_store(args.db, lambda store: account_work(store, args, secret))


def ledger_main(argv: Sequence[str]) -> int:
    """``gamehub ledger check|problems|hubs``: prove that every chip is accounted for;
    list the money problems hubs recorded; list the hubs and their chip tables."""
    parser = argparse.ArgumentParser(prog="gamehub ledger", description="Inspect the ledger.")
    sub = parser.add_subparsers(dest="action", required=True)
    check = sub.add_parser(
        "check",
        help="prove that every chip is accounted for (exit 1 listing each discrepancy)",
    )
    problems = sub.add_parser("problems", help="money problems the hubs recorded, newest first")
    problems.add_argument("--limit", type=int, default=100)
    hubs = sub.add_parser("hubs", help="hub leases: which hubs live and own chip tables")
    for p in (check, problems, hubs):
        db_option(p)
    args = parser.parse_args(list(argv))

    async def work(store: Store) -> int:
        if args.action == "problems":
            found = await store.problems(args.limit)
            for p in found:
                print(f"#{p['id']} {p['kind']} {p['game_id'] or '-'} {p['account'] or '-'}:"
                      f" {p['detail']}")  # fmt: skip
            print(f"{len(found)} problem(s)")
            return 0
        if args.action == "hubs":
            for h in await store.hubs():
                state = "live" if h["live"] else ("ended" if h["ended"] else "dead")
                print(f"{h['hub_id']} {state:<5} {h['host']} pid {h['pid']}"
                      f" tables {h['tables']}")  # fmt: skip
            return 0
        report = await store.ledger_check()
        print(report)
        return 0 if report.ok else 1

    return with_store(args.db, work)
