"""Plugs ``hello`` into the front ends that host it: XML and the web.

On the XML front end (:class:`HelloXMLAdapter`): ``<hello>text</hello>`` in, hello
events out.  Payloads (inside ``<parameters>``):

- action: ``<hello>text</hello>``
- events: ``<seated seat= name=/>``, ``<started/>``, ``<turn seat=/>``,
  ``<hello seat= name= text=>Hello from name: text</hello>``, ``<left seat=/>``,
  ``<over summary=><winner seat=/>…</over>``
- view: ``<hellogame state=><seat seat= name= said=/>…<line>…</line>…</hellogame>``

Elements are built with :mod:`hub.frontends.xml.payload`, the XML front end's module
for adapters (a name or a hello may hold characters XML cannot carry; it replaces them).
"""

from __future__ import annotations

from typing import Any

from lxml import etree
from zope.interface import implementer

from hub.frontends.xml.payload import XMLGameAdapter
from hub.frontends.xml.payload import element as _element
from hub.interfaces import IWebAssets, IWebView, IXMLGameAdapter
from hub.model import GAME_OVER, STATE, TURN, BadAction, GameEvent


@implementer(IXMLGameAdapter)
class HelloXMLAdapter(XMLGameAdapter):
    """Translates hello's actions, events and views for the XML front end."""

    #: ``game/join`` seats the player (hello has no separate "take seat" action).
    seat_on_join = True

    def parse_action(self, element: Any) -> dict[str, Any]:
        """``<parameters><hello>text</hello></parameters>`` → ``{"hello": text}``."""
        children = [c for c in element if isinstance(c.tag, str)] if element is not None else []
        if len(children) != 1 or children[0].tag != "hello" or len(children[0]):
            raise BadAction("a hello action is <hello>text</hello>")
        return {"hello": children[0].text or ""}

    def render_event(self, event: GameEvent, seat: int | None) -> etree._Element | None:
        """A hello event as an element (``None`` for kinds a client need not see)."""
        data = event.data
        if event.kind == "seated":
            return _element("seated", seat=data.get("seat"), name=data.get("name"))
        if event.kind == STATE:
            return _element("state", state=data.get("state"))
        if event.kind == TURN:
            return _element("turn", seat=data.get("seat"))
        if event.kind == "hello":
            return _element(
                "hello",
                data.get("line"),
                seat=data.get("seat"),
                name=data.get("name"),
                text=data.get("text"),
            )
        if event.kind == "left":
            return _element("left", seat=data.get("seat"))
        if event.kind == GAME_OVER:
            result = data.get("result") or {}
            node = _element("over", summary=result.get("summary"))
            for winner in result.get("winners", ()):
                node.append(_element("winner", seat=winner))
            return node
        return None

    def render_view(self, view: Any) -> etree._Element:
        """The whole (public) hello game."""
        node = _element("hellogame", state=view.get("state"))
        for seat in view.get("seats", ()):
            node.append(
                _element(
                    "seat", seat=seat.get("seat"), name=seat.get("name"), said=seat.get("said")
                )
            )
        for line in view.get("lines", ()):
            node.append(_element("line", line))
        for pending in view.get("pending", ()):
            node.append(_element("pending", seat=pending))
        return node


@implementer(IWebView, IWebAssets)
class WebView:
    """The page script that draws this game in the browser (``web.js`` here), its
    stylesheet (``web.css``)."""

    script = "web.js"
    styles = "web.css"
    history: str | None = None


#: front end → the adapter that lets it host hello (:meth:`.server.HelloGameFactory.adapter`)
ADAPTERS: dict[str, type] = {"xml": HelloXMLAdapter, "web": WebView}
