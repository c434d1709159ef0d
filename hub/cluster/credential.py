"""The credential one hub of a cluster logs in with on another on a client's behalf.

A front end that relays a client's game session to the hub that runs the game
(:mod:`hub.frontends.xml.relay`) logs in there as the client's account without its
password: the password field carries a *ticket*, ::

    gamehub-cluster:<issuer hub>:<target hub>:<expires>:<HMAC-SHA256 hex>

signed with the cluster's secret (one row of ``cluster_secret`` in the shared
PostgreSQL database, :meth:`hub.store.cluster.ClusterMixin.cluster_secret`; 256 random
bits).  The target trusts a ticket only when it names the target itself, is not
expired (at most :data:`TICKET_SECONDS` ahead, plus
:data:`SKEW_SECONDS` the issuer's clock may be ahead), its issuer is a live member of the
cluster, and the connection comes from an address that issuer advertises (when it
advertises an IP address rather than a name).  A ticket is never logged: the XML
front end's records and logs drop passwords already.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from typing import Any

#: what a ticket starts with (a user's password that starts so is checked as a password
#: when it is no good ticket)
PREFIX = "gamehub-cluster:"
#: how long a ticket is good for, in seconds
TICKET_SECONDS = 60.0
#: how far ahead of the target's clock the issuer's may be, in seconds
SKEW_SECONDS = 30.0


def _mac(secret: str, issuer: str, target: str, name: str, expires: int) -> str:
    text = f"{issuer}\n{target}\n{name.lower()}\n{expires}".encode()
    return hmac.new(secret.encode(), text, hashlib.sha256).hexdigest()


def ticket(secret: str, issuer: str, target: str, name: str, now: float) -> str:
    """A ticket for ``name`` from hub ``issuer`` to hub ``target``."""
    expires = int(now + TICKET_SECONDS)
    return f"{PREFIX}{issuer}:{target}:{expires}:{_mac(secret, issuer, target, name, expires)}"


def _ip(text: str) -> Any:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def advertises(member: dict[str, Any], peer: str) -> bool:
    """Whether the live hub ``member`` advertises the IP address ``peer``."""
    if not member.get("live"):
        return False
    peer_ip = _ip(peer)
    hosts = {str(e.get("host") or "") for e in dict(member.get("endpoints") or {}).values()}
    return peer_ip is not None and any(peer_ip == a for a in map(_ip, hosts) if a is not None)


def from_member(member: dict[str, Any] | None, peer: str) -> bool:
    """Whether ``peer`` may be the live hub ``member``: each IP address it advertises
    is compared; a hub that advertises names only is taken on its ticket alone."""
    if member is None or not member.get("live"):
        return False
    hosts = {str(e.get("host") or "") for e in dict(member.get("endpoints") or {}).values()}
    addresses = {a for a in map(_ip, hosts) if a is not None}
    if not addresses or any(a.is_unspecified for a in addresses):
        return True
    peer_ip = _ip(peer)
    return peer_ip is not None and any(peer_ip == a for a in addresses)


def check(
    secret: str,
    me: str,
    members: dict[str, dict[str, Any]],
    name: str,
    given: str,
    peer: str,
    now: float,
) -> bool:
    """Whether ``given`` is a good ticket for ``name`` to this hub (``me``) from a
    live member of the cluster that ``peer`` may be."""
    if not secret or not isinstance(given, str) or not given.startswith(PREFIX):
        return False
    parts = given[len(PREFIX) :].split(":")
    if len(parts) != 4 or not parts[2].isdigit():
        return False
    issuer, target, expires_text, mac = parts
    expires = int(expires_text)
    if target != me or issuer == me or not now <= expires <= now + TICKET_SECONDS + SKEW_SECONDS:
        return False
    if not hmac.compare_digest(mac, _mac(secret, issuer, target, name, expires)):
        return False
    return from_member(members.get(issuer), peer)
