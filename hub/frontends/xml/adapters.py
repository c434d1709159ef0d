"""How the XML front end finds a game's payload translation and its payload schema.

A game plugin that lists ``xml`` in its ``frontends`` gives an
:class:`hub.interfaces.IXMLGameAdapter` from ``factory.adapter("xml")``.  One that gives
none is still playable here through :class:`GenericXMLAdapter`, whose payloads are JSON
text inside one element.

An adapter that also provides :class:`hub.interfaces.IXMLPayloadSchema` names an XSD
file in its package: :func:`parse_action` validates every action payload against it
before the adapter reads it, and :func:`published_schemas` lists it for
``GET /schema/<name>`` (:mod:`.web`).
"""

from __future__ import annotations

import json
import re
import weakref
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, TypeGuard

from lxml import etree
from twisted.logger import Logger
from zope.interface import implementer
from zope.interface.exceptions import Invalid
from zope.interface.verify import verifyObject

from hub.connections import fields
from hub.interfaces import IXMLGameAdapter, IXMLPayloadSchema
from hub.model import BadAction, GameError, GameEvent, GameKind
from hub.optional_interfaces import IFullViewAfter
from hub.plugins.files import package_file, package_of, plain_path
from hub.seatops import AddBot, LeaveSeat, Parsed, SeatOperation, TakeSeat

from . import codec
from .payload import XMLGameAdapter

#: Largest JSON payload the generic adapter accepts.
MAX_JSON = 16384
#: Compiled payload schemas kept (a hot-reloaded plugin is a new package each time).
MAX_SCHEMAS = 64
_SCHEMA_NAME = re.compile(r"^[a-z0-9][a-z0-9_.-]{0,62}\.xsd$")

log = Logger()

#: the generic payload's seat operations (beside ``<action>``)
SEAT_ELEMENTS = ("takeseat", "leaveseat", "addbot")


def _seat_operation(node: Any) -> SeatOperation:
    """A ``<takeseat/>``, ``<leaveseat/>`` or ``<addbot/>`` element → its operation."""
    seat_text = node.get("seat")
    try:
        seat = int(seat_text) if seat_text is not None else None
    except ValueError:
        raise BadAction("a seat is a number") from None
    buyin = node.get("buyin")
    if node.tag == "leaveseat":
        return LeaveSeat()
    if node.tag == "takeseat":
        return TakeSeat(seat, buyin)
    bot = (node.get("name") or "").strip()
    if not bot:
        raise BadAction('add a bot with <addbot name="…"/>')
    return AddBot(bot, seat, buyin)


@implementer(IXMLGameAdapter)
class GenericXMLAdapter(XMLGameAdapter):
    """Payloads as JSON: action ``<action>{"k": v}</action>``, events
    ``<event kind="…">{json}</event>``, views ``<view>{json}</view>``; the seat
    operations ``<takeseat seat="n" buyin="x"/>``, ``<leaveseat/>`` and ``<addbot
    name="bot" seat="n" buyin="x"/>`` (attributes optional but ``name``)."""

    def parse_action(self, element: Any) -> Parsed:
        """``<parameters><action>{json object}</action></parameters>`` → the object;
        a seat operation's element → it (:mod:`hub.seatops`)."""
        children = [c for c in element if isinstance(c.tag, str)] if element is not None else []
        if len(children) == 1 and children[0].tag in SEAT_ELEMENTS:
            return _seat_operation(children[0])
        if len(children) != 1 or children[0].tag != "action":
            raise BadAction('the action payload is <action>{"...": ...}</action>')
        text = children[0].text or ""
        if len(text) > MAX_JSON:
            raise BadAction(f"an action is at most {MAX_JSON} characters of JSON")
        try:  # bounded depth: "[[[[..." of 16 KiB would exhaust the recursion
            action = fields.loads(text.encode("utf-8", "surrogatepass"))
        except fields.FieldError as e:
            raise BadAction(f"the action is not JSON: {e.reason}") from None
        if not isinstance(action, dict):
            raise BadAction("the action is a JSON object")
        return action

    def render_event(self, event: GameEvent, seat: int | None) -> etree._Element:
        """Every event, as JSON."""
        return codec.element("event", json.dumps(dict(event.data), default=str), kind=event.kind)

    def render_view(self, view: Any) -> etree._Element:
        """The whole view, as JSON."""
        return codec.element("view", json.dumps(view, default=str))


_GENERIC = GenericXMLAdapter()
#: adapter class → why it cannot be used (``None``: it can), checked once per class
_checked: dict[type, str | None] = {}


def _unusable(adapter: Any) -> str | None:
    """Why ``adapter`` does not provide the whole of :class:`IXMLGameAdapter` (its
    optional parts included: :class:`.payload.XMLGameAdapter` has their defaults)."""
    kind = type(adapter)
    if kind not in _checked:
        try:
            verifyObject(IXMLGameAdapter, adapter)
            _checked[kind] = None
        except Invalid as e:
            _checked[kind] = str(e)
            log.error(
                "xml: the adapter {adapter} cannot be used ({reason}); subclass"
                " hub.frontends.xml.payload.XMLGameAdapter for the optional parts",
                adapter=f"{kind.__module__}.{kind.__qualname__}",
                reason=" ".join(str(e).split()),
            )
    return _checked[kind]


def _usable(adapter: object) -> TypeGuard[IXMLGameAdapter]:
    return _unusable(adapter) is None


