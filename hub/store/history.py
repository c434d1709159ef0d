"""History: finished games with per-seat results, and finished hands of chip games.

A hand is kept in the hub's words (who sat where, the chips each put in and won: what
the ledger check compares with the hand's settlement) and in the game's (its public
record and summary, each seat's private part, the sealed part for the operator), as
the game declares them (:class:`hub.model.HandSummary`).  History keeps names as text,
so it stays readable after an account is deleted.
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from twisted.internet import defer
from twisted.python.failure import Failure

from hub.model import JsonText

from . import accounts as acc
from .base import StoreBase, _Cursor
from .dialect import Dialect
from .errors import BadAmount, StoreUnavailable
from .money import amount as check_amount


class HistoryBacklog(StoreUnavailable):
    """A finished game refused: ``history_queue_max`` games already wait for the
    database (it has been away, or slower than the games, for a long while)."""


@dataclass
class _Finished:
    """A finished game waiting for the transaction that writes it.

    :ivar game: the ``game`` row's columns (id first); :ivar seats: its seats
        (:func:`_game_player`); :ivar replay: its replay as text.
    :ivar done: fires with whether it was stored now.
    """

    game: list[Any]
    seats: list[dict[str, Any]]
    replay: str | None
    done: defer.Deferred[bool] = field(default_factory=defer.Deferred)


#: a view's name: a plain lowercase SQL identifier
_VIEW_NAME = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")


class HistoryMixin(StoreBase):
    """Finished games and hands, and the queries over them."""

    def record_game(
        self,
        game_id: str,
        game_type: str,
        name: str,
        players: Iterable[Mapping[str, Any]],
        *,
        variant: str | None = None,
        started: float | None = None,
        finished: float | None = None,
        summary: str | None = None,
        result: Any = None,
        replay: Any = None,
    ) -> defer.Deferred[bool]:
        """Store a finished game.  ``players``: one mapping per seat with ``seat``,
        ``name``, and optionally ``kind`` (``human``/``bot``), ``score`` (JSON-able),
        ``winner`` (bool), ``net`` (money won or lost).  ``replay``: its replay, as
        :meth:`record_replay` stores it (in the same transaction).  Recording the same
        game id again changes nothing (a replay not stored yet is stored).

        Finished games are written together: a game waits at most
        :attr:`history_batch_seconds` (the setting) and is then written with every game
        waiting then (at most :attr:`history_batch_max`), in their order, one
        transaction at a time, or in a cluster sooner by the next directory write
        (:meth:`hub.store.cluster.ClusterMixin.directory_write`).  PostgreSQL takes
        them, seats (each with its account, found by name) and replays in two
        statements, one message; SQLite a statement at a time, one commit for them all
        (issue 36: a commit a game cost a busy hub's store).  While the database is
        away they wait (at most :attr:`history_queue_max`; past it a game is refused
        with :class:`HistoryBacklog`); a batch refused for another reason is written
        game by game, so one bad game fails alone.  :meth:`stop` writes those waiting.
        With ``history_batch_seconds`` 0 each game is a transaction of its own.

        :returns: (Deferred) ``True`` if stored now, ``False`` if it was stored before.
        """
        try:
            rows = [_game_player(p) for p in players]
            result_text = None if result is None else json.dumps(result, sort_keys=True)
            replay_text = None if replay is None else _replay_text(replay)
        except Exception as e:
            return defer.fail(e)
        finished = self._now() if finished is None else finished
        d = self.dialect
        game = [
            game_id,
            game_type,
            variant,
            name,
            None if started is None else d.t_in(started),
            d.t_in(finished),
            summary,
            result_text,
        ]
        entry = _Finished(game, rows, replay_text)
        if self.history_batch_seconds > 0:
            return self._history_queue(entry)

        def txn(cur: _Cursor) -> bool:
            return _record_one(cur, d, entry)

        return self._retry_integrity(txn)

    # -- finished games written together (PostgreSQL) --------------------------------

    def _history_queue(self, game: _Finished) -> defer.Deferred[bool]:
        """Let ``game`` wait for its message."""
        if len(self._history) >= self.history_queue_max:
            return defer.fail(
                HistoryBacklog(
                    f"game {game.game[0]} not kept: {len(self._history)} finished games"
                    f" already wait for the database (history_queue_max)"
                )
            )
        self._history.append(game)
        self._history_schedule()
        return game.done

    def _history_availability(self, up: bool) -> None:
        """The database is back: send the games that waited."""
        if up:
            self._history_schedule()

    def _history_schedule(self) -> None:
        """Send the games waiting: now when a message's worth wait, else once the
        oldest has waited :attr:`history_batch_seconds` (not while a message carrying
        games is under way, nor while the database is away)."""
        if not self._history or self._history_sending is not None or not self.available:
            return
        timer = self._history_timer
        if len(self._history) >= self.history_batch_max:
            if timer is not None and timer.active():
                timer.cancel()
            self._history_timer = self._reactor.callLater(0, self._history_flush)
        elif timer is None or not timer.active():
            self._history_timer = self._reactor.callLater(
                self.history_batch_seconds, self._history_flush
            )

    def _history_take(self) -> list[_Finished]:
        """The games waiting, oldest first (at most :attr:`history_batch_max`, no game
        id twice), for a message about to be sent; none while another message carries
        games or the database is away.  The caller sends them
        (:meth:`_history_statements`) and hands the outcome to :meth:`_history_sent`."""
        if not self._history or self._history_sending is not None or not self.available:
            return []
        taken: list[_Finished] = []
        ids: set[str] = set()
        while self._history and len(taken) < self.history_batch_max:
            if self._history[0].game[0] in ids:
                break  # the same game twice: the second goes in the next message
            ids.add(self._history[0].game[0])
            taken.append(self._history.popleft())
        if self._history_timer is not None and self._history_timer.active():
            self._history_timer.cancel()
        self._history_timer = None
        self._history_sending = defer.Deferred()
        return taken

    def _history_statements(self, games: list[_Finished]) -> list[tuple[str, list[Any]]]:
        """The statements that write ``games`` (:func:`_statements`)."""
        return _statements(games)

    def _history_sent(self, result: Any, games: list[_Finished]) -> Any:
        """The message carrying ``games`` is done: ``result`` is its rows (the last
        statement's: the ids stored now) or its failure, which is passed on."""
        sending, self._history_sending = self._history_sending, None
        if isinstance(result, Failure) and result.check(StoreUnavailable):
            # away (or lost while committing: the statements are safe to run again)
            self._history.extendleft(reversed(games))
        elif isinstance(result, Failure):
            self.log.warn(
                "{n} finished games not written together ({e}): each is written alone",
                n=len(games),
                e=result.getErrorMessage(),
            )
            for game in games:
                self._record_alone(game)
        else:
            stored = {row[0] for row in result}
            for game in games:
                game.done.callback(game.game[0] in stored)
        if sending is not None:
            sending.callback(None)
        self._history_schedule()
        return result

    def _record_alone(self, game: _Finished) -> None:
        def txn(cur: _Cursor) -> bool:  # a named function: the metrics show its name
            return _record_one(cur, self.dialect, game)

        d = self._retry_integrity(txn)
        self._history_alone.add(d)
        d.addBoth(self._alone_done, d)
        d.chainDeferred(game.done)

    def _alone_done(self, result: Any, d: defer.Deferred[Any]) -> Any:
        self._history_alone.discard(d)
        return result

    def _history_flush(self) -> None:
        """Write the games waiting in a transaction of their own."""
        self._history_timer = None
        games = self._history_take()
        if games:  # (each game's own Deferred has the outcome)
            self._history_send(games).addErrback(lambda _: None)

    def _history_send(self, games: list[_Finished]) -> defer.Deferred[Any]:
        """A transaction of its own for ``games`` (taken by :meth:`_history_take`)."""
        dialect = self.dialect
        statements = self._history_statements(games) if dialect.batches else None

        def record_game(cur: _Cursor) -> list[Any]:  # the name the metrics show
            if statements is not None:  # PostgreSQL: one message
                return cur.batch(statements, alone=True)
            return [(g.game[0],) for g in games if _record_one(cur, dialect, g)]

        return self._run(record_game).addBoth(self._history_sent, games)

    @defer.inlineCallbacks
    def _history_drain(self) -> Any:
        """(Stopping.)  Write every game still waiting; those the database does not
        take now fail with :class:`StoreUnavailable` (their callers log them)."""
        if self._history_timer is not None and self._history_timer.active():
            self._history_timer.cancel()
        self._history_timer = None
        while self._history or self._history_sending is not None:
            if self._history_sending is not None:
                yield self._history_sending
                continue
            games = self._history_take()
            if not games:  # the database is away
                break
            try:
                yield self._history_send(games)
            except StoreUnavailable:
                break
            except Exception:
                pass  # written game by game (_history_sent)
        if self._history_alone:
            yield defer.DeferredList(list(self._history_alone), consumeErrors=False)
        left, self._history = list(self._history), deque()
        for game in left:
            game.done.errback(
                StoreUnavailable(f"the store stopped before game {game.game[0]} was written")
            )

    def record_replay(self, game_id: str, replay: Any) -> defer.Deferred[bool]:
        """Store a finished game's replay (JSON-able: what
        ``hub.play.game.GameInstance.replay`` returns: public events only).  Recording the
        same game again changes nothing.

        :returns: (Deferred) ``True`` if stored now.
        """
        try:
            text = _replay_text(replay)
        except Exception as e:
            return defer.fail(e)

        def txn(cur: _Cursor) -> bool:
            statement = (_INSERT_REPLAY + " RETURNING game_id", [game_id, text])
            return bool(cur.batch([statement], alone=True))

        return self._retry_integrity(txn)

    def replay(self, game_id: str) -> defer.Deferred[Any]:
        """The stored replay of ``game_id``, or ``None``."""

        def txn(cur: _Cursor) -> Any:
            row = cur.one("SELECT replay FROM game_replay WHERE game_id = ?", game_id)
            return None if row is None else json.loads(row[0])

        return self._run(txn, write=False)

    def games(
        self,
        game_id: str | None = None,
        player: str | None = None,
        since: float | None = None,
        until: float | None = None,
        limit: int = 50,
        game_type: str | None = None,
    ) -> defer.Deferred[list[dict[str, Any]]]:
        """Finished games, newest first: of one game id, of one type, of one player (by
        name), in a time range (``since <= finished < until``).  Each is a dict with ``game_id``,
        ``type``, ``variant``, ``name``, ``started``, ``finished``, ``summary``,
        ``result`` and ``players`` (seat, name, kind, score, winner, net)."""

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            d = self.dialect
            query = (
                "SELECT g.game_id, g.type, g.variant, g.name, g.started, g.finished,"
                " g.summary, g.result FROM game g WHERE 1 = 1"
            )
            where, params = _where(
                ("g.game_id = ?", game_id),
                ("g.type = ?", game_type),
                (
                    "EXISTS (SELECT 1 FROM game_player p WHERE p.game_id = g.game_id"
                    " AND p.name_key = ?)",
                    None if player is None else acc.name_key(player),
                ),
                ("g.finished >= ?", None if since is None else d.t_in(since)),
                ("g.finished < ?", None if until is None else d.t_in(until)),
            )
            query += where + " ORDER BY g.finished DESC, g.game_id DESC LIMIT ?"
            params.append(int(limit))
            out = []
            for r in cur.all(query, *params):
                seats = cur.all(
                    "SELECT seat, name, kind, score, winner, net FROM game_player"
                    " WHERE game_id = ? ORDER BY seat",
                    r[0],
                )
                out.append(
                    {
                        "game_id": r[0],
                        "type": r[1],
                        "variant": r[2],
                        "name": r[3],
                        "started": d.t_out(r[4]),
                        "finished": d.t_out(r[5]),
                        "summary": r[6],
                        "result": _loads(r[7]),
                        "players": [
                            {
                                "seat": int(s[0]),
                                "name": s[1],
                                "kind": s[2],
                                "score": None if s[3] is None else json.loads(s[3]),
                                "winner": bool(s[4]),
                                "net": None if s[5] is None else d.m_out(s[5]),
                            }
                            for s in seats
                        ],
                    }
                )
            return out

        return self._run(txn, write=False)

    def install_views(
        self, views_of: Callable[[str], Sequence[tuple[str, str]]]
    ) -> defer.Deferred[list[str]]:
        """(Re)create SQL views over the stored hands, as the game types declare them
        (:class:`hub.optional_interfaces.IHandViews`): ``views_of(dialect name)`` gives
        ``(name, SELECT)`` pairs in this store's dialect.  One transaction; on
        PostgreSQL under the schema's lock, so hubs starting together do not race.  A
        name that is not a plain lowercase identifier, or that a table has, is refused
        (nothing changes).  Fires with the names made.

        :raises ValueError: a refused name.
        """
        views = list(views_of(self.dialect.name))
        for name, _select in views:
            if not _VIEW_NAME.match(name):
                raise ValueError(f"a view name is a lowercase identifier, not {name!r}")

        def install(cur: _Cursor) -> list[str]:
            if self.dialect.name == "postgresql":
                cur.run("LOCK TABLE gamehub_schema IN EXCLUSIVE MODE")
                kinds = (
                    "SELECT table_type FROM information_schema.tables WHERE table_name = ?"
                    " AND table_schema = current_schema()"
                )
            else:
                kinds = "SELECT type FROM sqlite_master WHERE name = ?"
            for name, _select in views:
                row = cur.one(kinds, name)
                if row is not None and str(row[0]).lower() not in ("view",):
                    raise ValueError(f"{name!r} is a table of the store, not a view")
            for name, select in views:
                cur.run(f"DROP VIEW IF EXISTS {name}")
                cur.run(f"CREATE VIEW {name} AS {select}")
            return [name for name, _ in views]

        return self._run(install)

    def record_hand(
        self,
        game_id: str,
        players: Iterable[Mapping[str, Any]],
        *,
        game_type: str | None = None,
        record: Any = None,
        summary: str | None = None,
        sealed: Any = None,
        started: float | None = None,
        at: float | None = None,
        hand_key: str | None = None,
    ) -> defer.Deferred[int]:
        """Store a finished hand: what the hub needs of it (who sat where, the chips
        each put in and won, which the ledger check compares with the settlement) and
        what the game declares (:class:`hub.model.HandSummary`).

        :param players: per seat: ``name`` (account name), optional ``display`` (name
            shown at the table; default the account name), ``seat``, ``money_in``,
            ``winnings``, ``private`` (JSON-able: that seat's part, which only it reads).
        :param record: the game's public record (JSON-able); ``summary``: one public
            line; ``sealed``: JSON-able, for the operator and admins only.
        :param started: when the hand began; ``at``: when it ended (default now).
        :param hand_key: the engine's id of the hand; recording the same
            ``(game_id, hand_key)`` again returns the first hand id.
        :returns: (Deferred) the hand id (an integer).

        A JSON part longer than :attr:`hand_record_max` characters is not kept (the
        hand is, with its chips: a warning is logged); a longer summary is cut.
        """
        try:
            hand = self._hand(
                game_id,
                hand_key,
                players=players,
                game_type=game_type,
                record=record,
                summary=summary,
                sealed=sealed,
                started=started,
            )
        except Exception as e:
            return defer.fail(e)
        at = self._now() if at is None else at

        def txn(cur: _Cursor) -> int:
            if hand_key is not None:
                old = cur.one(
                    "SELECT hand_id FROM finished_hand WHERE game_id = ? AND hand_key = ?",
                    game_id,
                    hand_key,
                )
                if old is not None:
                    return int(old[0])
            return self._insert_hand(cur, game_id, hand_key, hand, at)

        return self._retry_integrity(txn)

    def _hand(self, game_id: str, hand_key: str | None, **hand: Any) -> _Hand:
        """A hand of :meth:`record_hand`'s arguments, checked; a warning for each part
        left out for its length."""
        checked = _Hand.of(**hand, most=self.hand_record_max)
        for part in checked.dropped:
            self.log.warn(
                "hand {key} of {game}: its {part} is longer than hand_record_max"
                " ({most} characters) and is not kept",
                key=hand_key,
                game=game_id,
                part=part,
                most=self.hand_record_max,
            )
        return checked

    def _insert_hand(
        self, cur: _Cursor, game_id: str, hand_key: str | None, hand: _Hand, at: float
    ) -> int:
        """Write one hand's ``finished_hand`` and ``hand_seat`` rows; returns its id."""
        d = self.dialect
        row = cur.one(
            "INSERT INTO finished_hand (game_id, hand_key, game_type, started, ended, summary,"
            " record, sealed) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING hand_id",
            game_id,
            hand_key,
            hand.game_type,
            None if hand.started is None else d.t_in(hand.started),
            d.t_in(at),
            hand.summary,
            hand.record,
            hand.sealed,
        )
        hand_id = int(row[0])
        for p in hand.players:
            found = cur.one("SELECT id FROM account WHERE name_key = ?", acc.name_key(p["name"]))
            cur.run(
                "INSERT INTO hand_seat (hand_id, seat, account, name, name_key, account_id,"
                " money_in, winnings, private) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                hand_id,
                p["seat"],
                p["name"],
                p["display"],
                acc.name_key(p["name"]),
                None if found is None else int(found[0]),
                d.m_in(p["money_in"]),
                d.m_in(p["winnings"]),
                p["private"],
            )
        return hand_id

    def hands(
        self,
        game_id: str | None = None,
        player: str | None = None,
        since: float | None = None,
        until: float | None = None,
        limit: int = 50,
        hand_id: int | None = None,
        hand_key: str | None = None,
        private_for: str | None = None,
        sealed: bool = False,
    ) -> defer.Deferred[list[dict[str, Any]]]:
        """Finished hands, newest first: of one game, one player (account name), a time
        range (``since <= ended < until``), one hand (``hand_id``, or the engine's
        ``hand_key``).  Each is a dict with ``hand_id``, ``game_id``, ``hand_key``,
        ``game_type``, ``started``, ``ended``, ``summary``, ``record`` (the game's
        public record) and ``players`` (``name``, ``display``, ``seat``, ``money_in``,
        ``winnings``).

        :param private_for: an account name: its seats carry their ``private`` part
            (no other seat's ever does).
        :param sealed: add each hand's ``sealed`` part (for the operator and admins).
        """

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            d = self.dialect
            query = (
                "SELECT h.hand_id, h.game_id, h.hand_key, h.game_type, h.started, h.ended,"
                " h.summary, h.record, h.sealed FROM finished_hand h WHERE 1 = 1"
            )
            where, params = _where(
                ("h.game_id = ?", game_id),
                ("h.hand_id = ?", None if hand_id is None else int(hand_id)),
                ("h.hand_key = ?", hand_key),
                (
                    "EXISTS (SELECT 1 FROM hand_seat p WHERE p.hand_id = h.hand_id"
                    " AND p.name_key = ?)",
                    None if player is None else acc.name_key(player),
                ),
                ("h.ended >= ?", None if since is None else d.t_in(since)),
                ("h.ended < ?", None if until is None else d.t_in(until)),
            )
            query += where + " ORDER BY h.ended DESC, h.hand_id DESC LIMIT ?"
            params.append(int(limit))
            mine = None if private_for is None else acc.name_key(private_for)
            out = []
            for r in cur.all(query, *params):
                seats = cur.all(
                    "SELECT account, name, seat, money_in, winnings, name_key, private"
                    " FROM hand_seat WHERE hand_id = ? ORDER BY seat",
                    r[0],
                )
                hand = {
                    "hand_id": int(r[0]),
                    "game_id": r[1],
                    "hand_key": r[2],
                    "game_type": r[3],
                    "started": d.t_out(r[4]),
                    "ended": d.t_out(r[5]),
                    "summary": r[6],
                    "record": _loads(r[7]),
                    "players": [_seat(d, s, s[5] == mine) for s in seats],
                }
                if sealed:
                    hand["sealed"] = _loads(r[8])
                out.append(hand)
            return out

        return self._run(txn, write=False)


_INSERT_REPLAY = (
    "INSERT INTO game_replay (game_id, replay) VALUES (?, ?) ON CONFLICT (game_id) DO NOTHING"
)
#: (PostgreSQL) finished games (each column an array, in the order they finished) and
#: their seats (each seat's game id, then its columns, arrays of text), each seat with
#: its account found by name; the seats of a game stored before are not written
#: again.  Its rows: the ids of the games stored now.
_RECORD_GAMES = (
    "WITH v AS (SELECT * FROM unnest(CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]),"
    " CAST(? AS TEXT[]), CAST(? AS TIMESTAMPTZ[]), CAST(? AS TIMESTAMPTZ[]), CAST(? AS TEXT[]),"
    " CAST(? AS TEXT[])) WITH ORDINALITY"
    " AS v(game_id, type, variant, name, started, finished, summary, result, n)),"
    " g AS (INSERT INTO game (game_id, type, variant, name, started, finished, summary,"
    " result) SELECT game_id, type, variant, name, started, finished, summary, result"
    " FROM v ORDER BY n ON CONFLICT (game_id) DO NOTHING RETURNING game_id),"
    " s AS (INSERT INTO game_player (game_id, seat, account_id, name, name_key, kind, score,"
    " winner, net) SELECT g.game_id, CAST(p.seat AS SMALLINT), a.id, p.name, p.name_key,"
    " p.kind, p.score, CAST(p.winner AS SMALLINT), CAST(p.net AS NUMERIC(20,2))"
    " FROM unnest(CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]),"
    " CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]), CAST(? AS TEXT[]))"
    " AS p(game_id, seat, name, name_key, kind, score, winner, net)"
    " JOIN g ON g.game_id = p.game_id LEFT JOIN account a ON a.name_key = p.name_key)"
    " SELECT game_id FROM g"
)
#: (PostgreSQL) replays: the games' ids and the replays, two arrays
_INSERT_REPLAYS = (
    "INSERT INTO game_replay (game_id, replay) SELECT * FROM unnest(CAST(? AS TEXT[]),"
    " CAST(? AS TEXT[])) ON CONFLICT (game_id) DO NOTHING"
)


def _seat_columns(seats: list[tuple[str, dict[str, Any]]]) -> list[list[Any]]:
    """``(game id, seat)`` pairs (:func:`_game_player`) as the columns of text the
    statements' arrays take: game id, seat, name, name key, kind, score, winner, net."""
    return [
        [game_id for game_id, _ in seats],
        [str(p["seat"]) for _, p in seats],
        [p["name"] for _, p in seats],
        [acc.name_key(p["name"]) for _, p in seats],
        [p["kind"] for _, p in seats],
        [p["score"] for _, p in seats],
        [str(p["winner"]) for _, p in seats],
        [None if p["net"] is None else str(p["net"]) for _, p in seats],
    ]


def _statements(games: list[_Finished]) -> list[tuple[str, list[Any]]]:
    """(PostgreSQL) The statements that write ``games``, their seats and replays (the
    last one's rows: the ids of the games stored now)."""
    if not games:
        return []
    statements: list[tuple[str, list[Any]]] = []
    replays = [(g.game[0], g.replay) for g in games if g.replay is not None]
    if replays:
        statements.append((_INSERT_REPLAYS, [[i for i, _ in replays], [r for _, r in replays]]))
    columns = [list(column) for column in zip(*(g.game for g in games), strict=True)]
    seats = [(g.game[0], p) for g in games for p in g.seats]
    statements.append((_RECORD_GAMES, [*columns, *_seat_columns(seats)]))
    return statements


def _record_in_one_message(cur: _Cursor, game: _Finished) -> bool:
    """(PostgreSQL) :meth:`HistoryMixin.record_game`'s writes of one ``game``, in one
    message that is its own transaction; whether the game was stored now."""
    return bool(cur.batch(_statements([game]), alone=True))


def _record_one(cur: _Cursor, d: Dialect, game: _Finished) -> bool:
    """Write ``game`` (PostgreSQL: one message, its own transaction; SQLite: statements in
    the caller's transaction); whether it is new."""
    if d.batches:
        return _record_in_one_message(cur, game)
    return _record_statement_by_statement(cur, d, game.game, game.seats, game.replay)


def _record_statement_by_statement(
    cur: _Cursor, d: Dialect, game: list[Any], rows: list[dict[str, Any]], replay_text: str | None
) -> bool:
    """A finished game written a statement at a time (SQLite); whether it is new."""
    game_id = game[0]
    stored = not cur.one("SELECT 1 FROM game WHERE game_id = ?", game_id)
    if stored:
        cur.run(
            "INSERT INTO game (game_id, type, variant, name, started, finished,"
            " summary, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            *game,
        )
    for p in rows if stored else ():
        found = cur.one("SELECT id FROM account WHERE name_key = ?", acc.name_key(p["name"]))
        cur.run(
            "INSERT INTO game_player (game_id, seat, account_id, name, name_key, kind,"
            " score, winner, net) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            game_id,
            p["seat"],
            None if found is None else int(found[0]),
            p["name"],
            acc.name_key(p["name"]),
            p["kind"],
            p["score"],
            p["winner"],
            None if p["net"] is None else d.m_in(p["net"]),
        )
    if replay_text is not None:
        cur.run(_INSERT_REPLAY, game_id, replay_text)
    return stored


def _replay_text(replay: Any) -> str:
    if type(replay) is JsonText:  # encoded already (hub.play.game.GameInstance.replay_text)
        return replay.text
    return json.dumps(replay, default=str, separators=(",", ":"))


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _seat(d: Dialect, s: Sequence[Any], own: bool) -> dict[str, Any]:
    """One ``hand_seat`` row for a reader; ``own``: the reader's seat (its private part)."""
    seat = {
        "name": s[0],
        "display": s[1],
        "seat": int(s[2]),
        "money_in": d.m_out(s[3]),
        "winnings": d.m_out(s[4]),
    }
    if own:
        seat["private"] = _loads(s[6])
    return seat


@dataclass(frozen=True)
class _Hand:
    """A hand checked and turned into column values, ready to write.

    :ivar dropped: the JSON parts left out for their length.
    """

    players: list[dict[str, Any]]
    game_type: str | None
    record: str | None
    summary: str | None
    sealed: str | None
    started: float | None
    dropped: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        players: Iterable[Mapping[str, Any]],
        game_type: str | None = None,
        record: Any = None,
        summary: str | None = None,
        sealed: Any = None,
        started: float | None = None,
        most: int = 65536,
    ) -> _Hand:
        """Check a hand (see :meth:`HistoryMixin.record_hand`); JSON parts longer than
        ``most`` characters are left out.

        :raises hub.store.errors.BadAmount: a malformed hand.
        """
        dropped: list[str] = []

        def text(value: Any, part: str) -> str | None:
            if value is None:
                return None
            out = json.dumps(value, sort_keys=True, separators=(",", ":"))
            if len(out) > most:
                dropped.append(part)
                return None
            return out

        rows = []
        for p in players:
            row = _hand_player(p)
            row["private"] = text(p.get("private"), f"private part of seat {row['seat']}")
            rows.append(row)
        if len({r["seat"] for r in rows}) != len(rows):
            raise BadAmount("a seat appears twice in a hand")
        if game_type is not None and (not isinstance(game_type, str) or len(game_type) > 64):
            raise BadAmount("a game type is a name of at most 64 characters")
        if summary is not None and not isinstance(summary, str):
            raise BadAmount("a hand's summary is text")
        return cls(
            rows,
            game_type,
            text(record, "record"),
            None if summary is None else summary[:most],
            text(sealed, "sealed part"),
            None if started is None else float(started),
            tuple(dropped),
        )


def _game_player(p: Mapping[str, Any]) -> dict[str, Any]:
    net = p.get("net")
    score = p.get("score")
    return {
        "seat": int(p["seat"]),
        "name": str(p["name"]),
        "kind": p.get("kind"),
        "score": None if score is None else json.dumps(score),
        "winner": 1 if p.get("winner") else 0,
        "net": None if net is None else check_amount(net, allow_zero=True, allow_negative=True),
    }


def _hand_player(p: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "name": str(p["name"]),
        "display": str(p.get("display") or p["name"]),
        "seat": int(p["seat"]),
        "money_in": check_amount(p.get("money_in", 0), allow_zero=True),
        "winnings": check_amount(p.get("winnings", 0), allow_zero=True),
    }


def _where(*clauses: tuple[str, Any]) -> tuple[str, list[Any]]:
    """`` AND <condition>`` for each clause whose value is not ``None``, and the values."""
    sql, params = "", []
    for condition, value in clauses:
        if value is not None:
            sql += f" AND {condition}"
            params.append(value)
    return sql, params
