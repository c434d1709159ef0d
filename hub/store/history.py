"""History: finished games with per-seat results, and hands (the seed's ``hand`` and
``player`` tables plus shuffle commitment, seed and actions).

History keeps names as text, so it stays readable after an account is deleted.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from twisted.internet import defer

from . import accounts as acc
from . import cards
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
        ``hub.game.GameInstance.replay`` returns: public events only).  Recording the
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
                        "result": None if r[7] is None else json.loads(r[7]),
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
        dealer: int,
        players: Iterable[Mapping[str, Any]],
        *,
        board: Sequence[int] = (),
        showdown: str | None = None,
        commitment: str | None = None,
        seed: str | None = None,
        actions: Any = None,
        at: float | None = None,
        hand_key: str | None = None,
    ) -> defer.Deferred[int]:
        """Store a finished hand (the seed's ``hand`` and ``player`` rows).

        :param dealer: the button's seat.
        :param players: per player: ``name`` (account name), optional ``display``
            (name shown at the table; default the account name), ``seat``,
            ``hole`` (card ints, shown cards only), ``money_in``, ``winnings``,
            ``actions`` (mapping round → text: ``preflop``, ``flop``, ``turn``,
            ``river``).
        :param board: up to five card ints (``rank * 4 + suit``).
        :param actions: the whole action sequence, JSON-able.
        :param hand_key: the engine's id of the hand; recording the same
            ``(game_id, hand_key)`` again returns the first hand id.
        :returns: (Deferred) the hand id (an integer).
        """
        try:
            hand = _Hand.of(dealer, players, board, showdown, commitment, seed, actions)
        except Exception as e:
            return defer.fail(e)
        at = self._now() if at is None else at

        def txn(cur: _Cursor) -> int:
            if hand_key is not None:
                old = cur.one(
                    "SELECT hand_id FROM hand WHERE game_id = ? AND hand_key = ?", game_id, hand_key
                )
                if old is not None:
                    return int(old[0])
            return self._insert_hand(cur, game_id, hand_key, hand, at)

        return self._retry_integrity(txn)

    def _insert_hand(
        self, cur: _Cursor, game_id: str, hand_key: str | None, hand: _Hand, at: float
    ) -> int:
        """Write one hand's ``hand`` and ``player`` rows; returns the hand id."""
        d = self.dialect
        board = hand.board
        streets = [
            " ".join(board[:3]) or None,
            board[3] if len(board) > 3 else None,
            board[4] if len(board) > 4 else None,
        ]
        row = cur.one(
            "INSERT INTO hand (game_id, hand_key, timestamp, dealer, flop, turn, river,"
            " showdown, card1, card2, card3, card4, card5, commitment, seed, actions)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING hand_id",
            game_id,
            hand_key,
            d.t_in(at),
            hand.dealer,
            *streets,
            hand.showdown,
            *(list(board) + [None] * (5 - len(board))),
            hand.commitment,
            hand.seed,
            hand.actions,
        )
        hand_id = int(row[0])
        for p in hand.players:
            found = cur.one("SELECT id FROM account WHERE name_key = ?", acc.name_key(p["name"]))
            cur.run(
                "INSERT INTO player (hand_id, account, name, name_key, account_id, position,"
                " preflop, flop, turn, river, money_in, winnings, card1, card2)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                hand_id,
                p["name"],
                p["display"],
                acc.name_key(p["name"]),
                None if found is None else int(found[0]),
                p["seat"],
                *p["rounds"],
                d.m_in(p["money_in"]),
                d.m_in(p["winnings"]),
                *p["hole"],
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
    ) -> defer.Deferred[list[dict[str, Any]]]:
        """Finished hands, newest first: of one game, one player (account name), a time
        range (``since <= time < until``), one hand (``hand_id``, or the engine's
        ``hand_key``).  Each is a dict with ``hand_id``,
        ``game_id``, ``hand_key``, ``time``, ``dealer``, ``board`` (card ints),
        ``flop``/``turn``/``river`` (text), ``showdown``, ``commitment``, ``seed``,
        ``actions`` and ``players`` (``name``, ``display``, ``seat``, ``hole`` (ints),
        ``money_in``, ``winnings``, ``actions`` per round)."""

        def txn(cur: _Cursor) -> list[dict[str, Any]]:
            d = self.dialect
            query = (
                "SELECT h.hand_id, h.game_id, h.hand_key, h.timestamp, h.dealer, h.flop, h.turn,"
                " h.river, h.showdown, h.card1, h.card2, h.card3, h.card4, h.card5,"
                " h.commitment, h.seed, h.actions FROM hand h WHERE 1 = 1"
            )
            where, params = _where(
                ("h.game_id = ?", game_id),
                ("h.hand_id = ?", None if hand_id is None else int(hand_id)),
                ("h.hand_key = ?", hand_key),
                (
                    "EXISTS (SELECT 1 FROM player p WHERE p.hand_id = h.hand_id"
                    " AND p.name_key = ?)",
                    None if player is None else acc.name_key(player),
                ),
                ("h.timestamp >= ?", None if since is None else d.t_in(since)),
                ("h.timestamp < ?", None if until is None else d.t_in(until)),
            )
            query += where + " ORDER BY h.timestamp DESC, h.hand_id DESC LIMIT ?"
            params.append(int(limit))
            out = []
            for r in cur.all(query, *params):
                seats = cur.all(
                    "SELECT account, name, position, preflop, flop, turn, river, money_in,"
                    " winnings, card1, card2 FROM player WHERE hand_id = ? ORDER BY position",
                    r[0],
                )
                out.append(
                    {
                        "hand_id": int(r[0]),
                        "game_id": r[1],
                        "hand_key": r[2],
                        "time": d.t_out(r[3]),
                        "dealer": int(r[4]),
                        "flop": r[5],
                        "turn": r[6],
                        "river": r[7],
                        "showdown": r[8],
                        "board": [cards.from_text(c) for c in r[9:14] if c],
                        "commitment": r[14],
                        "seed": r[15],
                        "actions": None if r[16] is None else json.loads(r[16]),
                        "players": [
                            {
                                "name": s[0],
                                "display": s[1],
                                "seat": int(s[2]),
                                "actions": dict(
                                    zip(("preflop", "flop", "turn", "river"), s[3:7], strict=True)
                                ),
                                "money_in": d.m_out(s[7]),
                                "winnings": d.m_out(s[8]),
                                "hole": [cards.from_text(c) for c in s[9:11] if c],
                            }
                            for s in seats
                        ],
                    }
                )
            return out

        return self._run(txn, write=False)


@dataclass(frozen=True)
class _Hand:
    """A hand checked and turned into column values, ready to write."""

    dealer: int
    players: list[dict[str, Any]]
    board: list[str]
    showdown: str | None
    commitment: str | None
    seed: str | None
    actions: str | None

    @classmethod
    def of(
        cls,
        dealer: int,
        players: Iterable[Mapping[str, Any]],
        board: Sequence[int] = (),
        showdown: str | None = None,
        commitment: str | None = None,
        seed: str | None = None,
        actions: Any = None,
    ) -> _Hand:
        """Check a hand (see :meth:`HistoryMixin.record_hand`).

        :raises hub.store.errors.BadAmount: a malformed hand.
        """
        board_text = [cards.to_text(c) for c in board]
        if len(board_text) > 5:
            raise BadAmount("a board has at most five cards")
        return cls(
            int(dealer),
            [_hand_player(p) for p in players],
            board_text,
            showdown,
            commitment,
            seed,
            None if actions is None else json.dumps(actions, sort_keys=True),
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
    hole = [cards.to_text(c) for c in p.get("hole") or ()]
    if len(hole) > 2:
        raise BadAmount("the player table keeps at most two hole cards")
    rounds = p.get("actions") or {}
    return {
        "name": str(p["name"]),
        "display": str(p.get("display") or p["name"]),
        "seat": int(p["seat"]),
        "rounds": [rounds.get(r) for r in ("preflop", "flop", "turn", "river")],
        "money_in": check_amount(p.get("money_in", 0), allow_zero=True),
        "winnings": check_amount(p.get("winnings", 0), allow_zero=True),
        "hole": hole + [None] * (2 - len(hole)),
    }


def _where(*clauses: tuple[str, Any]) -> tuple[str, list[Any]]:
    """`` AND <condition>`` for each clause whose value is not ``None``, and the values."""
    sql, params = "", []
    for condition, value in clauses:
        if value is not None:
            sql += f" AND {condition}"
            params.append(value)
    return sql, params