def adapter_for(factory: GameKind) -> IXMLGameAdapter | None:
    """The XML adapter of a game type, or ``None`` if it cannot be hosted here (not
    listed for ``xml``, or its adapter does not provide :class:`IXMLGameAdapter`)."""
    if "xml" not in tuple(factory.frontends):
        return None
    try:
        adapter = factory.adapter("xml")
    except Exception:
        log.failure("xml: the adapter of {game} failed", game=factory.name)
        return None
    if adapter is None:
        if IFullViewAfter.providedBy(factory):
            return _with_views(frozenset(factory.snapshot_kinds))
        return _GENERIC
    return adapter if _usable(adapter) else None


class _FullViews(GenericXMLAdapter):
    """The generic payloads, and the whole view after the events of ``kinds``
    (:class:`hub.optional_interfaces.IFullViewAfter`)."""

    def __init__(self, kinds: frozenset[str]) -> None:
        self.kinds = kinds

    def snapshot_on(self, event: GameEvent) -> bool:
        """A full view follows the events of :attr:`kinds`."""
        return event.kind in self.kinds


#: kinds → their adapter (the few declarations there are: one object each)
_full_views: dict[frozenset[str], _FullViews] = {}


def _with_views(kinds: frozenset[str]) -> _FullViews:
    adapter = _full_views.get(kinds)
    if adapter is None:
        if len(_full_views) >= 64:  # bounded: declarations are few; a flood starts over
            _full_views.clear()
        adapter = _full_views[kinds] = _FullViews(kinds)
    return adapter


#: factory → whether it is hosted here (a registry reload brings new factories)
_hosted: weakref.WeakKeyDictionary[Any, bool] = weakref.WeakKeyDictionary()


def hosts(factory: GameKind) -> bool:
    """Whether this front end hosts games of ``factory`` (:func:`adapter_for` gives an
    adapter), asked once per factory: listings ask it for every game they list."""
    try:
        return _hosted[factory]
    except KeyError:
        pass
    except TypeError:  # a factory that cannot be weakly referenced: ask every time
        return adapter_for(factory) is not None
    hosted = _hosted[factory] = adapter_for(factory) is not None
    return hosted


def seats_on_join(adapter: IXMLGameAdapter) -> bool:
    """Whether ``game/join`` takes a free seat."""
    return bool(adapter.seat_on_join)


# -- payload schemas --------------------------------------------------------------------


@dataclass(frozen=True)
class PayloadSchema:
    """A game's payload schema (:class:`hub.interfaces.IXMLPayloadSchema`), compiled.

    :ivar name: the file name it is published under (``texas.xsd``).
    :ivar data: the file as the plugin brings it.
    """

    name: str
    data: bytes
    schema: etree.XMLSchema


class _Unusable:
    """A declared schema that cannot be read or compiled (kept, so it is logged once)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


_schemas: OrderedDict[tuple[str, str], PayloadSchema | _Unusable] = OrderedDict()


def _load(adapter: Any, declared: Any) -> PayloadSchema | _Unusable:
    path = plain_path(declared, ".xsd")
    if path is None:
        return _Unusable(f"{declared!r} is not a plain path to an .xsd file in its package")
    name = path.rpartition("/")[2]
    if not _SCHEMA_NAME.match(name) or name == codec.MESSAGE_SCHEMA:
        return _Unusable(f"{name!r} cannot be published as a schema name")
    data = package_file(adapter, path)
    if data is None:
        return _Unusable(f"{path} is not in the package {package_of(adapter)}")
    try:
        return PayloadSchema(name, data, codec.compile_schema(data))
    except (ValueError, etree.Error) as e:
        return _Unusable(f"{path} is not a usable schema: {e}")


def payload_schema(adapter: Any) -> PayloadSchema | None:
    """The adapter's payload schema, or ``None`` when it declares none.

    :raises hub.model.GameError: (500) it declares one that cannot be used; its
        payloads are then refused rather than read unchecked.
    """
    if not IXMLPayloadSchema.providedBy(adapter):
        return None
    declared = adapter.payload_schema
    key = (type(adapter).__module__, str(declared))
    found = _schemas.get(key)
    if found is None:
        found = _load(adapter, declared)
        if isinstance(found, _Unusable):
            log.error(
                "xml: payload schema of {module}: {reason}", module=key[0], reason=found.reason
            )
        _schemas[key] = found
        while len(_schemas) > MAX_SCHEMAS:
            _schemas.popitem(last=False)
    else:
        _schemas.move_to_end(key)
    if isinstance(found, _Unusable):
        raise GameError(f"the game's payload schema cannot be used: {found.reason}", 500)
    return found


def parse_action(adapter: Any, parameters: Any) -> Any:
    """The action mapping of a ``game/action``'s ``<parameters>`` element: each of its
    elements validated against the adapter's payload schema (if it has one), then
    read by the adapter.

    :raises hub.model.BadAction: the payload does not match the schema, or is not an
        action of the game.
    """
    found = payload_schema(adapter)
    if found is not None and parameters is not None:
        for child in parameters:
            if not isinstance(child.tag, str):
                continue
            try:
                codec.validate(child, found.schema)
            except codec.ProtocolError as e:
                raise BadAction(f"the payload does not match {found.name}: {e.reason}") from None
    return adapter.parse_action(parameters)


def published_schemas(registry: Any) -> dict[str, bytes]:
    """File name → bytes of every schema this front end publishes: ``message.xsd`` and
    the payload schemas of the loaded game types (the first game type by name keeps
    a file name two of them declare)."""
    out = {codec.MESSAGE_SCHEMA: codec.schema_bytes(codec.MESSAGE_SCHEMA)}
    for factory in registry.game_types():
        adapter = adapter_for(factory)
        try:
            found = payload_schema(adapter) if adapter is not None else None
        except GameError:
            continue
        if found is not None:
            out.setdefault(found.name, found.data)
    return out
