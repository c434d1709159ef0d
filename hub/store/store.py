"""The store: accounts, the chip ledger and history, behind ``twisted.enterprise.adbapi``.

Every public method returns a ``Deferred``.  Each database interaction runs in a pool
thread and touches only its cursor; it returns plain values.  Every movement of chips
is applied in one transaction together with its ledger rows, under an idempotency key:
a replayed key changes nothing and answers with ``applied=False``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from twisted.internet import defer, threads
from twisted.logger import Logger
from zope.interface import implementer

from hub.interfaces import IStore

from . import accounts as acc
from . import cards, schema
from .dialect import Dialect, dialect_for
from .errors import (
    BadAmount,
    ChipsInPlay,
    InsufficientFunds,
    KeyReused,
    LoginFailed,
    NameTaken,
    NotAtTable,
    StoreError,
    Throttled,
    UnknownAccount,
)
from .money import amount as check_amount

ZERO = Decimal("0.00")
#: ledger kinds that create or destroy chips; every other kind only moves them
ISSUING = ("grant", "close")
KINDS = ("grant", "close", "buy_in", "cash_out", "settle", "refund")


@dataclass(frozen=True)
class Account:
    """An account as the store knows it.

    :ivar type: ``player``, ``bot`` or ``admin``; :attr:`type_code` is 0, 1 or 2.
    :ivar created: seconds since the epoch.
    """

    id: int
    name: str
    type: str
    balance: Decimal
    created: float | None = None

    @property
    def type_code(self) -> int:
        """0 player, 1 bot, 2 admin (the XML ``accounttype``)."""
        return acc.TYPES[self.type]


@dataclass(frozen=True)
class Movement:
    """The outcome of one ledger movement.

    :ivar applied: ``False`` when the key had been applied before (nothing changed now).
    :ivar amounts: account name → amount moved (for a settlement, the delta).
    :ivar balances: account name → balance after.
    :ivar at_table: account name → chips at the game after (no entry: none).
    """

    key: str
    kind: str
    game_id: str | None
    applied: bool
    amounts: dict[str, Decimal] = field(default_factory=dict)
    balances: dict[str, Decimal] = field(default_factory=dict)
    at_table: dict[str, Decimal] = field(default_factory=dict)

    @property
    def amount(self) -> Decimal:
        """The amount moved, for a movement of one account."""
        return next(iter(self.amounts.values()), ZERO)

    @property
    def balance(self) -> Decimal:
        """The balance after, for a movement of one account."""
        return next(iter(self.balances.values()), ZERO)


@dataclass(frozen=True)
class LedgerReport:
    """What :meth:`Store.ledger_check` found.

    ``ok`` is true when balances + chips at tables = chips issued (grants minus
    closed accounts) and every account, table entry and movement adds up.
    """

    ok: bool
    balances: Decimal
    at_tables: Decimal
    issued: Decimal
    problems: list[str]

    def __str__(self) -> str:
        state = "OK" if self.ok else "FAILED"
        lines = [
            f"ledger {state}: balances {self.balances} + at tables {self.at_tables}"
            f" = {self.balances + self.at_tables}; issued {self.issued}"
        ]
        lines.extend(f"  problem: {p}" for p in self.problems)
        return "\n".join(lines)


class _Cursor:
    """A transaction's cursor that speaks ``?`` placeholders."""

    def __init__(self, txn: Any, dialect: Dialect) -> None:
        self.txn = txn
        self.d = dialect

    def run(self, query: str, *params: Any) -> None:
        self.txn.execute(self.d.sql(query), params)

    def one(self, query: str, *params: Any) -> Any:
        self.run(query, *params)
        return self.txn.fetchone()

    def all(self, query: str, *params: Any) -> list[Any]:
        self.run(query, *params)
        return list(self.txn.fetchall())


def _now_default(reactor: Any) -> float:
    return float(reactor.seconds())


