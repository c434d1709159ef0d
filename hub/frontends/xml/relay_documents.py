"""The documents a door's relay (:mod:`.relay`) sends to the hub that owns a game and
reads back from it: the requests it makes of its own (``lobby/gamedetails``,
``game/delete``, ``game/create``), a session id put in an owner's document, and what
an answer says (its head, a game state, a refusal, a sealed game's).  No I/O."""

from __future__ import annotations

from lxml import etree

from hub.play.journal import SEALED

from . import codec, encoding, events


def with_session(document: bytes, sessionid: int) -> bytes:
    """``document`` with the envelope's session id ``sessionid`` (one without any is
    left as it is)."""
    try:
        return encoding.for_session(document, sessionid)
    except Exception:
        pass
    try:
        root = etree.fromstring(document, codec.hardened_parser())
    except (etree.Error, ValueError):
        return document
    if not root.get("sessionid"):
        return document
    root.set("sessionid", str(sessionid))
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")


def head(document: bytes) -> tuple[str, int, etree._Element]:
    """The kind (``response``, ``stateupdate``, ``info``), session id and root of a
    document."""
    root = etree.fromstring(document, codec.hardened_parser())
    kind = root[0].tag if len(root) else ""
    return kind, int(root.get("sessionid") or 0), root


def game_state(root: etree._Element) -> tuple[bool, str] | None:
    """``(success, description)`` of an ``updatedgamestate`` (``None``: not one)."""
    node = root.find("stateupdate/game/updatedgamestate")
    if node is None:
        return None
    return node.get("success", "true") == "true", node.findtext("description") or ""


def refused(answer: bytes) -> bool:
    """Whether ``answer`` refuses its request (an error code in it)."""
    return b"errorcode=" in answer


def sealed_refusal(answer: bytes) -> bool:
    """Whether ``answer`` refuses a request because its game is sealed for its
    hand-over (:data:`hub.play.journal.SEALED`: the game is moving to another hub)."""
    if b'errorcode="503"' not in answer:
        return False
    try:
        root = etree.fromstring(answer, codec.hardened_parser())
    except (etree.Error, ValueError):
        return False
    return any(
        node.get("errorcode") == "503" and node.findtext("description") == SEALED
        for node in root.iter()
    )


def details_request(gameid: int) -> etree._Element:
    """``lobby/gamedetails`` of ``gameid``, to ask the owner."""
    lobby = codec.element("lobby")
    codec.sub(lobby, "gamedetails", gameid=gameid)
    return lobby


def delete_request(gameid: int) -> etree._Element:
    """``game/delete`` of ``gameid``, to ask the owner."""
    game = codec.element("game", gameid=gameid)
    codec.sub(game, "delete")
    return game


def create_request(r: events.CreateGame, hub: str) -> etree._Element:
    """``game/create`` of ``r`` (as the door decoded it), made on ``hub`` itself."""
    game = codec.element("game")
    create = codec.sub(game, "create", gametype=r.gametype, name=r.name, hub=hub)
    parameters = codec.sub(create, "parameters")
    if r.variant is not None:
        codec.sub(parameters, "variant", r.variant)
    if r.seat_count is not None:
        codec.sub(parameters, "seats", r.seat_count)
    for seat in r.seats or ():
        codec.sub(parameters, "seat", seat)
    if r.rated is not None:
        codec.sub(parameters, "rated", codec.attr_text(r.rated))
    for name, value in r.options:
        codec.sub(parameters, "option", codec.attr_text(value), name=name)
    return game


def request_frame(body: etree._Element, sessionid: int) -> bytes:
    """The frame of a request ``body`` in session ``sessionid`` (0: none)."""
    root = codec.element("message", sessionid=sessionid or None)
    codec.sub(root, "request").append(body)
    return etree.tostring(root, xml_declaration=True, encoding="UTF-8")
