"""History: finished games with per-seat results, and finished hands of chip games.

A hand is kept in the hub's words (who sat where, the chips each put in and won: what
the ledger check compares with the hand's settlement) and in the game's (its public
record and summary, each seat's private part, the sealed part for the operator), as
the game declares them (:class:`hub.model.HandSummary`).  History keeps names as text,
so it stays readable after an account is deleted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from twisted.internet import defer

from . import accounts as acc
from .base import StoreBase, _Cursor
from .errors import (
    BadAmount,
)
from .money import amount as check_amount


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
    ) -> defer.Deferred[bool]:
        """Store a finished game.  ``players``: one mapping per seat with ``seat``,
        ``name``, and optionally ``kind`` (``human``/``bot``), ``score`` (JSON-able),
        ``winner`` (bool), ``net`` (money won or lost).  Recording the same game id
        again changes nothing.

        :returns: (Deferred) ``True`` if stored now, ``False`` if it was stored before.
        """
        try:
            rows = [_game_player(p) for p in players]
            result_text = None if result is None else json.dumps(result, sort_keys=True)
        except Exception as e:
            return defer.fail(e)
        finished = self._now() if finished is None else finished

        def txn(cur: _Cursor) -> bool:
            d = self.dialect
            if cur.one("SELECT 1 FROM game WHERE game_id = ?", game_id):
                return False
            cur.run(
                "INSERT INTO game (game_id, type, variant, name, started, finished, summary,"
                " result) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                game_id,
                game_type,
                variant,
                name,
                None if started is None else d.t_in(started),
                d.t_in(finished),
                summary,
                result_text,
            )
            for p in rows:
                found = cur.one(
                    "SELECT id FROM account WHERE name_key = ?", acc.name_key(p["name"])
                )
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
            return True

        return self._retry_integrity(txn)

    def record_replay(self, game_id: str, replay: Any) -> defer.Deferred[bool]:
        """Store a finished game's replay (JSON-able: what
        ``hub.lobby.GameInstance.replay`` returns: public events only).  Recording the
        same game again changes nothing.

        :returns: (Deferred) ``True`` if stored now.
        """
        try:
            text = json.dumps(replay, default=str, separators=(",", ":"))
        except Exception as e:
            return defer.fail(e)

        def txn(cur: _Cursor) -> bool:
            if cur.one("SELECT 1 FROM game_replay WHERE game_id = ?", game_id):
                return False
            cur.run("INSERT INTO game_replay (game_id, replay) VALUES (?, ?)", game_id, text)
            return True

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


def _loads(text: str | None) -> Any:
    return None if text is None else json.loads(text)


def _seat(d: Any, s: Sequence[Any], own: bool) -> dict[str, Any]:
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
