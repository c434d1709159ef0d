"""Ratings in the store: the ``rating`` table (each player's rating per pool) and the
``rated_result`` table (every rated game's ranking, in the order it was applied).

A rated game is applied in one transaction that takes the ratings' lock first (on
PostgreSQL ``LOCK TABLE rating``; SQLite has one writer at a time), so games are
numbered (``seq``) in the order their updates were computed, by every hub and command
sharing the database: :meth:`RatingsMixin.rebuild_ratings` replays them in that order
and computes the very same floats.
"""

from __future__ import annotations

from typing import Any

from twisted.internet import defer

from hub.rating import KINDS, Ladder, Placed, Player, RatedGame, Rating, Update, apply

from . import accounts as acc
from .base import StoreBase, _Cursor
from .errors import BadName


def _listed(table: str) -> str:
    """The rows of ``table`` a leaderboard or a history shows: bots, and accounts that
    still exist."""
    return (
        f"({table}.kind = 'bot' OR EXISTS (SELECT 1 FROM account a"
        f" WHERE a.name_key = {table}.name_key))"
    )


class RatingsMixin(StoreBase):
    """Rated games, leaderboards, histories and the rebuild."""

    def _lock_ratings(self, cur: _Cursor) -> None:
        if self.dialect.name == "postgresql":
            cur.run("LOCK TABLE rating IN EXCLUSIVE MODE")

    def rate_game(self, game: RatedGame) -> defer.Deferred[list[Update]]:
        """Apply one finished game to its pool's ratings and keep its ranking.

        Seats of kind ``account`` count only when the store has that account (under its
        own spelling of the name): a guest or an unknown name is left out.  With fewer
        than two players left, or one player in several seats, the game is not rated.  Rating the same game id again
        changes nothing.

        :returns: (Deferred) the updates (empty: not rated now).
        """
        try:
            _check(game)
        except Exception as e:
            return defer.fail(e)

        def txn(cur: _Cursor) -> list[Update]:
            self._lock_ratings(cur)
            if cur.one("SELECT 1 FROM rated_result WHERE game_id = ?", game.game_id):
                return []
            placed = []
            for p in game.placed:
                if p.player.kind == "account":
                    row = cur.one(
                        "SELECT name FROM account WHERE name_key = ?", acc.name_key(p.player.name)
                    )
                    if row is None:
                        continue
                    p = Placed(p.seat, Player("account", row[0]), p.rank)
                placed.append(p)
            if len(placed) < 2 or len({p.player.key for p in placed}) < len(placed):
                return []  # one player in several seats (a bot against itself): no ranking
            rated = RatedGame(game.game_id, game.pool, game.finished, tuple(placed), game.source)
            current = {p.player.key: self._rating(cur, game.pool, p.player) for p in placed}
            updates = apply({k: r for k, r in current.items() if r is not None}, rated)
            row = cur.one("SELECT MAX(seq) FROM rated_result")
            seq = 1 + (0 if row is None or row[0] is None else int(row[0]))
            self._write(cur, seq, rated, updates)
            return updates

        return self._retry_integrity(txn)

    def _rating(self, cur: _Cursor, pool: tuple[str, str], player: Player) -> Rating | None:
        row = cur.one(
            "SELECT mu, sigma, games FROM rating WHERE game_type = ? AND variant = ?"
            " AND kind = ? AND name_key = ?",
            *pool,
            *player.key,
        )
        return None if row is None else Rating(float(row[0]), float(row[1]), int(row[2]))

    def _write(self, cur: _Cursor, seq: int, game: RatedGame, updates: list[Update]) -> None:
        d = self.dialect
        for u in updates:
            cur.run(
                "INSERT INTO rated_result (seq, game_id, game_type, variant, finished, source,"
                " seat, kind, name, name_key, rank, mu_before, sigma_before, mu_after,"
                " sigma_after) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                seq,
                game.game_id,
                *game.pool,
                d.t_in(game.finished),
                game.source,
                u.seat,
                u.player.kind,
                u.player.name,
                u.player.key[1],
                u.rank,
                u.before.mu,
                u.before.sigma,
                u.after.mu,
                u.after.sigma,
            )
            self._put_rating(cur, game.pool, u.player, u.after, game.finished)

    def _put_rating(
        self, cur: _Cursor, pool: tuple[str, str], player: Player, r: Rating, at: float
    ) -> None:
        params = (r.mu, r.sigma, r.games, player.name, self.dialect.t_in(at), *pool, *player.key)
        cur.run(
            "UPDATE rating SET mu = ?, sigma = ?, games = ?, name = ?, updated = ?"
            " WHERE game_type = ? AND variant = ? AND kind = ? AND name_key = ?",
            *params,
        )
        if cur.txn.rowcount == 0:
            cur.run(
                "INSERT INTO rating (mu, sigma, games, name, updated, game_type, variant, kind,"
                " name_key) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                *params,
            )

    def leaderboard(
        self, game_type: str, variant: str = "", limit: int = 100
    ) -> defer.Deferred[list[dict[str, Any]]]:
        """A pool's players, best first (by ordinal ``mu - 3 sigma``): ``name``,
        ``kind``, ``mu``, ``sigma``, ``ordinal``, ``games``, ``updated``.  Bots, and
        accounts that still exist (a deleted account is listed no more)."""

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            rows = cur.all(
                "SELECT kind, name, mu, sigma, games, updated FROM rating"
                " WHERE game_type = ? AND variant = ? AND " + _listed("rating"),
                game_type,
                variant,
            )
            out = []
            for kind, name, mu, sigma, games, updated in rows:
                r = Rating(float(mu), float(sigma), int(games))
                out.append(
                    {
                        "name": name,
                        "kind": kind,
                        "mu": r.mu,
                        "sigma": r.sigma,
                        "ordinal": r.ordinal,
                        "games": r.games,
                        "updated": self.dialect.t_out(updated),
                    }
                )
            out.sort(key=lambda e: (-e["ordinal"], e["kind"], e["name"].casefold()))
            return out[: max(0, int(limit))]

        return self._run(txn, write=False)

    def rating_pools(self) -> defer.Deferred[list[dict[str, Any]]]:
        """Every pool with ratings: ``type``, ``variant``, ``players``, by type."""

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            rows = cur.all(
                "SELECT game_type, variant, COUNT(*) FROM rating GROUP BY game_type, variant"
                " ORDER BY game_type, variant"
            )
            return [{"type": r[0], "variant": r[1], "players": int(r[2])} for r in rows]

        return self._run(txn, write=False)

    def rating_history(
        self,
        game_type: str,
        variant: str = "",
        player: Player | None = None,
        limit: int = 2000,
    ) -> defer.Deferred[list[dict[str, Any]]]:
        """The rating after each rated game of a pool (of one player), oldest first:
        ``seq``, ``game_id``, ``finished``, ``name``, ``kind``, ``rank``, ``mu``,
        ``sigma``, ``ordinal``; at most the last ``limit`` rows (bots, and accounts
        that still exist)."""

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            query = (
                "SELECT seq, game_id, finished, kind, name, rank, mu_after, sigma_after"
                " FROM rated_result WHERE game_type = ? AND variant = ? AND "
                + _listed("rated_result")
            )
            params: list[Any] = [game_type, variant]
            if player is not None:
                query += " AND kind = ? AND name_key = ?"
                params.extend(player.key)
            query += " ORDER BY seq DESC, seat DESC LIMIT ?"
            params.append(max(0, int(limit)))
            rows = cur.all(query, *params)
            rows.reverse()
            return [
                {
                    "seq": int(r[0]),
                    "game_id": r[1],
                    "finished": self.dialect.t_out(r[2]),
                    "kind": r[3],
                    "name": r[4],
                    "rank": int(r[5]),
                    "mu": float(r[6]),
                    "sigma": float(r[7]),
                    "ordinal": float(r[6]) - 3 * float(r[7]),
                }
                for r in rows
            ]

        return self._run(txn, write=False)

    def rebuild_ratings(self, write: bool = True) -> defer.Deferred[dict[str, Any]]:
        """Recompute every rating from the stored rankings, in their order, and compare
        with what the live updates stored.  ``write``: store the recomputed values (the
        rating table anew); otherwise only compare.

        :returns: (Deferred) ``games``, ``players`` and ``differences`` (one line for
            each stored value the recomputation does not equal exactly).
        """

        def txn(cur: _Cursor) -> dict[str, Any]:
            self._lock_ratings(cur)
            games, stored_after = self._rated_games(cur)
            ladder = Ladder()
            differences: list[str] = []
            computed: list[tuple[int, RatedGame, list[Update]]] = []
            for seq, game in games:
                updates = ladder.add(game)
                computed.append((seq, game, updates))
                for u in updates:
                    if stored_after[(seq, u.seat)] != (u.after.mu, u.after.sigma):
                        differences.append(f"game {game.game_id} seat {u.seat} ({u.player.name})")
            stored = {
                (r[0], r[1], r[2], r[3]): (float(r[4]), float(r[5]), int(r[6]))
                for r in cur.all(
                    "SELECT game_type, variant, kind, name_key, mu, sigma, games FROM rating"
                )
            }
            fresh = {
                (*pool, *key): (r.mu, r.sigma, r.games)
                for pool, table in ladder.pools.items()
                for key, r in table.items()
            }
            for key in sorted(set(stored) | set(fresh)):
                if stored.get(key) != fresh.get(key):
                    differences.append(f"rating of {key[2]} {key[3]} in {key[0]} {key[1]!r}")
            if write:
                cur.run("DELETE FROM rating")
                cur.run("DELETE FROM rated_result")
                for seq, game, updates in computed:
                    self._write(cur, seq, game, updates)
            return {"games": len(games), "players": len(fresh), "differences": differences}

        return self._run(txn)

    def _rated_games(
        self, cur: _Cursor
    ) -> tuple[list[tuple[int, RatedGame]], dict[tuple[int, int], tuple[float, float]]]:
        rows = cur.all(
            "SELECT seq, game_id, game_type, variant, finished, source, seat, kind, name, rank,"
            " mu_after, sigma_after FROM rated_result ORDER BY seq, seat"
        )
        games: list[tuple[int, RatedGame]] = []
        after: dict[tuple[int, int], tuple[float, float]] = {}
        by_seq: dict[int, list[Any]] = {}
        for r in rows:
            by_seq.setdefault(int(r[0]), []).append(r)
            after[(int(r[0]), int(r[6]))] = (float(r[10]), float(r[11]))
        for seq, seats in by_seq.items():
            first = seats[0]
            placed = tuple(Placed(int(s[6]), Player(s[7], s[8]), int(s[9])) for s in seats)
            finished = self.dialect.t_out(first[4]) or 0.0
            games.append(
                (seq, RatedGame(first[1], (first[2], first[3]), finished, placed, first[5]))
            )
        return games, after


def _check(game: RatedGame) -> None:
    if not isinstance(game.game_id, str) or not 0 < len(game.game_id) <= 64:
        raise BadName("a rated game needs a game id of 1 to 64 characters")
    if not all(isinstance(part, str) and len(part) <= 64 for part in game.pool):
        raise BadName("a rating pool is a game type and a variant key of up to 64 characters")
    for p in game.placed:
        if p.player.kind not in KINDS:
            raise BadName(f"players are rated as {' or '.join(KINDS)}, not {p.player.kind!r}")
        if not isinstance(p.player.name, str) or not 0 < len(p.player.name) <= 256:
            raise BadName("a rated player's name has 1 to 256 characters")
