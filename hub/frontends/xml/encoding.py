"""Encoding: the server's documents (responses, state updates) → bytes, no I/O.

Documents are built with the ``build_*`` functions and serialised by :func:`encode`,
which validates them against ``message.xsd`` and raises
:class:`.errors.LocalProtocolError` ("we tried to send something illegal") if not.
:func:`outgoing_record` is what a transcript keeps of an encoded document (its
session id hidden).  A refused request is answered by :func:`build_refusal`.

Game ids on this wire are ``xs:long`` (as in the seed), while the lobby's ids are 13
characters ``[a-z0-9]``; :func:`.payload.wire_game_id` maps one to the other (a stable
63-bit digest), so every connection and every hub run agrees on it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, NamedTuple

from lxml import etree

from . import events
from .errors import LocalProtocolError
from .payload import attr_text, clean, element, sub
from .schema import message_schema

#: Protocol version announced in the ``info`` greeting.
PROTOCOL_VERSION = "1.0"


def money(amount: Decimal | int | str) -> str:
    """A balance or amount as a decimal string with two fraction digits."""
    value = amount if isinstance(amount, Decimal) else Decimal(str(amount))
    return str(value.quantize(Decimal("0.01")))


def envelope(sessionid: int = 0) -> etree._Element:
    """An empty ``<message>`` for ``sessionid``."""
    return element("message", sessionid=sessionid if sessionid else None)


#: documents serialised since the process started (fan-out is counted by it, and the
#: metrics read it): one per change per audience, not one per connection
serialised = 0


def encode(root: etree._Element) -> bytes:
    """Serialise a server document after validating it against ``message.xsd``.

    :raises LocalProtocolError: the document is not valid (a bug of ours).
    """
    schema = message_schema()
    if not schema.validate(root):
        raise LocalProtocolError(str(schema.error_log.last_error))
    return serialise(root)


def serialise(root: etree._Element) -> bytes:
    """Serialise a server document without validating it: the front end's own
    documents in production (``xml_check_output`` off; the tests validate them)."""
    global serialised
    serialised += 1
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


def for_session(document: bytes, sessionid: int) -> bytes:
    """A document serialised once for many connections (with session id 1) with the
    envelope's session id of one of them; its place is fixed by our own serialiser."""
    head, tail = session_parts(document)
    return b"%s%d%s" % (head, int(sessionid), tail)


def session_parts(document: bytes) -> tuple[bytes, bytes]:
    """What comes before and after the envelope's session id in a document of ours
    (:func:`for_session` for many sessions: ``head + b"%d" % sessionid + tail``)."""
    if not document.startswith(_OWN_PREFIX):
        raise LocalProtocolError("not a document of ours with a session id")
    end = document.find(b'"', len(_OWN_PREFIX))
    return _OWN_PREFIX, document[end:]


def _outcome(
    node: etree._Element,
    success: bool,
    errorcode: int | None,
    description: str | None,
    parameters: Iterable[etree._Element] | None,
) -> None:
    node.set("success", "true" if success else "false")
    if errorcode is not None:
        node.set("errorcode", str(int(errorcode)))
    if description is not None:
        sub(node, "description", description)
    if parameters is not None:
        holder = sub(node, "parameters")
        for child in parameters:
            holder.append(child)


def build_response(
    group: str,
    op: str,
    *,
    success: bool = True,
    errorcode: int | None = None,
    description: str | None = None,
    parameters: Iterable[etree._Element] | None = None,
    sessionid: int = 0,
    gameid: int | None = None,
    **attrs: Any,
) -> etree._Element:
    """A ``response/<group>/<op>`` of the generic shape (success, errorcode, description,
    parameters); ``attrs`` go on the ``<op>`` element (``name``, ``type``, ``balance``,
    ``gameid`` of ``game/create``)."""
    root = envelope(sessionid)
    response = sub(root, "response")
    if group == "general":
        node = sub(response, "general")
    else:
        holder = sub(response, group, gameid=gameid if group == "game" else None)
        node = sub(holder, op)
    if group == "game" and op == "custom":
        for child in parameters or ():
            node.append(child)
        return root
    if group == "game" and op == "create" and gameid is not None:
        node.set("gameid", str(gameid))
    for key, value in attrs.items():
        if value is not None:
            node.set(key, attr_text(value))
    _outcome(node, success, errorcode, description, parameters)
    return root


