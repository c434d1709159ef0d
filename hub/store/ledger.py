"""The chip ledger: every movement is one transaction of balance changes and ledger
rows under an idempotency key; crash recovery; the books check.

A replayed key changes nothing and answers with ``applied=False``.  Accounts are locked
in ascending id order (``SELECT … FOR UPDATE`` on PostgreSQL; SQLite serialises writers
with ``BEGIN IMMEDIATE``).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from twisted.internet import defer

from . import accounts as acc
from .base import ISSUING, ZERO, StoreBase, _Cursor
from .errors import (
    BadAmount,
    InsufficientFunds,
    KeyReused,
    NotAtTable,
    UnknownAccount,
)
from .money import amount as check_amount


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


class LedgerMixin(StoreBase):
    """Money: grants, buy-ins, cash-outs, settlements, recovery, the check."""

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
