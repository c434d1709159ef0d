"""The audit log of admin actions and the banned addresses.

Every admin action, from the admin API or the ``gamehub`` command, is one row of
``audit_log``: who (``actor``), when (``created``), what (``action``, ``target``,
``detail``), from where (``via``: ``api`` or ``cli``; ``source``: the client's address,
or the user and host of a command) and how it ended (``outcome``: ``ok`` or the
reason it failed).  Rows are never changed; only the oldest go, beyond ``keep``
(the hub's ``audit_keep`` setting), when a new one is written.
"""

from __future__ import annotations

import json
from typing import Any

from twisted.internet import defer

from .base import StoreBase, _Cursor

#: rows kept in the audit log unless told otherwise
AUDIT_KEEP = 100_000
_TEXT = 256


def _clip(value: Any, size: int = _TEXT) -> str | None:
    return None if value is None else str(value)[:size]


class AuditMixin(StoreBase):
    """The audit log (``audit_log``) and the banned addresses (``address_ban``)."""

    def record_audit(
        self,
        actor: str,
        action: str,
        *,
        via: str,
        source: str,
        target: str | None = None,
        detail: Any = None,
        outcome: str = "ok",
        keep: int = AUDIT_KEEP,
    ) -> defer.Deferred[int]:
        """Append one row; drop the oldest beyond ``keep`` rows.

        :param detail: JSON-able details of the action (never a secret).
        :returns: (Deferred) the row's id.
        """
        now = self._now()
        text = None if detail is None else json.dumps(detail, default=str, sort_keys=True)

        def txn(cur: _Cursor) -> int:
            row = cur.one(
                "INSERT INTO audit_log (created, actor, via, source, action, target, detail,"
                " outcome) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
                self.dialect.t_in(now),
                _clip(actor),
                _clip(via, 16),
                _clip(source),
                _clip(action, 64),
                _clip(target),
                text,
                _clip(outcome, 512),
            )
            new = int(row[0])
            if keep > 0:
                cur.run("DELETE FROM audit_log WHERE id <= ?", new - int(keep))
            return new

        return self._run(txn)

    def audit_log(
        self,
        limit: int = 100,
        action: str | None = None,
        actor: str | None = None,
        target: str | None = None,
    ) -> defer.Deferred[list[dict[str, Any]]]:
        """The newest rows first (at most ``limit``), of one ``action``, ``actor`` or
        ``target`` if given."""
        clauses, params = [], []
        for column, value in (("action", action), ("actor", actor), ("target", target)):
            if value is not None:
                clauses.append(f"{column} = ?")
                params.append(value)
        where = (" WHERE " + " AND ".join(clauses)) if clauses else ""

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            rows = cur.all(
                "SELECT id, created, actor, via, source, action, target, detail, outcome"
                f" FROM audit_log{where} ORDER BY id DESC LIMIT ?",
                *params,
                int(limit),
            )
            return [
                {
                    "id": int(r[0]),
                    "created": self.dialect.t_out(r[1]),
                    "actor": r[2],
                    "via": r[3],
                    "source": r[4],
                    "action": r[5],
                    "target": r[6],
                    "detail": None if r[7] is None else json.loads(r[7]),
                    "outcome": r[8],
                }
                for r in rows
            ]

        return self._run(txn, write=False)

    def ban_address(self, address: str, actor: str, reason: str | None = None) -> defer.Deferred:
        """Ban ``address`` (an address or a network, ``10.0.0.0/8``); banning it again
        keeps the first row.  Fires with ``True`` when it was not banned before."""
        now = self._now()

        def txn(cur: _Cursor) -> bool:
            if cur.one("SELECT 1 FROM address_ban WHERE address = ?", address):
                return False
            cur.run(
                "INSERT INTO address_ban (address, created, actor, reason) VALUES (?, ?, ?, ?)",
                address,
                self.dialect.t_in(now),
                _clip(actor),
                _clip(reason, 512),
            )
            return True

        return self._run(txn)

    def unban_address(self, address: str) -> defer.Deferred[bool]:
        """Lift the ban of ``address``; fires with whether there was one."""

        def txn(cur: _Cursor) -> bool:
            found = cur.one("SELECT 1 FROM address_ban WHERE address = ?", address) is not None
            cur.run("DELETE FROM address_ban WHERE address = ?", address)
            return found

        return self._run(txn)

    def banned_addresses(self) -> defer.Deferred[list[dict[str, Any]]]:
        """Every ban: ``address``, ``created``, ``actor``, ``reason``."""

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            rows = cur.all(
                "SELECT address, created, actor, reason FROM address_ban ORDER BY address"
            )
            return [
                {
                    "address": r[0],
                    "created": self.dialect.t_out(r[1]),
                    "actor": r[2],
                    "reason": r[3],
                }
                for r in rows
            ]

        return self._run(txn, write=False)