def build_error(code: int, description: str, sessionid: int = 0) -> etree._Element:
    """``response/general`` with success="false"."""
    return build_response(
        "general", "", success=False, errorcode=code, description=description, sessionid=sessionid
    )


def build_info(server: str, frontends: Mapping[str, Any]) -> etree._Element:
    """The greeting: server name, protocol version and the front ends with their ports."""
    root = envelope(0)
    info = sub(root, "info")
    parameters = sub(info, "parameters")
    sub(parameters, "server", name=server, version=PROTOCOL_VERSION)
    sub(parameters, "protocol", name="gamehub-xml", version=PROTOCOL_VERSION)
    listing = sub(parameters, "frontends")
    for name, port in sorted(frontends.items()):
        sub(listing, "frontend", name=name, port=port)
    return root


@dataclass(frozen=True)
class GameType:
    """One row of ``availablegames``."""

    type: str
    clientgame: str
    servergame: str
    variants: Sequence[str] = ()
    summary: str | None = None
    minplayers: int | None = None
    maxplayers: int | None = None
    creategamepanel: str = ""


def build_available_games(types: Iterable[GameType], sessionid: int = 0) -> etree._Element:
    """``response/lobby/availablegames``."""
    root = envelope(sessionid)
    node = sub(sub(sub(root, "response"), "lobby"), "availablegames")
    for t in types:
        game = sub(
            node,
            "game",
            type=t.type,
            clientgame=t.clientgame,
            creategamepanel=t.creategamepanel,
            servergame=t.servergame,
            summary=t.summary,
            minplayers=t.minplayers,
            maxplayers=t.maxplayers,
        )
        if t.variants:
            variants = sub(game, "variants")
            for v in t.variants:
                sub(variants, "string", v)
    return root


class GameRow(NamedTuple):
    """One game as the lobby lists it on this wire (a tuple: made for every game of
    every listing, and the key of a serialised listing)."""

    gameid: int
    name: str
    gametype: str
    gamevariant: str
    players: Sequence[str]
    maxplayers: int
    state: str | None = None
    #: why a table deals no new hand now (``additionalinfo/other/parameters/paused``)
    paused: str | None = None


GAMELIST_COLUMNS = ("gameid", "name", "gametype", "gamevariant", "players", "maxplayers")


def _row(parent: etree._Element, row: GameRow) -> etree._Element:
    game = sub(
        parent,
        "game",
        gameid=row.gameid,
        players=len(row.players),
        maxplayers=row.maxplayers,
        name=row.name,
        gametype=row.gametype,
        gamevariant=row.gamevariant,
        state=row.state,
    )
    extra = sub(game, "additionalinfo")
    other = sub(extra, "other")
    if row.paused:
        sub(sub(other, "parameters"), "paused", row.paused)
    names = sub(extra, "players")
    for name in row.players:
        sub(names, "player", name)
    return game


def build_game_list(
    rows: Iterable[GameRow],
    requested_type: str | None,
    requested_variant: str | None = None,
    sessionid: int = 0,
) -> etree._Element:
    """``response/lobby/gamelist``."""
    root = envelope(sessionid)
    node = sub(
        sub(sub(root, "response"), "lobby"),
        "gamelist",
        requestedgametype=requested_type or "",
        requestedgamevariant=requested_variant,
    )
    columns = sub(node, "columnnames")
    for c in GAMELIST_COLUMNS:
        sub(columns, "string", c)
    games = sub(node, "games")
    for row in rows:
        _row(games, row)
    return root


def build_game_details(
    row: GameRow,
    players: Iterable[Mapping[str, Any]],
    rules: Iterable[str],
    sessionid: int = 0,
    more: Iterable[str] = (),
) -> etree._Element:
    """``response/lobby/gamedetails``: one ``player/info`` per seat (``seat``, ``name``,
    ``kind``, then the game's ``more`` columns: a chip table's ``chips``) and the rules
    as strings."""
    root = envelope(sessionid)
    node = sub(sub(sub(root, "response"), "lobby"), "gamedetails")
    names = ("seat", "name", "kind", *more)
    columns = sub(node, "columnnames")
    for c in names:
        sub(columns, "string", c)
    listing = sub(node, "players")
    for p in players:
        info = sub(sub(listing, "player"), "info")
        parameters = sub(info, "parameters")
        for key in names:
            sub(parameters, key, p.get(key, ""))
    rules_node = sub(node, "rules")
    for r in rules:
        sub(rules_node, "string", r)
    return root


