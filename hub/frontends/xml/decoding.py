"""Decoding: one client frame's bytes → one request event (:mod:`.events`), no I/O.

A frame goes through :func:`parse_document`: the hardened parser of :mod:`.schema` (no
DTD, no entities, no network, no huge trees), a refusal of any DOCTYPE, a bounded
depth, and validation against ``message.xsd``; then :func:`decode` reads the request
with one reader per group of the protocol (:data:`READERS`).  The only exception
that comes out is :class:`.errors.ProtocolError` ("the peer broke the protocol"),
carrying the error code to answer with.

Each decoded request carries what a transcript may keep of it
(:func:`transcript_record`): the fields marked secret in :mod:`.events` (passwords),
and every value of an account or login request but its public fields, are blanked
in whatever form they came (attributes, elements, CDATA, misplaced); the envelope's
session id is hidden.  A refused frame is kept the same way when it is well-formed
XML, else only as its size (:func:`refused_record`).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import fields
from typing import Any

from lxml import etree

from hub.connections import chat
from hub.connections import fields as hub_fields

from .errors import ProtocolError
from .events import (
    AvailableGames,
    ChangePassword,
    Chat,
    CreateAccount,
    CreateGame,
    Custom,
    DeleteAccount,
    DeleteGame,
    FindPlayer,
    GameAction,
    GameDetails,
    GameList,
    History,
    JoinGame,
    Login,
    Logout,
    PartGame,
    Ratings,
    Request,
    Resume,
)
from .payload import clean
from .schema import FORBIDDEN, hardened_parser, message_schema, short, validate

#: Deepest element nesting accepted in an incoming document.
MAX_DEPTH = 48
#: Largest document the decoder parses at all (the framing limit is normally lower).
MAX_DOCUMENT = 1 << 20
#: Longest chat text accepted (the hub's chat limit, the same on every front end).
MAX_CHAT = chat.MAX_CHAT

_XML_DECL = re.compile(r"^\ufeff?\s*<\?xml[^>]*?encoding\s*=\s*[\"']([^\"']*)[\"']", re.S)


_local = threading.local()
_BYTES = (bytes, bytearray, memoryview)


def _parser() -> etree.XMLParser:
    """This thread's hardened parser, made once (a parser is reused by one thread at
    a time only)."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = hardened_parser()
    return parser


def _depth_ok(root: etree._Element, limit: int) -> bool:
    stack = [(root, 1)]
    while stack:
        element, depth = stack.pop()
        if depth > limit:
            return False
        stack.extend((child, depth + 1) for child in element)
    return True


