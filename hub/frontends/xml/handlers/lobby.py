"""Lobby requests (``lobby/availablegames``, ``gamelist``, ``gamedetails``,
``findplayer``) and the lobby's updates to every logged-in connection.

Only the game types and games this front end can host are listed (those with an XML
adapter, :func:`..adapters.hosts`).

A game's row is made once until the lobby says the game changed (``lobby.changed``:
its seats, observers, state or pause), a game list's rows (by its filters) until the
lobby says anything changed, and a game list is serialised once for as long as its
rows stay the same (:class:`..shared.Shared`).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from hub.optional_interfaces import IXMLSeatDetails

from .. import encoding, events
from ..adapters import adapter_for, hosts
from ..context import HandlerContext
from ..payload import wire_game_id
from ..relay_documents import details_request

if TYPE_CHECKING:
    from ..connection import Connection

#: lobby rows kept (one per listed game; all are dropped when there are more)
ROWS = 100_000
#: game lists kept (by their filters; all are dropped when there are more)
LISTS = 64
#: the serial numbers of the kept game lists (their serialised documents' keys)
_lists = itertools.count(1)


def row(frontend: HandlerContext, game: Any) -> encoding.GameRow:
    """The lobby row of ``game``: kept from one listing to the next until the lobby says
    the game changed (:func:`lobby_changed`; only while the front end follows it)."""
    rows = frontend.rows
    kept = rows.get(game.id)
    if kept is not None:
        return kept
    made = _make_row(frontend, game)
    if frontend.following:
        if len(rows) >= ROWS:
            rows.clear()
        rows[game.id] = made
    return made


def _make_row(frontend: HandlerContext, game: Any) -> encoding.GameRow:
    return encoding.GameRow(
        gameid=frontend.wire_id(game),
        name=game.name,
        gametype=game.type,
        gamevariant=game.variant or "",
        players=tuple(s.player for s in game.seats if s.player is not None and s.present),
        maxplayers=len(game.seats),
        state=game.state,
        paused=game.paused,
    )


def _xml_games(frontend: HandlerContext) -> list[Any]:
    return [g for g in frontend.hub.listed_games() if hosts(g.factory)]


def available_games(frontend: HandlerContext, conn: Connection, r: events.AvailableGames) -> Any:
    """``lobby/availablegames``: the game types played over XML, by name."""
    hosted = [f for f in frontend.hub.registry.game_types() if adapter_for(f) is not None]
    types = [
        encoding.GameType(
            type=f.name,
            clientgame=frontend.hub.registry.client_module(f),
            servergame=f"{type(f).__module__}:{type(f).__name__}",
            variants=tuple(f.variants),
            summary=f.summary,
            minplayers=int(f.min_seats),
            maxplayers=int(f.max_seats),
        )
        for f in sorted(hosted, key=lambda f: f.name)
    ]
    return encoding.build_available_games(types, r.sessionid)


def game_list(frontend: HandlerContext, conn: Connection, r: events.GameList) -> Any:
    """``lobby/gamelist`` of one type and variant, or of all: its rows kept, while the
    front end follows the lobby, until the lobby changes (:func:`lobby_changed`)."""
    filters = (r.gametype, r.gamevariant)
    made = frontend.lists.get(filters)
    if made is None:
        kept = frontend.rows  # only hosted games have rows: a kept row needs no hosts()
        listed: Sequence[Any] = frontend.hub.listed_games()  # as _xml_games (variant, paused)
        rows = tuple(
            kept.get(g.id) or row(frontend, g)
            for g in listed
            if (r.gametype is None or g.type == r.gametype)
            and (r.gamevariant is None or g.variant == r.gamevariant)
            and (g.id in kept or hosts(g.factory))
        )
        if not frontend.following:  # the serialised list is shared by its rows
            return frontend.listings.get(
                (rows, *filters),
                r.sessionid,
                lambda sid: encoding.build_game_list(rows, r.gametype, r.gamevariant, sid),
            )
        if len(frontend.lists) >= LISTS:
            frontend.lists.clear()
        made = frontend.lists[filters] = (rows, ("list", next(_lists)))
    rows, key = made
    return frontend.listings.get(
        key, r.sessionid, lambda sid: encoding.build_game_list(rows, r.gametype, r.gamevariant, sid)
    )


def game_details(frontend: HandlerContext, conn: Connection, r: events.GameDetails) -> Any:
    """``lobby/gamedetails``: the seats and the settings of one game.  Another hub's
    game: asked of that hub (:mod:`..relay`)."""
    return frontend.with_game(
        r.gameid,
        lambda game: _details(frontend, r, game),
        lambda e: frontend.relays.ask(conn, e.elsewhere, details_request(r.gameid), r.sessionid),
    )


def _details(frontend: HandlerContext, r: events.GameDetails, game: Any) -> Any:
    players = [{"seat": s.index, "name": s.player or "", "kind": s.kind} for s in game.seats]
    adapter = adapter_for(game.factory)
    columns: tuple[str, ...] = ()
    if IXMLSeatDetails.providedBy(adapter) and game.engine is not None:
        columns, details = adapter.seat_details(game.engine)
        columns = tuple(str(c) for c in columns)
        for p in players:
            more = details.get(p["seat"]) or {}
            p.update({c: str(more.get(c, "")) for c in columns})
    rules = [
        f"type: {game.type}",
        f"summary: {game.factory.summary}",
        f"variant: {game.variant or '-'}",
        f"seats: {len(game.seats)}",
        f"state: {game.state}",
    ]
    rules += [f"{k}: {v}" for k, v in sorted(dict(game.config.options).items())]
    return encoding.build_game_details(row(frontend, game), players, rules, r.sessionid, columns)


def find_player(frontend: HandlerContext, conn: Connection, r: events.FindPlayer) -> Any:
    """``lobby/findplayer``: seated players whose name is, or begins with, the name."""
    wanted = r.name.lower()
    matches = []
    for game in _xml_games(frontend):
        for seat in game.seats:
            if seat.player and seat.present and seat.player.lower().startswith(wanted):
                matches.append((seat.player, seat.index, row(frontend, game)))
    matches.sort(key=lambda m: (m[0].lower() != wanted, m[0].lower(), m[2].name))
    return encoding.build_find_player(r.name, matches[:200], r.sessionid)


def lobby_changed(frontend: HandlerContext, change: str, game: Any) -> None:
    """Tell every logged-in connection; end the game sessions of a removed game;
    nothing of a sealed game (no session can be opened on it)."""
    frontend.lists.clear()  # (any change may change a list)
    if game.id in frontend.lobby.sealed:
        return
    frontend.rows.pop(game.id, None)
    removed = change == "removed"
    if removed:
        frontend.forget_game(game)
    wid = wire_game_id(game.id) if removed else frontend.wire_id(game)  # (hosted or not)
    if adapter_for(game.factory) is None:
        return
    if removed:
        for session in [s for s in frontend.sessions if s.game is game]:
            doc = encoding.build_game_state(
                wid, [], session.id, description="the game was removed", success=False
            )
            frontend.send_game(session.conn, game, frontend.encode(doc))
            frontend.sessions.end_game(session.id, leave=False)
    audience = [c for c in frontend.connections if c.lobby_session and not c.closing]
    if not audience:
        return
    # one document for the whole audience: only the envelope's session id differs
    shared = frontend.encode(
        encoding.build_lobby_update(change, None if removed else row(frontend, game), wid, 1)
    )
    frontend.send_lobby(audience, shared)
