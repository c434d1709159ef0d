"""``gamehub account …`` and ``gamehub ledger …``: admin commands on either database.

Each command opens the store without crash recovery (a hub may be running on the same
database), does its work through the Deferred API under ``task.react``, and exits 0 on
success, 1 when the store refuses (the reason goes to stderr), 2 on bad usage.  No
command ends in a traceback: a missing terminal, an unreadable config file or a value
the store refuses is one line on stderr and a non-zero status.

:func:`store_options`, :func:`store_dsn` and :func:`with_store` are public: a plugin's
own command that reads the store (``[commands]`` in its ``.meta``, see docs/plugins.md)
uses them too, so every command takes the hub's ``--data``, ``--db`` and ``--config``
(:data:`hub.tap.PLACE_OPTIONS`, the same defaults as ``twistd gamehub``) and reports
a refused store the same way.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from twisted.internet import defer, task

from hub.connections import names
from hub.model import GameError
from hub.ops.admin import audit_command
from hub.store.errors import BadName, StoreError
from hub.store.store import Store, open_store
from hub.tap import PLACE_OPTIONS, ConfigError, resolve_place

_METAVARS = {"data": "DIR", "db": "DSN", "config": "FILE"}


def store_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--data DIR``, ``--db DSN`` and ``--config FILE``: the options of
    ``twistd gamehub`` that say where the store is (:data:`hub.tap.PLACE_OPTIONS`)."""
    for long, short, default, text in PLACE_OPTIONS:
        flags = [f"--{long}"] + ([f"-{short}"] if short else [])
        parser.add_argument(
            *flags, default=default, metavar=_METAVARS.get(long), help=text.replace("%", "%%")
        )


def store_dsn(args: argparse.Namespace) -> str:
    """The database of parsed :func:`store_options`: ``--db``, else the config file's
    ``db``, else ``sqlite:<data>/hub.sqlite`` (``--data``, the file's, ``./gamehub-data``).

    :raises SystemExit: (status 2, the reason on stderr) the config file or the value
        cannot be used.
    """
    try:
        return resolve_place(args.data, args.db, args.config).db
    except ConfigError as e:
        print(f"gamehub: {e}", file=sys.stderr)
        raise SystemExit(2) from None


def _missing_sqlite_folder(dsn: str) -> str | None:
    """Why ``dsn`` cannot be opened, when it is SQLite in a folder that does not exist."""
    if not dsn.startswith("sqlite:"):
        return None
    from pathlib import Path

    folder = Path(dsn[len("sqlite:") :]).parent
    if folder.is_dir():
        return None
    return f"no hub data here: the folder {folder} does not exist (--data DIR or --db DSN)"


def with_store(dsn: str, work: Callable[[Store], Awaitable[int]]) -> int:
    """Open the store on ``dsn``, run ``work(store)`` in a reactor, return its status."""

    missing = _missing_sqlite_folder(dsn)
    if missing is not None:
        print(f"gamehub: {missing}", file=sys.stderr)
        return 1

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


def store_command(
    parser: argparse.ArgumentParser,
    argv: Sequence[str],
    work: Callable[[argparse.Namespace, Store], Awaitable[int]],
) -> int:
    """Parse ``argv`` (``parser`` has :func:`store_options`), open the store they name
    and run ``work(args, store)``; its status (2 for a config file or value that
    cannot be used)."""
    args = parser.parse_args(list(argv))
    try:
        dsn = store_dsn(args)
    except SystemExit as e:
        return int(e.code or 0)
    return with_store(dsn, lambda store: work(args, store))


def _password(args: argparse.Namespace) -> str:
    """The password of ``account create|password``: ``--password``, one line of stdin
    (``--password-stdin``) or asked twice on the terminal.

    :raises SystemExit: (status 2, the reason on stderr) none to be had.
    """
    if args.password is not None:
        return str(args.password)
    if args.password_stdin:
        line = sys.stdin.readline() if sys.stdin is not None else ""
        if not line.strip("\r\n"):
            _refuse("--password-stdin: standard input gave no password (one line)")
        return line.rstrip("\r\n")
    if sys.stdin is None or not sys.stdin.isatty():
        _refuse(
            "no terminal to ask for the password: pipe it with --password-stdin "
            "(echo PW | gamehub account create NAME --password-stdin) or give --password PW"
        )
    try:
        first = getpass.getpass("password: ")
        again = getpass.getpass("again: ")
    except (EOFError, KeyboardInterrupt):
        print(file=sys.stderr)
        _refuse("no password given")
    if again != first:
        _refuse("the passwords differ")
    return first


def _refuse(reason: str) -> None:
    print(f"gamehub account: {reason}", file=sys.stderr)
    raise SystemExit(2)


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
        store_options(p)
    return parser


async def account_work(store: Store, args: argparse.Namespace, secret: str = "") -> int:
    """Do one parsed ``gamehub account`` command on a started store; print the outcome.
    Every change is one row of the audit log (``gamehub audit``), done or refused.

    :raises hub.model.GameError: the store refused.
    """
    if args.action == "list":
        accounts = await store.list_accounts(args.prefix, type=args.type)
        for a in accounts:
            print(f"{a.name:<32} {a.type:<6} {a.balance:>16}")
        print(f"{len(accounts)} account(s)")
        return 0
    detail: dict[str, Any] = {}
    if args.action == "create":
        detail = {"type": args.type, "grant": args.grant}

        async def work() -> str:
            reserved = names.reserved(args.name)
            if reserved and names.operator_type(args.name) != args.type:
                kind = names.operator_type(args.name)
                may = f"; it takes --type {kind}" if kind else "; the hub makes such accounts"
                raise BadName(f"{reserved}{may}")
            account = await store.create_account(
                args.name, secret, args.type, args.grant, reserved=bool(reserved)
            )
            return f"created {account.name} ({account.type}), balance {account.balance}"
    elif args.action == "password":

        async def work() -> str:
            await store.set_password(args.name, secret)
            return f"password of {args.name} changed"
    elif args.action == "delete":

        async def work() -> str:
            closed = await store.delete_account(args.name)
            return f"deleted {args.name} (closed balance {closed})"
    elif args.action == "set-type":
        detail = {"type": args.type}

        async def work() -> str:
            account = await store.set_type(args.name, args.type)
            return f"{account.name} is now {account.type}"
    else:  # grant
        detail = {"amount": args.amount, "key": args.key}

        async def work() -> str:
            moved = await store.grant(args.name, args.amount, args.key)
            state = "granted" if moved.applied else "already applied:"
            return f"{state} {moved.amount} to {args.name}, balance {moved.balance}"

    action = "account_" + args.action.replace("-", "_")
    print(await audit_command(store, action, args.name, detail, work))
    return 0


def account_main(argv: Sequence[str]) -> int:
    """``gamehub account create|delete|list|set-type|grant|password``."""
    args = account_parser().parse_args(list(argv))
    try:
        dsn = store_dsn(args)
        secret = _password(args) if args.action in ("create", "password") else ""
    except SystemExit as e:
        return int(e.code or 0)
    return with_store(dsn, lambda store: account_work(store, args, secret))


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
        store_options(p)

    async def work(args: argparse.Namespace, store: Store) -> int:
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

    return store_command(parser, argv, work)
