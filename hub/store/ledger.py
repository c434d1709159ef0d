"""The chip ledger: every movement is one transaction of balance changes and ledger
rows under an idempotency key; the books check.

A replayed key changes nothing and answers with ``applied=False``.  Rows are locked in
one fixed order in every transaction: the chip table (``chip_table``), then accounts in
ascending id order, then their chips at the table (``SELECT … FOR SHARE/UPDATE`` on
PostgreSQL; SQLite serialises writers with ``BEGIN IMMEDIATE``).  Chips move onto a
table only while it is open and owned by this store's hub (:mod:`hub.store.lease`).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from twisted.internet import defer

from . import accounts as acc
from .base import ZERO, StoreBase, _Cursor
from .errors import (
    BadAmount,
    Conflict,
    InsufficientFunds,
    KeyReused,
    LeaseEnded,
    NotAtTable,
    TableNotOpen,
    UnknownAccount,
)
from .money import amount as check_amount
from .transfer import fast_move
from .transfer import moved as _moved


@dataclass(frozen=True)
class Movement:
    """The outcome of one ledger movement.

    :ivar applied: ``False`` when the key had been applied before (nothing changed now).
    :ivar amounts: account name → amount moved (for a settlement, the delta).
    :ivar balances: account name → balance after.
    :ivar at_table: account name → chips at the game after (no entry: none).
    :ivar hand_id: the history's id of the hand a settlement belongs to.
    :ivar problem: a difference found while moving (recorded for the operator).
    """

    key: str
    kind: str
    game_id: str | None
    applied: bool
    amounts: dict[str, Decimal] = field(default_factory=dict)
    balances: dict[str, Decimal] = field(default_factory=dict)
    at_table: dict[str, Decimal] = field(default_factory=dict)
    hand_id: int | None = None
    problem: str | None = None

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
    closed accounts); every account, table entry and movement adds up; every hand in
    the history was settled exactly once, with movements equal to its payoffs; and no
    chips sit at a table that no live hub's open game holds.

    :ivar problems: each discrepancy, one line each.
    :ivar notes: differences the hubs found and recorded (``money_problem``), which the
        books already account for.
    """

    ok: bool
    balances: Decimal
    at_tables: Decimal
    issued: Decimal
    problems: list[str]
    notes: list[str] = field(default_factory=list)

    def __str__(self) -> str:
        state = "OK" if self.ok else "FAILED"
        lines = [
            f"ledger {state}: balances {self.balances} + at tables {self.at_tables}"
            f" = {self.balances + self.at_tables}; issued {self.issued}"
        ]
        lines.extend(f"  problem: {p}" for p in self.problems)
        lines.extend(f"  recorded: {n}" for n in self.notes)
        return "\n".join(lines)


