"""Leaderboards: ``GET /api/ratings``, ``/api/ratings/<type>`` and
``/api/ratings/<type>/history`` (the page of each game type, ``/ratings/<type>``, is
``static/ratings.html``).

Only accounts and in-hub bots have ratings (a guest or a name that is no account is
never rated), so a leaderboard shows account names and bot names, nothing else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from twisted.internet import defer

from hub.model import GameError
from hub.rating import KINDS, Player, Rating

from .api import JSONResource

#: most players a leaderboard lists, and whose history one chart draws
MAX_PLAYERS, CHART_PLAYERS = 500, 8


def _arg(request: Any, name: str) -> str | None:
    values = request.args.get(name.encode())
    return values[0].decode("utf-8", "replace").strip() if values else None


def _count(request: Any, default: int, most: int) -> int:
    text = _arg(request, "limit")
    if not text:
        return default
    if not text.isdigit() or not 1 <= int(text) <= most:
        raise GameError(f"'limit' must be a number from 1 to {most}", 400)
    return int(text)


def entry(position: int, row: dict[str, Any]) -> dict[str, Any]:
    """A leaderboard row as the API shows it: place, rating and its 95% interval."""
    low, high = Rating(row["mu"], row["sigma"]).interval()
    return {"place": position, **row, "low": low, "high": high}


class Ratings(JSONResource):
    """``/api/ratings[/<type>[/history]]``."""

    def methods(self) -> dict[str, Callable[[Any], Any]]:
        """HTTP method → its handler: this resource's dispatch table."""
        return {"GET": self.json_GET}

    def json_GET(self, request: Any) -> Any:
        """Pools; a pool's leaderboard; the ratings over time of its best players (or
        of ``player``, with ``kind``)."""
        store = self.hub.store
        if store is None:
            raise GameError("this hub keeps no ratings (no store)", 404)
        parts = [p.decode("utf-8", "replace") for p in request.postpath if p]
        if not parts:
            return store.rating_pools().addCallback(lambda pools: (200, {"pools": pools}))
        if len(parts) > 2 or (len(parts) == 2 and parts[1] != "history"):
            raise GameError("no such resource", 404)
        game_type, variant = parts[0], _arg(request, "variant") or ""
        if len(parts) == 1:
            d = store.leaderboard(game_type, variant, _count(request, 100, MAX_PLAYERS))
            return d.addCallback(
                lambda rows: (
                    200,
                    {
                        "type": game_type,
                        "variant": variant,
                        "players": [entry(i + 1, r) for i, r in enumerate(rows)],
                    },
                )
            )
        return defer.ensureDeferred(self._history(request, game_type, variant))

    async def _history(self, request: Any, game_type: str, variant: str) -> Any:
        store = self.hub.store
        name = _arg(request, "player")
        if name:
            kind = _arg(request, "kind") or "account"
            if kind not in KINDS:
                raise GameError(f"'kind' is {' or '.join(KINDS)}", 400)
            players = [Player(kind, name)]
        else:
            board = await store.leaderboard(
                game_type, variant, _count(request, CHART_PLAYERS, MAX_PLAYERS)
            )
            players = [Player(r["kind"], r["name"]) for r in board]
        series = []
        for player in players:
            rows = await store.rating_history(game_type, variant, player)
            if rows:
                series.append(
                    {
                        "name": rows[-1]["name"],
                        "kind": player.kind,
                        "points": [[r["finished"], r["mu"], r["sigma"]] for r in rows],
                    }
                )
        return 200, {"type": game_type, "variant": variant, "series": series}
