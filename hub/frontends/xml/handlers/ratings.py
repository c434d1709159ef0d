"""``lobby/ratings`` (new): the leaderboard of one game type's rating pool, from the
store (accounts and in-hub bots only: nobody else is rated)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from hub.interfaces import IRatingStore

from .. import encoding, events
from ..context import HandlerContext
from ..errors import Refused

if TYPE_CHECKING:
    from ..connection import Connection


async def ratings(frontend: HandlerContext, conn: Connection, r: events.Ratings) -> Any:
    """At most ``limit`` players, best first."""
    store = frontend.hub.store
    ratings = None if store is None else IRatingStore(store, None)
    if ratings is None:
        raise Refused(404, "this hub keeps no ratings")
    rows = await ratings.leaderboard(r.gametype, r.gamevariant, r.limit)
    return encoding.build_ratings(r.gametype, r.gamevariant, rows, r.sessionid)
