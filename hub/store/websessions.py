"""Browser sessions of the web front end (:mod:`hub.frontends.web.sessions`), kept in
the store so that a restarted hub recognises its players' cookies (issue 31).

A row holds the SHA-256 of the cookie value (never the value: a copy of the database
opens no session), the player name (the account, or the guest's name), the account
(``NULL`` for a guest), whether it is an admin account, and when it expires (seconds
since the epoch, the hubs' clock).  Rows go when the browser logs out, its account is
deleted or kicked, and when they expire (:meth:`WebSessionMixin.web_session_purge`);
at most :data:`MAX_ROWS` are kept (the oldest expiring go first).
"""

from __future__ import annotations

from twisted.internet import defer

from .base import StoreBase, _Cursor

#: web sessions the store keeps at most
MAX_ROWS = 10_000

#: a kept session: (cookie hash, player name, account or None, admin, expires)
WebSessionRow = tuple[str, str, str | None, bool, float]


class WebSessionMixin(StoreBase):
    """Web sessions: keep, list the live ones, find one, drop, drop an account's, purge."""

    def web_session_keep(
        self, token_hash: str, name: str, account: str | None, admin: bool, expires: float
    ) -> defer.Deferred[None]:
        """Keep (or refresh) the session whose cookie hashes to ``token_hash``."""

        def txn(cur: _Cursor) -> None:
            cur.run("DELETE FROM web_session WHERE token_hash = ?", token_hash)
            row = cur.one("SELECT COUNT(*) FROM web_session")
            extra = int(row[0]) - MAX_ROWS + 1 if row is not None else 0
            if extra > 0:
                old = cur.all("SELECT token_hash FROM web_session ORDER BY expires LIMIT ?", extra)
                for (gone,) in old:
                    cur.run("DELETE FROM web_session WHERE token_hash = ?", gone)
            cur.run(
                "INSERT INTO web_session (token_hash, name, account, admin, expires)"
                " VALUES (?, ?, ?, ?, ?)",
                token_hash, name, account, 1 if admin else 0, float(expires),
            )  # fmt: skip

        return self._run(txn)

    def web_sessions_live(self, now: float) -> defer.Deferred[list[WebSessionRow]]:
        """Every kept session not expired at ``now`` (at most :data:`MAX_ROWS`)."""

        def txn(cur: _Cursor) -> list[WebSessionRow]:
            rows = cur.all(
                "SELECT token_hash, name, account, admin, expires FROM web_session"
                " WHERE expires > ? ORDER BY expires DESC LIMIT ?",
                float(now), MAX_ROWS,
            )  # fmt: skip
            return [
                (str(r[0]), str(r[1]), None if r[2] is None else str(r[2]), bool(r[3]), float(r[4]))
                for r in rows
            ]

        return self._run(txn)

    def web_session_find(self, token_hash: str, now: float) -> defer.Deferred[WebSessionRow | None]:
        """The kept session whose cookie hashes to ``token_hash``, if it is live at
        ``now`` (another hub of the cluster may have made it after this one started)."""

        def txn(cur: _Cursor) -> WebSessionRow | None:
            r = cur.one(
                "SELECT token_hash, name, account, admin, expires FROM web_session"
                " WHERE token_hash = ? AND expires > ?",
                token_hash, float(now),
            )  # fmt: skip
            if r is None:
                return None
            return (
                str(r[0]), str(r[1]), None if r[2] is None else str(r[2]), bool(r[3]), float(r[4])
            )  # fmt: skip

        return self._run(txn)

    def web_session_drop(self, token_hash: str) -> defer.Deferred[None]:
        """Forget one session (it logged out, or in under a new cookie)."""
        return self._run(
            lambda cur: cur.run("DELETE FROM web_session WHERE token_hash = ?", token_hash)
        )

    def web_session_drop_account(self, account: str) -> defer.Deferred[None]:
        """Forget every session of ``account`` (deleted or kicked)."""
        return self._run(lambda cur: cur.run("DELETE FROM web_session WHERE account = ?", account))

    def web_session_purge(self, now: float) -> defer.Deferred[int]:
        """Delete the expired sessions; answers how many."""

        def txn(cur: _Cursor) -> int:
            cur.run("DELETE FROM web_session WHERE expires <= ?", float(now))
            return int(cur.txn.rowcount or 0)

        return self._run(txn)
