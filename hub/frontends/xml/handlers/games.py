"""Game requests: ``game/create``, ``delete``, ``join``, ``part``, ``action``, ``custom``.

``join`` opens a game session (:class:`..sessions.GameSession`), which then follows
the game for the connection; ``part`` ends it.  An action's payload is read by the
game's XML adapter (validated against its payload schema first,
:func:`..adapters.parse_action`) into a game action, which goes to the game, or a seat
operation (:mod:`hub.seatops`), which the hub carries out.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from lxml import etree

from hub.model import OVER, RUNNING
from hub.seatops import AddBot, LeaveSeat, TakeSeat

from .. import codec, encoding, events
from ..adapters import adapter_for, parse_action, seats_on_join
from ..context import HandlerContext
from ..errors import Refused
from ..payload import element, wire_game_id
from ..relay_documents import create_request, delete_request
from ..sessions import seat_back
from .accounts import is_admin

if TYPE_CHECKING:
    from ..connection import Connection, JoinedGame
    from ..sessions import GameSession


def _answer(r: events.GameRequest, op: str, **extra: Any) -> Any:
    return encoding.build_response("game", op, sessionid=r.sessionid, gameid=r.gameid, **extra)


async def create_game(frontend: HandlerContext, conn: Connection, r: events.CreateGame) -> Any:
    """``game/create`` (rate-limited per address and per account)."""
    account = conn.account.name.lower()
    if not frontend.create_limits.allow(f"address:{conn.peer}", f"account:{account}"):
        raise Refused(429, "too many games created; wait a little")
    factory = frontend.hub.registry.game_factory(r.gametype)
    if adapter_for(factory) is None:
        raise Refused(400, f"{r.gametype} cannot be played over XML")
    cluster = frontend.hub.cluster
    if cluster is not None or r.hub is not None:  # placed (a single hub: only itself)
        elsewhere = frontend.hub.place(r.hub)
        if elsewhere is not None and ("xml" in elsewhere.routes or r.hub is not None):
            return await _create_elsewhere(frontend, conn, r, elsewhere)
    seats: list[str] | None = list(r.seats) if r.seats else None
    if seats is None and r.seat_count is not None:
        seats = ["open"] * r.seat_count
    game = await frontend.hub.create_game(
        r.gametype,
        name=r.name,
        variant=r.variant,
        seats=seats,
        options=dict(r.options),
        creator=conn.account.name,
        rated=r.rated,
    )
    wid = frontend.wire_id(game)
    return encoding.build_response(
        "game", "create", sessionid=r.sessionid, gameid=wid,
        description=f"game {game.name} created",
    )  # fmt: skip


async def _create_elsewhere(
    frontend: HandlerContext, conn: Connection, r: events.CreateGame, elsewhere: Any
) -> Any:
    """A new game placed on another hub (named, or the least loaded): made there over
    the client's relay to it; once its owner answered, it is in this hub's view (its
    row is written before the owner answers), so the creator joins it here at once."""
    answer = await frontend.relays.ask(
        conn, elsewhere, create_request(r, elsewhere.hub), r.sessionid
    )
    root = etree.fromstring(answer, codec.hardened_parser())
    node = root.find("response/game/create[@success='true']")
    wid = int(node.get("gameid") or 0) if node is not None else 0
    cluster = frontend.hub.cluster
    if wid and cluster is not None:
        await cluster.look_up_recent(f"xml:{wid}", lambda g: wire_game_id(g.id) == wid)
    return answer


def delete_game(frontend: HandlerContext, conn: Connection, r: events.DeleteGame) -> Any:
    """``game/delete``: by its creator or an admin, of a game that is not running and
    has no chips in play.  Another hub's game: asked of that hub (:mod:`..relay`)."""
    return frontend.with_game(
        r.gameid,
        lambda game: _delete(frontend, conn, r, game),
        lambda e: frontend.relays.ask(conn, e.elsewhere, delete_request(r.gameid), r.sessionid),
    )


async def _delete(
    frontend: HandlerContext, conn: Connection, r: events.DeleteGame, game: Any
) -> Any:
    if game.creator != conn.account.name and not is_admin(conn):
        raise Refused(403, "only its creator or an admin deletes a game")
    if game.state == RUNNING:
        raise Refused(409, "the game is running")
    store = frontend.hub.store
    if store is not None:
        chips = await store.chips_at(game.id)
        if any(Decimal(v) for v in dict(chips).values()):
            raise Refused(409, "chips are in play at this game")
    frontend.lobby.remove(game.id)
    return _answer(r, "delete")


def join_game(frontend: HandlerContext, conn: Connection, r: events.JoinGame) -> Any:
    """``game/join``: a new game session; back at one's seat, or seated at the first
    free one (unless the adapter says join only watches), or watching.  The full state
    follows the response.  A game of another hub of the cluster is joined there, the
    session relayed (:mod:`..relay`)."""
    return frontend.with_game(
        r.gameid,
        lambda game: _join(frontend, conn, r, game),
        lambda e: frontend.relays.join(conn, r, e.elsewhere),
    )


