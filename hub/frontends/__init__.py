"""Gamehub front ends: one codec + protocol per wire format.

:data:`FRONTENDS` maps each front end's name to its default endpoint and its module.
A front end module provides :class:`hub.interfaces.IFrontend` (``make_factory(hub) ->
IProtocolFactory``) and may provide :class:`hub.interfaces.IHTTPResources` (resources
the web front end mounts for it, as the XML front end's ``/schema``); it declares both
with ``zope.interface.moduleProvides``.  No front end imports another.
"""

from __future__ import annotations

#: name → (default endpoint, module with make_factory), in the order they are started.
FRONTENDS: dict[str, tuple[str, str]] = {
    "xml": ("tcp:4000", "hub.frontends.xml"),
    "mnm": ("tcp:1357", "hub.frontends.mnm"),
    "domino": ("tcp:7000", "hub.frontends.domino"),
    "web": ("tcp:8080", "hub.frontends.web"),
    "acpc": ("tcp:18791:interface=127.0.0.1", "hub.frontends.acpc"),
    "relay": ("tcp:4100", "hub.frontends.relay"),
}
