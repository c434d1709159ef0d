"""The XML payloads of every kit game (no adapter code in the game): the hub's JSON
payloads (``<action>{"move": …}</action>`` in; ``<event kind=…>{json}</event>`` and
``<view>{json}</view>`` out), with a fresh view after each move and at the start, so a
client always has the position it is to move in."""

from __future__ import annotations

from zope.interface import implementer

from hub.frontends.xml.adapters import GenericXMLAdapter
from hub.interfaces import IXMLGameAdapter
from hub.model import STATE, GameEvent

from .events import MOVED


@implementer(IXMLGameAdapter)
class KitXMLAdapter(GenericXMLAdapter):
    """The generic JSON payloads, and a snapshot after every move."""

    def snapshot_on(self, event: GameEvent) -> bool:
        """A full view follows the start and every move."""
        return event.kind in (MOVED, STATE)


__all__ = ["KitXMLAdapter"]
