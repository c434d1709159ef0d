"""The cluster's plugin index: which dropped-in plugins each hub has (PostgreSQL).

Each hub of a cluster writes one row per plugin of its own ``plugins/`` and ``bots/``
folders that it loaded (:mod:`hub.cluster.plugins` reads them and fetches what it
lacks): name, kind, version, the SHA-256 and size of the package it serves, the
file name, the signature state (``unsigned``, ``trusted <signer>`` or ``untrusted
<signer>``) and ``since``, the time in nanoseconds the plugin arrived (its ``.meta``'s
modification time; a fetched copy keeps its source's).  A plugin removed while the hub
ran leaves a tombstone (``removed`` 1, ``since`` the time of the removal).  Every
change is announced on the cluster's channel as ``{"op": "plugin", "hub": H}``.

On SQLite the table exists and stays empty.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from twisted.internet import defer

from .base import _Cursor
from .cluster import ClusterMixin, notice

_COLUMNS = "hub_id, name, kind, version, sha256, size, file, signer, since, removed, updated"


def _row(d: Any, r: Any) -> dict[str, Any]:
    return {
        "hub": r[0],
        "name": r[1],
        "kind": r[2],
        "version": r[3],
        "sha256": r[4],
        "size": int(r[5]),
        "file": r[6],
        "signer": r[7],
        "since": int(r[8]),
        "removed": bool(r[9]),
        "updated": d.t_out(r[10]),
    }


class PluginIndexMixin(ClusterMixin):
    """The ``plugin_index`` table (PostgreSQL)."""

    def _put_plugin(self, cur: _Cursor, row: Mapping[str, Any], now: float) -> None:
        hub_id = str(self.hub_id)
        cur.run(
            f"INSERT INTO plugin_index ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
            " ON CONFLICT (hub_id, name) DO UPDATE SET kind = excluded.kind,"
            " version = excluded.version, sha256 = excluded.sha256, size = excluded.size,"
            " file = excluded.file, signer = excluded.signer, since = excluded.since,"
            " removed = excluded.removed, updated = excluded.updated",
            hub_id,
            str(row["name"])[:64],
            str(row.get("kind") or "")[:16],
            str(row.get("version") or "")[:64],
            str(row.get("sha256") or "")[:64],
            int(row.get("size") or 0),
            str(row.get("file") or "")[:256],
            str(row.get("signer") or "")[:512],
            int(row["since"]),
            1 if row.get("removed") else 0,
            self.dialect.t_in(now),
        )

    def plugins_publish(
        self, rows: Iterable[Mapping[str, Any]], only: bool = False
    ) -> defer.Deferred[None]:
        """Write this hub's plugin ``rows`` (a tombstone has ``removed`` true) and
        announce them; ``only``: this hub's other plugin rows (not its tombstones) go."""
        puts, now, hub_id = list(rows), self._now(), str(self.hub_id)

        def txn(cur: _Cursor) -> None:
            if only:
                names = {str(r["name"]) for r in puts}
                for (name,) in cur.all(
                    "SELECT name FROM plugin_index WHERE hub_id = ? AND removed = 0", hub_id
                ):
                    if name not in names:
                        cur.run(
                            "DELETE FROM plugin_index WHERE hub_id = ? AND name = ?", hub_id, name
                        )
            for row in puts:
                self._put_plugin(cur, row, now)
            self._notify(cur, notice("plugin", hub_id))

        return self._run(txn)

    def plugins_index(self) -> defer.Deferred[list[dict[str, Any]]]:
        """Every row of the plugin index, by name and hub."""

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            return [
                _row(self.dialect, r)
                for r in cur.all(f"SELECT {_COLUMNS} FROM plugin_index ORDER BY name, hub_id")
            ]

        return self._run(txn, write=False)

    def plugins_leave(self) -> defer.Deferred[None]:
        """This hub stops: its plugin rows go (its tombstones stay)."""
        hub_id = str(self.hub_id)

        def txn(cur: _Cursor) -> None:
            cur.run("DELETE FROM plugin_index WHERE hub_id = ? AND removed = 0", hub_id)
            self._notify(cur, notice("plugin", hub_id))

        return self._run(txn)

    def plugins_purge(self, keep_removed: float) -> defer.Deferred[int]:
        """Remove the plugin rows of ended hubs and the tombstones older than
        ``keep_removed`` seconds.  Returns how many went."""
        oldest = int((self._now() - keep_removed) * 1e9)

        def txn(cur: _Cursor) -> int:
            cur.run(
                "DELETE FROM plugin_index WHERE removed = 0 AND hub_id IN"
                " (SELECT hub_id FROM hubs WHERE ended IS NOT NULL)"
            )
            count = max(0, int(cur.txn.rowcount))
            cur.run("DELETE FROM plugin_index WHERE removed = 1 AND since < ?", oldest)
            return count + max(0, int(cur.txn.rowcount))

        return self._run(txn)
