"""Chip tables: the money of one table's life, each step one transaction.

:meth:`~TablesMixin.open_table` makes a game a chip table owned by this hub;
buy-ins (:meth:`~hub.store.ledger.LedgerMixin.buy_in`, with ``bot=True`` funding an
in-hub bot in the same transaction) put chips on it; :meth:`~TablesMixin.settle_hand`
moves one hand's result and writes its history, once per hand;
:meth:`~TablesMixin.leave_table` takes a leaving player's chips back and records any
difference between the game's stack and the ledger; :meth:`~TablesMixin.close_table`
returns what is left and closes it.  :meth:`~TablesMixin.recover` returns the chips of
tables no live hub owns.  Rows are locked in the ledger's order: chip table, accounts
(ascending id), chips at the table.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from twisted.internet import defer

from . import accounts as acc
from .base import ZERO, _Cursor
from .errors import BadAmount, LeaseEnded, TableNotOpen, UnknownAccount
from .history import HistoryMixin
from .lease import LeaseMixin
from .ledger import LedgerMixin, Movement, _game, settlement
from .money import amount as check_amount
from .takeover import Claim, RefundTables, Takeover
from .transfer import fast_move


class TablesMixin(LedgerMixin, HistoryMixin, LeaseMixin):
    """Chip tables of this hub: open, settle hands, leave, close, recover."""

    #: what a recovery does with the dead hubs' tables (:mod:`hub.store.takeover`):
    #: ``None``, their chips go back (:class:`~hub.store.takeover.RefundTables`); the
    #: cluster puts its own (:class:`hub.cluster.takeover.AbortAndRefund`)
    takeover: Takeover | None = None

    def open_table(self, game_id: str, game_type: str) -> defer.Deferred[None]:
        """Make ``game_id`` a chip table owned by this hub (needs the hub's lease).

        :raises hub.store.errors.TableNotOpen: 409, the store holds no lease, or the id
            is taken.
        """
        try:
            game = _game(game_id)
        except Exception as e:
            return defer.fail(e)
        hub_id, now = self.hub_id, self._now()
        if hub_id is None:
            return defer.fail(TableNotOpen("this store holds no hub lease (start(recover=True))"))

        def txn(cur: _Cursor) -> None:
            if not self._lease_open(cur, lock=True):
                raise LeaseEnded(f"the lease of this hub ({hub_id}) was ended by another hub")
            if cur.one("SELECT 1 FROM chip_table WHERE game_id = ?", game):
                raise TableNotOpen(f"there is a chip table {game} already")
            cur.run(
                "INSERT INTO chip_table (game_id, hub_id, game_type, opened) VALUES (?, ?, ?, ?)",
                game,
                hub_id,
                str(game_type)[:64],
                self.dialect.t_in(now),
            )

        return self._run(txn)

    def close_table(self, game_id: str) -> defer.Deferred[dict[str, Decimal]]:
        """Return every chip left at this hub's table ``game_id`` to its account and
        close the table (no chips move onto it again).  Closing a closed table does
        nothing.

        :returns: (Deferred) account name → chips returned.
        """
        now = self._now()

        def txn(cur: _Cursor) -> dict[str, Decimal]:
            row = cur.one(
                "SELECT hub_id, closed FROM chip_table WHERE game_id = ?" + self.dialect.for_update,
                game_id,
            )
            if row is not None and row[1] is not None:
                return {}
            if row is not None and row[0] != self.hub_id:
                raise TableNotOpen(f"the table {game_id} belongs to another hub ({row[0]})")
            returned = self._return_chips(cur, [game_id], "cash_out", "close", now)
            if row is not None:
                cur.run(
                    "UPDATE chip_table SET closed = ? WHERE game_id = ?",
                    self.dialect.t_in(now),
                    game_id,
                )
            return {name: chips for name, _, chips in returned}

        return self._run(txn)

    def _return_chips(
        self, cur: _Cursor, games: list[str], kind: str, prefix: str, now: float
    ) -> list[tuple[str, str, Decimal]]:
        """Move every chip at ``games`` back to its account: one ledger row of ``kind``
        each, keyed ``<prefix>:<game>:<account id>``."""
        if not games:
            return []
        d = self.dialect
        marks = ", ".join("?" for _ in games)
        ids = sorted(
            {
                int(r[0])
                for r in cur.all(
                    f"SELECT account_id FROM table_chips WHERE game_id IN ({marks})", *games
                )
            }
        )
        if not ids:
            return []
        who = ", ".join("?" for _ in ids)
        locked = cur.all(
            f"SELECT id, name, balance FROM account WHERE id IN ({who}) ORDER BY id" + d.for_update,
            *ids,
        )
        state = {int(r[0]): [r[1], d.m_out(r[2])] for r in locked}
        left = cur.all(
            f"SELECT game_id, account_id, amount FROM table_chips WHERE game_id IN ({marks})"
            " ORDER BY account_id, game_id" + d.for_update,
            *games,
        )
        returned = []
        for game_id, account_id, raw in left:
            account_id, chips = int(account_id), d.m_out(raw)
            cur.run(
                "DELETE FROM table_chips WHERE game_id = ? AND account_id = ?", game_id, account_id
            )
            if not chips or account_id not in state:
                continue
            name, balance = state[account_id]
            balance += chips
            state[account_id][1] = balance
            cur.run("UPDATE account SET balance = ? WHERE id = ?", d.m_in(balance), account_id)
            cur.run(
                "INSERT INTO ledger (idem_key, seq, kind, account_id, account_name, game_id,"
                " balance_delta, table_delta, balance_after, created)"
                " VALUES (?, 0, ?, ?, ?, ?, ?, ?, ?, ?)",
                f"{prefix}:{game_id}:{account_id}",
                kind,
                account_id,
                name,
                game_id,
                d.m_in(chips),
                d.m_in(-chips),
                d.m_in(balance),
                d.t_in(now),
            )
            returned.append((name, game_id, chips))
        return returned

    def settle_hand(
        self,
        game_id: str,
        hand_key: str,
        deltas: Mapping[str, Any],
        hand: Mapping[str, Any] | None = None,
    ) -> defer.Deferred[Movement]:
        """Settle one finished hand in one transaction: the chips it moved between the
        players at the table (``deltas``: account name → signed amount, summing to
        zero; zero for a player who neither won nor lost) and its history (``hand``:
        the arguments of :meth:`record_hand` besides ``game_id``, by name).  Keyed by
        the hand: settling it again changes nothing (``applied=False``).

        :raises hub.store.errors.TableNotOpen: 409, not an open table of this hub.
        :raises hub.store.errors.NotAtTable: 404, an account has no chips there.
        :raises hub.store.errors.InsufficientFunds: 422, a loss exceeds the chips there.
        """
        try:
            game = _game(game_id)
            if not isinstance(hand_key, str) or not 0 < len(hand_key) <= 128:
                raise BadAmount("a hand key is 1 to 128 characters")
            values = settlement(deltas)
            record = None if hand is None else self._hand(game, hand_key, **dict(hand))
        except Exception as e:
            return defer.fail(e)
        key, now = f"hand:{game}:{hand_key}", self._now()
        legs = {n: (ZERO, v) for n, v in values.items()}

        hub_id = self.hub_id

        def txn(cur: _Cursor) -> Movement:
            amounts, balances, at_table = fast_move(
                cur, hub_id, key, "settle", game, legs, now, hand_key=hand_key
            )
            moved = Movement(key, "settle", game, True, amounts, balances, at_table)
            return history(cur, moved)

        def careful(cur: _Cursor) -> Movement:
            moved = self._move_txn(cur, key, "settle", game, dict(legs), now, hand_key=hand_key)
            return history(cur, moved)

        def history(cur: _Cursor, moved: Movement) -> Movement:
            old = cur.one(
                "SELECT hand_id FROM finished_hand WHERE game_id = ? AND hand_key = ?",
                game,
                hand_key,
            )
            if old is not None:
                hand_id: int | None = int(old[0])
            elif record is not None:
                hand_id = self._insert_hand(cur, game, hand_key, record, now)
            else:
                hand_id = None
            return dataclasses.replace(moved, hand_id=hand_id)

        return self._retry_integrity(txn, fallback=careful)

    def leave_table(
        self, name: str, game_id: str, stack: Any, key: str
    ) -> defer.Deferred[Movement]:
        """A player left ``game_id`` with ``stack`` chips (what the game says): every
        chip the ledger holds for the account there goes back to its balance.  When
        the two differ, the ledger's amount is what moves and the difference is
        recorded for the operator (:meth:`problems`; ``Movement.problem``).  Applied
        once per ``key``.
        """
        try:
            expected = check_amount(stack, allow_zero=True)
            game = _game(game_id)
            if not isinstance(key, str) or not 0 < len(key) <= 200:
                raise BadAmount("a movement needs an idempotency key (1-200 characters)")
        except Exception as e:
            return defer.fail(e)
        now = self._now()

        def txn(cur: _Cursor) -> Movement:
            d = self.dialect
            row = cur.one(
                "SELECT id, name, balance FROM account WHERE name_key = ?" + d.for_update,
                acc.name_key(name),
            )
            if row is None:
                raise UnknownAccount(f"no account named {name!r}")
            account_id, real_name, balance = int(row[0]), row[1], d.m_out(row[2])
            if cur.one("SELECT 1 FROM ledger WHERE idem_key = ?", key):
                return self._outcome(cur, key, "cash_out", game, False, {real_name: ZERO})
            chips = self._chips_locked(cur, game, account_id)
            held = ZERO if chips is None else chips
            problem = None
            if held != expected:
                problem = (
                    f"{real_name} left {game} with a stack of {expected} but the ledger held"
                    f" {held} there; the ledger's {held} went back to the account"
                )
                self._problem_row(cur, now, "cash_out", problem, game, real_name, expected, held)
            if chips is not None:
                cur.run(
                    "DELETE FROM table_chips WHERE game_id = ? AND account_id = ?",
                    game,
                    account_id,
                )
            balance += held
            cur.run("UPDATE account SET balance = ? WHERE id = ?", d.m_in(balance), account_id)
            cur.run(
                "INSERT INTO ledger (idem_key, seq, kind, account_id, account_name, game_id,"
                " balance_delta, table_delta, balance_after, created)"
                " VALUES (?, 0, 'cash_out', ?, ?, ?, ?, ?, ?, ?)",
                key,
                account_id,
                real_name,
                game,
                d.m_in(held),
                d.m_in(-held),
                d.m_in(balance),
                d.t_in(now),
            )
            moved = self._outcome(cur, key, "cash_out", game, True, {real_name: held})
            return dataclasses.replace(moved, problem=problem)

        return self._retry_integrity(txn)

    def _problem_row(
        self,
        cur: _Cursor,
        now: float,
        kind: str,
        detail: str,
        game_id: str | None = None,
        account: str | None = None,
        expected: Decimal | None = None,
        recorded: Decimal | None = None,
    ) -> None:
        d = self.dialect
        cur.run(
            "INSERT INTO money_problem (created, hub_id, game_id, account_name, kind, expected,"
            " recorded, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            d.t_in(now),
            self.hub_id,
            game_id,
            account,
            kind[:32],
            None if expected is None else d.m_in(expected),
            None if recorded is None else d.m_in(recorded),
            detail,
        )

    def record_problem(
        self,
        kind: str,
        detail: str,
        game_id: str | None = None,
        account: str | None = None,
        expected: Any = None,
        recorded: Any = None,
    ) -> defer.Deferred[None]:
        """Record a money problem a hub found, for the operator (:meth:`problems`)."""
        now = self._now()
        try:
            values = [
                None if v is None else check_amount(v, allow_zero=True, allow_negative=True)
                for v in (expected, recorded)
            ]
        except Exception as e:
            return defer.fail(e)
        return self._run(
            lambda cur: self._problem_row(cur, now, kind, detail, game_id, account, *values)
        )

    def problems(self, limit: int = 100) -> defer.Deferred[list[dict[str, Any]]]:
        """Recorded money problems, newest first (``gamehub ledger problems``)."""

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            d = self.dialect
            rows = cur.all(
                "SELECT id, created, hub_id, game_id, account_name, kind, expected, recorded,"
                " detail FROM money_problem ORDER BY id DESC LIMIT ?",
                int(limit),
            )
            return [
                {
                    "id": int(r[0]),
                    "time": d.t_out(r[1]),
                    "hub_id": r[2],
                    "game_id": r[3],
                    "account": r[4],
                    "kind": r[5],
                    "expected": None if r[6] is None else d.m_out(r[6]),
                    "recorded": None if r[7] is None else d.m_out(r[7]),
                    "detail": r[8],
                }
                for r in rows
            ]

        return self._run(txn, write=False)

    def refund_tables(
        self, cur: _Cursor, tables: list[str], key: str, now: float
    ) -> list[tuple[str, str, Decimal]]:
        """(In a recovery's transaction, the tables locked.)  Return every chip at the
        chip tables ``tables`` to its account (a ``refund`` ledger row each, keyed
        ``<key>:<game>:<account id>``) and close them.  The fallback of a takeover
        (:class:`hub.store.takeover.Takeover`): the hands in progress there are void."""
        refunds = self._return_chips(cur, tables, "refund", key, now)
        for game_id in tables:
            cur.run(
                "UPDATE chip_table SET closed = ? WHERE game_id = ?",
                self.dialect.t_in(now),
                game_id,
            )
        return refunds

    def recover(  # long: one recovery transaction, its steps in lock order
        self,
    ) -> defer.Deferred[list[tuple[str, str, Decimal]]]:
        """Take over the chip tables no live hub owns and end the dead hubs' leases,
        in one transaction: what becomes of those tables is the :attr:`takeover`'s
        (by default, and as the cluster's fallback, their chips go back to their
        accounts: one ``refund`` ledger row each, and they close).  :meth:`start` calls
        it for a hub, so chips left by a crash (a kill) go back before any front end
        opens; a running hub's tables are never touched, and two hubs recovering at
        once take each table over once.  Who counts as dead: :mod:`hub.store.liveness`,
        judged with this hub's evidence window.

        :returns: (Deferred) the refunds, ``[(account name, game id, amount), ...]``.
        """
        now, run, window = self._now(), uuid.uuid4().hex[:12], self._window()
        steps = list(self._recovery_steps)
        takeover = self.takeover or RefundTables(self)

        def txn(cur: _Cursor) -> tuple[list[str], Claim, list[Any]]:
            live = self._live_hubs(cur, window)
            dead = sorted(
                r[0]
                for r in cur.all("SELECT game_id, hub_id FROM chip_table WHERE closed IS NULL")
                if r[1] not in live
            )
            if dead:  # lock them (and see whether another recovery closed them first)
                marks = ", ".join("?" for _ in dead)
                dead = [
                    r[0]
                    for r in cur.all(
                        f"SELECT game_id FROM chip_table WHERE game_id IN ({marks})"
                        " AND closed IS NULL ORDER BY game_id" + self.dialect.for_update,
                        *dead,
                    )
                ]
            stray = [
                r[0]
                for r in cur.all(
                    "SELECT DISTINCT t.game_id FROM table_chips t WHERE NOT EXISTS ("
                    "SELECT 1 FROM chip_table c WHERE c.game_id = t.game_id"
                    " AND c.closed IS NULL) ORDER BY t.game_id"
                )
            ]
            refunds = self._return_chips(cur, stray, "refund", f"recover:{run}", now)
            ended = []
            for hub_id in sorted(
                r[0]
                for r in cur.all("SELECT hub_id FROM hub_lease WHERE ended IS NULL")
                if r[0] not in live
            ):  # a concurrent recovery that ended it first leaves no row to update
                cur.run(
                    "UPDATE hub_lease SET ended = ? WHERE hub_id = ? AND ended IS NULL",
                    self.dialect.t_in(now),
                    hub_id,
                )
                if cur.txn.rowcount:
                    ended.append(hub_id)
            claim = Claim()
            if ended or dead:
                claim = takeover.claim(cur, ended, dead, f"recover:{run}", now)
            claim = dataclasses.replace(claim, refunds=refunds + claim.refunds)
            extra = [step(cur, ended, now) if ended else None for step, _ in steps]
            return ended, claim, extra

        def report(
            result: tuple[list[str], Claim, list[Any]],
        ) -> list[tuple[str, str, Decimal]]:
            ended, claim, extra = result
            for hub_id in ended:
                self._lock.forget(hub_id)
                self.log.info("store: the lease of dead hub {hub} was ended", hub=hub_id)
            for name, game_id, chips in claim.refunds:
                self.log.warn(
                    "recovery: {chips} chips of {name} left at game {game} returned",
                    chips=chips,
                    name=name,
                    game=game_id,
                )
            self.recovered.extend(claim.refunds)
            try:
                takeover.claimed(ended, claim)
            except Exception:
                self.log.failure("store: a takeover failed after the commit")
            for (_, done), value in zip(steps, extra, strict=True):
                if ended and done is not None:
                    try:
                        done(ended, value)
                    except Exception:
                        self.log.failure("store: a recovery step failed after the commit")
            return claim.refunds

        return self._run(txn).addCallback(report)
