"""The cluster's tables: who the hubs on this database are, and every hub's games.

Several hubs that share one PostgreSQL database are one service (:mod:`hub.cluster`
keeps the reactor's side).  Each hub has a member row in ``hubs`` (same id as its lease,
:mod:`hub.store.lease`: the lease proves it lives, the member row says where its front
ends are and how loaded it is) and writes a ``directory`` row for each game it runs.
Every change is announced with ``NOTIFY`` on the database's cluster channel
(:meth:`ClusterMixin.cluster_channel`), in the transaction that makes it, so a notice
arrives only once its change is committed.

A notice is JSON, at most :data:`MAX_NOTICE` bytes:

- ``{"op": "rows", "hub": H, "del": [G, …], "put": [{row}, …], "read": [G, …]}``: a
  directory write of hub ``H``, as few notices as hold it (each part there only when
  not empty; in order: the removals, then the rows): the games ``del`` left the
  directory, the rows ``put`` were written, and so were those of the games ``read``
  (a row too large for a notice: read it);
- ``{"op": "put", "hub": H, "game": {row}}`` or ``{"op": "put", "hub": H, "id": G}``,
  and ``{"op": "del", "hub": H, "id": G}``: one row each, as hubs before the ``rows``
  notice wrote them (still understood);
- ``{"op": "hub", "hub": H}``: hub ``H`` joined, changed its front ends, left, or died
  (its games then read ``aborted``): read its rows again.

Everything here is PostgreSQL's; on SQLite the tables exist and stay empty (a hub on
SQLite is always single).
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from twisted.internet import defer

from .base import StoreBase, _Cursor

#: the largest notice sent (PostgreSQL's own limit is just under 8000 bytes)
MAX_NOTICE = 4000
#: the state a game of a dead hub is left in
ABORTED = "aborted"
#: (a member row's endpoints) the hand-off socket, not a front end
HANDOFF = "handoff"
_CHANNEL_CHARACTERS = re.compile(r"[^a-z0-9_]")


def channel_name(schema: str) -> str:
    """The ``LISTEN`` channel of the cluster whose tables are in ``schema`` (hubs of
    one schema hear only each other): ``gamehub_<schema>``, at most 63 characters."""
    clean = _CHANNEL_CHARACTERS.sub("_", schema.lower())
    name = f"gamehub_{clean}"
    if len(name) > 63:
        name = "gamehub_" + hashlib.sha256(schema.encode()).hexdigest()[:32]
    return name


def notice(op: str, hub: str, **fields: Any) -> str:
    """A notice's text (see the module's docstring)."""
    return json.dumps({"op": op, "hub": hub, **fields}, separators=(",", ":"), default=str)


def _row(d: Any, r: Sequence[Any]) -> dict[str, Any]:
    return {
        "id": r[0],
        "hub": r[1],
        "rev": int(r[2]),
        "type": r[3],
        "name": r[4],
        "state": r[5],
        "seats": json.loads(r[6]),
        "info": json.loads(r[7]),
        "updated": d.t_out(r[8]),
    }


_COLUMNS = "game_id, hub_id, rev, type, name, state, seats, info, updated"
#: (a directory write, and its notices) only while the writing hub's lease is open: a
#: hub another hub recovered (a partition) changes nothing there any more
_LEASE_OPEN = (
    "EXISTS (SELECT 1 FROM hub_lease l WHERE l.hub_id = CAST(? AS TEXT) AND l.ended IS NULL)"
)
#: (a directory write) this hub's rows of the game ids of an array go
_DELETE_ROWS = (
    "DELETE FROM directory WHERE hub_id = ? AND game_id = ANY(CAST(? AS TEXT[])) AND " + _LEASE_OPEN
)
#: (a directory write) this hub's rows (its id, the time, then each column's values
#: as an array of text: :func:`_directory_values`, then its id again), unless another
#: hub has the id
_UPSERT_ROWS = (
    f"INSERT INTO directory ({_COLUMNS}) SELECT v.game_id, CAST(? AS TEXT),"
    " CAST(v.rev AS BIGINT), v.type, v.name, v.state, v.seats, v.info, CAST(? AS TIMESTAMPTZ)"
    " FROM unnest(CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]),"
    " CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]))"
    " AS v(game_id, rev, type, name, state, seats, info) WHERE "
    + _LEASE_OPEN
    + " ON CONFLICT (game_id) DO UPDATE SET rev = excluded.rev, name = excluded.name,"
    " state = excluded.state, seats = excluded.seats, info = excluded.info,"
    " updated = excluded.updated WHERE directory.hub_id = excluded.hub_id"
)
#: each notice of an array on a channel, in order (then the hub's id: sent only while
#: its lease is open)
_NOTIFY_ALL = (
    "SELECT pg_notify(CAST(? AS TEXT), t.text) FROM unnest(CAST(? AS TEXT[]))"
    " WITH ORDINALITY AS t(text, n) WHERE " + _LEASE_OPEN + " ORDER BY t.n"
)


def _directory_values(row: Mapping[str, Any]) -> tuple[str, ...]:
    """A row's columns for :data:`_UPSERT_ROWS` (id, revision, type, name, state,
    seats, info), as text."""
    return (
        str(row["id"]),
        str(int(row["rev"])),
        str(row["type"])[:64],
        str(row["name"])[:256],
        str(row["state"])[:16],
        json.dumps(row["seats"], default=str),
        json.dumps(row["info"], default=str),
    )


def _endpoints(advertised: dict[str, Any]) -> dict[str, Any]:
    """A member row's ``endpoints`` (its front ends) and ``handoff`` (where a door on
    the same machine hands connections over: :mod:`hub.cluster.handoff`, or ``None``),
    kept in one column."""
    handoff = advertised.pop(HANDOFF, None)
    return {"endpoints": advertised, "handoff": handoff if isinstance(handoff, dict) else None}


def write_notices(hub_id: str, gone: Sequence[str], rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The ``rows`` notices of a directory write (the module's docstring): the removals
    ``gone``, then the ``rows``, in as few notices of at most :data:`MAX_NOTICE` bytes
    as hold them; a row too large for a notice of its own is named in ``read``."""
    head = notice("rows", hub_id)[:-1]  # '{"op":"rows","hub":"…"' (ASCII: a byte a character)
    pieces = [("del", json.dumps(str(game_id))) for game_id in gone]
    for row in rows:
        text = json.dumps(dict(row), separators=(",", ":"), default=str)
        if len(head) + len(text) + 12 > MAX_NOTICE:
            text = json.dumps(str(row["id"]))
            pieces.append(("read", text))
        else:
            pieces.append(("put", text))
    out: list[str] = []
    parts: dict[str, list[str]] = {}
    size = len(head) + 1
    for part, text in pieces:
        more = len(text) + 1 + (0 if part in parts else len(part) + 6)
        if parts and size + more > MAX_NOTICE:
            out.append(_joined(head, parts))
            parts, size = {}, len(head) + 1
            more = len(text) + 1 + len(part) + 6
        parts.setdefault(part, []).append(text)
        size += more
    if parts:
        out.append(_joined(head, parts))
    return out