async def _join(frontend: HandlerContext, conn: Connection, r: events.JoinGame, game: Any) -> Any:
    if any(s.game is game for s in conn.game_sessions.values()):
        raise Refused(409, "you have joined this game already")
    adapter = adapter_for(game.factory)
    if adapter is None:  # find_game refused it then; its plugin changed since
        raise Refused(400, f"{game.type} cannot be played over XML")
    observer = frontend.sessions.open_game(conn, game, adapter)
    try:
        description = await _follow_on_join(frontend, observer, conn.account.name)
    except BaseException:
        frontend.sessions.end_game(observer.session_id, leave=False)
        raise
    snapshot = observer.snapshot()
    if conn.send_first(snapshot):
        frontend.record(conn, "out", encoding.outgoing_record(snapshot), game, observer.seat)
    if description.startswith("back at seat"):  # (its turn may have come meanwhile,
        frontend.resumes.turn_again(observer, observer.seat)  # or its end)
        frontend.resumes.end_again(observer, observer.seat)
    return encoding.build_response(
        "game", "join", sessionid=observer.session_id, gameid=r.gameid, description=description
    )


async def _follow_on_join(frontend: HandlerContext, observer: GameSession, name: str) -> str:
    game = observer.game
    seat = seat_back(game, name)
    if seat is not None:
        observer.follow(seat)
        return f"back at seat {seat}"
    free = game.free_seats("client", name)
    if seats_on_join(observer.adapter) and free and game.state != OVER:
        seat = free[0]
        observer.follow(seat)
        await frontend.hub.take_seat(game, name, seat)  # the hub's one way to seat
        return f"seated at seat {seat}"
    observer.follow(None)
    return "watching"


def part_game(frontend: HandlerContext, conn: Connection, r: events.PartGame) -> Any:
    """``game/part``: the game session ends (and its seat is left)."""
    frontend.sessions.end_game(r.sessionid)
    return _answer(r, "part")


def game_action(frontend: HandlerContext, conn: Connection, r: events.GameAction) -> Any:
    """``game/action``: a seat operation (take or leave a seat, add a bot) or an action
    at one's seat, as the adapter read the payload."""
    observer = conn.game_sessions[r.sessionid]
    game = observer.game
    parsed = parse_action(observer.adapter, r.parameters)
    if isinstance(parsed, TakeSeat):
        return _take_seat(frontend, conn, r, observer, parsed)
    if isinstance(parsed, AddBot):
        return _add_bot(frontend, r, observer, parsed)
    seat = observer.held_seat()
    if isinstance(parsed, LeaveSeat):
        if seat is None:
            raise Refused(422, "you do not sit in this game")
        frontend.hub.leave_seat(game, seat)
        observer.follow(None)
    else:
        if seat is None:
            raise Refused(403, "you watch this game; take a seat to play")

        def act(_: object) -> Any:  # on an up-to-date game: its verdict is the answer
            game.act(seat, parsed)
            return _answer(r, "action")

        return game.caught_up().addCallback(act)
    return _answer(r, "action")


async def _take_seat(
    frontend: HandlerContext,
    conn: Connection,
    r: events.GameAction,
    observer: JoinedGame,
    wanted: TakeSeat,
) -> Any:
    """Take a seat (at a chip table: the buy-in moves from the account first, and
    from one's own seat it adds chips) and follow the game from it."""
    game = observer.game

    def observe(seat: int | None) -> None:
        if not observer.closed:
            observer.follow(seat)

    at = wanted.seat if isinstance(wanted.seat, int) and not isinstance(wanted.seat, bool) else None
    name = conn.account.name
    seat = await frontend.hub.take_seat(game, name, at, buyin=wanted.buyin, observe=observe)
    if observer.closed and observer.seat is None:
        game.leave_seat(seat)  # the connection went while the buy-in was moving
    return _answer(r, "action")


async def _add_bot(
    frontend: HandlerContext, r: events.GameAction, observer: JoinedGame, wanted: AddBot
) -> Any:
    """Seat an in-hub bot (funded through the ledger at a chip table): by the game's
    creator or an admin only."""
    account = observer.conn.account
    mine = account is not None and observer.game.creator == account.name
    if not (mine or is_admin(observer.conn)):
        raise Refused(403, "only the game's creator or an admin seats a bot in it")
    await frontend.hub.add_bot(observer.game, wanted.bot, wanted.seat, wanted.buyin)
    return _answer(r, "action")


def custom(frontend: HandlerContext, conn: Connection, r: events.Custom) -> Any:
    """``game/custom``: the adapter's answer (``<ok/>`` when it gives none)."""
    observer = conn.game_sessions[r.sessionid]
    answer = observer.adapter.custom(observer.game, observer.held_seat(), r.payload)
    if answer is None:
        answer = element("ok")
    return encoding.build_response(
        "game", "custom", sessionid=r.sessionid, gameid=r.gameid, parameters=[answer]
    )
