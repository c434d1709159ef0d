"""The store: accounts, the chip ledger and history, behind ``twisted.enterprise.adbapi``.

Every public method returns a ``Deferred``.  Each database interaction runs in a pool
thread and touches only its cursor; it returns plain values.  Every movement of chips
is applied in one transaction together with its ledger rows, under an idempotency key:
a replayed key changes nothing and answers with ``applied=False``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from twisted.internet import defer
from twisted.logger import Logger
from zope.interface import implementer

from hub.connections import names
from hub.interfaces import IAuditStore, IRatingStore, IStore, ITournamentStore
from hub.optional_interfaces import IHandViewStore

from . import accounts as acc
from .audit import AuditMixin
from .base import ZERO, Account, _Cursor
from .errors import (
    ChipsInPlay,
    LoginFailed,
    NameTaken,
    Throttled,
)
from .journal import JournalMixin
from .money import amount as check_amount
from .plugin_index import PluginIndexMixin
from .ratings import RatingsMixin
from .resume import ResumeMixin
from .tables import TablesMixin
from .tournaments import TournamentsMixin
from .websessions import WebSessionMixin


@implementer(IStore, IAuditStore, IRatingStore, ITournamentStore, IHandViewStore)
class Store(
    TablesMixin,
    PluginIndexMixin,
    AuditMixin,
    RatingsMixin,
    TournamentsMixin,
    ResumeMixin,
    JournalMixin,
    WebSessionMixin,
):
    """Accounts, ledger, history, cluster (its plugin index too), audit log, ratings and
    tournaments in one SQL database.

    :param dsn: ``sqlite:<path>`` or ``postgresql://user:pass@host:port/db``.
    :param reactor: provides ``IReactorCore``, ``IReactorThreads``, ``IReactorTime``.
    :param grant: chips a new account receives (``Decimal``; default 1000.00).
    :param clock: what the login throttle reads time from (default: ``reactor``).
    :param scrypt: :class:`hub.store.accounts.ScryptParams` (tests may lower the cost).
    :param throttle: the :class:`hub.store.accounts.LoginThrottle` of failed logins.
    :param busy_timeout: (SQLite) seconds to wait for another writer, default 10.
    :param pool_size: (PostgreSQL) most connections, default 4.
    """

    log = Logger()

    @defer.inlineCallbacks
    def create_account(
        self,
        name: str,
        password: str,
        type: str | int = "player",
        grant: Decimal | int | str | None = None,
        reserved: bool = False,
    ) -> Any:
        """Create an account and give it the new-account grant (one ledger row).

        :param reserved: the operator asks (``gamehub account create``), who may take a
            reserved name (:mod:`hub.connections.names`); a person never may.
        :returns: (Deferred) the new :class:`Account`.
        :raises hub.store.errors.BadName: 400 (a reserved name too); ``BadPassword``
            400; ``NameTaken`` 409.
        """
        acc.check_name(name)
        if not reserved and names.reserved(name):
            raise acc.BadName(str(names.reserved(name)))
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

    def reserved_accounts(self) -> defer.Deferred[list[dict[str, Any]]]:
        """The accounts that took a name of a reserved name space (:mod:`hub.connections.names`):
        ``name``, ``type`` and ``why`` each (made before people were refused them)."""
        spaces = [_like_prefix(prefix) for prefix in names.PREFIXES]
        whole = sorted(names.NAMES)

        def txn(cur: _Cursor) -> list[tuple[str, int, str | None]]:
            likes = " OR ".join("name_key LIKE ? ESCAPE '!'" for _ in spaces)
            marks = ", ".join("?" for _ in whole)
            return cur.all(
                f"SELECT name, type, password FROM account WHERE {likes} OR name_key IN"
                f" ({marks}) ORDER BY name_key",
                *spaces,
                *whole,
            )

        def found(rows: list[tuple[str, int, str | None]]) -> list[dict[str, Any]]:
            out = []
            for name, code, password in rows:
                kind = acc.TYPE_NAMES[int(code)]
                why = names.misused(name, kind, password not in (None, "", "!"))
                if why is not None:
                    out.append({"name": name, "type": kind, "why": why})
            return out

        return self._run(txn, write=False).addCallback(found)

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
        After repeated failures for a name from a ``source`` (the client's address),
        or from one source for many names, further attempts from that source wait a
        growing delay and are refused without checking meanwhile
        (:class:`hub.store.accounts.LoginThrottle`); other sources are not affected.

        :returns: (Deferred) the :class:`Account`.
        :raises hub.store.errors.LoginFailed: 401.
        :raises hub.store.errors.Throttled: 429.
        """
        key = acc.name_key(name) if isinstance(name, str) else ""
        wait = self._throttle.wait(key, source)
        if wait > 0:
            raise Throttled(f"too many failed logins; try again in {int(wait) + 1} s")

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
            self._throttle.failed(key, source)
            raise LoginFailed("wrong account name or password")
        self._throttle.succeeded(key, source)
        return account

    @defer.inlineCallbacks
    def change_password(self, name: str, old: str, new: str, source: str | None = None) -> Any:
        """Set a new password after checking the old one (as :meth:`authenticate`,
        throttled per ``source``)."""
        acc.check_password(new)
        account = yield self.authenticate(name, old, source)
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


def _like_prefix(prefix: str) -> str:
    if not isinstance(prefix, str):
        raise acc.BadName("a name prefix is text")
    escaped = acc.name_key(prefix).replace("!", "!!").replace("%", "!%").replace("_", "!_")
    return escaped + "%"


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