def _joined(head: str, parts: dict[str, list[str]]) -> str:
    return head + "".join(f',"{part}":[{",".join(texts)}]' for part, texts in parts.items()) + "}"


class ClusterMixin(StoreBase):
    """The ``hubs`` and ``directory`` tables (PostgreSQL)."""

    #: the channel of this database's cluster, once :meth:`cluster_channel` read it
    channel = ""

    @property
    def clustered(self) -> bool:
        """Whether hubs on this store may be a cluster (PostgreSQL)."""
        return self.dialect.name == "postgresql"

    def _notify(self, cur: _Cursor, text: str) -> None:
        if self.channel and self.clustered:
            cur.run("SELECT pg_notify(?, ?)", self.channel, text)

    def cluster_channel(self) -> defer.Deferred[str]:
        """The channel the hubs of this database announce their changes on."""

        def txn(cur: _Cursor) -> str:
            return channel_name(str(cur.one("SELECT current_schema()")[0]))

        def keep(name: str) -> str:
            self.channel = name
            return name

        return self._run(txn, write=False).addCallback(keep)

    def cluster_secret(self) -> defer.Deferred[str]:
        """The cluster's shared secret (:mod:`hub.cluster.credential`), made by the first
        hub that asks (``secrets``, 256 bits); never logged."""
        fresh = secrets.token_hex(32)

        def txn(cur: _Cursor) -> str:
            cur.run(
                "INSERT INTO cluster_secret (id, secret) VALUES (1, ?) ON CONFLICT DO NOTHING",
                fresh,
            )
            return str(cur.one("SELECT secret FROM cluster_secret WHERE id = 1")[0])

        return self._run(txn)

    # -- members ---------------------------------------------------------------------

    def cluster_join(
        self, endpoints: Mapping[str, Any], load: Mapping[str, Any]
    ) -> defer.Deferred[None]:
        """Write this hub's member row (needs the hub's lease) and announce it."""
        hub_id, now = self.hub_id, self._now()
        if hub_id is None:
            return defer.fail(RuntimeError("only a hub (with a lease) joins a cluster"))

        def txn(cur: _Cursor) -> None:
            d = self.dialect
            cur.run(
                "INSERT INTO hubs (hub_id, endpoints, load, started, heartbeat)"
                " VALUES (?, ?, ?, ?, ?)",
                hub_id,
                json.dumps(dict(endpoints)),
                json.dumps(dict(load)),
                d.t_in(now),
                d.t_in(now),
            )
            self._notify(cur, notice("hub", hub_id))

        return self._run(txn)

    def cluster_advertise(self, endpoints: Mapping[str, Any]) -> defer.Deferred[None]:
        """Change the front ends this hub advertises."""
        hub_id = self.hub_id

        def txn(cur: _Cursor) -> None:
            cur.run(
                "UPDATE hubs SET endpoints = ? WHERE hub_id = ?",
                json.dumps(dict(endpoints)),
                hub_id,
            )
            self._notify(cur, notice("hub", str(hub_id)))

        return self._run(txn)

    def load_step(self, load: Mapping[str, Any]) -> Any:
        """A heartbeat step (:meth:`hub.store.lease.LeaseMixin.on_beat`) that writes
        ``load`` and the heartbeat into this hub's member row."""
        text, hub_id = json.dumps(dict(load)), self.hub_id

        def step(cur: _Cursor, now: float) -> None:
            cur.run(
                "UPDATE hubs SET load = ?, heartbeat = ? WHERE hub_id = ?",
                text,
                self.dialect.t_in(now),
                hub_id,
            )

        return step

    def cluster_leave(self) -> defer.Deferred[None]:
        """This hub stops: its games leave the directory, its member row is ended."""
        hub_id, now = self.hub_id, self._now()

        def txn(cur: _Cursor) -> None:
            cur.run("DELETE FROM directory WHERE hub_id = ?", hub_id)
            cur.run("UPDATE hubs SET ended = ? WHERE hub_id = ?", self.dialect.t_in(now), hub_id)
            self._notify(cur, notice("hub", str(hub_id)))

        return self._run(txn)

    def cluster_members(
        self, keep_ended: float = 3600.0
    ) -> defer.Deferred[tuple[list[dict[str, Any]], int]]:
        """The member rows of hubs alive and of hubs ended in the last ``keep_ended``
        seconds, oldest first (``hub_id``, ``endpoints``, ``load``, ``started``,
        ``heartbeat``, ``ended``, ``live``, ``host``, ``pid``, ``games``); and how many
        open leases (of any hub) are not alive any more: recovery's work.  A hub's
        store judges with its evidence window (:mod:`hub.store.liveness`) and counts
        the read as an observation of the database (:attr:`continuity`)."""
        now, window = self._now(), self._window()

        def txn(cur: _Cursor) -> tuple[list[dict[str, Any]], int, float | None]:
            d = self.dialect
            live = self._live_hubs(cur, window)
            dead = sum(
                1
                for r in cur.all("SELECT hub_id FROM hub_lease WHERE ended IS NULL")
                if r[0] not in live
            )
            games = {
                r[0]: int(r[1])
                for r in cur.all("SELECT hub_id, COUNT(*) FROM directory GROUP BY hub_id")
            }
            rows = cur.all(
                "SELECT h.hub_id, h.endpoints, h.load, h.started, h.heartbeat, h.ended,"
                " l.host, l.pid FROM hubs h LEFT JOIN hub_lease l ON l.hub_id = h.hub_id"
                " WHERE h.ended IS NULL OR h.ended > ? ORDER BY h.started, h.hub_id",
                d.t_in(now - keep_ended),
            )
            members = [
                {
                    "hub_id": r[0],
                    **_endpoints(json.loads(r[1])),
                    "load": json.loads(r[2]),
                    "started": d.t_out(r[3]),
                    "heartbeat": d.t_out(r[4]),
                    "ended": d.t_out(r[5]),
                    "live": r[0] in live and r[5] is None,
                    "host": r[6],
                    "pid": None if r[7] is None else int(r[7]),
                    "games": games.get(r[0], 0),
                }
                for r in rows
            ]
            return members, dead, d.server_started(cur.txn)

        def observed(
            result: tuple[list[dict[str, Any]], int, float | None],
        ) -> tuple[list[dict[str, Any]], int]:
            members, dead, started = result
            if self.hub_id is not None:
                self.continuity.observe(started)
            return members, dead

        return self._run(txn, write=False).addCallback(observed)

    def abort_hubs(self, cur: _Cursor, hubs: list[str], now: float) -> dict[str, int]:
        """(A recovery step, :meth:`hub.store.lease.LeaseMixin.on_recovery`.)  The
        games of the dead ``hubs`` read ``aborted`` in the directory, their member rows
        are ended, and every hub is told.  Returns hub id → games aborted."""
        d, aborted = self.dialect, {}
        for hub_id in hubs:
            cur.run(
                "UPDATE directory SET state = ?, rev = rev + 1, updated = ?"
                " WHERE hub_id = ? AND state <> ?",
                ABORTED,
                d.t_in(now),
                hub_id,
                ABORTED,
            )
            aborted[hub_id] = max(0, int(cur.txn.rowcount))
            cur.run(
                "UPDATE hubs SET ended = ? WHERE hub_id = ? AND ended IS NULL", d.t_in(now), hub_id
            )
            self._notify(cur, notice("hub", hub_id))
        return aborted

    def abort_orphans(self) -> defer.Deferred[dict[str, int]]:
        """Abort the directory's games of hubs whose lease was ended without it (by a
        recovery that ran before this hub joined, as at a hub's start).  Returns hub id
        → games aborted."""
        now = self._now()

        def txn(cur: _Cursor) -> dict[str, int]:
            hubs = [
                r[0]
                for r in cur.all(
                    "SELECT DISTINCT d.hub_id FROM directory d WHERE d.state <> ? AND NOT"
                    " EXISTS (SELECT 1 FROM hub_lease l WHERE l.hub_id = d.hub_id"
                    " AND l.ended IS NULL) ORDER BY d.hub_id",
                    ABORTED,
                )
            ]
            return self.abort_hubs(cur, hubs, now)

        return self._run(txn)

    # -- the directory ---------------------------------------------------------------

    def directory_write(
        self, puts: Iterable[Mapping[str, Any]], deletes: Iterable[str] = ()
    ) -> defer.Deferred[None]:
        """Write this hub's ``puts`` (rows as :func:`hub.cluster.remote.snapshot`
        makes them) and remove its games ``deletes``, announcing them (in order: the
        removals first; as few notices as hold them, :func:`write_notices`), in one
        transaction.  A row of a game id another hub has is
        left alone.  The removals, the rows and the notices are a statement each (the
        rows' columns passed as arrays: the same statements whatever their number,
        prepared once), sent in one message that is its own transaction: one round
        trip (a write a few times a second carries several games' changes).  The
        finished games waiting for the history ride along, last in the same message
        (see :meth:`~hub.store.history.HistoryMixin.record_game`): a busy hub writes
        a game's history with its directory changes, not in a message of its own."""
        rows, gone, hub_id, now = list(puts), list(deletes), str(self.hub_id), self._now()
        if not rows and not gone:
            return defer.succeed(None)
        riders = self._history_take()

        def txn(cur: _Cursor) -> list[Any]:
            statements: list[tuple[str, list[Any]]] = []
            if gone:
                statements.append((_DELETE_ROWS, [hub_id, gone, hub_id]))
            if rows:
                columns = [_directory_values(row) for row in rows]
                arrays = [list(column) for column in zip(*columns, strict=True)]
                statements.append((_UPSERT_ROWS, [hub_id, self.dialect.t_in(now), *arrays, hub_id]))
            if self.channel and self.clustered:
                notices = write_notices(hub_id, gone, rows)
                statements.append((_NOTIFY_ALL, [self.channel, notices, hub_id]))
            return cur.batch(statements + self._history_statements(riders), alone=True)

        d = self._run(txn)
        if riders:
            d.addBoth(self._history_sent, riders)
        return d.addCallback(lambda _: None)

    def directory_sync(self, rows: Iterable[Mapping[str, Any]]) -> defer.Deferred[None]:
        """This hub's games are ``rows`` and nothing else (after an outage, at start)."""
        keep, hub_id = list(rows), str(self.hub_id)

        def txn(cur: _Cursor) -> list[str]:
            ids = {str(r["id"]) for r in keep}
            return [
                r[0]
                for r in cur.all("SELECT game_id FROM directory WHERE hub_id = ?", hub_id)
                if r[0] not in ids
            ]

        d = self._run(txn, write=False)
        d.addCallback(lambda stale: self.directory_write(keep, stale))
        return d

    def directory_rows(
        self, hubs: Iterable[str] | None = None, games: Iterable[str] | None = None
    ) -> defer.Deferred[list[dict[str, Any]]]:
        """Directory rows: every one, or those of ``hubs``, or of ``games``."""
        hub_ids = None if hubs is None else sorted(set(hubs))
        game_ids = None if games is None else sorted(set(games))

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            query, params = f"SELECT {_COLUMNS} FROM directory", list[str]()
            for column, values in (("hub_id", hub_ids), ("game_id", game_ids)):
                if values is not None:
                    if not values:
                        return []
                    query += " WHERE " if not params else " AND "
                    query += f"{column} IN ({', '.join('?' for _ in values)})"
                    params.extend(values)
            return [_row(self.dialect, r) for r in cur.all(query + " ORDER BY game_id", *params)]

        return self._run(txn, write=False)

    def directory_recent(self, age: float) -> defer.Deferred[list[dict[str, Any]]]:
        """The other hubs' directory rows written in the last ``age`` seconds (a
        lookup of a game this hub has not heard of yet, :mod:`hub.cluster.lookup`)."""
        since, hub_id = self._now() - age, str(self.hub_id)

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            rows = cur.all(
                f"SELECT {_COLUMNS} FROM directory WHERE hub_id <> ? AND updated > ?"
                " ORDER BY game_id",
                hub_id,
                self.dialect.t_in(since),
            )
            return [_row(self.dialect, r) for r in rows]

        return self._run(txn, write=False)

    def directory_purge(self, older_than: float) -> defer.Deferred[int]:
        """Remove the games of dead hubs aborted more than ``older_than`` seconds ago.
        Returns how many went."""
        now = self._now()

        def txn(cur: _Cursor) -> int:
            d = self.dialect
            hubs = [
                r[0]
                for r in cur.all(
                    "SELECT DISTINCT hub_id FROM directory WHERE state = ? AND updated < ?",
                    ABORTED,
                    d.t_in(now - older_than),
                )
            ]
            count = 0
            for hub_id in hubs:
                cur.run(
                    "DELETE FROM directory WHERE hub_id = ? AND state = ? AND updated < ?",
                    hub_id,
                    ABORTED,
                    d.t_in(now - older_than),
                )
                count += max(0, int(cur.txn.rowcount))
                self._notify(cur, notice("hub", hub_id))
            return count

        return self._run(txn)
