"""Read-only pages' data: ``/api/history``, ``/api/stats``, ``/api/plugins``."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from twisted.internet import defer

from hub.interfaces import IHandRecord, IHub
from hub.model import GameError
from hub.optional_interfaces import IRevealedHands
from hub.play import reveal

from .play import WebResource

MAX_LIMIT = 1000


def _arg(request: Any, name: str) -> str | None:
    values = request.args.get(name.encode())
    if not values:
        return None
    text = values[0].decode("utf-8", "replace").strip()
    return text or None


def _limit(request: Any, default: int) -> int:
    text = _arg(request, "limit")
    if text is None:
        return default
    if not text.isdigit() or not 1 <= int(text) <= MAX_LIMIT:
        raise GameError(f"'limit' must be a number from 1 to {MAX_LIMIT}", 400)
    return int(text)


def _when(value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, datetime):
        return value.timestamp()
    try:
        return datetime.fromisoformat(str(value)).timestamp()
    except ValueError:
        return None


def _iso(seconds: float | None) -> str | None:
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC).isoformat()


def _normalise(game: dict[str, Any]) -> dict[str, Any]:
    finished = _when(game.get("finished"))
    started = _when(game.get("started"))
    players = []
    for p in game.get("players") or []:
        players.append(
            {
                "seat": p.get("seat"),
                "name": p.get("name"),
                "kind": p.get("kind"),
                "score": None if p.get("score") is None else float(p["score"]),
                "winner": bool(p.get("winner")),
                "net": None if p.get("net") is None else str(p["net"]),
            }
        )
    return {
        "game_id": game.get("game_id"),
        "type": game.get("type"),
        "variant": game.get("variant"),
        "name": game.get("name"),
        "started": _iso(started),
        "finished": _iso(finished),
        "finished_ts": finished,
        "summary": game.get("summary"),
        "result": game.get("result"),
        "players": players,
    }


@defer.inlineCallbacks
def finished_games(hub: IHub, web: Any, type_name: str | None, player: str | None, limit: int):
    """Finished games, newest first: the store's history plus this run's games."""
    found: dict[str, dict[str, Any]] = {}
    store = hub.store
    if store is not None:
        rows = yield defer.maybeDeferred(store.games, player=player, limit=limit)
        for row in rows or []:
            game = _normalise(dict(row))
            found[str(game["game_id"])] = game
    for row in web.finished:
        if str(row["game_id"]) not in found:
            found[str(row["game_id"])] = _normalise(row)
    games = [
        g
        for g in found.values()
        if str(g["game_id"]) not in hub.lobby.sealed
        and (type_name is None or g["type"] == type_name)
        and (player is None or any(p["name"] == player for p in g["players"]))
    ]
    games.sort(key=lambda g: g["finished_ts"] or 0, reverse=True)
    return games[:limit]


class History(WebResource):
    """``GET /api/history?type=&player=&limit=``."""

    def methods(self) -> dict[str, Callable[[Any], Any]]:
        """HTTP method → its handler: this resource's dispatch table."""
        return {"GET": self.json_GET}

    def json_GET(self, request: Any) -> Any:
        """Finished games and hands, newest first."""
        d = finished_games(
            self.hub, self.web, _arg(request, "type"), _arg(request, "player"), _limit(request, 50)
        )
        return d.addCallback(lambda games: (200, games))


def statistics(games: list[dict[str, Any]]) -> dict[str, Any]:
    """Leaderboard and cumulative score series per player from finished games."""
    board: dict[str, dict[str, Any]] = defaultdict(
        lambda: {"games": 0, "wins": 0, "score": 0.0, "kind": None}
    )
    series: dict[str, list[list[Any]]] = defaultdict(list)
    for game in sorted(games, key=lambda g: g["finished_ts"] or 0):
        for p in game["players"]:
            name = p["name"]
            if not name:
                continue
            row = board[name]
            row["games"] += 1
            row["wins"] += 1 if p["winner"] else 0
            row["score"] += p["score"] or 0.0
            row["kind"] = p["kind"]
            series[name].append([game["finished_ts"], row["score"]])
    leaders = [
        {"name": name, **row, "win_rate": row["wins"] / row["games"] if row["games"] else 0.0}
        for name, row in board.items()
    ]
    leaders.sort(key=lambda r: (-r["wins"], -r["score"], r["name"]))
    return {"leaderboard": leaders, "series": dict(series), "games": len(games)}


class Stats(WebResource):
    """``GET /api/stats?type=``: leaderboard and results over time."""

    def methods(self) -> dict[str, Callable[[Any], Any]]:
        """HTTP method → its handler: this resource's dispatch table."""
        return {"GET": self.json_GET}

    def json_GET(self, request: Any) -> Any:
        """Statistics of the last (at most 1000) finished games."""
        d = finished_games(self.hub, self.web, _arg(request, "type"), None, MAX_LIMIT)
        return d.addCallback(lambda games: (200, statistics(games)))


