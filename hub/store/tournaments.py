"""Tournaments in the store: ``tournament`` (one row each, its settings as JSON),
``tournament_entry`` (its entrants in registration order) and ``tournament_game``
(its games by round and board, with each entrant's points once over).

:meth:`TournamentsMixin.save_tournament` writes a whole tournament in one transaction
(its entries and games are few and bounded: see ``tournament_max_entrants``), so what
a restart reads back is always one consistent moment of it.

On a cluster (issue 31) each tournament names the hub that runs it (``owner_hub``,
:mod:`hub.tournaments.cluster`): a save names its hub and is refused
(:class:`~hub.store.errors.NotOwner`) when another hub owns the row; any hub may add
an entry (:meth:`TournamentsMixin.tournament_enter`, the row locked, so an entry and
the start that closes registration never cross); a tournament whose hub's lease has
ended, or that its hub let go, is adopted once (:meth:`TournamentsMixin.tournament_adopt`);
every change is announced on the cluster's channel (``{"op": "tournament", "hub": H,
"id": T}``).  Entries are only ever added: a save writes those it has and leaves the
others, so a save of an older view never drops an entry another hub wrote.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from twisted.internet import defer

from .base import _Cursor
from .cluster import ClusterMixin, notice
from .errors import NotOwner, TournamentRefused

#: the states of a tournament under way (``hub.tournaments.model``), which a hub adopts
_ACTIVE = ("registering", "running")
_ENTRY_COLUMNS = "entry_id, name, kind, frontend, bot, entry_key"
_GAME_COLUMNS = "round, board, entries, game_id, state, points, absent"


class TournamentsMixin(ClusterMixin):
    """Save, load and delete tournaments (plain dicts, see :meth:`save_tournament`)."""

    def save_tournament(self, data: Mapping[str, Any]) -> defer.Deferred[None]:
        """Write tournament ``data`` (``id``, ``name``, ``game_type``, ``format``,
        ``state``, ``round``, ``settings`` dict, ``created``, ``finished``, ``entries``:
        dicts of ``id``, ``name``, ``kind``, ``frontend``, ``bot``, ``key``; ``games``: dicts of
        ``round``, ``board``, ``entries``, ``game_id``, ``state``, ``points``, ``absent``)
        in place of what was stored under its id.  ``owner``: the hub that runs it
        (``None`` on a single hub); a row another hub owns is left as it is
        (:class:`~hub.store.errors.NotOwner`).  Entries are added or rewritten, never
        removed (another hub may have added one this record does not have yet)."""
        d = self.dialect
        owner = data.get("owner")

        def txn(cur: _Cursor) -> None:
            tid = data["id"]
            if owner is not None:
                row = cur.one("SELECT owner_hub FROM tournament WHERE id = ?" + d.for_update, tid)
                if row is not None and row[0] != owner:
                    raise NotOwner(f"tournament {tid} is run by hub {row[0] or '(none yet)'}")
            finished = data.get("finished")
            row = (
                data["name"],
                data["game_type"],
                data["format"],
                data["state"],
                int(data["round"]),
                json.dumps(data.get("settings") or {}, sort_keys=True),
                d.t_in(float(data["created"])),
                None if finished is None else d.t_in(float(finished)),
                owner,
                tid,
            )
            cur.run(
                "UPDATE tournament SET name = ?, game_type = ?, format = ?, state = ?,"
                " round = ?, settings = ?, created = ?, finished = ?, owner_hub = ?"
                " WHERE id = ?",
                *row,
            )
            if cur.txn.rowcount == 0:
                cur.run(
                    "INSERT INTO tournament (name, game_type, format, state, round, settings,"
                    " created, finished, owner_hub, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    *row,
                )
            for seq, e in enumerate(data.get("entries") or ()):
                cur.run(
                    "DELETE FROM tournament_entry WHERE tournament_id = ? AND entry_id = ?",
                    tid, e["id"],
                )  # fmt: skip
                cur.run(
                    "INSERT INTO tournament_entry (tournament_id, entry_id, seq, name, kind,"
                    " frontend, bot, entry_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    tid, e["id"], seq, e["name"], e["kind"], e["frontend"], e.get("bot"),
                    e.get("key") or "",
                )  # fmt: skip
            cur.run("DELETE FROM tournament_game WHERE tournament_id = ?", tid)
            for g in data.get("games") or ():
                cur.run(
                    "INSERT INTO tournament_game (tournament_id, round, board, entries,"
                    " game_id, state, points, absent) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    tid, int(g["round"]), int(g["board"]), json.dumps(list(g["entries"])),
                    g.get("game_id"), g["state"], _json(g.get("points")), _json(g.get("absent")),
                )  # fmt: skip
            self._announce(cur, tid)

        return self._run(txn)

    def _announce(self, cur: _Cursor, tournament_id: str) -> None:
        """(On a cluster.)  Tell every hub that ``tournament_id`` changed."""
        self._notify(cur, notice("tournament", str(self.hub_id), id=tournament_id))

    def load_tournaments(
        self, ids: list[str] | None = None, limit: int | None = None
    ) -> defer.Deferred[list[dict[str, Any]]]:
        """Every stored tournament (those of ``ids`` only, when given; at most the
        ``limit`` newest, when given), oldest first, as :meth:`save_tournament` takes
        it."""
        wanted = None if ids is None else set(ids)

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            rows = cur.all(
                "SELECT id, name, game_type, format, state, round, settings, created, finished,"
                " owner_hub FROM tournament ORDER BY created DESC, id DESC"
            )
            rows = [r for r in rows if wanted is None or r[0] in wanted][:limit]
            return [self._tournament(cur, r) for r in reversed(rows)]

        return self._run(txn, write=False)

    def _tournament(self, cur: _Cursor, r: Any) -> dict[str, Any]:
        """A tournament's row ``r`` with its entries and games, as a record."""
        tid = r[0]
        entries = [
            {"id": e[0], "name": e[1], "kind": e[2], "frontend": e[3], "bot": e[4], "key": e[5]}
            for e in cur.all(
                f"SELECT {_ENTRY_COLUMNS} FROM tournament_entry WHERE tournament_id = ?"
                " ORDER BY seq",
                tid,
            )
        ]
        games = [
            {
                "round": int(g[0]),
                "board": int(g[1]),
                "entries": json.loads(g[2]),
                "game_id": g[3],
                "state": g[4],
                "points": None if g[5] is None else json.loads(g[5]),
                "absent": None if g[6] is None else json.loads(g[6]),
            }
            for g in cur.all(
                f"SELECT {_GAME_COLUMNS} FROM tournament_game WHERE tournament_id = ?"
                " ORDER BY round, board",
                tid,
            )
        ]
        return {
            "id": tid,
            "name": r[1],
            "game_type": r[2],
            "format": r[3],
            "state": r[4],
            "round": int(r[5]),
            "settings": json.loads(r[6]),
            "created": self.dialect.t_out(r[7]),
            "finished": self.dialect.t_out(r[8]),
            "entries": entries,
            "games": games,
            "owner": r[9],
        }

    # -- a cluster's tournaments (hub.tournaments.cluster) ------------------------------

    def tournament_enter(self, tournament_id: str, entry: dict[str, Any]) -> defer.Deferred[str]:
        """Add ``entry`` (``name``, ``kind``, ``frontend``, ``bot``, ``key``) to the
        stored tournament, whichever hub runs it: the row locked, it must be
        registering, not full (``settings.max_entrants``) and the name (without case)
        not taken.  Fires with the new entry's id (``e<n>``); every hub is told.

        :raises hub.store.errors.TournamentRefused: not open, full, or the name taken.
        """
        d = self.dialect

        def txn(cur: _Cursor) -> str:
            row = cur.one(
                "SELECT state, settings FROM tournament WHERE id = ?" + d.for_update,
                tournament_id,
            )
            if row is None or row[0] != "registering":
                raise TournamentRefused(f"tournament {tournament_id} is not open for registration")
            names = [
                str(n).casefold()
                for (n,) in cur.all(
                    "SELECT name FROM tournament_entry WHERE tournament_id = ?", tournament_id
                )
            ]
            if len(names) >= int(json.loads(row[1]).get("max_entrants") or 0):
                raise TournamentRefused(f"tournament {tournament_id} is full")
            if str(entry["name"]).casefold() in names:
                raise TournamentRefused(f"{entry['name']} is registered already")
            entry_id = f"e{len(names) + 1}"
            cur.run(
                "INSERT INTO tournament_entry (tournament_id, entry_id, seq, name, kind,"
                " frontend, bot, entry_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                tournament_id, entry_id, len(names), entry["name"], entry["kind"],
                entry["frontend"], entry.get("bot"), entry.get("key") or "",
            )  # fmt: skip
            self._announce(cur, tournament_id)
            return entry_id

        return self._run(txn)

    def tournament_close(self, tournament_id: str, owner: str) -> defer.Deferred[dict[str, Any]]:
        """(The owner, starting it.)  Close registration: the row locked and marked
        ``running``, so no other hub adds an entry from now on; fires with the stored
        record (every entry any hub added).

        :raises hub.store.errors.NotOwner: another hub runs it.
        :raises hub.store.errors.TournamentRefused: it is not registering any more.
        """
        d = self.dialect

        def txn(cur: _Cursor) -> dict[str, Any]:
            row = cur.one(
                "SELECT id, name, game_type, format, state, round, settings, created, finished,"
                " owner_hub FROM tournament WHERE id = ?" + d.for_update,
                tournament_id,
            )
            if row is None or row[9] != owner:
                raise NotOwner(f"tournament {tournament_id} is not run by hub {owner}")
            if row[4] != "registering":
                raise TournamentRefused(f"tournament {tournament_id} has started already")
            cur.run("UPDATE tournament SET state = 'running' WHERE id = ?", tournament_id)
            return self._tournament(cur, row)

        return self._run(txn)

    def tournament_adopt(self) -> defer.Deferred[list[str]]:
        """Make this hub the owner of every tournament under way whose hub's lease has
        ended (stopped, drained and stopped, killed and recovered) or that its hub let
        go (:meth:`tournament_release`): once each, however many hubs adopt at once
        (each row is taken only from the owner read).  Fires with their ids; every hub
        is told."""
        me = str(self.hub_id)

        def txn(cur: _Cursor) -> list[str]:
            found = cur.all(
                "SELECT t.id, t.owner_hub FROM tournament t WHERE t.state IN (?, ?)"
                " AND (t.owner_hub IS NULL OR (t.owner_hub <> ? AND NOT EXISTS"
                " (SELECT 1 FROM hub_lease l WHERE l.hub_id = t.owner_hub AND l.ended IS NULL)))"
                " ORDER BY t.id",
                *_ACTIVE,
                me,
            )
            taken = []
            for tid, old in found:
                if old is None:
                    cur.run(
                        "UPDATE tournament SET owner_hub = ? WHERE id = ? AND owner_hub IS NULL",
                        me,
                        tid,
                    )
                else:
                    cur.run(
                        "UPDATE tournament SET owner_hub = ? WHERE id = ? AND owner_hub = ?",
                        me,
                        tid,
                        old,
                    )
                if cur.txn.rowcount:
                    taken.append(str(tid))
                    self._announce(cur, str(tid))
            return taken

        return self._run(txn)

    def tournament_release(self, owner: str) -> defer.Deferred[list[str]]:
        """(A hub that stops.)  Let go of the tournaments under way that ``owner``
        runs: the next live hub adopts them at once.  Fires with their ids."""

        def txn(cur: _Cursor) -> list[str]:
            ids = [
                str(r[0])
                for r in cur.all(
                    "SELECT id FROM tournament WHERE owner_hub = ? AND state IN (?, ?)",
                    owner,
                    *_ACTIVE,
                )
            ]
            for tid in ids:
                cur.run(
                    "UPDATE tournament SET owner_hub = NULL WHERE id = ? AND owner_hub = ?",
                    tid,
                    owner,
                )
                self._announce(cur, tid)
            return ids

        return self._run(txn)

    def tournament_ask(self, tournament_id: str) -> defer.Deferred[None]:
        """Ask the hub that runs ``tournament_id`` to start it (a start asked for at
        another hub's door): the notice ``{"op": "tournament", "hub": this hub, "id":
        T, "start": true}``."""

        def txn(cur: _Cursor) -> None:
            self._notify(cur, notice("tournament", str(self.hub_id), id=tournament_id, start=True))

        return self._run(txn)

    def game_fates(self, games: list[str]) -> defer.Deferred[dict[str, Any]]:
        """Where each of ``games`` is, for a tournament whose hub does not run it
        (it moved, or ran on a hub that stopped or died): ``("over", type, result)``
        once its history is written (``result``: the game's ``result()``), ``"live"``
        while a hub runs it or its journal waits for one (or its directory row lists
        it, not aborted), else ``"lost"``.  A game that ended is written to the history
        before its journal goes, so a game is never lost between the two."""

        def txn(cur: _Cursor) -> dict[str, Any]:
            out: dict[str, Any] = {}
            for game_id in games:
                row = cur.one("SELECT type, result FROM game WHERE game_id = ?", game_id)
                if row is not None:
                    out[game_id] = ("over", str(row[0]), json.loads(row[1] or "null"))
                elif cur.one("SELECT 1 FROM game_journal WHERE game_id = ?", game_id):
                    out[game_id] = "live"
                elif cur.one(
                    "SELECT 1 FROM directory WHERE game_id = ? AND state <> 'aborted'", game_id
                ):
                    out[game_id] = "live"
                else:
                    out[game_id] = "lost"
            return out

        return self._run(txn, write=False)

    def delete_tournament(self, tournament_id: str) -> defer.Deferred[None]:
        """Forget a tournament, its entries and games."""

        def txn(cur: _Cursor) -> None:
            for table, column in (
                ("tournament_game", "tournament_id"),
                ("tournament_entry", "tournament_id"),
                ("tournament", "id"),
            ):
                cur.run(f"DELETE FROM {table} WHERE {column} = ?", tournament_id)
            self._announce(cur, tournament_id)

        return self._run(txn)


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value)
