"""Resume tokens of XML sessions (:mod:`hub.frontends.xml.resume`), kept in the store
so that every hub of a cluster sharing the database accepts them.

A row holds the SHA-256 of a token (never the token: a copy of the database resumes
nobody), the account it was given to (``name_key``), the wire ids of the games its
session followed (JSON), and when it expires (seconds since the epoch, the hubs'
clock).  A token is used once: :meth:`ResumeMixin.resume_take` deletes its row and
writes its successor's in the same transaction, so of two hubs offered the same token
one wins and the other finds nothing.  Expired rows are deleted as they are met and
by :meth:`ResumeMixin.resume_purge`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from twisted.internet import defer

from .accounts import name_key
from .base import StoreBase, _Cursor

#: wire ids of games one resume token remembers (a session following more resumes
#: the first ones)
MAX_GAMES = 64


def _games(games: Iterable[int]) -> str:
    return json.dumps([int(g) for g in list(games)[:MAX_GAMES]])


class ResumeMixin(StoreBase):
    """Resume tokens: issue, update, take (once), drop, keep alive, purge."""

    def resume_issue(
        self, token_hash: str, account: str, games: Sequence[int], expires: float
    ) -> defer.Deferred[None]:
        """Keep a new token of ``account``'s session (its hash) until ``expires``."""

        def txn(cur: _Cursor) -> None:
            cur.run(
                "INSERT INTO resume_token (token_hash, name_key, games, expires)"
                " VALUES (?, ?, ?, ?)",
                token_hash, name_key(account), _games(games), float(expires),
            )  # fmt: skip

        return self._run(txn)

    def resume_save(
        self, token_hash: str, games: Sequence[int], expires: float
    ) -> defer.Deferred[bool]:
        """The session's games now, and its new expiry; ``False`` when the token is
        no longer kept (used elsewhere, dropped or expired)."""

        def txn(cur: _Cursor) -> bool:
            cur.run(
                "UPDATE resume_token SET games = ?, expires = ? WHERE token_hash = ?",
                _games(games), float(expires), token_hash,
            )  # fmt: skip
            return bool(cur.txn.rowcount)

        return self._run(txn)

    def resume_touch(self, token_hashes: Sequence[str], expires: float) -> defer.Deferred[set[str]]:
        """Move the expiry of live sessions' tokens to ``expires``; answers the hashes
        that were used (on another hub: their successors name them)."""
        hashes = list(token_hashes)

        def txn(cur: _Cursor) -> set[str]:
            used: set[str] = set()
            for start in range(0, len(hashes), 500):
                chunk = hashes[start : start + 500]
                marks = ", ".join("?" for _ in chunk)
                cur.run(
                    f"UPDATE resume_token SET expires = ? WHERE token_hash IN ({marks})",
                    float(expires), *chunk,
                )  # fmt: skip
                rows = cur.all(
                    f"SELECT replaces FROM resume_token WHERE replaces IN ({marks})", *chunk
                )
                used.update(str(r[0]) for r in rows)
            return used

        if not hashes:
            return defer.succeed(set())
        return self._run(txn)

    def resume_take(
        self, token_hash: str, account: str, now: float, successor: str, expires: float
    ) -> defer.Deferred[list[int] | None]:
        """Use a token: the wire ids of its session's games, its row replaced by the
        successor's (same games, until ``expires``); ``None``, and nothing changed,
        when no live token of ``account`` has that hash."""

        def txn(cur: _Cursor) -> list[int] | None:
            row = cur.one(
                "SELECT games FROM resume_token WHERE token_hash = ? AND name_key = ?"
                " AND expires > ?",
                token_hash, name_key(account), float(now),
            )  # fmt: skip
            if row is None:
                return None
            cur.run(
                "DELETE FROM resume_token WHERE token_hash = ? AND name_key = ?",
                token_hash, name_key(account),
            )  # fmt: skip
            if not cur.txn.rowcount:  # another hub took it first
                return None
            games = [int(g) for g in json.loads(row[0])][:MAX_GAMES]
            cur.run(
                "INSERT INTO resume_token (token_hash, name_key, games, expires, replaces)"
                " VALUES (?, ?, ?, ?, ?)",
                successor, name_key(account), _games(games), float(expires), token_hash,
            )  # fmt: skip
            return games

        return self._run(txn)

    def resume_drop(self, token_hash: str) -> defer.Deferred[None]:
        """Forget a token (its session logged out)."""
        return self._run(
            lambda cur: cur.run("DELETE FROM resume_token WHERE token_hash = ?", token_hash)
        )

    def resume_drop_account(self, account: str, keep: str | None = None) -> defer.Deferred[None]:
        """Forget every token of ``account`` but ``keep`` (its password changed)."""

        def txn(cur: _Cursor) -> None:
            cur.run(
                "DELETE FROM resume_token WHERE name_key = ? AND token_hash <> ?",
                name_key(account), keep or "",
            )  # fmt: skip

        return self._run(txn)

    def resume_purge(self, now: float) -> defer.Deferred[int]:
        """Delete the expired tokens; answers how many."""

        def txn(cur: _Cursor) -> int:
            cur.run("DELETE FROM resume_token WHERE expires <= ?", float(now))
            return int(cur.txn.rowcount or 0)

        return self._run(txn)