@implementer(IStore)
class Store:
    """Accounts, ledger and history in one SQL database.

    :param dsn: ``sqlite:<path>`` or ``postgresql://user:pass@host:port/db``.
    :param reactor: provides ``IReactorCore``, ``IReactorThreads``, ``IReactorTime``.
    :param grant: chips a new account receives (``Decimal``; default 1000.00).
    :param clock: what the login throttle reads time from (default: ``reactor``).
    :param scrypt: :class:`hub.store.accounts.ScryptParams` (tests may lower the cost).
    :param throttle_limit: failed logins per name (and per source) before a lockout.
    :param throttle_lockout: seconds of lockout.
    """

    log = Logger()

    def __init__(
        self,
        dsn: str,
        reactor: Any,
        *,
        grant: Decimal | int | str = Decimal("1000.00"),
        clock: Any = None,
        scrypt: acc.ScryptParams | None = None,
        throttle_limit: int = 5,
        throttle_window: float = 300.0,
        throttle_lockout: float = 60.0,
        **dialect_options: Any,
    ) -> None:
        self._reactor = reactor
        self.dialect = dialect_for(dsn, **dialect_options)
        self.dsn = dsn
        self.new_account_grant = check_amount(grant, allow_zero=True)
        self._scrypt = scrypt or acc.ScryptParams()
        self._throttle = acc.Throttle(
            clock or reactor,
            limit=throttle_limit,
            window=throttle_window,
            lockout=throttle_lockout,
        )
        self._source_throttle = acc.Throttle(
            clock or reactor,
            limit=throttle_limit * 4,
            window=throttle_window,
            lockout=throttle_lockout,
        )
        self._pool: Any = None
        self._started = False
        self.recovered: list[tuple[str, str, Decimal]] = []

    # -- plumbing ------------------------------------------------------------------

    def _now(self) -> float:
        return _now_default(self._reactor)

    def _in_thread(self, f: Any, *args: Any) -> defer.Deferred[Any]:
        return threads.deferToThreadPool(self._reactor, self._reactor.getThreadPool(), f, *args)

    def _run(self, fn: Any, *args: Any, write: bool = True) -> defer.Deferred[Any]:
        """Run ``fn(cursor, *args)`` in one transaction in a pool thread."""
        if self._pool is None:
            return defer.fail(StoreError("the store is not started (call start() first)"))

        def interaction(txn: Any) -> Any:
            self.dialect.begin(txn, write)
            return fn(_Cursor(txn, self.dialect), *args)

        return self._pool.runInteraction(interaction)

    def _snapshot(self, fn: Any, *args: Any) -> defer.Deferred[Any]:
        if self._pool is None:
            return defer.fail(StoreError("the store is not started (call start() first)"))

        def interaction(txn: Any) -> Any:
            self.dialect.begin_snapshot(txn)
            return fn(_Cursor(txn, self.dialect), *args)

        return self._pool.runInteraction(interaction)

    def _retry_integrity(self, fn: Any, *args: Any) -> defer.Deferred[Any]:
        """Run a movement; if a concurrent transaction with the same key won the race
        (a unique violation), run it once more, which then finds the key."""

        def again(failure: Any) -> Any:
            failure.trap(*self.dialect.integrity_errors)
            return self._run(fn, *args)

        return self._run(fn, *args).addErrback(again)

    # -- life ------------------------------------------------------------------------

    @defer.inlineCallbacks
    def start(self, recover: bool = True) -> Any:
        """Open the database, migrate it to the current schema, then return chips left
        at tables by a previous run to their accounts (:meth:`recover`).

        :param recover: ``False`` for tools that share the database with a running
            hub (``gamehub ledger check``): they must not touch chips in play.

        Starting a started store does nothing (recovery runs once per start).

        :raises hub.store.errors.SchemaTooNew: the database is newer than this code.
        """
        if self._started:
            return
        if self._pool is None:
            self._pool = self.dialect.pool(self._reactor)
            self._pool.start()
        try:
            before, after = yield self.migrate()
            if before != after:
                self.log.info(
                    "store {db}: schema upgraded from {before} to {after}",
                    db=self.dialect.describe(),
                    before=before,
                    after=after,
                )
            if recover:
                yield self.recover()
        except Exception:
            yield self.stop()
            raise
        self._started = True
        self.log.info("store {db} ready", db=self.dialect.describe())

    def migrate(self, target: int | None = None) -> defer.Deferred[tuple[int, int]]:
        """Bring the schema to ``target`` (default: the newest); fires with
        ``(version before, version after)``."""
        if self._pool is None:
            self._pool = self.dialect.pool(self._reactor)
            self._pool.start()
        return self._run(lambda cur: schema.migrate(cur.txn, self.dialect, target))

    def stop(self) -> defer.Deferred[None]:
        """Close the connections."""
        pool, self._pool = self._pool, None
        self._started = False
        if pool is not None:
            pool.close()
        return defer.succeed(None)

    # -- accounts ------------------------------------------------------------------

    def _account(self, row: Sequence[Any]) -> Account:
        return Account(
            id=int(row[0]),
            name=row[1],
            type=acc.TYPE_NAMES.get(int(row[2]), "player"),
            balance=self.dialect.m_out(row[3]),
            created=self.dialect.t_out(row[4]),
        )

    _ACCOUNT_COLUMNS = "id, name, type, balance, created"

    def _find(self, cur: _Cursor, name: str, lock: bool = False) -> Account:
        if not isinstance(name, str):
            raise UnknownAccount("no such account")
        row = cur.one(
            f"SELECT {self._ACCOUNT_COLUMNS} FROM account WHERE name_key = ?"
            + (self.dialect.for_update if lock else ""),
            acc.name_key(name),
        )
        if row is None:
            raise UnknownAccount(f"no account named {name!r}")
        return self._account(row)

    @defer.inlineCallbacks
    def create_account(
        self,
        name: str,
        password: str,
        type: str | int = "player",
        grant: Decimal | int | str | None = None,
    ) -> Any:
        """Create an account and give it the new-account grant (one ledger row).

        :returns: (Deferred) the new :class:`Account`.
        :raises hub.store.errors.BadName: 400; ``BadPassword`` 400; ``NameTaken`` 409.
        """
        acc.check_name(name)
        acc.check_password(password)
        kind = acc.account_type(type)
        chips = self.new_account_grant if grant is None else check_amount(grant, allow_zero=True)
        hashed = yield self._in_thread(acc.hash_password, password, self._scrypt)
        now = self._now()

        def txn(cur: _Cursor) -> Account:
            if cur.one("SELECT id FROM account WHERE name_key = ?", acc.name_key(name)):
                raise NameTaken(f"the name {name!r} is taken")
            row = cur.one(
                "INSERT INTO account (name, name_key, password, type, balance, created)"
                " VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                name,
                acc.name_key(name),
                hashed,
                acc.TYPES[kind],
                self.dialect.m_in(ZERO),
                self.dialect.t_in(now),
            )
            account_id = int(row[0])
            if chips:
                self._issue(cur, f"grant:new:{account_id}", "grant", account_id, name, chips, now)
            return self._find(cur, name)

        try:
            account = yield self._run(txn)
        except self.dialect.integrity_errors:
            raise NameTaken(f"the name {name!r} is taken") from None
        self.log.info("account {name} created ({type})", name=name, type=kind)
        return account

    def get_account(self, name: str) -> defer.Deferred[Account]:
        """The account called ``name`` (any case).

        :raises hub.store.errors.UnknownAccount: 404.
        """
        return self._run(lambda cur: self._find(cur, name), write=False)

    def list_accounts(
        self, prefix: str = "", type: str | int | None = None, limit: int | None = None
    ) -> defer.Deferred[list[Account]]:
        """Accounts whose name starts with ``prefix`` (any case), by name."""
        kind = None if type is None else acc.TYPES[acc.account_type(type)]

        def txn(cur: _Cursor) -> list[Account]:
            query = f"SELECT {self._ACCOUNT_COLUMNS} FROM account WHERE name_key LIKE ? ESCAPE '!'"
            params: list[Any] = [_like_prefix(prefix)]
            if kind is not None:
                query += " AND type = ?"
                params.append(kind)
            query += " ORDER BY name_key"
            if limit is not None:
                query += " LIMIT ?"
                params.append(int(limit))
            return [self._account(r) for r in cur.all(query, *params)]

        return self._run(txn, write=False)

    def find_players(self, prefix: str, limit: int = 50) -> defer.Deferred[list[Account]]:
        """Accounts whose name is ``prefix`` or starts with it (any case); exact match
        first, then by name; at most ``limit``."""
        if not isinstance(prefix, str):
            return defer.fail(acc.BadName("a name or prefix is required"))

        def order(found: list[Account]) -> list[Account]:
            key = acc.name_key(prefix)
            return sorted(found, key=lambda a: (acc.name_key(a.name) != key, acc.name_key(a.name)))

        return self.list_accounts(prefix, limit=limit).addCallback(order)

    def set_type(self, name: str, type: str | int) -> defer.Deferred[Account]:
        """Make ``name`` a ``player``, ``bot`` or ``admin``."""
        try:
            kind = acc.account_type(type)
        except Exception as e:
            return defer.fail(e)

        def txn(cur: _Cursor) -> Account:
            account = self._find(cur, name, lock=True)
            cur.run("UPDATE account SET type = ? WHERE id = ?", acc.TYPES[kind], account.id)
            return self._find(cur, name)

        return self._run(txn)

    @defer.inlineCallbacks
    def authenticate(self, name: str, password: str, source: str | None = None) -> Any:
        """Check a login.

        An unknown name and a wrong password get the same error after the same work.
        After repeated failures for a name (or from a ``source``, e.g. an IP address)
        further attempts are refused for a while without checking.

        :returns: (Deferred) the :class:`Account`.
        :raises hub.store.errors.LoginFailed: 401.
        :raises hub.store.errors.Throttled: 429.
        """
        key = "name:" + (acc.name_key(name) if isinstance(name, str) else "")
        waits = [self._throttle.blocked(key)]
        if source is not None:
            waits.append(self._source_throttle.blocked("source:" + source))
        if max(waits) > 0:
            raise Throttled(f"too many failed logins; try again in {int(max(waits)) + 1} s")

        def txn(cur: _Cursor) -> tuple[Account | None, str | None]:
            if not isinstance(name, str):
                return None, None
            row = cur.one(
                f"SELECT {self._ACCOUNT_COLUMNS}, password FROM account WHERE name_key = ?",
                acc.name_key(name),
            )
            return (None, None) if row is None else (self._account(row), row[5])

        account, stored = yield self._run(txn, write=False)
        given = password if isinstance(password, str) else ""
        good = yield self._in_thread(acc.verify_password, given, stored, self._scrypt)
        if not good or account is None:
            self._throttle.failed(key)
            if source is not None:
                self._source_throttle.failed("source:" + source)
            raise LoginFailed("wrong account name or password")
        self._throttle.succeeded(key)
        return account

    @defer.inlineCallbacks
    def change_password(self, name: str, old: str, new: str) -> Any:
        """Set a new password after checking the old one (as :meth:`authenticate`)."""
        acc.check_password(new)
        account = yield self.authenticate(name, old)
        yield self.set_password(account.name, new)
        return None

    @defer.inlineCallbacks
    def set_password(self, name: str, new: str) -> Any:
        """Set a new password without the old one (admins, the CLI)."""
        acc.check_password(new)
        hashed = yield self._in_thread(acc.hash_password, new, self._scrypt)

        def txn(cur: _Cursor) -> None:
            account = self._find(cur, name, lock=True)
            cur.run("UPDATE account SET password = ? WHERE id = ?", hashed, account.id)

        yield self._run(txn)
        return None

    def delete_account(self, name: str) -> defer.Deferred[Decimal]:
        """Delete an account.  Its balance leaves circulation with a ``close`` ledger
        row; its history stays readable (history keeps names as text).

        :returns: (Deferred) the balance that was closed.
        :raises hub.store.errors.ChipsInPlay: 409, it still has chips at a table.
        """
        now = self._now()

        def txn(cur: _Cursor) -> Decimal:
            account = self._find(cur, name, lock=True)
            games = cur.all("SELECT game_id FROM table_chips WHERE account_id = ?", account.id)
            if games:
                raise ChipsInPlay(
                    f"{account.name} has chips at {', '.join(sorted(g[0] for g in games))};"
                    " leave the table first"
                )
            if account.balance:
                self._issue(
                    cur,
                    f"close:{account.id}",
                    "close",
                    account.id,
                    account.name,
                    -account.balance,
                    now,
                )
            cur.run("DELETE FROM account WHERE id = ?", account.id)
            return account.balance

        return self._run(txn)

    # -- money ---------------------------------------------------------------------

    def _issue(
        self,
        cur: _Cursor,
        key: str,
        kind: str,
        account_id: int,
        name: str,
        chips: Decimal,
        now: float,
    ) -> Decimal:
        """Create (or destroy, when negative) chips on an account: one ledger row."""
        row = cur.one(
            "SELECT balance FROM account WHERE id = ?" + self.dialect.for_update, account_id
        )
        balance = self.dialect.m_out(row[0]) + chips
        if balance < 0:
            raise InsufficientFunds(f"{name} has only {balance - chips}")
        m = self.dialect.m_in
        cur.run("UPDATE account SET balance = ? WHERE id = ?", m(balance), account_id)
        cur.run(
            "INSERT INTO ledger (idem_key, seq, kind, account_id, account_name, game_id,"
            " balance_delta, table_delta, balance_after, created)"
            " VALUES (?, 0, ?, ?, ?, NULL, ?, ?, ?, ?)",
            key,
            kind,
            account_id,
            name,
            m(chips),
            m(ZERO),
            m(balance),
            self.dialect.t_in(now),
        )
        return balance

    def grant(self, name: str, chips: Any, key: str | None = None) -> defer.Deferred[Movement]:
        """Create chips on an account (an admin's grant); a negative amount takes
        chips out of circulation (never below a zero balance).

        :param key: idempotency key (default: a fresh one).
        """
        try:
            value = check_amount(chips, allow_negative=True)
        except Exception as e:
            return defer.fail(e)
        key = key or f"grant:{uuid.uuid4().hex}"
        return self._move(key, "grant", None, {name: (value, ZERO)})

    def buy_in(self, name: str, game_id: str, chips: Any, key: str) -> defer.Deferred[Movement]:
        """Move ``chips`` from the account's balance to its chips at ``game_id``.

        :raises hub.store.errors.InsufficientFunds: 422, the balance is too small
            (nothing changes).
        :raises hub.store.errors.BadAmount: 400; ``TypeError`` for a float.
        """
        try:
            value, game = check_amount(chips), _game(game_id)
        except Exception as e:
            return defer.fail(e)
        return self._move(key, "buy_in", game, {name: (-value, value)})

    def cash_out(self, name: str, game_id: str, chips: Any, key: str) -> defer.Deferred[Movement]:
        """Move chips at ``game_id`` back to the balance: ``chips`` of them, or all
        (``None``).  When none remain the table entry goes.

        :raises hub.store.errors.NotAtTable: 404, no chips there.
        :raises hub.store.errors.InsufficientFunds: 422, fewer chips there than asked.
        """
        try:
            value = None if chips is None else check_amount(chips)
            game = _game(game_id)
        except Exception as e:
            return defer.fail(e)
        leg = None if value is None else (value, -value)
        return self._move(key, "cash_out", game, {name: leg})

    def settle(self, game_id: str, deltas: Mapping[str, Any], key: str) -> defer.Deferred[Movement]:
        """Move chips between players at one table (a pot award, a hand's result):
        ``deltas`` maps account names to signed amounts that sum to zero.

        :raises hub.store.errors.BadAmount: 400, the deltas do not sum to zero.
        :raises hub.store.errors.NotAtTable: 404, an account has no chips there.
        :raises hub.store.errors.InsufficientFunds: 422, a loss exceeds the chips there.
        """
        try:
            values = {
                n: check_amount(v, allow_zero=True, allow_negative=True) for n, v in deltas.items()
            }
            if not values or sum(values.values(), ZERO) != 0:
                raise BadAmount("a settlement's amounts must sum to zero")
            if len({acc.name_key(n) for n in values}) != len(values):
                raise BadAmount("an account appears twice in a settlement")
            game = _game(game_id)
        except Exception as e:
            return defer.fail(e)
        legs = {n: (ZERO, v) for n, v in values.items()}
        return self._move(key, "settle", game, legs)

    def _move(
        self,
        key: str,
        kind: str,
        game_id: str | None,
        legs: Mapping[str, Any],
    ) -> defer.Deferred[Movement]:
        """Apply one movement: ``legs`` maps names to ``(balance delta, table delta)``
        (``None`` for a cash-out of everything)."""
        if not isinstance(key, str) or not key or len(key) > 256:
            return defer.fail(BadAmount("a movement needs an idempotency key (1-256 characters)"))
        now = self._now()
        return self._retry_integrity(self._move_txn, key, kind, game_id, dict(legs), now)

    def _replay(
        self, cur: _Cursor, key: str, kind: str, game_id: str | None, legs: Mapping[str, Any]
    ) -> Movement | None:
        rows = cur.all(
            "SELECT kind, account_name, game_id, balance_delta, table_delta FROM ledger"
            " WHERE idem_key = ? ORDER BY seq",
            key,
        )
        if not rows:
            return None
        m = self.dialect.m_out
        done = {acc.name_key(r[1]): (m(r[3]), m(r[4])) for r in rows}
        wanted = {acc.name_key(n): v for n, v in legs.items()}
        same = rows[0][0] == kind and rows[0][2] == game_id and set(done) == set(wanted)
        if same:
            for n, leg in wanted.items():
                if leg is not None and done[n] != leg:
                    same = False
        if not same:
            raise KeyReused(f"the key {key!r} was used for a different movement")
        amounts = {r[1]: _moved(kind, m(r[3]), m(r[4])) for r in rows}
        return self._outcome(cur, key, kind, game_id, False, amounts)

    def _outcome(
        self,
        cur: _Cursor,
        key: str,
        kind: str,
        game_id: str | None,
        applied: bool,
        amounts: dict[str, Decimal],
    ) -> Movement:
        balances: dict[str, Decimal] = {}
        at_table: dict[str, Decimal] = {}
        for name in amounts:
            row = cur.one("SELECT id, balance FROM account WHERE name_key = ?", acc.name_key(name))
            if row is None:
                continue
            balances[name] = self.dialect.m_out(row[1])
            if game_id is not None:
                chips = cur.one(
                    "SELECT amount FROM table_chips WHERE game_id = ? AND account_id = ?",
                    game_id,
                    row[0],
                )
                if chips is not None:
                    at_table[name] = self.dialect.m_out(chips[0])
        return Movement(key, kind, game_id, applied, amounts, balances, at_table)

    def _move_txn(
        self,
        cur: _Cursor,
        key: str,
        kind: str,
        game_id: str | None,
        legs: dict[str, Any],
        now: float,
    ) -> Movement:
        done = self._replay(cur, key, kind, game_id, legs)
        if done is not None:
            return done
        d = self.dialect
        m = d.m_in
        # lock every account involved, in ascending id order (no deadlocks)
        ids: dict[str, int] = {}
        for name in legs:
            row = cur.one("SELECT id FROM account WHERE name_key = ?", acc.name_key(name))
            if row is None:
                raise UnknownAccount(f"no account named {name!r}")
            ids[name] = int(row[0])
        marks = ", ".join("?" for _ in ids)
        locked = cur.all(
            f"SELECT id, name, balance FROM account WHERE id IN ({marks}) ORDER BY id"
            + d.for_update,
            *sorted(ids.values()),
        )
        state = {int(r[0]): (r[1], d.m_out(r[2])) for r in locked}
        if len(state) != len(ids):
            raise UnknownAccount("an account of this movement was just deleted")
        done = self._replay(cur, key, kind, game_id, legs)  # a racing twin may have won
        if done is not None:
            return done
        amounts: dict[str, Decimal] = {}
        for seq, name in enumerate(sorted(legs, key=lambda n: ids[n])):
            account_id = ids[name]
            real_name, balance = state[account_id]
            table: Decimal | None = None
            if game_id is not None:
                row = cur.one(
                    "SELECT amount FROM table_chips WHERE game_id = ? AND account_id = ?"
                    + d.for_update,
                    game_id,
                    account_id,
                )
                table = None if row is None else d.m_out(row[0])
            leg = legs[name]
            if leg is None:  # cash out everything
                if not table:
                    raise NotAtTable(f"{real_name} has no chips at {game_id}")
                leg = (table, -table)
            balance_delta, table_delta = leg
            if kind in ("cash_out", "settle") and table is None:
                raise NotAtTable(f"{real_name} has no chips at {game_id}")
            new_balance = balance + balance_delta
            if new_balance < 0:
                raise InsufficientFunds(
                    f"{real_name} has {balance}, not enough for {-balance_delta}"
                )
            cur.run("UPDATE account SET balance = ? WHERE id = ?", m(new_balance), account_id)
            if game_id is not None:
                new_table = (table or ZERO) + table_delta
                if new_table < 0:
                    raise InsufficientFunds(
                        f"{real_name} has {table or ZERO} at {game_id}, not {-table_delta}"
                    )
                if table is None:
                    cur.run(
                        "INSERT INTO table_chips (game_id, account_id, amount, since)"
                        " VALUES (?, ?, ?, ?)",
                        game_id,
                        account_id,
                        m(new_table),
                        d.t_in(now),
                    )
                elif new_table == 0 and kind == "cash_out":
                    cur.run(
                        "DELETE FROM table_chips WHERE game_id = ? AND account_id = ?",
                        game_id,
                        account_id,
                    )
                else:
                    cur.run(
                        "UPDATE table_chips SET amount = ? WHERE game_id = ? AND account_id = ?",
                        m(new_table),
                        game_id,
                        account_id,
                    )
            cur.run(
                "INSERT INTO ledger (idem_key, seq, kind, account_id, account_name, game_id,"
                " balance_delta, table_delta, balance_after, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                key,
                seq,
                kind,
                account_id,
                real_name,
                game_id,
                m(balance_delta),
                m(table_delta),
                m(new_balance),
                d.t_in(now),
            )
            amounts[real_name] = _moved(kind, balance_delta, table_delta)
        return self._outcome(cur, key, kind, game_id, True, amounts)

    def chips_at(self, game_id: str) -> defer.Deferred[dict[str, Decimal]]:
        """Account name → chips recorded at ``game_id``."""

        def txn(cur: _Cursor) -> dict[str, Decimal]:
            rows = cur.all(
                "SELECT a.name, t.amount FROM table_chips t JOIN account a ON a.id = t.account_id"
                " WHERE t.game_id = ? ORDER BY a.name_key",
                game_id,
            )
            return {r[0]: self.dialect.m_out(r[1]) for r in rows}

        return self._run(txn, write=False)

    def tables_of(self, name: str) -> defer.Deferred[dict[str, Decimal]]:
        """Game id → chips the account has there."""

        def txn(cur: _Cursor) -> dict[str, Decimal]:
            account = self._find(cur, name)
            rows = cur.all(
                "SELECT game_id, amount FROM table_chips WHERE account_id = ? ORDER BY game_id",
                account.id,
            )
            return {r[0]: self.dialect.m_out(r[1]) for r in rows}

        return self._run(txn, write=False)

    def ledger(
        self,
        name: str | None = None,
        game_id: str | None = None,
        key: str | None = None,
        limit: int = 100,
    ) -> defer.Deferred[list[dict[str, Any]]]:
        """Ledger rows, newest first, optionally of one account, game or key."""

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            query = (
                "SELECT id, idem_key, seq, kind, account_name, game_id, balance_delta,"
                " table_delta, balance_after, created FROM ledger WHERE 1 = 1"
            )
            params: list[Any] = []
            if name is not None:
                query += " AND LOWER(account_name) = ?"
                params.append(acc.name_key(name))
            if game_id is not None:
                query += " AND game_id = ?"
                params.append(game_id)
            if key is not None:
                query += " AND idem_key = ?"
                params.append(key)
            query += " ORDER BY id DESC LIMIT ?"
            params.append(int(limit))
            m = self.dialect.m_out
            return [
                {
                    "id": int(r[0]),
                    "key": r[1],
                    "seq": int(r[2]),
                    "kind": r[3],
                    "account": r[4],
                    "game_id": r[5],
                    "balance_delta": m(r[6]),
                    "table_delta": m(r[7]),
                    "balance_after": m(r[8]),
                    "time": self.dialect.t_out(r[9]),
                }
                for r in cur.all(query, *params)
            ]

        return self._run(txn, write=False)

    def recover(self) -> defer.Deferred[list[tuple[str, str, Decimal]]]:
        """Return every chip recorded at a table to its account (one ``refund`` ledger
        row each).  :meth:`start` calls it: at start no table of this hub is running,
        so whatever is recorded is left over from a previous run (a crash, a kill).

        :returns: (Deferred) ``[(account name, game id, amount), ...]``.
        """
        now = self._now()
        run = uuid.uuid4().hex

        def txn(cur: _Cursor) -> list[tuple[str, str, Decimal]]:
            d = self.dialect
            left = cur.all(
                "SELECT game_id, account_id, amount FROM table_chips ORDER BY account_id, game_id"
            )
            if not left:
                return []
            ids = sorted({int(r[1]) for r in left})
            marks = ", ".join("?" for _ in ids)
            locked = cur.all(
                f"SELECT id, name, balance FROM account WHERE id IN ({marks}) ORDER BY id"
                + d.for_update,
                *ids,
            )
            state = {int(r[0]): [r[1], d.m_out(r[2])] for r in locked}
            refunds = []
            for game_id, account_id, raw in left:
                account_id = int(account_id)
                chips = d.m_out(raw)
                name, balance = state[account_id]
                balance += chips
                state[account_id][1] = balance
                cur.run("UPDATE account SET balance = ? WHERE id = ?", d.m_in(balance), account_id)
                cur.run(
                    "DELETE FROM table_chips WHERE game_id = ? AND account_id = ?",
                    game_id,
                    account_id,
                )
                cur.run(
                    "INSERT INTO ledger (idem_key, seq, kind, account_id, account_name, game_id,"
                    " balance_delta, table_delta, balance_after, created)"
                    " VALUES (?, 0, 'refund', ?, ?, ?, ?, ?, ?, ?)",
                    f"recover:{run}:{game_id}:{account_id}",
                    account_id,
                    name,
                    game_id,
                    d.m_in(chips),
                    d.m_in(-chips),
                    d.m_in(balance),
                    d.t_in(now),
                )
                refunds.append((name, game_id, chips))
            return refunds

        def report(refunds: list[tuple[str, str, Decimal]]) -> list[tuple[str, str, Decimal]]:
            for name, game_id, chips in refunds:
                self.log.warn(
                    "recovery: {chips} chips of {name} left at game {game} returned",
                    chips=chips,
                    name=name,
                    game=game_id,
                )
            self.recovered.extend(refunds)
            return refunds

        return self._run(txn).addCallback(report)

    def ledger_check(self) -> defer.Deferred[LedgerReport]:
        """Prove the books: balances + chips at tables = chips issued, every balance
        and table entry equals the sum of its ledger rows, every movement sums to
        zero, nothing is negative.  Reads one consistent snapshot."""

        def txn(cur: _Cursor) -> LedgerReport:
            m = self.dialect.m_out
            problems: list[str] = []
            balances = m(cur.one("SELECT COALESCE(SUM(balance), 0) FROM account")[0])
            at_tables = m(cur.one("SELECT COALESCE(SUM(amount), 0) FROM table_chips")[0])
            issued = m(
                cur.one(
                    "SELECT COALESCE(SUM(balance_delta), 0) FROM ledger"
                    " WHERE kind IN ('grant', 'close')"
                )[0]
            )
            if balances + at_tables != issued:
                problems.append(f"balances {balances} + at tables {at_tables} != issued {issued}")
            for r in cur.all(
                "SELECT idem_key, SUM(balance_delta + table_delta) FROM ledger"
                " WHERE kind NOT IN ('grant', 'close') GROUP BY idem_key"
                " HAVING SUM(balance_delta + table_delta) <> 0"
            ):
                problems.append(f"movement {r[0]} does not sum to zero ({m(r[1])})")
            for r in cur.all(
                "SELECT a.name, a.balance, COALESCE(SUM(l.balance_delta), 0) FROM account a"
                " LEFT JOIN ledger l ON l.account_id = a.id GROUP BY a.id, a.name, a.balance"
                " HAVING a.balance <> COALESCE(SUM(l.balance_delta), 0)"
            ):
                problems.append(f"account {r[0]}: balance {m(r[1])} but ledger says {m(r[2])}")
            for r in cur.all("SELECT name, balance FROM account WHERE balance < 0"):
                problems.append(f"account {r[0]}: negative balance {m(r[1])}")
            recorded = {
                (r[0], int(r[1])): m(r[2])
                for r in cur.all("SELECT game_id, account_id, amount FROM table_chips")
            }
            booked = {
                (r[0], int(r[1])): m(r[2])
                for r in cur.all(
                    "SELECT game_id, account_id, SUM(table_delta) FROM ledger"
                    " WHERE game_id IS NOT NULL GROUP BY game_id, account_id"
                )
            }
            for where in sorted(set(recorded) | set(booked)):
                have, want = recorded.get(where, ZERO), booked.get(where, ZERO)
                if have != want:
                    problems.append(
                        f"table {where[0]} account #{where[1]}: {have} recorded, ledger says {want}"
                    )
                if have < 0:
                    problems.append(f"table {where[0]} account #{where[1]}: negative {have}")
            return LedgerReport(not problems, balances, at_tables, issued, problems)

        return self._snapshot(txn)

    # -- history -------------------------------------------------------------------

    def record_game(
        self,
        game_id: str,
        game_type: str,
        name: str,
        players: Iterable[Mapping[str, Any]],
        *,
        variant: str | None = None,
        started: float | None = None,
        finished: float | None = None,
        summary: str | None = None,
        result: Any = None,
    ) -> defer.Deferred[bool]:
        """Store a finished game.  ``players``: one mapping per seat with ``seat``,
        ``name``, and optionally ``kind`` (``human``/``bot``), ``score`` (JSON-able),
        ``winner`` (bool), ``net`` (money won or lost).  Recording the same game id
        again changes nothing.

        :returns: (Deferred) ``True`` if stored now, ``False`` if it was stored before.
        """
        try:
            rows = [_game_player(p) for p in players]
            result_text = None if result is None else json.dumps(result, sort_keys=True)
        except Exception as e:
            return defer.fail(e)
        finished = self._now() if finished is None else finished

        def txn(cur: _Cursor) -> bool:
            d = self.dialect
            if cur.one("SELECT 1 FROM game WHERE game_id = ?", game_id):
                return False
            cur.run(
                "INSERT INTO game (game_id, type, variant, name, started, finished, summary,"
                " result) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                game_id,
                game_type,
                variant,
                name,
                None if started is None else d.t_in(started),
                d.t_in(finished),
                summary,
                result_text,
            )
            for p in rows:
                found = cur.one(
                    "SELECT id FROM account WHERE name_key = ?", acc.name_key(p["name"])
                )
                cur.run(
                    "INSERT INTO game_player (game_id, seat, account_id, name, name_key, kind,"
                    " score, winner, net) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    game_id,
                    p["seat"],
                    None if found is None else int(found[0]),
                    p["name"],
                    acc.name_key(p["name"]),
                    p["kind"],
                    p["score"],
                    p["winner"],
                    None if p["net"] is None else d.m_in(p["net"]),
                )
            return True

        return self._retry_integrity(txn)

    def games(
        self,
        game_id: str | None = None,
        player: str | None = None,
        since: float | None = None,
        until: float | None = None,
        limit: int = 50,
    ) -> defer.Deferred[list[dict[str, Any]]]:
        """Finished games, newest first: of one game id, of one player (by name), in a
        time range (``since <= finished < until``).  Each is a dict with ``game_id``,
        ``type``, ``variant``, ``name``, ``started``, ``finished``, ``summary``,
        ``result`` and ``players`` (seat, name, kind, score, winner, net)."""

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            d = self.dialect
            query = (
                "SELECT g.game_id, g.type, g.variant, g.name, g.started, g.finished,"
                " g.summary, g.result FROM game g WHERE 1 = 1"
            )
            params: list[Any] = []
            if game_id is not None:
                query += " AND g.game_id = ?"
                params.append(game_id)
            if player is not None:
                query += (
                    " AND EXISTS (SELECT 1 FROM game_player p WHERE p.game_id = g.game_id"
                    " AND p.name_key = ?)"
                )
                params.append(acc.name_key(player))
            if since is not None:
                query += " AND g.finished >= ?"
                params.append(d.t_in(since))
            if until is not None:
                query += " AND g.finished < ?"
                params.append(d.t_in(until))
            query += " ORDER BY g.finished DESC, g.game_id DESC LIMIT ?"
            params.append(int(limit))
            out = []
            for r in cur.all(query, *params):
                seats = cur.all(
                    "SELECT seat, name, kind, score, winner, net FROM game_player"
                    " WHERE game_id = ? ORDER BY seat",
                    r[0],
                )
                out.append(
                    {
                        "game_id": r[0],
                        "type": r[1],
                        "variant": r[2],
                        "name": r[3],
                        "started": d.t_out(r[4]),
                        "finished": d.t_out(r[5]),
                        "summary": r[6],
                        "result": None if r[7] is None else json.loads(r[7]),
                        "players": [
                            {
                                "seat": int(s[0]),
                                "name": s[1],
                                "kind": s[2],
                                "score": None if s[3] is None else json.loads(s[3]),
                                "winner": bool(s[4]),
                                "net": None if s[5] is None else d.m_out(s[5]),
                            }
                            for s in seats
                        ],
                    }
                )
            return out

        return self._run(txn, write=False)

    def record_hand(
        self,
        game_id: str,
        dealer: int,
        players: Iterable[Mapping[str, Any]],
        *,
        board: Sequence[int] = (),
        showdown: str | None = None,
        commitment: str | None = None,
        seed: str | None = None,
        actions: Any = None,
        at: float | None = None,
        hand_key: str | None = None,
    ) -> defer.Deferred[int]:
        """Store a finished hand (the seed's ``hand`` and ``player`` rows).

        :param dealer: the button's seat.
        :param players: per player: ``name`` (account name), optional ``display``
            (name shown at the table; default the account name), ``seat``,
            ``hole`` (card ints, shown cards only), ``money_in``, ``winnings``,
            ``actions`` (mapping round → text: ``preflop``, ``flop``, ``turn``,
            ``river``).
        :param board: up to five card ints (``rank * 4 + suit``).
        :param actions: the whole action sequence, JSON-able.
        :param hand_key: the engine's id of the hand; recording the same
            ``(game_id, hand_key)`` again returns the first hand id.
        :returns: (Deferred) the hand id (an integer).
        """
        try:
            board_text = [cards.to_text(c) for c in board]
            if len(board_text) > 5:
                raise BadAmount("a board has at most five cards")
            rows = [_hand_player(p) for p in players]
            actions_text = None if actions is None else json.dumps(actions, sort_keys=True)
        except Exception as e:
            return defer.fail(e)
        at = self._now() if at is None else at
        streets = [
            " ".join(board_text[:3]) or None,
            board_text[3] if len(board_text) > 3 else None,
            board_text[4] if len(board_text) > 4 else None,
        ]
        card_columns = board_text + [None] * (5 - len(board_text))

        def txn(cur: _Cursor) -> int:
            d = self.dialect
            if hand_key is not None:
                old = cur.one(
                    "SELECT hand_id FROM hand WHERE game_id = ? AND hand_key = ?", game_id, hand_key
                )
                if old is not None:
                    return int(old[0])
            row = cur.one(
                "INSERT INTO hand (game_id, hand_key, timestamp, dealer, flop, turn, river,"
                " showdown, card1, card2, card3, card4, card5, commitment, seed, actions)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING hand_id",
                game_id,
                hand_key,
                d.t_in(at),
                int(dealer),
                *streets,
                showdown,
                *card_columns,
                commitment,
                seed,
                actions_text,
            )
            hand_id = int(row[0])
            for p in rows:
                found = cur.one(
                    "SELECT id FROM account WHERE name_key = ?", acc.name_key(p["name"])
                )
                cur.run(
                    "INSERT INTO player (hand_id, account, name, name_key, account_id, position,"
                    " preflop, flop, turn, river, money_in, winnings, card1, card2)"
                    " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    hand_id,
                    p["name"],
                    p["display"],
                    acc.name_key(p["name"]),
                    None if found is None else int(found[0]),
                    p["seat"],
                    *p["rounds"],
                    d.m_in(p["money_in"]),
                    d.m_in(p["winnings"]),
                    *p["hole"],
                )
            return hand_id

        return self._retry_integrity(txn)

    def hands(
        self,
        game_id: str | None = None,
        player: str | None = None,
        since: float | None = None,
        until: float | None = None,
        limit: int = 50,
    ) -> defer.Deferred[list[dict[str, Any]]]:
        """Finished hands, newest first: of one game, one player (account name), a time
        range (``since <= time < until``).  Each is a dict with ``hand_id``,
        ``game_id``, ``hand_key``, ``time``, ``dealer``, ``board`` (card ints),
        ``flop``/``turn``/``river`` (text), ``showdown``, ``commitment``, ``seed``,
        ``actions`` and ``players`` (``name``, ``display``, ``seat``, ``hole`` (ints),
        ``money_in``, ``winnings``, ``actions`` per round)."""

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            d = self.dialect
            query = (
                "SELECT h.hand_id, h.game_id, h.hand_key, h.timestamp, h.dealer, h.flop, h.turn,"
                " h.river, h.showdown, h.card1, h.card2, h.card3, h.card4, h.card5,"
                " h.commitment, h.seed, h.actions FROM hand h WHERE 1 = 1"
            )
            params: list[Any] = []
            if game_id is not None:
                query += " AND h.game_id = ?"
                params.append(game_id)
            if player is not None:
                query += (
                    " AND EXISTS (SELECT 1 FROM player p WHERE p.hand_id = h.hand_id"
                    " AND p.name_key = ?)"
                )
                params.append(acc.name_key(player))
            if since is not None:
                query += " AND h.timestamp >= ?"
                params.append(d.t_in(since))
            if until is not None:
                query += " AND h.timestamp < ?"
                params.append(d.t_in(until))
            query += " ORDER BY h.timestamp DESC, h.hand_id DESC LIMIT ?"
            params.append(int(limit))
            out = []
            for r in cur.all(query, *params):
                seats = cur.all(
                    "SELECT account, name, position, preflop, flop, turn, river, money_in,"
                    " winnings, card1, card2 FROM player WHERE hand_id = ? ORDER BY position",
                    r[0],
                )
                out.append(
                    {
                        "hand_id": int(r[0]),
                        "game_id": r[1],
                        "hand_key": r[2],
                        "time": d.t_out(r[3]),
                        "dealer": int(r[4]),
                        "flop": r[5],
                        "turn": r[6],
                        "river": r[7],
                        "showdown": r[8],
                        "board": [cards.from_text(c) for c in r[9:14] if c],
                        "commitment": r[14],
                        "seed": r[15],
                        "actions": None if r[16] is None else json.loads(r[16]),
                        "players": [
                            {
                                "name": s[0],
                                "display": s[1],
                                "seat": int(s[2]),
                                "actions": dict(
                                    zip(("preflop", "flop", "turn", "river"), s[3:7], strict=True)
                                ),
                                "money_in": d.m_out(s[7]),
                                "winnings": d.m_out(s[8]),
                                "hole": [cards.from_text(c) for c in s[9:11] if c],
                            }
                            for s in seats
                        ],
                    }
                )
            return out

        return self._run(txn, write=False)