def build_find_player(
    name: str, matches: Iterable[tuple[str, int, GameRow]], sessionid: int = 0
) -> etree._Element:
    """``response/lobby/findplayer``: ``(player, seat, game)`` for each match."""
    root = envelope(sessionid)
    node = sub(sub(sub(root, "response"), "lobby"), "findplayer", name=name)
    for player, seat, row in matches:
        sub(
            node,
            "game",
            player=player,
            seat=seat,
            gameid=row.gameid,
            name=row.name,
            gametype=row.gametype,
            gamevariant=row.gamevariant,
        )
    return root


@dataclass(frozen=True)
class HistoryEntry:
    """One finished game or hand."""

    id: str
    gameid: int | None = None
    gametype: str | None = None
    name: str | None = None
    time: str | None = None
    players: Sequence[tuple[str, int | None, str | None]] = ()
    summary: str | None = None


def build_history(entries: Iterable[HistoryEntry], sessionid: int = 0) -> etree._Element:
    """``response/lobby/history``."""
    root = envelope(sessionid)
    node = sub(sub(sub(root, "response"), "lobby"), "history")
    for e in entries:
        entry = sub(
            node, "entry", id=e.id, gameid=e.gameid, gametype=e.gametype, name=e.name, time=e.time
        )
        for player, seat, result in e.players:
            sub(entry, "player", name=player, seat=seat, result=result)
        if e.summary is not None:
            sub(entry, "summary", e.summary)
    return root


def build_ratings(
    gametype: str, gamevariant: str, rows: Iterable[dict[str, Any]], sessionid: int = 0
) -> etree._Element:
    """``response/lobby/ratings``: one ``player`` per row of a leaderboard, best first
    (``place``, ``name``, ``kind``, ``mu``, ``sigma``, ``ordinal``, ``games``)."""
    root = envelope(sessionid)
    node = sub(
        sub(sub(root, "response"), "lobby"), "ratings", gametype=gametype, gamevariant=gamevariant
    )
    for place, r in enumerate(rows, 1):
        sub(
            node, "player", place=place, name=r["name"], kind=r["kind"], mu=f"{r['mu']:.6f}",
            sigma=f"{r['sigma']:.6f}", ordinal=f"{r['ordinal']:.6f}", games=r["games"],
        )  # fmt: skip
    return root


def build_game_state(
    gameid: int,
    payload: Iterable[etree._Element],
    sessionid: int = 0,
    description: str | None = None,
    success: bool = True,
) -> etree._Element:
    """``stateupdate/game[@gameid]/updatedgamestate`` with ``payload`` as parameters."""
    root = envelope(sessionid)
    game = sub(sub(root, "stateupdate"), "game", gameid=gameid)
    node = sub(game, "updatedgamestate")
    _outcome(node, success, None, description, list(payload))
    return root


def build_chat(
    gameid: int, sender: str, text: str, sessionid: int = 0, type: int = 0
) -> etree._Element:
    """``stateupdate/game[@gameid]/chat`` (``sender`` set by the server).  Made for
    every chat line: the elements are made directly (:func:`.payload.sub` makes the
    same, cleaning every value; here only the client's strings need it)."""
    root = envelope(sessionid)
    game = etree.SubElement(etree.SubElement(root, "stateupdate"), "game", gameid=str(int(gameid)))
    chat = etree.SubElement(game, "chat", sender=clean(sender))
    if type:
        chat.set("type", str(int(type)))
    etree.SubElement(chat, "message").text = clean(text)
    return root


#: what the serialiser writes for a character of text (``\t`` and ``\n`` as they are)
_TEXT_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("\r", "&#13;"))
#: and of an attribute's value (in double quotes)
_ATTR_ESCAPES = (*_TEXT_ESCAPES, ('"', "&quot;"), ("\t", "&#9;"), ("\n", "&#10;"))
_TEXT_SPECIAL = frozenset("&<>\r")
_ATTR_SPECIAL = frozenset('&<>\r"\t\n')


def _escaped(text: str, escapes: tuple[tuple[str, str], ...], special: frozenset[str]) -> str:
    """``text`` (cleaned) as lxml's serialiser writes it in a text or an attribute."""
    if special.isdisjoint(text):
        return text
    for raw, entity in escapes:  # "&" first
        if raw in text:
            text = text.replace(raw, entity)
    return text


