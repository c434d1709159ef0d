"""The client side of ``hello``: what a client downloads to play it.

Builds the action payload of the XML protocol (``<hello>text</hello>``) and reads the
events a client receives. No imports from the hub, so it runs anywhere.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape

MAX_TEXT = 200


def action_payload(text: str) -> str:
    """The ``parameters`` payload of a ``game/action`` that says ``text``."""
    if not text or len(text) > MAX_TEXT:
        raise ValueError(f"a hello is 1 to {MAX_TEXT} characters")
    return f"<hello>{escape(text)}</hello>"


def describe(event: Mapping[str, Any]) -> str:
    """A line for people from a ``hello`` event's data."""
    return str(event.get("line") or f"Hello from {event.get('name')}: {event.get('text')}")