def _game(game_id: object) -> str:
    if not isinstance(game_id, str) or not game_id or len(game_id) > 64:
        raise BadAmount("a game id (1-64 characters) is required")
    return game_id


def _moved(kind: str, balance_delta: Decimal, table_delta: Decimal) -> Decimal:
    if kind == "settle":
        return table_delta
    if kind in ISSUING:
        return balance_delta
    return abs(balance_delta)


def _like_prefix(prefix: str) -> str:
    if not isinstance(prefix, str):
        raise acc.BadName("a name prefix is text")
    escaped = acc.name_key(prefix).replace("!", "!!").replace("%", "!%").replace("_", "!_")
    return escaped + "%"


def _game_player(p: Mapping[str, Any]) -> dict[str, Any]:
    net = p.get("net")
    score = p.get("score")
    return {
        "seat": int(p["seat"]),
        "name": str(p["name"]),
        "kind": p.get("kind"),
        "score": None if score is None else json.dumps(score),
        "winner": 1 if p.get("winner") else 0,
        "net": None if net is None else check_amount(net, allow_zero=True, allow_negative=True),
    }


def _hand_player(p: Mapping[str, Any]) -> dict[str, Any]:
    hole = [cards.to_text(c) for c in p.get("hole") or ()]
    if len(hole) > 2:
        raise BadAmount("the player table keeps at most two hole cards")
    rounds = p.get("actions") or {}
    return {
        "name": str(p["name"]),
        "display": str(p.get("display") or p["name"]),
        "seat": int(p["seat"]),
        "rounds": [rounds.get(r) for r in ("preflop", "flop", "turn", "river")],
        "money_in": check_amount(p.get("money_in", 0), allow_zero=True),
        "winnings": check_amount(p.get("winnings", 0), allow_zero=True),
        "hole": hole + [None] * (2 - len(hole)),
    }


def open_store(dsn: str, reactor: Any = None, **options: Any) -> Store:
    """A :class:`Store` for ``dsn`` (``sqlite:<path>`` or ``postgresql://…``); call
    :meth:`Store.start` (a Deferred) before using it.

    :param reactor: the reactor (default: the global one).
    :param options: see :class:`Store`.
    """
    if reactor is None:
        from twisted.internet import reactor as default_reactor

        reactor = default_reactor
    return Store(dsn, reactor, **options)
