"""The fast path of a ledger movement: its writes and one read, in one round trip
where the database can take several statements at once (PostgreSQL).

:meth:`hub.store.ledger.LedgerMixin._move_txn` checks everything before it writes,
one statement at a time (about ten for a buy-in).  A movement that goes through (the
usual case) needs only its effects: the balance changes, the chips at the table and
the ledger rows, then one read of what they left.  :func:`fast_move` sends exactly
that: on PostgreSQL first the same locks in the same fixed order (the chip table
shared, then the accounts in ascending id order, then their chips at the table), all
in one round trip; SQLite serialises writers with ``BEGIN IMMEDIATE`` and runs the
statements one by one in process.  It then checks the read.  Whatever it cannot
explain (a replayed key: the ledger's unique ``(idem_key, seq)`` refuses the rows;
a balance or a table entry that would go below zero: the columns' ``CHECK``
constraints refuse it; an unknown account, a closed table or another hub's, no
chips at the table, a bot's account that needs funds or is a person's, a cash-out
of everything) raises :class:`~hub.store.base.SlowPath`: the transaction is rolled
back, nothing of it stays, and the careful path runs in a new one and gives the
answer or the error it always gave.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from . import accounts as acc
from .base import ISSUING, SlowPath, _Cursor
from .errors import CommitUnknown

#: the kinds whose table must be open and this hub's
CHECKS_TABLE = ("buy_in", "settle")

#: where the database batches (PostgreSQL, whose transactions default to READ
#: COMMITTED, a new snapshot per statement), the fast path's statements share one
#: snapshot: an account created by another transaction between two of them (after
#: the UPDATE found none to change, before the ledger row reads it) must not appear
#: half-way.  A concurrent change of a row it locks then fails the transaction
#: (``rollback_errors``), and the careful path runs.
SNAPSHOT = "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ"  # (BEGIN … when alone)

#: what a movement did: amounts, balances and chips at the table, by account name
Outcome = tuple[dict[str, Decimal], dict[str, Decimal], dict[str, Decimal]]


def fast_move(  # long: the statements of one movement, then the checks of their effects
    cur: _Cursor,
    hub_id: str | None,
    key: str,
    kind: str,
    game_id: str | None,
    legs: Mapping[str, Any],
    now: float,
    *,
    fund: bool = False,
    hand_key: str | None = None,
    alone: bool = False,
) -> Outcome:
    """Apply a movement (see :meth:`~hub.store.ledger.LedgerMixin._move_txn`) by its
    effects; returns ``(amounts, balances, at_table)`` by account name.

    :param alone: the movement is the whole transaction (not a part of a larger one):
        where the database batches, it is begun, done and committed in two round trips
        (see :func:`apply`).

    :raises hub.store.base.SlowPath: the careful path must decide (nothing is kept).
    """
    d = cur.d
    if not legs or None in legs.values():
        raise SlowPath("a cash-out of everything")
    if len(legs) == 1 and not d.batches:
        ((name, (balance_delta, table_delta)),) = legs.items()
        return _sqlite_one(
            cur, hub_id, key, kind, game_id, name, balance_delta, table_delta, now, fund, hand_key
        )
    m = d.m_in
    keys = [acc.name_key(n) for n in legs]
    deltas = dict(zip(keys, legs.values(), strict=True))
    balance_in = [m(deltas[k][0]) for k in keys]
    table_in = [m(deltas[k][1]) for k in keys]
    moves_balance = tuple(bool(deltas[k][0]) for k in keys)
    moves_table = tuple(bool(deltas[k][1]) for k in keys)
    shape = (
        "buy_in" if kind == "buy_in" else "check" if kind in CHECKS_TABLE else "",
        game_id is not None,
        moves_balance,
        moves_table,
    )
    queries = _pg_queries(*shape) if d.batches else _queries(*shape)
    when_balance, when_table = balance_in, table_in  # one account: the deltas alone
    if len(keys) > 1:  # the parameters of CASE name_key WHEN ? THEN ? … END
        when_balance = [p for k, v in zip(keys, balance_in, strict=True) for p in (k, v)]
        when_table = [p for k, v in zip(keys, table_in, strict=True) for p in (k, v)]
    balance_keys = [k for k in keys if deltas[k][0]]
    table_keys = [k for k in keys if deltas[k][1]]
    when = d.t_in(now)
    groups: dict[str, Sequence[Any]] = {
        "game": [game_id],
        "keys": keys,
        "balance": [*when_balance, *balance_keys],
        "ledger": [key, kind, game_id, hand_key, *when_balance, *when_table, when],
        "upsert": [game_id, table_in[0], when],
        "chips": [*when_table, game_id],
        "table_keys": table_keys,
    }
    params = [[p for group in part for p in groups[group]] for part in queries.parts]
    statements = list(zip(queries.sql, params, strict=True))

    def check(rows: list[Any]) -> Outcome:
        if len(rows) != len(keys):
            raise SlowPath("an unknown account")
        amounts: dict[str, Decimal] = {}
        balances: dict[str, Decimal] = {}
        at_table: dict[str, Decimal] = {}
        empty = []
        for name, balance, type_code, table, table_hub, closed in rows:
            if fund and int(type_code) != acc.TYPES["bot"]:
                raise SlowPath("not a bot's account")
            balance_delta, table_delta = deltas[acc.name_key(name)]
            balances[name] = d.m_out(balance)
            amounts[name] = moved(kind, balance_delta, table_delta)
            if balances[name] < 0:
                raise SlowPath("below zero")
            if game_id is None:
                continue
            if kind in CHECKS_TABLE and (
                table_hub is None or table_hub != hub_id or closed is not None
            ):
                raise SlowPath("not an open table of this hub")
            if table is None:
                raise SlowPath("no chips at the table")
            chips = d.m_out(table)
            if chips < 0:
                raise SlowPath("below zero")
            if chips == 0 and kind == "cash_out":
                empty.append(name)
            else:
                at_table[name] = chips
        if empty:  # the table entry goes when no chips remain
            gone = ", ".join("?" for _ in empty)
            cur.run(
                "DELETE FROM table_chips WHERE game_id = ? AND amount = 0 AND account_id IN"
                f" (SELECT id FROM account WHERE name_key IN ({gone}))",
                game_id,
                *(acc.name_key(n) for n in empty),
            )
        return amounts, balances, at_table

    return apply(cur, statements, check, alone, queries.snapshot)


@dataclass(frozen=True)
class Queries:
    """The statements of one shape of movement, and the groups of parameters of each,
    in order (see :func:`fast_move`)."""

    sql: tuple[str, ...]
    parts: tuple[tuple[str, ...], ...]
    #: the statements must share one snapshot (``REPEATABLE READ``; see :data:`SNAPSHOT`)
    snapshot: bool = False


LEDGER = (
    "INSERT INTO ledger (idem_key, seq, kind, account_id, account_name, game_id,"
    " hand_key, balance_delta, table_delta, balance_after, created)"
)


#: SQLite, one account (:func:`_sqlite_one`): everything its checks need, in one read
ONE_READ = "SELECT id, name, balance, type FROM account WHERE name_key = ?"
ONE_READ_AT = (
    "SELECT a.id, a.name, a.balance, a.type, t.amount, c.hub_id, c.closed FROM account a"
    " LEFT JOIN table_chips t ON t.game_id = ? AND t.account_id = a.id"
    " LEFT JOIN chip_table c ON c.game_id = ? WHERE a.name_key = ?"
)
#: … then its writes, by primary key
ONE_BALANCE = "UPDATE account SET balance = ? WHERE id = ?"
ONE_CHIPS = "UPDATE table_chips SET amount = ? WHERE game_id = ? AND account_id = ?"
ONE_CHIPS_NEW = "INSERT INTO table_chips (game_id, account_id, amount, since) VALUES (?, ?, ?, ?)"
ONE_CHIPS_GONE = "DELETE FROM table_chips WHERE game_id = ? AND account_id = ?"
ONE_LEDGER = f"{LEDGER} VALUES (?, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
BOT = acc.TYPES["bot"]


def _sqlite_one(  # long: one read, its checks, the writes
    cur: _Cursor,
    hub_id: str | None,
    key: str,
    kind: str,
    game_id: str | None,
    name: str,
    balance_delta: Decimal,
    table_delta: Decimal,
    now: float,
    fund: bool,
    hand_key: str | None,
) -> Outcome:
    """:func:`fast_move` of one account on SQLite.  ``BEGIN IMMEDIATE`` has taken the
    database's one write lock (so the locks' order is kept), and what is read stays
    as read until ``COMMIT``: one read of the account, its chips at the table and the
    table, the checks here, then the writes by primary key — the balance, the chips,
    the ledger row, as a hand-written transfer does.  No ``RETURNING``: SQLite
    collects a ``RETURNING`` statement's rows in a temporary table of its own, which
    costs more than the read.  Each statement keeps one text, so ``sqlite3``'s
    statement cache prepares it once per connection.  Whatever the read shows that
    the careful path must answer (an unknown account, a bot's account that needs
    funds or is a person's, a closed table or another hub's, no chips there, below
    zero), or the ledger's unique key refuses (a replay), raises
    :class:`~hub.store.base.SlowPath`, as in :func:`fast_move`.
    """
    d = cur.d
    txn = cur.txn
    b = d.m_in(balance_delta)
    t = d.m_in(table_delta)
    if game_id is None:
        txn.execute(ONE_READ, (acc.name_key(name),))
    else:
        txn.execute(ONE_READ_AT, (game_id, game_id, acc.name_key(name)))
    row = txn.fetchone()
    if row is None:
        raise SlowPath("an unknown account")
    account_id, real_name, balance, type_code = row[:4]
    if fund and type_code != BOT:
        raise SlowPath("not a bot's account")
    balance += b
    if balance < 0:
        raise SlowPath("below zero")
    when = d.t_in(now)
    chips, fresh = None, False
    if game_id is not None:
        chips, table_hub, closed = row[4:]
        if kind in CHECKS_TABLE and (
            table_hub is None or table_hub != hub_id or closed is not None
        ):
            raise SlowPath("not an open table of this hub")
        if chips is None and kind != "buy_in":
            raise SlowPath("no chips at the table")
        fresh = chips is None
        chips = (chips or 0) + t
        if chips < 0:
            raise SlowPath("below zero")
    try:
        txn.execute(ONE_BALANCE, (balance, account_id))
        if chips is None:
            pass
        elif fresh:
            txn.execute(ONE_CHIPS_NEW, (game_id, account_id, chips, when))
        elif chips == 0 and kind == "cash_out":  # the table entry goes when none remain
            txn.execute(ONE_CHIPS_GONE, (game_id, account_id))
        else:
            txn.execute(ONE_CHIPS, (chips, game_id, account_id))
        txn.execute(
            ONE_LEDGER,
            (key, kind, account_id, real_name, game_id, hand_key, b, t, balance, when),
        )
    except d.integrity_errors as e:  # a replayed key
        raise SlowPath(str(e)) from e
    at_table = {}
    if chips is not None and not (chips == 0 and kind == "cash_out"):
        at_table[real_name] = d.m_out(chips)
    amounts = {real_name: moved(kind, balance_delta, table_delta)}
    return amounts, {real_name: d.m_out(balance)}, at_table


def _whens(n: int, column: str, cast: str = "?") -> str:
    """An account's parameter: ``?`` for one account, else ``CASE column WHEN ? THEN ?
    … END`` (``cast``: how a value's parameter is written)."""
    if n == 1:
        return cast
    return f"CASE {column} " + " ".join(f"WHEN ? THEN {cast}" for _ in range(n)) + " END"


def _marks(flags: Sequence[bool]) -> str:
    return ", ".join("?" for f in flags if f)


@functools.lru_cache(maxsize=256)
def _queries(  # long: every statement of a movement's shape, in order
    table: str,
    has_game: bool,
    moves_balance: tuple[bool, ...],
    moves_table: tuple[bool, ...],
) -> Queries:
    """The statements of a movement of this shape on SQLite, which serialises writers
    (``BEGIN IMMEDIATE``) and runs them in process, one by one (built once).

    :param table: ``buy_in``, ``check`` (the table must be open and ours) or ``""``.
    :param moves_balance: per account (in the movement's order) whether its balance moves.
    :param moves_table: the same for its chips at the table.
    """
    n = len(moves_balance)
    marks = _marks([True] * n)
    whens = _whens(n, "name_key")
    seq = "0" if n == 1 else "ROW_NUMBER() OVER (ORDER BY id) - 1"
    sql: list[str] = []
    parts: list[tuple[str, ...]] = []
    if any(moves_balance):
        sql.append(
            f"UPDATE account SET balance = balance + {whens}"
            f" WHERE name_key IN ({_marks(moves_balance)})"
        )
        parts.append(("balance",))
    sql.append(
        f"{LEDGER} SELECT ?, {seq}, ?, id, name, ?, ?, {whens}, {whens}, balance, ?"
        f" FROM account WHERE name_key IN ({marks})"
    )
    parts.append(("ledger", "keys"))
    if not has_game:
        sql.append(
            "SELECT a.name, a.balance, a.type, NULL, NULL, NULL FROM account a"
            f" WHERE a.name_key IN ({marks}) ORDER BY a.id"
        )
        parts.append(("keys",))
        return Queries(tuple(sql), tuple(parts))
    if table == "buy_in" and any(moves_table):  # one account
        sql.append(
            "INSERT INTO table_chips (game_id, account_id, amount, since)"
            " SELECT ?, id, ?, ? FROM account WHERE name_key = ?"
            " ON CONFLICT (game_id, account_id)"
            " DO UPDATE SET amount = table_chips.amount + excluded.amount"
        )
        parts.append(("upsert", "keys"))
    elif any(moves_table):
        sql.append(
            f"UPDATE table_chips SET amount = amount + (SELECT {whens}"
            " FROM account WHERE id = table_chips.account_id) WHERE game_id = ?"
            " AND account_id IN (SELECT id FROM account WHERE name_key IN"
            f" ({_marks(moves_table)}))"
        )
        parts.append(("chips", "table_keys"))
    sql.append(
        "SELECT a.name, a.balance, a.type, t.amount, c.hub_id, c.closed FROM account a"
        " LEFT JOIN table_chips t ON t.game_id = ? AND t.account_id = a.id"
        " LEFT JOIN chip_table c ON c.game_id = ?"
        f" WHERE a.name_key IN ({marks}) ORDER BY a.id"
    )
    parts.append(("game", "game", "keys"))
    return Queries(tuple(sql), tuple(parts))


@functools.lru_cache(maxsize=256)
def _pg_queries(  # long: every statement of a movement's shape, in order
    table: str,
    has_game: bool,
    moves_balance: tuple[bool, ...],
    moves_table: tuple[bool, ...],
) -> Queries:
    """The statements of a movement of this shape on PostgreSQL (built once; sent in
    one message, each prepared once per connection): the locks, then one statement
    of data-modifying ``WITH`` parts whose last ``SELECT`` says what they left.

    The row locks are taken in the fixed order.  The chip table, shared, by a
    statement of its own.  One account: the ``UPDATE`` of its balance (part ``a``;
    ``SELECT … FOR UPDATE`` when its balance does not move) is its lock, and its chips'
    write reads its row from ``a``, so it comes after.  Several: a statement of their
    own locks them in ascending id order (PostgreSQL locks the rows of ``SELECT …
    ORDER BY id FOR UPDATE`` in that order) before the writes' statement begins.

    One account needs no snapshot of its own: everything that reads or writes it is
    one statement, which sees one snapshot, and the chip table is locked (nobody
    changes it) before that statement begins.  Several accounts do (:data:`SNAPSHOT`):
    the writes' statement must see the accounts the lock's statement saw, not an
    account created between them.

    :param table: ``buy_in``, ``check`` (the table must be open and ours) or ``""``.
    :param moves_balance: per account (in the movement's order) whether its balance moves.
    :param moves_table: the same for its chips at the table.
    """
    n = len(moves_balance)
    one = n == 1
    marks = _marks([True] * n)
    money = "CAST(? AS NUMERIC)"  # a CASE of parameters has no type of its own
    whens = _whens(n, "name_key", money)
    sql: list[str] = []
    parts: list[tuple[str, ...]] = []
    if has_game and table:
        sql.append("SELECT 1 FROM chip_table WHERE game_id = ? FOR SHARE")
        parts.append(("game",))
    columns = "id, name, name_key, balance, type"
    ctes: list[str] = []
    groups: list[tuple[str, ...]] = []
    if one and moves_balance[0]:
        ctes = [
            "a AS (UPDATE account SET balance = balance + ? WHERE name_key = ?"
            f" RETURNING {columns})"
        ]
        groups = [("balance",)]
    elif one:
        ctes = [f"a AS (SELECT {columns} FROM account WHERE name_key = ? FOR UPDATE)"]
        groups = [("keys",)]
    else:
        sql.append(f"SELECT 1 FROM account WHERE name_key IN ({marks}) ORDER BY id FOR UPDATE")
        parts.append(("keys",))
        read = f"SELECT {columns} FROM account WHERE name_key IN ({marks})"
        if any(moves_balance):
            ctes.append(
                f"b AS (UPDATE account SET balance = balance + {whens}"
                f" WHERE name_key IN ({_marks(moves_balance)}) RETURNING id, balance)"
            )
            groups.append(("balance",))
            read = (
                "SELECT x.id, x.name, x.name_key, COALESCE(b.balance, x.balance) AS balance,"
                f" x.type FROM account x LEFT JOIN b ON b.id = x.id WHERE x.name_key IN ({marks})"
            )
        ctes.append(f"a AS ({read})")
        groups.append(("keys",))
    seq = "0" if one else "ROW_NUMBER() OVER (ORDER BY id) - 1"
    ctes.append(
        f"l AS ({LEDGER} SELECT ?, {seq}, ?, id, name, ?, ?, {whens}, {whens}, balance, ? FROM a)"
    )
    groups.append(("ledger",))
    if not has_game:
        sql.append(
            f"WITH {', '.join(ctes)} SELECT name, balance, type, NULL, NULL, NULL FROM a ORDER BY id"
        )
        parts.append(tuple(g for group in groups for g in group))
        return Queries(tuple(sql), tuple(parts), snapshot=not one)
    if table == "buy_in" and any(moves_table):  # one account
        ctes.append(
            "t AS (INSERT INTO table_chips (game_id, account_id, amount, since)"
            " SELECT ?, id, ?, ? FROM a ON CONFLICT (game_id, account_id)"
            " DO UPDATE SET amount = table_chips.amount + excluded.amount"
            " RETURNING account_id, amount)"
        )
        groups.append(("upsert",))
    elif any(moves_table):
        which = "" if one else f" AND a.name_key IN ({_marks(moves_table)})"
        ctes.append(
            f"t AS (UPDATE table_chips SET amount = table_chips.amount + {_whens(n, 'a.name_key', money)}"
            " FROM a WHERE table_chips.game_id = ? AND table_chips.account_id = a.id"
            f"{which} RETURNING table_chips.account_id, table_chips.amount)"
        )
        groups.append(("chips",) if one else ("chips", "table_keys"))
    joins, tail = "", []
    if any(moves_table):
        joins += " LEFT JOIN t ON t.account_id = a.id"
    if not all(moves_table):  # chips that do not move: as they are
        joins += " LEFT JOIN table_chips u ON u.game_id = ? AND u.account_id = a.id"
        tail.append("game")
    chips = "COALESCE(t.amount, u.amount)" if any(moves_table) else "u.amount"
    if all(moves_table):
        chips = "t.amount"
    owner = "NULL, NULL"
    if table:
        joins += " LEFT JOIN chip_table c ON c.game_id = ?"
        owner = "c.hub_id, c.closed"
        tail.append("game")
    sql.append(
        f"WITH {', '.join(ctes)} SELECT a.name, a.balance, a.type, {chips}, {owner}"
        f" FROM a{joins} ORDER BY a.id"
    )
    parts.append(tuple(g for group in [*groups, tuple(tail)] for g in group))
    return Queries(tuple(sql), tuple(parts), snapshot=not one)


def apply(
    cur: _Cursor,
    statements: Sequence[tuple[str, Sequence[Any]]],
    check: Callable[[list[Any]], Outcome],
    alone: bool,
    snapshot: bool = True,
) -> Outcome:
    """Run ``statements`` and ``check`` the last one's rows.

    With ``alone`` on a database that batches (PostgreSQL), the transaction is this
    function's: ``BEGIN`` goes with the statements (the driver's own ``BEGIN`` would
    be a round trip of its own), then ``COMMIT``, or ``ROLLBACK`` when anything fails;
    the connection is back in the driver's transaction mode after, with nothing open
    (the store's commit that follows has nothing to do).  Without ``alone`` the
    statements must be the first of their transaction (they set its isolation level).

    :raises hub.store.base.SlowPath: a constraint refused the effects, or ``check``
        raised it; nothing is kept.
    :raises hub.store.errors.CommitUnknown: the database failed during ``COMMIT``.
    """
    d = cur.d
    refused = (*d.integrity_errors, *d.rollback_errors)
    if not d.batches:
        try:
            rows = cur.batch(statements)
        except refused as e:  # a replayed key, or below zero
            raise SlowPath(str(e)) from e
        return check(rows)
    if not alone:
        try:
            rows = cur.batch([(SNAPSHOT, ()), *statements] if snapshot else statements)
        except refused as e:
            raise SlowPath(str(e)) from e
        return check(rows)
    connection = cur.txn.connection
    connection.autocommit = True
    try:
        try:
            begin = "BEGIN ISOLATION LEVEL REPEATABLE READ" if snapshot else "BEGIN"
            outcome = check(cur.batch([(begin, ()), *statements]))
        except BaseException as e:
            with contextlib.suppress(Exception):
                cur.txn.execute("ROLLBACK")
            if isinstance(e, refused):
                raise SlowPath(str(e)) from e
            raise
        try:
            cur.txn.execute("COMMIT")
        except BaseException as e:
            if d.unavailable(e):
                raise CommitUnknown(f"the database failed while committing: {e}") from e
            raise
        return outcome
    finally:
        with contextlib.suppress(Exception):
            connection.autocommit = False


def moved(kind: str, balance_delta: Decimal, table_delta: Decimal) -> Decimal:
    """What a movement's ledger answer says was moved for one account."""
    if kind == "settle":
        return table_delta
    if kind in ISSUING:
        return balance_delta
    return abs(balance_delta)
