"""Tournaments in the store: ``tournament`` (one row each, its settings as JSON),
``tournament_entry`` (its entrants in registration order) and ``tournament_game``
(its games by round and board, with each entrant's points once over).

:meth:`TournamentsMixin.save_tournament` writes a whole tournament in one transaction
(its entries and games are few and bounded: see ``tournament_max_entrants``), so what
a restart reads back is always one consistent moment of it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from twisted.internet import defer

from .base import StoreBase, _Cursor


class TournamentsMixin(StoreBase):
    """Save, load and delete tournaments (plain dicts, see :meth:`save_tournament`)."""

    def save_tournament(self, data: Mapping[str, Any]) -> defer.Deferred[None]:
        """Write tournament ``data`` (``id``, ``name``, ``game_type``, ``format``,
        ``state``, ``round``, ``settings`` dict, ``created``, ``finished``, ``entries``:
        dicts of ``id``, ``name``, ``kind``, ``frontend``, ``bot``, ``key``; ``games``: dicts of
        ``round``, ``board``, ``entries``, ``game_id``, ``state``, ``points``, ``absent``)
        in place of what was stored under its id."""
        d = self.dialect

        def txn(cur: _Cursor) -> None:
            tid = data["id"]
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
                tid,
            )
            cur.run(
                "UPDATE tournament SET name = ?, game_type = ?, format = ?, state = ?,"
                " round = ?, settings = ?, created = ?, finished = ? WHERE id = ?",
                *row,
            )
            if cur.txn.rowcount == 0:
                cur.run(
                    "INSERT INTO tournament (name, game_type, format, state, round, settings,"
                    " created, finished, id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    *row,
                )
            cur.run("DELETE FROM tournament_entry WHERE tournament_id = ?", tid)
            for seq, e in enumerate(data.get("entries") or ()):
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

        return self._run(txn)

    def load_tournaments(self) -> defer.Deferred[list[dict[str, Any]]]:
        """Every stored tournament, oldest first, as :meth:`save_tournament` takes it."""
        d = self.dialect

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            out: list[dict[str, Any]] = []
            for r in cur.all(
                "SELECT id, name, game_type, format, state, round, settings, created, finished"
                " FROM tournament ORDER BY created, id"
            ):
                tid = r[0]
                entries = [
                    {
                        "id": e[0],
                        "name": e[1],
                        "kind": e[2],
                        "frontend": e[3],
                        "bot": e[4],
                        "key": e[5],
                    }
                    for e in cur.all(
                        "SELECT entry_id, name, kind, frontend, bot, entry_key"
                        " FROM tournament_entry"
                        " WHERE tournament_id = ? ORDER BY seq",
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
                        "SELECT round, board, entries, game_id, state, points, absent"
                        " FROM tournament_game WHERE tournament_id = ? ORDER BY round, board",
                        tid,
                    )
                ]
                out.append(
                    {
                        "id": tid,
                        "name": r[1],
                        "game_type": r[2],
                        "format": r[3],
                        "state": r[4],
                        "round": int(r[5]),
                        "settings": json.loads(r[6]),
                        "created": d.t_out(r[7]),
                        "finished": d.t_out(r[8]),
                        "entries": entries,
                        "games": games,
                    }
                )
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

        return self._run(txn)


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value)