#: ``(query, what it says)``: hands (game id, hand key, …) whose settlement is wrong
HAND_CHECKS = (
    (
        "SELECT h.game_id, h.hand_key FROM finished_hand h WHERE h.hand_key IS NOT NULL"
        " AND NOT EXISTS (SELECT 1 FROM ledger l WHERE l.kind = 'settle'"
        " AND l.game_id = h.game_id AND l.hand_key = h.hand_key)",
        "was never settled",
    ),
    (
        "SELECT game_id, hand_key, COUNT(DISTINCT idem_key) FROM ledger"
        " WHERE kind = 'settle' AND hand_key IS NOT NULL GROUP BY game_id, hand_key"
        " HAVING COUNT(DISTINCT idem_key) > 1",
        "was settled {} times",
    ),
    (
        "SELECT DISTINCT l.game_id, l.hand_key FROM ledger l WHERE l.kind = 'settle'"
        " AND l.hand_key IS NOT NULL AND NOT EXISTS (SELECT 1 FROM finished_hand h"
        " WHERE h.game_id = l.game_id AND h.hand_key = l.hand_key)",
        "was settled but is not in the history",
    ),
)


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

    def buy_in(
        self, name: str, game_id: str, chips: Any, key: str, bot: bool = False
    ) -> defer.Deferred[Movement]:
        """Move ``chips`` from the account's balance to its chips at ``game_id`` (an open
        chip table of this hub: :meth:`~hub.store.tables.TablesMixin.open_table`).

        :param bot: the account is an in-hub bot's: created (type ``bot``, no usable
            password) when missing, and granted what its balance lacks, in the same
            transaction as the buy-in, under the account's row lock.
        :raises hub.store.errors.InsufficientFunds: 422, the balance is too small
            (nothing changes).
        :raises hub.store.errors.TableNotOpen: 409, not an open table of this hub.
        :raises hub.model.Conflict: 409, ``bot`` and the account is not a bot's.
        :raises hub.store.errors.BadAmount: 400; ``TypeError`` for a float.
        """
        try:
            value, game = check_amount(chips), _game(game_id)
            if bot:
                acc.check_name(name)
        except Exception as e:
            return defer.fail(e)
        return self._move(key, "buy_in", game, {name: (-value, value)}, fund=bot)

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
            values, game = settlement(deltas), _game(game_id)
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
        fund: bool = False,
    ) -> defer.Deferred[Movement]:
        """Apply one movement: ``legs`` maps names to ``(balance delta, table delta)``
        (``None`` for a cash-out of everything)."""
        if not isinstance(key, str) or not key or len(key) > 200:
            return defer.fail(BadAmount("a movement needs an idempotency key (1-200 characters)"))
        now = self._now()
        hub_id = self.hub_id

        def txn(cur: _Cursor) -> Movement:
            amounts, balances, at_table = fast_move(
                cur, hub_id, key, kind, game_id, legs, now, fund=fund, alone=True
            )
            return Movement(key, kind, game_id, True, amounts, balances, at_table)

        def careful(cur: _Cursor) -> Movement:
            return self._move_txn(cur, key, kind, game_id, dict(legs), now, fund=fund)

        return self._retry_integrity(txn, fallback=careful)

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

    def _own_table(self, cur: _Cursor, game_id: str) -> None:
        """Check (and share-lock) ``game_id``'s chip table: open and this hub's."""
        row = cur.one(
            "SELECT hub_id, closed FROM chip_table WHERE game_id = ?" + self.dialect.for_share,
            game_id,
        )
        if row is None:
            raise TableNotOpen(f"game {game_id} is not a chip table")
        mine = self.hub_id is not None and row[0] == self.hub_id
        if mine and row[1] is None:
            return
        # closed, or another hub's: taken over if the lease it was under has ended (a
        # cut-off hub's table settled or resumed by another hub), else simply not ours
        if row[0] in self.ended_leases or (self.hub_id is not None and not self._lease_open(cur)):
            raise LeaseEnded(
                f"the table {game_id} was taken over: the lease of this hub"
                f" ({self.hub_id}) was ended by another hub"
            )
        if row[1] is not None:
            raise TableNotOpen(f"the table {game_id} is closed")
        raise TableNotOpen(f"the table {game_id} belongs to another hub ({row[0]})")

    def _not_elsewhere(self, cur: _Cursor, game_id: str) -> None:
        """A hub cashes out no chips of an open table that another hub owns (one it
        handed over, or that was taken over while it was cut off): that hub does."""
        if self.hub_id is None:
            return  # the operator's tools
        row = cur.one(
            "SELECT hub_id, closed FROM chip_table WHERE game_id = ?" + self.dialect.for_share,
            game_id,
        )
        if row is not None and row[1] is None and row[0] != self.hub_id:
            raise TableNotOpen(f"the table {game_id} belongs to another hub ({row[0]})")

    def _lease_open(self, cur: _Cursor, lock: bool = False) -> bool:
        """Whether this hub's lease is still open (share-locked with ``lock``: a
        recovery that would end it waits for the transaction)."""
        row = cur.one(
            "SELECT 1 FROM hub_lease WHERE hub_id = ? AND ended IS NULL"
            + (self.dialect.for_share if lock else ""),
            self.hub_id,
        )
        return row is not None

    def _chips_locked(self, cur: _Cursor, game_id: str, account_id: int) -> Decimal | None:
        """The account's chips at ``game_id`` (``None``: no entry), locked."""
        row = cur.one(
            "SELECT amount FROM table_chips WHERE game_id = ? AND account_id = ?"
            + self.dialect.for_update,
            game_id,
            account_id,
        )
        return None if row is None else self.dialect.m_out(row[0])

    def _bot_account(self, cur: _Cursor, name: str, now: float) -> int:
        """The id of the bot account ``name``, created (no usable password) if missing.

        :raises hub.model.Conflict: the account is a person's.
        """
        row = cur.one("SELECT id, type FROM account WHERE name_key = ?", acc.name_key(name))
        if row is not None:
            if int(row[1]) != acc.TYPES["bot"]:
                raise Conflict(f"the account {name} is not a bot's")
            return int(row[0])
        # a concurrent creator makes this INSERT fail; _retry_integrity runs it again
        row = cur.one(
            "INSERT INTO account (name, name_key, password, type, balance, created)"
            " VALUES (?, ?, '!', ?, ?, ?) RETURNING id",
            name,
            acc.name_key(name),
            acc.TYPES["bot"],
            self.dialect.m_in(ZERO),
            self.dialect.t_in(now),
        )
        return int(row[0])

    def _move_txn(  # long: one ledger transaction, its checks in order
        self,
        cur: _Cursor,
        key: str,
        kind: str,
        game_id: str | None,
        legs: dict[str, Any],
        now: float,
        *,
        fund: bool = False,
        hand_key: str | None = None,
    ) -> Movement:
        try:
            done = self._replay(cur, key, kind, game_id, legs)
        except KeyReused:
            # a cut-off hub replaying a hand that the hub which took its table over has
            # settled otherwise: the table is not its own any more (LeaseEnded)
            if game_id is not None and kind in ("buy_in", "settle"):
                self._own_table(cur, game_id)
            raise
        if done is not None:
            return done
        d = self.dialect
        m = d.m_in
        if game_id is not None and kind in ("buy_in", "settle"):
            self._own_table(cur, game_id)
        elif game_id is not None and kind == "cash_out":
            self._not_elsewhere(cur, game_id)
        # lock every account involved, in ascending id order (no deadlocks)
        ids: dict[str, int] = {}
        for name in legs:
            if fund:
                ids[name] = self._bot_account(cur, name, now)
                continue
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
            table = None if game_id is None else self._chips_locked(cur, game_id, account_id)
            leg = legs[name]
            if leg is None:  # cash out everything
                if not table:
                    raise NotAtTable(f"{real_name} has no chips at {game_id}")
                leg = (table, -table)
            balance_delta, table_delta = leg
            if kind in ("cash_out", "settle") and table is None:
                raise NotAtTable(f"{real_name} has no chips at {game_id}")
            if fund and balance + balance_delta < 0:  # a bot's account is topped up
                balance = self._issue(
                    cur,
                    f"{key}:fund",
                    "grant",
                    account_id,
                    real_name,
                    -balance_delta - balance,
                    now,
                )
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
                " hand_key, balance_delta, table_delta, balance_after, created)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                key,
                seq,
                kind,
                account_id,
                real_name,
                game_id,
                hand_key,
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

    def ledger_check(self) -> defer.Deferred[LedgerReport]:
        """Prove the books: balances + chips at tables = chips issued, every balance
        and table entry equals the sum of its ledger rows, every movement sums to
        zero, nothing is negative; every hand in the history has exactly one
        settlement and its movements are the hand's payoffs; no chips sit at a table
        that no live hub's open game holds.  Reads one consistent snapshot."""
        window = self._window()

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
            problems.extend(self._check_hands(cur))
            problems.extend(self._check_tables(cur, window))
            notes = [
                f"{r[0]} at {r[1]}: {r[2]}"
                for r in cur.all(
                    "SELECT account_name, game_id, detail FROM money_problem ORDER BY id"
                )
            ]
            return LedgerReport(not problems, balances, at_tables, issued, problems, notes)

        return self._snapshot(txn)

    def _check_hands(self, cur: _Cursor) -> list[str]:
        """Every hand in the history settled exactly once, by its payoffs."""
        m = self.dialect.m_out
        problems = [
            f"hand #{r[0]} of {r[1]} has no hand key, so no settlement"
            for r in cur.all("SELECT hand_id, game_id FROM finished_hand WHERE hand_key IS NULL")
        ]
        bad: set[tuple[str, str]] = set()
        for query, says in HAND_CHECKS:
            for r in cur.all(query):
                bad.add((r[0], r[1]))
                problems.append(f"hand {r[1]} of {r[0]} {says.format(*r[2:])}")
        for r in cur.all(
            "SELECT x.game_id, x.hand_key, x.who, SUM(x.paid), SUM(x.moved) FROM ("
            " SELECT h.game_id, h.hand_key, p.name_key AS who,"
            " p.winnings - p.money_in AS paid, 0 AS moved"
            " FROM finished_hand h JOIN hand_seat p ON p.hand_id = h.hand_id"
            " WHERE h.hand_key IS NOT NULL"
            " UNION ALL SELECT l.game_id, l.hand_key, LOWER(l.account_name), 0, l.table_delta"
            " FROM ledger l WHERE l.kind = 'settle' AND l.hand_key IS NOT NULL"
            ") x GROUP BY x.game_id, x.hand_key, x.who HAVING SUM(x.paid) <> SUM(x.moved)"
        ):
            if (r[0], r[1]) not in bad:
                problems.append(
                    f"hand {r[1]} of {r[0]}: {r[2]} won {m(r[3])} but the settlement moved"
                    f" {m(r[4])}"
                )
        return problems

    def _check_tables(self, cur: _Cursor, window: float) -> list[str]:
        """No chips at a table that no live hub's open game holds, or that waits in its
        journal for a hub to resume it (a stopped hub's table: docs/journal.md)."""
        live = self._live_hubs(cur, window)
        problems = []
        for r in cur.all(
            "SELECT t.game_id, a.name, t.amount, c.hub_id, c.closed, j.game_id"
            " FROM table_chips t JOIN account a ON a.id = t.account_id"
            " LEFT JOIN chip_table c ON c.game_id = t.game_id"
            " LEFT JOIN game_journal j ON j.game_id = t.game_id"
            " WHERE t.amount > 0 ORDER BY t.game_id, a.name_key"
        ):
            where = f"{self.dialect.m_out(r[2])} chips of {r[1]} at {r[0]}"
            if r[3] is None:
                problems.append(f"{where}: no chip table of that id")
            elif r[4] is not None:
                problems.append(f"{where}: the table is closed")
            elif r[3] not in live and r[5] is None:
                problems.append(f"{where}: its hub {r[3]} is not alive and it has no journal")
        return problems


def settlement(deltas: Mapping[str, Any]) -> dict[str, Decimal]:
    """A settlement's checked amounts: account name → signed amount, summing to zero.

    :raises hub.store.errors.BadAmount: 400, they do not sum to zero, none are given,
        or an account appears twice; ``TypeError`` for a float.
    """
    values = {n: check_amount(v, allow_zero=True, allow_negative=True) for n, v in deltas.items()}
    if not values or sum(values.values(), ZERO) != 0:
        raise BadAmount("a settlement's amounts must sum to zero")
    if len({acc.name_key(n) for n in values}) != len(values):
        raise BadAmount("an account appears twice in a settlement")
    return values


def _game(game_id: object) -> str:
    if not isinstance(game_id, str) or not game_id or len(game_id) > 64:
        raise BadAmount("a game id (1-64 characters) is required")
    return game_id
