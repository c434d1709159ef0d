"""What a game's XML adapter may use of the XML front end: a small public module.

A game plugin that lists ``xml`` in its ``frontends`` gives an
:class:`hub.interfaces.IXMLGameAdapter`, which turns payload elements into actions and
events into payload elements (lxml elements).  It may build them with plain lxml; this
module offers what it cannot do alone and must do exactly as the front end does:

- :func:`element` and :func:`sub`: elements whose text and attributes are always
  characters XML 1.0 can carry (:func:`clean`: a player's name or chat may hold others;
  plain lxml would raise), with ``None`` attributes left out and booleans written
  ``true``/``false``;
- :func:`wire_game_id`: the ``xs:long`` this wire uses for a lobby game id (a payload
  that names its game, such as a full-state view, must give the same number the
  envelope does);
- :class:`XMLGameAdapter`: a base class with the defaults of the optional parts of
  :class:`hub.interfaces.IXMLGameAdapter`.

Nothing else of :mod:`hub.frontends.xml` is for plugins: the codec and the server
change without notice; this module keeps its names.  It imports nothing of the front
end, so an adapter (or a client that shares its tables) stays light.
"""

from __future__ import annotations

import functools
import hashlib
import re
from typing import Any

from lxml import etree

from hub.model import GameError, GameEvent

# Characters XML 1.0 cannot carry; replaced on output.
_NOT_XML = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def clean(text: Any) -> str:
    """``text`` as a string XML can carry (characters XML 1.0 forbids become U+FFFD)."""
    value = str(text)
    if value.isascii() and value.isprintable():  # the common case: nothing to replace
        return value
    return _NOT_XML.sub("\ufffd", value)


@functools.lru_cache(maxsize=4096)  # every listing asks it for every game it lists
def wire_game_id(game_id: str) -> int:
    """The ``xs:long`` id this protocol uses for the lobby's game ``game_id`` (1..2^63-1):
    a stable digest, so every connection and every hub run agrees on it."""
    digest = hashlib.sha256(b"gamehub-xml-game:" + game_id.encode()).digest()
    return (int.from_bytes(digest[:8], "big") >> 1) or 1


def element(tag: str, text: Any = None, /, **attrs: Any) -> etree._Element:
    """An element with cleaned attributes (``None`` values left out) and text."""
    node = etree.Element(tag)
    for key, value in attrs.items():
        if value is not None:
            node.set(key, attr_text(value))
    if text is not None:
        node.text = clean(text)
    return node


def sub(parent: etree._Element, tag: str, text: Any = None, /, **attrs: Any) -> etree._Element:
    """Append :func:`element` ``(tag, text, **attrs)`` to ``parent`` and return it."""
    node = element(tag, text, **attrs)
    parent.append(node)
    return node


def attr_text(value: Any) -> str:
    """An attribute value as text: booleans as ``true``/``false``, the rest cleaned."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return clean(value)


class XMLGameAdapter:
    """The defaults of an :class:`hub.interfaces.IXMLGameAdapter`'s optional parts; a
    game's adapter subclasses it and writes ``parse_action``, ``render_event`` and
    ``render_view`` (and whichever default does not suit it)."""

    #: ``game/join`` takes the first free seat
    seat_on_join = True

    def custom(self, game: Any, seat: int | None, element: Any) -> etree._Element | None:
        """Refuse ``game/custom``: the game has no custom requests."""
        raise GameError(f"{game.type} has no custom requests", 400)

    def private_to(self, event: GameEvent, seat: int) -> bool:
        """The event is private to ``seat`` when it is meant for some seats only."""
        return event.seats is not None

    def snapshot_on(self, event: GameEvent) -> bool:
        """No full-state update follows an event."""
        return False


__all__ = ["XMLGameAdapter", "attr_text", "clean", "element", "sub", "wire_game_id"]