def _utf8(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ProtocolError(f"document is not UTF-8 (byte {e.start})") from None


def parse_document(
    data: bytes, schema: etree.XMLSchema | None = None, max_size: int = MAX_DOCUMENT
) -> etree._Element:
    """Parse one untrusted document and validate it.

    :param data: the frame's bytes (UTF-8).
    :param schema: what to validate against (default ``message.xsd``).
    :raises ProtocolError: for anything but a valid document; never anything else.
    """
    if not isinstance(data, _BYTES):
        raise ProtocolError("a document is bytes")
    data = bytes(data)
    if len(data) > max_size:
        raise ProtocolError(f"document of {len(data)} bytes exceeds {max_size}", 413)
    if not data:
        raise ProtocolError("empty document")
    # (ASCII is UTF-8: such a document, the common one, is decoded only if searched)
    text = None if data.isascii() else _utf8(data)
    if data[:1] != b"<" or data[:2] == b"<?":  # else no XML declaration can open it
        if text is None:
            text = data.decode("ascii")
        declared = _XML_DECL.match(text)
        if declared and declared.group(1).lower().replace("_", "-") not in ("utf-8", "utf8"):
            found = clean(declared.group(1))[:40]
            raise ProtocolError(f"documents must be UTF-8; declared {found}")
    declares = b"<!" in data  # each declaration begins "<!" (so does CDATA)
    if declares and FORBIDDEN.search(text if text is not None else data.decode("ascii")):
        raise ProtocolError("DOCTYPE and DTD declarations are refused")
    try:
        root = etree.fromstring(data, _parser())
    except (etree.Error, ValueError, TypeError) as e:
        raise ProtocolError(f"not well-formed XML: {short(e)}") from None
    if root is None:
        raise ProtocolError("no document element")
    if declares:  # the parser's word too (a document without "<!" has no DOCTYPE)
        docinfo = root.getroottree().docinfo
        if docinfo.doctype or docinfo.internalDTD is not None:
            raise ProtocolError("DOCTYPE and DTD declarations are refused")
    if data.count(b"<") > MAX_DEPTH and not _depth_ok(root, MAX_DEPTH):  # fewer tags: not deep
        raise ProtocolError(f"document nested deeper than {MAX_DEPTH}")
    try:
        validate(root, schema if schema is not None else message_schema())
    except ProtocolError as e:
        e.document = root
        raise
    return root


def _long(element: etree._Element, name: str, default: int = 0) -> int:
    value = element.get(name)
    return default if value is None else int(value.strip())


def _text(element: etree._Element | None) -> str:
    if element is None:
        return ""
    if not len(element):  # text only (comments and PIs are dropped by the parser)
        return element.text or ""
    return "".join(element.itertext())


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
    rated: bool | None = None
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
            elif tag == "rated":
                if text not in ("true", "false"):
                    raise ProtocolError("game/create: <rated> is true or false")
                rated = text == "true"
            elif tag == "option":
                name = child.get("name", "")
                if not re.fullmatch(r"[A-Za-z0-9_.-]{1,64}", name):
                    raise ProtocolError("game/create: <option> needs a name attribute")
                options.append((name, _option_value(text)))
            else:
                raise ProtocolError(f"game/create: unknown parameter <{tag}>")
    hub = element.get("hub")
    if hub is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", hub):
        raise ProtocolError("game/create: hub is the id of a hub of the cluster")
    return CreateGame(
        sessionid,
        gametype=element.get("gametype", ""),
        name=element.get("name", ""),
        variant=variant,
        seats=tuple(seats) or None,
        seat_count=seat_count,
        options=tuple(options),
        rated=rated,
        hub=hub,
    )


def _account(sessionid: int, group: etree._Element, which: Any) -> Request:
    assert which is not None
    op = which.tag
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


def _authentication(sessionid: int, group: etree._Element, which: Any) -> Request:
    if which is not None and which.tag == "login":
        return Login(sessionid, which.get("accountname", ""), which.get("password", ""))
    if which is not None and which.tag == "resume":
        return Resume(sessionid, which.get("accountname", ""), which.get("token", ""))
    return Logout(sessionid)


def _lobby(sessionid: int, group: etree._Element, which: Any) -> Request:
    assert which is not None
    op = which.tag
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
    if op == "ratings":
        return Ratings(
            sessionid, which.get("gametype", ""), which.get("gamevariant", ""),
            _long(which, "limit", 20),
        )  # fmt: skip
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


def _game(sessionid: int, group: etree._Element, which: Any) -> Request:
    gameid = _long(group, "gameid")
    if which is None:
        raise ProtocolError("game request without an operation")
    op = which.tag
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
        # <message> is a chat's one child (message.xsd): no ElementPath search for it
        first = which[0] if len(which) else None
        text = _text(first if first is not None and first.tag == "message" else None)
        if len(text) > MAX_CHAT:
            raise ProtocolError(f"chat text longer than {MAX_CHAT} characters")
        return Chat(sessionid, gameid, text, _long(which, "type"))
    if op == "custom":
        return Custom(sessionid, gameid, which[0] if len(which) else None)
    raise ProtocolError(f"game/{op} is not supported")


#: ``request/<group>`` → its reader ``(sessionid, group, operation) → request``
READERS: dict[str, Callable[[int, etree._Element, Any], Request]] = {
    "accountmanagement": _account,
    "authentication": _authentication,
    "lobby": _lobby,
    "game": _game,
}


def _request(sessionid: int, request: etree._Element) -> Request:
    group = request[0]
    which = group[0] if len(group) else None
    return READERS.get(group.tag, _game)(sessionid, group, which)


#: requests (``request/<group>``) whose every value but the public ones is secret
SECRET_GROUPS = ("accountmanagement", "authentication")
#: the attributes of those requests that are not secret
PUBLIC_ACCOUNT_FIELDS = frozenset({"accountname", "accounttype"})
#: the fields marked :data:`.events.SECRET` in the request events (``password``...)
SECRET_FIELDS = frozenset(
    f.name
    for cls in (CreateAccount, DeleteAccount, ChangePassword, Login, Resume)
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
            raise ProtocolError(f"malformed request: {short(e)}") from None
    except ProtocolError as e:
        if e.document is None:
            e.document = root
        e.record = refused_record(data, e)
        raise
    object.__setattr__(request, "record", transcript_record(root))
    return request


#: the client strings of each request and the rule of :mod:`hub.connections.fields` each keeps
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
    Resume: {"accountname": hub_fields.ACCOUNT_NAME},
    FindPlayer: {"name": hub_fields.SEARCH},
    History: {"accountname": hub_fields.ACCOUNT_NAME},
    CreateGame: {"name": hub_fields.GAME_NAME},
}


_NO_RULES: dict[str, hub_fields.Field] = {}


def check_fields(request: Request) -> None:
    """Check the client's strings in ``request`` by their rules (:data:`FIELD_RULES`;
    a new game's options by :func:`hub.connections.fields.check_options`).

    :raises hub.connections.fields.FieldError: one breaks its rule (400).
    """
    for attribute, rule in FIELD_RULES.get(type(request), _NO_RULES).items():
        value = getattr(request, attribute)  # a field FIELD_RULES names for this type
        if value is None:
            continue
        try:
            rule.check(value)
        except hub_fields.FieldError as e:
            raise hub_fields.FieldError(f"{attribute}: {e.reason}") from None
    if isinstance(request, CreateGame):
        hub_fields.check_options(dict(request.options))
