"""The XML protocol codec: one frame's bytes ⇄ typed events, with no I/O.

Incoming documents go through :func:`decode` (or :func:`parse_document` for a
client reading server messages): a hardened lxml parser (no DTD, no entities, no
network, no huge trees, bounded depth), a refusal of any DOCTYPE, and validation against
``message.xsd``.  The only exception that comes out is :class:`ProtocolError` ("the peer
broke the protocol"), carrying the error code to answer with.

Outgoing documents are built with the ``build_*`` helpers and serialised by
:func:`encode`, which validates them against the same schema and raises
:class:`LocalProtocolError` ("we tried to send something illegal") if not.

Game ids on this wire are ``xs:long`` (as in the seed), while the lobby's ids are 13
characters ``[a-z0-9]``; :func:`wire_game_id` maps one to the other (a stable 63-bit
digest), so every connection and every hub run agrees on it.  It and the element
helpers live in :mod:`.payload`, the part of this front end game adapters may use.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from decimal import Decimal
from functools import cache
from importlib import resources
from typing import Any, ClassVar

from lxml import etree

from hub import chat
from hub import fields as hub_fields

from .payload import attr_text, clean, element, sub, wire_game_id

#: Protocol version announced in the ``info`` greeting.
PROTOCOL_VERSION = "1.0"
#: Deepest element nesting accepted in an incoming document.
MAX_DEPTH = 48
#: Largest document the codec parses at all (the framing limit is normally lower).
MAX_DOCUMENT = 1 << 20
#: Longest chat text accepted (the hub's chat limit, the same on every front end).
MAX_CHAT = chat.MAX_CHAT

_XML_DECL = re.compile(r"^\ufeff?\s*<\?xml[^>]*?encoding\s*=\s*[\"']([^\"']*)[\"']", re.S)
_FORBIDDEN = re.compile(r"<!\s*(DOCTYPE|ENTITY|ELEMENT|ATTLIST|NOTATION)", re.I)


class ProtocolError(Exception):
    """The peer broke the protocol; answer with ``response/general`` and ``code``.

    :ivar code: 400 malformed or refused document, 413 too large.
    :ivar reason: a sentence a person can read.
    :ivar record: what a transcript may keep of the refused frame (set by
        :func:`decode`): the document with its secret fields blanked when it is
        well-formed XML, else only its size.
    """

    def __init__(self, reason: str, code: int = 400) -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code
        self.record = b""
        self.document: etree._Element | None = None


class LocalProtocolError(Exception):
    """We tried to send a document the schema does not allow (a bug of ours)."""


# -- parsing ---------------------------------------------------------------------------


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        collect_ids=False,
    )


#: the front end's own schema (games bring theirs: ``IXMLPayloadSchema``)
MESSAGE_SCHEMA = "message.xsd"


def compile_schema(data: bytes) -> etree.XMLSchema:
    """An XSD document's bytes → the compiled schema (read with the hardened parser;
    it may not include or import other files).

    :raises ValueError, lxml.etree.Error: not a usable schema.
    """
    if _FORBIDDEN.search(data.decode("utf-8", "replace")):
        raise ValueError("DOCTYPE and DTD declarations are refused")
    return etree.XMLSchema(etree.fromstring(data, _parser()))


def schema_bytes(name: str) -> bytes:
    """The published text of the front end's own schema, ``message.xsd``."""
    if name != MESSAGE_SCHEMA:
        raise KeyError(name)
    return resources.files("hub").joinpath("schema", name).read_bytes()


@cache
def message_schema() -> etree.XMLSchema:
    """The compiled ``message.xsd``."""
    return compile_schema(schema_bytes(MESSAGE_SCHEMA))


def _depth_ok(root: etree._Element, limit: int) -> bool:
    stack = [(root, 1)]
    while stack:
        element, depth = stack.pop()
        if depth > limit:
            return False
        stack.extend((child, depth + 1) for child in element)
    return True


