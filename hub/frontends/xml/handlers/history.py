"""``lobby/history``: finished games and stored hands, of one game or one account.

From the store: its finished games (``IStore.games``) and, for chip games, its hands
(``IStore.hands``, each described in its game's words where the game factory provides
:class:`hub.interfaces.IHandRecord`, else by its stored summary); then the finished
games still in the
lobby.  The wire ids of the games listed are remembered, so a later
``lobby/history gameid=…`` finds them.
"""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from hub.interfaces import IHandRecord
from hub.model import GameError

from .. import encoding, events
from ..context import HandlerContext
from ..errors import Refused

if TYPE_CHECKING:
    from ..connection import Connection

#: most games whose type ``lobby/history`` looks up in the store for their hands
TYPE_LOOKUPS = 16


async def history(frontend: HandlerContext, conn: Connection, r: events.History) -> Any:
    """``lobby/history``: at most ``limit`` entries."""
    game_id = None
    if r.gameid is not None:
        game_id = frontend.game_id(r.gameid)
        if game_id is None:
            try:
                game_id = frontend.find_game(r.gameid).id
            except Refused:
                raise Refused(404, f"no game with id {r.gameid}") from None
    entries: list[encoding.HistoryEntry] = []
    seen: dict[str, str] = {}  # game id → type, of the finished games listed
    store = frontend.hub.store
    if store is not None:
        for g in await store.games(game_id=game_id, player=r.accountname, limit=r.limit):
            if str(g.get("game_id")) in frontend.lobby.sealed:
                continue  # the operator's alone while sealed
            seen[str(g.get("game_id"))] = str(g.get("type"))
            entries.append(_stored_game(frontend, g))
    if store is not None:
        hands = await store.hands(game_id=game_id, player=r.accountname, limit=r.limit)
        untyped = {str(h.get("game_id")) for h in hands if not h.get("game_type")}
        types = await _game_types(frontend, store, untyped, seen)
        for h in [h for h in hands if str(h.get("game_id")) not in frontend.lobby.sealed]:
            gametype = h.get("game_type") or types.get(str(h.get("game_id")))
            entries.append(_stored_hand(frontend, h, gametype))
    for game in frontend.lobby.finished():  # (bounded: the finished games kept)
        if game.id in seen:
            continue
        if game_id is not None and game.id != game_id:
            continue
        names = [s.player for s in game.seats if s.player]
        if r.accountname is not None and r.accountname.lower() not in (n.lower() for n in names):
            continue
        entries.append(_lobby_game(frontend, game))
    return encoding.build_history(entries[: r.limit], r.sessionid)


def _iso(seconds: float) -> str:
    return datetime.fromtimestamp(float(seconds), UTC).isoformat()


def _result_text(player: dict[str, Any]) -> str | None:
    for key in ("net", "score"):
        if player.get(key) is not None:
            return str(player[key])
    return None


def _stored_game(frontend: HandlerContext, g: dict[str, Any]) -> encoding.HistoryEntry:
    """One finished game of the store."""
    gid = str(g.get("game_id"))
    finished = g.get("finished")
    return encoding.HistoryEntry(
        id=gid,
        gameid=frontend.seen_in_history(gid),
        gametype=g.get("type"),
        name=g.get("name"),
        time=_iso(finished) if finished is not None else None,
        players=[
            (str(p.get("name")), p.get("seat"), _result_text(p)) for p in g.get("players", ())
        ],
        summary=g.get("summary"),
    )


async def _game_types(
    frontend: HandlerContext, store: Any, game_ids: set[str], known: dict[str, str]
) -> dict[str, str]:
    """The game type of each of ``game_ids``: from the lobby, the finished games
    listed already (``known``), else the store (at most :data:`TYPE_LOOKUPS`)."""
    types: dict[str, str] = {}
    missing = []
    for gid in sorted(game_ids):
        try:
            types[gid] = frontend.lobby.get(gid).type
        except GameError:
            if gid in known:
                types[gid] = known[gid]
            else:
                missing.append(gid)
    for gid in missing[:TYPE_LOOKUPS]:
        for g in await store.games(game_id=gid, limit=1):
            types[gid] = str(g.get("type"))
    return types


def _describe_hand(frontend: HandlerContext, gametype: str | None, h: dict[str, Any]) -> str | None:
    """The summary of a stored hand: its game's words (:class:`hub.interfaces.IHandRecord`
    of the game type's factory), else the summary stored with it."""
    factory = None
    if gametype is not None:
        try:
            factory = frontend.hub.registry.game_factory(gametype)
        except GameError:
            factory = None
    if IHandRecord.providedBy(factory):
        return factory.describe(h)
    return h.get("summary") or None


def _stored_hand(
    frontend: HandlerContext, h: dict[str, Any], gametype: str | None
) -> encoding.HistoryEntry:
    """One stored hand of a chip game (``id`` is the store's hand id)."""
    wid = frontend.seen_in_history(str(h.get("game_id")))
    summary = _describe_hand(frontend, gametype, h)
    return encoding.HistoryEntry(
        id=str(h.get("hand_id")),
        gameid=wid,
        gametype=gametype,
        name=h.get("hand_key"),
        time=_iso(h["ended"]) if h.get("ended") is not None else None,
        players=[
            (
                str(p.get("name")),
                p.get("seat"),
                str(Decimal(p.get("winnings", 0)) - Decimal(p.get("money_in", 0))),
            )
            for p in h.get("players", ())
        ],
        summary=summary or None,
    )


def _lobby_game(frontend: HandlerContext, game: Any) -> encoding.HistoryEntry:
    """One finished game still in the lobby."""
    result = game.result() or {}
    scores = list(result.get("scores") or [])
    return encoding.HistoryEntry(
        id=game.id,
        gameid=frontend.wire_id(game),
        gametype=game.type,
        name=game.name,
        time=_iso(game.finished) if game.finished is not None else None,
        players=[
            (s.player, s.index, str(scores[s.index]) if s.index < len(scores) else None)
            for s in game.seats
            if s.player
        ],
        summary=result.get("summary"),
    )