def _hand_json(hand: dict[str, Any], game: Any = None) -> dict[str, Any]:
    """A stored hand for the page: the hub's part (who sat where, chips in and won),
    then the game's fields (``game``: its factory, when it provides
    :class:`hub.interfaces.IHandRecord`; else the stored public ``record``).  The hand
    holds what this reader may see only (its own seats' private parts; the sealed
    part for admins), and the game's fields are made from it."""
    out: dict[str, Any] = {
        "hand_id": hand.get("hand_id"),
        "game_id": hand.get("game_id"),
        "hand_key": hand.get("hand_key"),
        "game_type": hand.get("game_type"),
        "time": _iso(_when(hand.get("ended"))),
        "started": _iso(_when(hand.get("started"))),
        "summary": hand.get("summary"),
        "players": [
            {
                "name": p.get("name"),
                "display": p.get("display"),
                "seat": p.get("seat"),
                "money_in": None if p.get("money_in") is None else str(p["money_in"]),
                "winnings": None if p.get("winnings") is None else str(p["winnings"]),
            }
            for p in hand.get("players") or []
        ],
    }
    if IHandRecord.providedBy(game):
        words = dict(game.hand_json(hand))
        out.update({k: v for k, v in words.items() if k not in out})
        out["summary"] = game.describe(hand) or out["summary"]
    else:
        out["record"] = hand.get("record")
    return out


class Hands(WebResource):
    """``GET /api/hands?game=&player=&limit=``: finished hands of chip games (poker, say)
    from the store.  A hand's sealed part goes to admins; its revealed part (a
    shuffle's seed) to the players who were in it once none of them is still at that
    table, or ``seed_reveal`` seconds after it (:mod:`hub.play.reveal`)."""

    def methods(self) -> dict[str, Callable[[Any], Any]]:
        """HTTP method → its handler: this resource's dispatch table."""
        return {"GET": self.json_GET}

    def json_GET(self, request: Any) -> Any:
        """Hands, newest first (empty when the hub keeps no store)."""
        store = self.hub.store
        if store is None:
            return 200, []
        admin, _ = self.reader(request)
        session = self.web.sessions.find(request)
        reader = None if session is None else session.account
        d = defer.maybeDeferred(
            store.hands,
            game_id=_arg(request, "game"),
            player=_arg(request, "player"),
            limit=_limit(request, 50),
            private_for=reader,
            # read for a logged-in reader too: it leaves only for admins, or as the
            # revealed part of a hand the reader played
            sealed=admin or reader is not None,
        )
        d.addCallback(self._revealing, reader, admin)
        return d.addCallback(lambda hands: (200, [self._json(h) for h in hands]))

    @defer.inlineCallbacks
    def _revealing(self, hands: Any, reader: str | None, admin: bool) -> Any:
        """``hands`` as ``reader`` may see them: the sealed part kept for an admin,
        else taken out, and the game's revealed part added where it may be read."""
        out = [dict(h) for h in hands]
        if admin:
            return out
        sealed_games = self.hub.lobby.sealed  # the operator's alone while sealed
        out = [h for h in out if str(h.get("game_id")) not in sealed_games]
        played = [h for h in out if reader is not None and reader in reveal.hand_players(h)]
        if not played:
            for hand in out:
                hand.pop("sealed", None)
            return out
        finished = {str(row["game_id"]) for row in self.web.finished}
        unknown = {str(h.get("game_id")) for h in played} - finished
        for game_id in sorted(unknown):
            if reveal.still_seated(self.hub.lobby, game_id, ()) is None:
                rows = yield defer.maybeDeferred(self.hub.store.games, game_id=game_id, limit=1)
                if rows:
                    finished.add(game_id)
        delay = float(self.hub.options.get("seed_reveal", 0) or 0)
        now = self.hub.reactor.seconds()
        for hand in out:
            sealed = hand.pop("sealed", None)
            game = self._revealer(hand)
            if game is not None and reveal.may_reveal(
                hand, reader, ended=_when(hand.get("ended")), lobby=self.hub.lobby,
                finished=finished, now=now, delay=delay,
            ):  # fmt: skip
                hand["revealed"] = game.revealed(dict(hand, sealed=sealed))
        return out

    def _game(self, hand: dict[str, Any]) -> Any:
        try:
            game = self.hub.registry.game_factory(str(hand.get("game_type")))
        except GameError:
            return None
        return game if IHandRecord.providedBy(game) else None

    def _revealer(self, hand: dict[str, Any]) -> Any:
        game = self._game(hand)
        return game if IRevealedHands.providedBy(game) else None

    def _json(self, hand: dict[str, Any]) -> dict[str, Any]:
        return _hand_json(hand, self._game(hand))
