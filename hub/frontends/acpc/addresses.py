"""Which addresses may take an ACPC match's seats (``allow`` of a new match).

A match names the addresses and networks whose programs may take its seats; by
default the creator's own address, and for a creator on this machine (or none known)
this machine's loopback addresses.  A seat's port refuses every other address, and
the front end's own port gives such a program no seat of that match.
"""

from __future__ import annotations

import ipaddress
from typing import Any

from hub.model import GameError

#: most addresses and networks one match allows
MAX_ALLOWED = 64
#: what a creator on this machine allows by default: this machine
LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))

Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def address_of(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    """``host`` as an address (an IPv4-mapped IPv6 address as its IPv4 one), or
    ``None`` when it is not one."""
    try:
        found = ipaddress.ip_address(host)
    except ValueError:
        return None
    if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
        return found.ipv4_mapped
    return found


def allowed_networks(spec: Any, creator: str | None) -> tuple[Network, ...]:
    """The addresses that may take a match's seats: ``spec`` (the ``allow`` of a new
    match: an address or a network, or a list of them; ``0.0.0.0/0`` and ``::/0``
    allow everyone), else the creator's address (a creator on this machine, or none
    known: this machine's loopback addresses).

    :raises hub.model.GameError: 400, not such a list.
    """
    if spec is None:
        found = address_of(creator or "")
        if found is None or found.is_loopback:
            return LOOPBACK
        return (ipaddress.ip_network(found),)
    items = [spec] if isinstance(spec, str) else spec
    if not isinstance(items, list) or not 1 <= len(items) <= MAX_ALLOWED:
        raise GameError(f"'allow' is an address or a network, or a list of 1 to "
                        f"{MAX_ALLOWED} of them", 400)  # fmt: skip
    networks: list[Network] = []
    for item in items:
        try:
            if not isinstance(item, str):
                raise ValueError(item)
            networks.append(ipaddress.ip_network(item.strip(), strict=False))
        except ValueError:
            raise GameError(f"'allow': {str(item)[:64]!r} is not an address or a network",
                            400) from None  # fmt: skip
    return tuple(networks)