def parse_document(
    data: bytes, schema: etree.XMLSchema | None = None, max_size: int = MAX_DOCUMENT
) -> etree._Element:
    """Parse one untrusted document and validate it.

    :param data: the frame's bytes (UTF-8).
    :param schema: what to validate against (default ``message.xsd``).
    :raises ProtocolError: for anything but a valid document; never anything else.
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise ProtocolError("a document is bytes")
    data = bytes(data)
    if len(data) > max_size:
        raise ProtocolError(f"document of {len(data)} bytes exceeds {max_size}", 413)
    if not data:
        raise ProtocolError("empty document")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ProtocolError(f"document is not UTF-8 (byte {e.start})") from None
    declared = _XML_DECL.match(text)
    if declared and declared.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
        raise ProtocolError(f"documents must be UTF-8; declared {clean(declared.group(1))[:40]}")
    if _FORBIDDEN.search(text):
        raise ProtocolError("DOCTYPE and DTD declarations are refused")
    try:
        root = etree.fromstring(data, _parser())
    except (etree.Error, ValueError, TypeError) as e:
        raise ProtocolError(f"not well-formed XML: {_short(e)}") from None
    if root is None:
        raise ProtocolError("no document element")
    tree = root.getroottree()
    if tree.docinfo.doctype or tree.docinfo.internalDTD is not None:
        raise ProtocolError("DOCTYPE and DTD declarations are refused")
    if not _depth_ok(root, MAX_DEPTH):
        raise ProtocolError(f"document nested deeper than {MAX_DEPTH}")
    try:
        validate(root, schema if schema is not None else message_schema())
    except ProtocolError as e:
        e.document = root
        raise
    return root


def validate(root: etree._Element, schema: etree.XMLSchema) -> None:
    """Validate ``root`` against ``schema``.

    :raises ProtocolError: 400 with the first schema complaint.
    """
    try:
        ok = schema.validate(root)
    except (etree.Error, ValueError, TypeError) as e:
        raise ProtocolError(f"document cannot be validated: {_short(e)}") from None
    if not ok:
        error = schema.error_log.last_error
        where = f"line {error.line}: " if error is not None else ""
        message = error.message if error is not None else "invalid"
        raise ProtocolError(f"document does not match the schema: {where}{message}")


def _short(error: BaseException) -> str:
    text = str(error) or type(error).__name__
    return text if len(text) < 200 else text[:197] + "..."


# -- request events ----------------------------------------------------------------------


@dataclass(frozen=True)
class Request:
    """Base of every decoded request.

    :ivar sessionid: the envelope's session id (0 before login).
    :ivar record: the frame as a transcript may keep it (:func:`transcript_record`):
        every secret field blanked, the session id hidden; set on each decoded
        request by :func:`decode` (not a field: it takes no part in comparisons).
    """

    sessionid: int
    record: ClassVar[bytes] = b""


#: the metadata that marks a request field secret: it never reaches a transcript or a
#: log (a password); ``field(repr=False, metadata=SECRET)``
SECRET = {"secret": True}


@dataclass(frozen=True)
class CreateAccount(Request):
    """``accountmanagement/create``."""

    accountname: str
    password: str = field(repr=False, metadata=SECRET)
    accounttype: int


@dataclass(frozen=True)
class DeleteAccount(Request):
    """``accountmanagement/delete``."""

    accountname: str
    password: str = field(repr=False, metadata=SECRET)


@dataclass(frozen=True)
class ChangePassword(Request):
    """``accountmanagement/changepassword``."""

    accountname: str
    oldpassword: str = field(repr=False, metadata=SECRET)
    newpassword: str = field(repr=False, metadata=SECRET)


@dataclass(frozen=True)
class Login(Request):
    """``authentication/login``."""

    accountname: str
    password: str = field(repr=False, metadata=SECRET)


@dataclass(frozen=True)
class Logout(Request):
    """``authentication/logout``."""


@dataclass(frozen=True)
class AvailableGames(Request):
    """``lobby/availablegames``."""


@dataclass(frozen=True)
class GameList(Request):
    """``lobby/gamelist``; ``gametype`` ``None`` means every type."""

    gametype: str | None
    gamevariant: str | None


@dataclass(frozen=True)
class GameDetails(Request):
    """``lobby/gamedetails``."""

    gameid: int


@dataclass(frozen=True)
class FindPlayer(Request):
    """``lobby/findplayer``: ``name`` matches exactly or as a prefix."""

    name: str


@dataclass(frozen=True)
class History(Request):
    """``lobby/history`` of one game or one account."""

    gameid: int | None
    accountname: str | None
    limit: int


@dataclass(frozen=True)
class CreateGame(Request):
    """``game/create``.

    :ivar seats: seat kinds (``open``, ``human``, ``bot:<name>``) when given one by one.
    :ivar seat_count: the number of seats when given as a count.
    :ivar options: game-specific settings from ``<option name="…">value</option>``.
    """

    gametype: str
    name: str
    variant: str | None = None
    seats: tuple[str, ...] | None = None
    seat_count: int | None = None
    options: tuple[tuple[str, Any], ...] = ()


@dataclass(frozen=True)
class GameRequest(Request):
    """Base of the requests that name a game (``gameid`` is the wire id)."""

    gameid: int


@dataclass(frozen=True)
class DeleteGame(GameRequest):
    """``game/delete``."""


@dataclass(frozen=True)
class JoinGame(GameRequest):
    """``game/join``."""


@dataclass(frozen=True)
class PartGame(GameRequest):
    """``game/part``."""


@dataclass(frozen=True)
class GameAction(GameRequest):
    """``game/action``: ``parameters`` is the ``<parameters>`` element (the payload)."""

    parameters: Any = field(compare=False, repr=False, default=None)


@dataclass(frozen=True)
class Chat(GameRequest):
    """``game/chat`` (any ``sender`` the client wrote is ignored)."""

    text: str = ""
    type: int = 0


@dataclass(frozen=True)
class Custom(GameRequest):
    """``game/custom``: ``payload`` is the single child element (or ``None``)."""

    payload: Any = field(compare=False, repr=False, default=None)


def _attr(element: etree._Element, name: str, default: str | None = None) -> str | None:
    value = element.get(name)
    return default if value is None else value


def _long(element: etree._Element, name: str, default: int = 0) -> int:
    value = element.get(name)
    return default if value is None else int(value.strip())


def _text(element: etree._Element | None) -> str:
    return "" if element is None else "".join(element.itertext())


def _option_value(text: str) -> Any:
    stripped = text.strip()
    if re.fullmatch(r"-?\d{1,18}", stripped):
        return int(stripped)
    if stripped in ("true", "false"):
        return stripped == "true"
    return stripped


def _create_game(sessionid: int, element: etree._Element) -> CreateGame:
    variant: str | None = None
    seats: list[str] = []
    seat_count: int | None = None
    options: list[tuple[str, Any]] = []
    parameters = element.find("parameters")
    if parameters is not None:
        for child in parameters:
            tag = child.tag
            if not isinstance(tag, str):
                continue
            text = _text(child).strip()
            if tag == "variant":
                variant = text or None
            elif tag == "seats":
                if not re.fullmatch(r"\d{1,3}", text):
                    raise ProtocolError("game/create: <seats> is a number of seats")
                seat_count = int(text)
            elif tag == "seat":
                if not re.fullmatch(r"open|human|bot:[a-z0-9-]{1,64}", text):
                    raise ProtocolError("game/create: <seat> is open, human or bot:<name>")
                seats.append(text)
            elif tag == "option":
                name = child.get("name", "")
                if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", name):
                    raise ProtocolError("game/create: <option> needs a name attribute")
                options.append((name, _option_value(text)))
            else:
                raise ProtocolError(f"game/create: unknown parameter <{tag}>")
    return CreateGame(
        sessionid,
        gametype=element.get("gametype", ""),
        name=element.get("name", ""),
        variant=variant,
        seats=tuple(seats) or None,
        seat_count=seat_count,
        options=tuple(options),
    )


def _request(sessionid: int, request: etree._Element) -> Request:
    group = request[0]
    which = group[0] if len(group) else None
    kind = group.tag
    op = which.tag if which is not None else None
    if kind == "accountmanagement":
        assert which is not None
        if op == "create":
            return CreateAccount(
                sessionid, which.get("accountname", ""), which.get("password", ""),
                _long(which, "accounttype"),
            )  # fmt: skip
        if op == "delete":
            return DeleteAccount(sessionid, which.get("accountname", ""), which.get("password", ""))
        return ChangePassword(
            sessionid, which.get("accountname", ""), which.get("oldpassword", ""),
            which.get("newpassword", ""),
        )  # fmt: skip
    if kind == "authentication":
        if op == "login":
            assert which is not None
            return Login(sessionid, which.get("accountname", ""), which.get("password", ""))
        return Logout(sessionid)
    if kind == "lobby":
        assert which is not None
        if op == "availablegames":
            return AvailableGames(sessionid)
        if op == "gamelist":
            gametype = which.get("gametype")
            if gametype in ("", "com.asdf.games.game"):
                gametype = None
            return GameList(sessionid, gametype, which.get("gamevariant") or None)
        if op == "gamedetails":
            return GameDetails(sessionid, _long(which, "gameid"))
        if op == "findplayer":
            name = which.get("name", "")
            if not name.strip():
                raise ProtocolError("lobby/findplayer needs a name")
            return FindPlayer(sessionid, name.strip())
        # history
        gameid = which.get("gameid")
        accountname = which.get("accountname")
        if (gameid is None) == (accountname is None):
            raise ProtocolError("lobby/history needs exactly one of gameid and accountname")
        return History(
            sessionid,
            int(gameid.strip()) if gameid is not None else None,
            accountname,
            _long(which, "limit", 20),
        )
    # game
    gameid = _long(group, "gameid")
    if which is None:
        raise ProtocolError("game request without an operation")
    if op == "create":
        return _create_game(sessionid, which)
    if op == "delete":
        return DeleteGame(sessionid, gameid)
    if op == "join":
        return JoinGame(sessionid, gameid)
    if op == "part":
        return PartGame(sessionid, gameid)
    if op == "action":
        return GameAction(sessionid, gameid, which.find("parameters"))
    if op == "chat":
        text = _text(which.find("message"))
        if len(text) > MAX_CHAT:
            raise ProtocolError(f"chat text longer than {MAX_CHAT} characters")
        return Chat(sessionid, gameid, text, _long(which, "type"))
    if op == "custom":
        return Custom(sessionid, gameid, which[0] if len(which) else None)
    raise ProtocolError(f"game/{op} is not supported")


#: the client strings of each request and the rule of :mod:`hub.fields` each keeps
FIELD_RULES: dict[type[Request], dict[str, hub_fields.Field]] = {
    CreateAccount: {"accountname": hub_fields.ACCOUNT_NAME, "password": hub_fields.PASSWORD},
    DeleteAccount: {
        "accountname": hub_fields.ACCOUNT_NAME,
        "password": hub_fields.GIVEN_PASSWORD,
    },
    ChangePassword: {
        "accountname": hub_fields.ACCOUNT_NAME,
        "oldpassword": hub_fields.GIVEN_PASSWORD,
        "newpassword": hub_fields.PASSWORD,
    },
    Login: {"accountname": hub_fields.ACCOUNT_NAME, "password": hub_fields.GIVEN_PASSWORD},
    FindPlayer: {"name": hub_fields.SEARCH},
    History: {"accountname": hub_fields.ACCOUNT_NAME},
    CreateGame: {"name": hub_fields.GAME_NAME},
}


def check_fields(request: Request) -> None:
    """Check the client's strings in ``request`` by their rules (:data:`FIELD_RULES`;
    a new game's options by :func:`hub.fields.check_options`).

    :raises hub.fields.FieldError: one breaks its rule (400).
    """
    for attribute, rule in FIELD_RULES.get(type(request), {}).items():
        value = getattr(request, attribute)
        if value is None:
            continue
        try:
            rule.check(value)
        except hub_fields.FieldError as e:
            raise hub_fields.FieldError(f"{attribute}: {e.reason}") from None
    if isinstance(request, CreateGame):
        hub_fields.check_options(dict(request.options))


#: requests (``request/<group>``) whose every value but the public ones is secret
SECRET_GROUPS = ("accountmanagement", "authentication")
#: the attributes of those requests that are not secret
PUBLIC_ACCOUNT_FIELDS = frozenset({"accountname", "accounttype"})
#: the fields marked :func:`secret` in the request events (``password``...)
SECRET_FIELDS = frozenset(
    f.name
    for cls in (CreateAccount, DeleteAccount, ChangePassword, Login)
    for f in fields(cls)
    if f.metadata.get("secret")
)
BLANK = "***"


def transcript_record(root: etree._Element, valid: bool = True) -> bytes:
    """A parsed client document as a transcript keeps it.

    Every value of an account or login request but its public fields (the secret
    fields :data:`SECRET_FIELDS`, as attributes or elements, text or CDATA, and anything
    misplaced there) is blanked, and so is every secret field anywhere in a document
    that did not validate (``valid=False``); the envelope's session id (a session
    token) is hidden.  The document is changed in place: call it after the request has
    been read.
    """
    if root.get("sessionid") is not None:
        root.set("sessionid", "*")
    if valid:  # the schema allows secrets in the account and login requests only
        body = root[0] if len(root) else None
        for group in body if body is not None else ():
            if group.tag in SECRET_GROUPS:
                _blank_account_request(group)
        return etree.tostring(root)
    for node in root.iter():
        if not isinstance(node.tag, str):
            continue
        if node.tag in SECRET_GROUPS and node.getparent() is not None:
            _blank_account_request(node)
            continue
        for name in SECRET_FIELDS.intersection(node.attrib):
            node.set(name, BLANK)
        if node.tag in SECRET_FIELDS:
            for child in list(node):
                node.remove(child)
            node.text = BLANK
    return etree.tostring(root)


def _blank_account_request(group: etree._Element) -> None:
    for inner in group.iter():
        if not isinstance(inner.tag, str):
            continue
        for name in inner.attrib:
            if name not in PUBLIC_ACCOUNT_FIELDS:
                inner.set(name, BLANK)
        if inner.text:
            inner.text = BLANK
        if inner.tail and inner is not group:
            inner.tail = BLANK


def refused_record(data: bytes, error: ProtocolError) -> bytes:
    """What a transcript keeps of a refused frame: its secret-free form if it parsed,
    else only its size and the error code."""
    if error.document is not None:
        return transcript_record(error.document, valid=False)
    return f"[refused frame of {len(data)} bytes: error {error.code}]".encode()


_OWN_PREFIX = b"<?xml version='1.0' encoding='UTF-8'?>\n<message sessionid=\""


def outgoing_record(document: bytes) -> bytes:
    """A document built by :func:`encode` as a transcript keeps it: the envelope's
    session id (a session token) hidden.  Its place is fixed by our own serialiser."""
    if document.startswith(_OWN_PREFIX):
        end = document.find(b'"', len(_OWN_PREFIX))
        if end > 0:
            return _OWN_PREFIX + b"*" + document[end:]
    return document


def decode(data: bytes, max_size: int = MAX_DOCUMENT) -> Request:
    """One client frame → one :class:`Request` event (with its :attr:`Request.record`).

    :raises ProtocolError: the frame is not a valid request (only this type), with
        its :attr:`ProtocolError.record`.
    """
    root: etree._Element | None = None
    try:
        root = parse_document(data, max_size=max_size)
        try:
            sessionid = _long(root, "sessionid")
        except ValueError:  # pragma: no cover - the schema has checked it is a long
            raise ProtocolError("sessionid is not a number") from None
        body = root[0]
        if body.tag != "request":
            raise ProtocolError(f"clients send requests, not <{body.tag}>")
        try:
            request = _request(sessionid, body)
        except ProtocolError:
            raise
        except (ValueError, IndexError, AssertionError, TypeError, AttributeError, KeyError) as e:
            raise ProtocolError(f"malformed request: {_short(e)}") from None
    except ProtocolError as e:
        if e.document is None:
            e.document = root
        e.record = refused_record(data, e)
        raise
    object.__setattr__(request, "record", transcript_record(root))
    return request


# -- building server documents ---------------------------------------------------------


def money(amount: Decimal | int | str) -> str:
    """A balance or amount as a decimal string with two fraction digits."""
    value = amount if isinstance(amount, Decimal) else Decimal(str(amount))
    return str(value.quantize(Decimal("0.01")))


def envelope(sessionid: int = 0) -> etree._Element:
    """An empty ``<message>`` for ``sessionid``."""
    return element("message", sessionid=sessionid if sessionid else None)


def encode(root: etree._Element) -> bytes:
    """Serialise a server document after validating it against ``message.xsd``.

    :raises LocalProtocolError: the document is not valid (a bug of ours).
    """
    schema = message_schema()
    if not schema.validate(root):
        raise LocalProtocolError(str(schema.error_log.last_error))
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


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


@dataclass(frozen=True)
class GameRow:
    """One game as the lobby lists it on this wire."""

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
) -> etree._Element:
    """``response/lobby/gamedetails``: one ``player/info`` per seat (``seat``, ``name``,
    ``kind``) and the rules as strings."""
    root = envelope(sessionid)
    node = sub(sub(sub(root, "response"), "lobby"), "gamedetails")
    columns = sub(node, "columnnames")
    for c in ("seat", "name", "kind"):
        sub(columns, "string", c)
    listing = sub(node, "players")
    for p in players:
        info = sub(sub(listing, "player"), "info")
        parameters = sub(info, "parameters")
        for key in ("seat", "name", "kind"):
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
    """``stateupdate/game[@gameid]/chat`` (``sender`` set by the server)."""
    root = envelope(sessionid)
    game = sub(sub(root, "stateupdate"), "game", gameid=gameid)
    chat = sub(game, "chat", sender=sender, type=type if type else None)
    sub(chat, "message", text)
    return root


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


def build_notice(text: str, sessionid: int = 0) -> etree._Element:
    """``stateupdate/general``: a server notice."""
    root = envelope(sessionid)
    node = sub(sub(root, "stateupdate"), "general", success=True)
    sub(node, "description", text)
    return root


__all__ = [
    "MAX_DEPTH",
    "PROTOCOL_VERSION",
    "AvailableGames",
    "ChangePassword",
    "Chat",
    "CreateAccount",
    "CreateGame",
    "Custom",
    "DeleteAccount",
    "DeleteGame",
    "FindPlayer",
    "GameAction",
    "GameDetails",
    "GameList",
    "GameRequest",
    "GameRow",
    "GameType",
    "History",
    "HistoryEntry",
    "JoinGame",
    "LocalProtocolError",
    "Login",
    "Logout",
    "PartGame",
    "ProtocolError",
    "Request",
    "build_available_games",
    "build_chat",
    "build_error",
    "build_find_player",
    "build_game_details",
    "build_game_list",
    "build_game_state",
    "build_history",
    "build_info",
    "build_lobby_update",
    "build_notice",
    "build_response",
    "clean",
    "decode",
    "encode",
    "money",
    "parse_document",
    "validate",
    "wire_game_id",
]
