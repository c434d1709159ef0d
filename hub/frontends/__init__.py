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
    "acpc": ("tcp:18791", "hub.frontends.acpc"),
}


def no_delay(transport: object) -> None:
    """Switch Nagle's algorithm off on a TCP transport (TLS wrappers pass it on): a line
    or frame protocol sends small answers and must not wait ~40 ms for an ACK each."""
    set_no_delay = getattr(transport, "setTcpNoDelay", None)  # not every transport is TCP
    if set_no_delay is not None:
        set_no_delay(True)
