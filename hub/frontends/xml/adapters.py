"""How the XML front end finds a game's payload translation.

A game plugin that lists ``xml`` in its ``frontends`` gives an
:class:`hub.interfaces.IXMLGameAdapter` from ``factory.adapter("xml")``.  One that gives
none is still playable here through :class:`GenericXMLAdapter`, whose payloads are JSON
text inside one element.
"""

from __future__ import annotations

import json
from typing import Any

from lxml import etree
from zope.interface import implementer

from hub.interfaces import IXMLGameAdapter
from hub.model import BadAction, GameEvent

from . import codec

#: Largest JSON payload the generic adapter accepts.
MAX_JSON = 16384


@implementer(IXMLGameAdapter)
class GenericXMLAdapter:
    """Payloads as JSON: action ``<action>{"k": v}</action>``, events
    ``<event kind="…">{json}</event>``, views ``<view>{json}</view>``."""

    seat_on_join = True

    def parse_action(self, element: Any) -> dict[str, Any]:
        """``<parameters><action>{json object}</action></parameters>`` → the object."""
        children = [c for c in element if isinstance(c.tag, str)] if element is not None else []
        if len(children) != 1 or children[0].tag != "action":
            raise BadAction('the action payload is <action>{"...": ...}</action>')
        text = children[0].text or ""
        if len(text) > MAX_JSON:
            raise BadAction(f"an action is at most {MAX_JSON} characters of JSON")
        try:
            action = json.loads(text)
        except ValueError:
            raise BadAction("the action is not JSON") from None
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


def adapter_for(factory: Any) -> Any:
    """The XML adapter of a game type, or ``None`` if it cannot be hosted here."""
    if "xml" not in tuple(getattr(factory, "frontends", ())):
        return None
    try:
        adapter = factory.adapter("xml")
    except Exception:
        adapter = None
    return adapter if adapter is not None else _GENERIC


def seats_on_join(adapter: Any) -> bool:
    """Whether ``game/join`` takes a free seat (``True`` unless the adapter says not)."""
    return bool(getattr(adapter, "seat_on_join", True))