def chat_document(gameid: int, sender: str, text: str, sessionid: int = 0, type: int = 0) -> bytes:
    """:func:`serialise` of :func:`build_chat`'s document, written without lxml (the
    same bytes: a chat line is made for every line said; the tests compare the two)."""
    global serialised
    serialised += 1
    sid = f' sessionid="{int(sessionid)}"' if sessionid else ""
    kind = f' type="{int(type)}"' if type else ""
    who = _escaped(clean(sender), _ATTR_ESCAPES, _ATTR_SPECIAL)
    said = _escaped(clean(text), _TEXT_ESCAPES, _TEXT_SPECIAL)
    return (
        f"<?xml version='1.0' encoding='UTF-8'?>\n<message{sid}><stateupdate>"
        f'<game gameid="{int(gameid)}"><chat sender="{who}"{kind}><message>{said}</message>'
        "</chat></game></stateupdate></message>"
    ).encode()


def build_lobby_update(
    change: str, row: GameRow | None, gameid: int, sessionid: int = 0
) -> etree._Element:
    """``stateupdate/lobby/updatedlobbystate``: ``change`` (created/changed/removed) and
    the game's row (``None`` when removed), for the lobby session ``sessionid``."""
    root = envelope(sessionid)
    node = sub(sub(sub(root, "stateupdate"), "lobby"), "updatedlobbystate", success=True)
    sub(node, "description", f"game {change}")
    parameters = sub(node, "parameters")
    holder = sub(parameters, "change", type=change, gameid=gameid)
    if row is not None:
        _row(holder, row)
    return root


def build_notice(text: str, sessionid: int = 0, errorcode: int | None = None) -> etree._Element:
    """``stateupdate/general``: a server notice (with ``errorcode``: a failure, such as
    the idle timeout's 408 before a close)."""
    root = envelope(sessionid)
    node = sub(sub(root, "stateupdate"), "general", success=errorcode is None)
    if errorcode is not None:
        node.set("errorcode", str(errorcode))
    sub(node, "description", text)
    return root


#: request type → (group, op) of the response element that can say success="false";
#: other requests (lobby listings, custom) are refused with ``response/general``.
_OWN_RESPONSE: dict[type[events.Request], tuple[str, str]] = {
    events.CreateAccount: ("accountmanagement", "create"),
    events.DeleteAccount: ("accountmanagement", "delete"),
    events.ChangePassword: ("accountmanagement", "changepassword"),
    events.Login: ("authentication", "login"),
    events.Resume: ("authentication", "resume"),
    events.Logout: ("authentication", "logout"),
    events.CreateGame: ("game", "create"),
    events.DeleteGame: ("game", "delete"),
    events.JoinGame: ("game", "join"),
    events.PartGame: ("game", "part"),
    events.GameAction: ("game", "action"),
    events.Chat: ("game", "chat"),
}


def build_refusal(request: events.Request, code: int, reason: str) -> etree._Element:
    """The answer to a refused request: its own response element with
    ``success="false"`` where the schema allows it (so a client waiting for, say,
    ``authentication/login`` gets that), else ``response/general``."""
    which = _OWN_RESPONSE.get(type(request))
    if which is None:
        return build_error(code, reason, request.sessionid)
    group, op = which
    extra: dict[str, Any] = {}
    if op in ("login", "resume"):
        # any request may be refused: only some event types have these fields
        extra = {"name": getattr(request, "accountname", ""), "type": 0}
    return build_response(
        group,
        op,
        success=False,
        errorcode=code,
        description=reason,
        sessionid=request.sessionid,
        gameid=getattr(request, "gameid", None) if group == "game" else None,  # as above
        **extra,
    )


_OWN_PREFIX = b"<?xml version='1.0' encoding='UTF-8'?>\n<message sessionid=\""


_TOKEN = b' resumetoken="'


def outgoing_record(document: bytes) -> bytes:
    """A document built by :func:`encode` as a transcript keeps it: the envelope's
    session id (a session token) hidden, and a resume token (of a login or resume
    answer).  The session id's place is fixed by our own serialiser."""
    if document.startswith(_OWN_PREFIX):
        end = document.find(b'"', len(_OWN_PREFIX))
        if end > 0:
            document = _OWN_PREFIX + b"*" + document[end:]
    at = document.find(_TOKEN)
    if at >= 0:
        start = at + len(_TOKEN)
        end = document.find(b'"', start)
        document = document[:start] + b"*" + document[end:]
    return document


def frame(document: bytes) -> bytes:
    """One document as a frame on the wire: its 4-byte big-endian length, then it."""
    return len(document).to_bytes(4, "big") + document
