"""Admin actions on a running hub, each one audited.

:class:`Admin` does what the admin API (``/api/admin/...``, :mod:`hub.frontends.web.admin`)
asks: kick a player, close a game (a chip table's chips go back through the table
money), grant or revoke chips (one ledger movement), ban or unban an address, unload
or reload a plugin.  Every action, done or refused, is one row of the store's audit
log (:mod:`hub.store.audit`: who, when, what, from where, how it ended) and one log
event in the namespace ``gamehub.audit``; the ``gamehub`` commands that change
accounts write their rows the same way (:func:`audit_command`).

:class:`Bans` is what front ends check for each new connection (a set lookup; the
networks, if any, one by one).
"""

from __future__ import annotations

import getpass
import ipaddress
import os
import socket
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from twisted.internet import defer
from twisted.internet.task import LoopingCall
from twisted.logger import Logger

from hub.interfaces import IAuditStore, IConnectionControl
from hub.model import Conflict, GameError, NotFound
from hub.store.audit import AUDIT_KEEP
from hub.store.errors import StoreUnavailable

audit_log = Logger(namespace="gamehub.audit")
#: the folder (beside ``meta/``) where an unloaded plugin's ``.meta`` waits
DISABLED = "disabled"


@dataclass(frozen=True)
class Actor:
    """Who does an admin action.

    :ivar name: ``token`` (the hub's API token) or the admin account's name; for a
        command, the system user.
    :ivar via: ``api`` or ``cli``.
    :ivar source: the client's address, or ``user@host`` of a command.
    """

    name: str
    via: str
    source: str


def command_actor() -> Actor:
    """The person running a ``gamehub`` command on this machine."""
    try:
        user = getpass.getuser()
    except Exception:  # no user name in the environment or the password database
        user = str(os.getuid()) if hasattr(os, "getuid") else "?"
    return Actor(user, "cli", f"{user}@{socket.gethostname()}")


_MAPPED = ipaddress.IPv6Network("::ffff:0:0/96")


def ban_key(address: Any) -> str:
    """``address`` as a ban names it: one address, or a network (``10.0.0.0/8``); an
    IPv4-mapped IPv6 address or network (``::ffff:10.0.0.0/104``) is named as the IPv4
    one it is (so it is as wide as it looks).

    :raises hub.model.GameError: 400, not an address or a network.
    """
    if not isinstance(address, str) or not address.strip():
        raise GameError("'address' must be an IP address or a network (10.0.0.0/8)", 400)
    text = address.strip()
    try:
        if "/" in text:
            network = ipaddress.ip_network(text, strict=False)
            if isinstance(network, ipaddress.IPv6Network) and network.subnet_of(_MAPPED):
                first = network.network_address.ipv4_mapped
                return str(ipaddress.ip_network(f"{first}/{network.prefixlen - 96}"))
            return str(network)
        found = ipaddress.ip_address(text)
        if isinstance(found, ipaddress.IPv6Address) and found.ipv4_mapped is not None:
            return str(found.ipv4_mapped)
        return str(found)
    except ValueError:
        raise GameError(f"{text[:64]!r} is not an IP address or a network", 400) from None


#: the widest ban made without ``force``: an IPv4 /8, an IPv6 /32 (settings
#: ``ban_widest_ipv4``, ``ban_widest_ipv6``)
WIDEST = {4: 8, 6: 32}
_LOOPBACK = (ipaddress.ip_network("127.0.0.0/8"), ipaddress.ip_network("::1/128"))


def risky_ban(key: str, requester: str | None, widest: dict[int, int]) -> str | None:
    """Why banning ``key`` (as :func:`ban_key` writes it) needs ``force``, or ``None``:
    it is wider than ``widest`` (IP version → the shortest prefix), covers loopback
    (the hub's own machine: its health checks and commands), or covers ``requester``,
    the address of the admin who asks."""
    network = ipaddress.ip_network(key, strict=False)
    if network.prefixlen < widest[network.version]:
        return (
            f"{key} is wider than an IPv{network.version} /{widest[network.version]}"
            f" ({network.num_addresses} addresses)"
        )
    if any(
        network.overlaps(loopback) for loopback in _LOOPBACK if loopback.version == network.version
    ):
        return f"{key} covers loopback: this machine's own connections would be closed"
    try:
        mine = ipaddress.ip_address(requester or "")
    except ValueError:
        return None
    if isinstance(mine, ipaddress.IPv6Address) and mine.ipv4_mapped is not None:
        mine = mine.ipv4_mapped
    if mine.version == network.version and mine in network:
        return f"{key} covers your own address {mine}: you would lock yourself out"
    return None


class Bans:
    """The banned addresses and networks (in memory; the store keeps them)."""

    def __init__(self, keys: Iterable[str] = ()) -> None:
        self._addresses: set[str] = set()
        self._networks: list[Any] = []
        self.replace(keys)

    def replace(self, keys: Iterable[str]) -> None:
        """Ban exactly ``keys`` (as :func:`ban_key` writes them)."""
        self._addresses.clear()
        self._networks.clear()
        for key in keys:
            self.add(key)

    def add(self, key: str) -> None:
        """Ban ``key``."""
        if "/" in key:
            network = ipaddress.ip_network(key, strict=False)
            if network not in self._networks:
                self._networks.append(network)
        else:
            self._addresses.add(key)

    def remove(self, key: str) -> None:
        """Lift the ban of ``key``."""
        if "/" in key:
            network = ipaddress.ip_network(key, strict=False)
            self._networks = [n for n in self._networks if n != network]
        else:
            self._addresses.discard(key)

    def banned(self, host: str) -> bool:
        """Whether connections from ``host`` are refused (an IPv4 address that a
        dual-stack socket shows as ``::ffff:a.b.c.d`` is that IPv4 address)."""
        if host in self._addresses:
            return True
        if not host or not (self._networks or host.startswith("::ffff:")):
            return False
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
            if str(address) in self._addresses:
                return True
        return any(address in network for network in self._networks)

    def __len__(self) -> int:
        return len(self._addresses) + len(self._networks)

    def keys(self) -> set[str]:
        """Every ban, as :func:`ban_key` writes it."""
        return set(self._addresses) | {str(n) for n in self._networks}


async def audit_command(store: Any, action: str, target: str | None, detail: Any,
                        work: Callable[[], Awaitable[Any]]) -> Any:  # fmt: skip
    """Run a ``gamehub`` command's change ``work()`` and write its audit row (done or
    refused) with the command's :func:`command_actor`."""
    actor = command_actor()
    try:
        result = await work()
    except GameError as e:
        await _write(store, actor, action, target, detail, f"refused: {e.reason}", AUDIT_KEEP)
        raise
    await _write(store, actor, action, target, detail, "ok", AUDIT_KEEP)
    return result


async def _write(
    store: Any,
    actor: Actor,
    action: str,
    target: str | None,
    detail: Any,
    outcome: str,
    keep: int,
) -> None:
    audit_log.info(
        "admin {actor} ({via} from {source}): {action} {target}: {outcome}",
        actor=actor.name,
        via=actor.via,
        source=actor.source,
        action=action,
        target=target,
        outcome=outcome,
    )
    if not IAuditStore.providedBy(store):
        return
    try:
        await store.record_audit(
            actor.name,
            action,
            via=actor.via,
            source=actor.source,
            target=target,
            detail=detail,
            outcome=outcome,
            keep=keep,
        )
    except Exception as e:  # the action is done; its row is missing: say so loudly
        audit_log.error(
            "the audit row of {action} {target} by {actor} was not written: {error}",
            action=action,
            target=target,
            actor=actor.name,
            error=str(e),
        )


class Admin:
    """The admin actions of one hub (see the module docstring).

    :param hub: the :class:`hub.service.HubService`.
    """

    log = Logger()

    def __init__(self, hub: Any) -> None:
        self.hub = hub
        self.keep = int(hub.options.get("audit_keep", AUDIT_KEEP))
        self.widest = {
            4: int(hub.options.get("ban_widest_ipv4", WIDEST[4])),
            6: int(hub.options.get("ban_widest_ipv6", WIDEST[6])),
        }
        self._refresh: LoopingCall | None = None

    async def load_bans(self) -> None:
        """Read the banned addresses from the store (the hub starts, and every
        ``ban_refresh_seconds``: a ``gamehub admin unban`` or another hub's ban takes
        effect here too); the connections of newly banned addresses are closed."""
        if not IAuditStore.providedBy(self.hub.store):
            return
        try:
            rows = await self.hub.store.banned_addresses()
        except StoreUnavailable as e:
            self.log.warn("banned addresses not read: {error}", error=str(e))
            return
        before = self.hub.bans.keys()
        self.hub.bans.replace(row["address"] for row in rows)
        if self.hub.bans.keys() - before:
            for frontend in self.hub.frontends():
                if frontend.gate is not None:
                    frontend.gate.drop(self.hub.bans.banned)

    def start(self) -> None:
        """Read the bans again every ``ban_refresh_seconds`` (0: never)."""
        seconds = float(self.hub.options.get("ban_refresh_seconds", 5.0))
        if seconds <= 0 or not IAuditStore.providedBy(self.hub.store):
            return
        self._refresh = LoopingCall(self._reload)
        self._refresh.clock = self.hub.reactor
        self._refresh.start(seconds, now=False).addErrback(
            lambda f: self.log.failure("reading the bans again stopped", f)
        )

    def _reload(self) -> Any:
        d = defer.ensureDeferred(self.load_bans())
        return d.addErrback(lambda f: self.log.failure("reading the bans again failed", f))

    def stop(self) -> None:
        """Stop reading the bans again."""
        if self._refresh is not None and self._refresh.running:
            self._refresh.stop()
        self._refresh = None

    async def run(
        self,
        actor: Actor,
        action: str,
        target: str | None,
        detail: Any,
        work: Callable[[], Awaitable[Any]],
    ) -> Any:
        """Do ``work()`` and audit it, done or refused (a :class:`GameError`, raised
        again after its row is written)."""
        self.hub.telemetry.admin_actions.labels(action).inc()
        try:
            result = await work()
        except GameError as e:
            await _write(
                self.hub.store, actor, action, target, detail, f"refused: {e.reason}", self.keep
            )
            raise
        await _write(self.hub.store, actor, action, target, detail, "ok", self.keep)
        return result

    def _store(self) -> Any:
        if self.hub.store is None:
            raise GameError("this hub has no store", 503)
        return self.hub.store

    # -- the actions -----------------------------------------------------------------

    async def kick(self, player: str, reason: str) -> dict[str, Any]:
        """Take ``player`` out of every seat it holds (a chip table's stack goes back to
        the account) and close its connections.

        :raises hub.model.NotFound: the player sits nowhere and has no connection.
        """
        left: list[dict[str, Any]] = []
        for game in self.hub.lobby.games():
            for seat in game.seats:
                if seat.player == player and seat.present and seat.kind != "bot":
                    self.hub.leave_seat(game, seat.index)
                    left.append({"game": game.id, "seat": seat.index})
        closed = 0
        for frontend in self.hub.frontends():
            factory = frontend.factory
            if factory is not None and IConnectionControl.providedBy(factory):
                closed += int(factory.kick(player, reason))
        if not left and not closed:
            raise NotFound(f"{player!r} holds no seat and has no connection here")
        return {"player": player, "left": left, "connections": closed}

    async def close_game(self, game_id: str) -> dict[str, Any]:
        """Remove a game from the lobby; a chip table's chips go back to the accounts
        (through the table money) before this fires."""
        game = self.hub.lobby.get(game_id, sealed=True)  # the operator: sealed ones too
        chips = self.hub.money is not None and game.chips is not None
        self.hub.lobby.remove(game.id)
        if chips:
            await self.hub.money.idle(game.id)
        return {"closed": game.id, "type": game.type, "chip_table": chips}

    async def chips(self, account: str, amount: Any) -> dict[str, Any]:
        """Grant chips to ``account`` (a negative ``amount`` revokes them), one ledger
        movement."""
        moved = await self._store().grant(account, amount)
        return {"account": account, "amount": str(moved.amount), "balance": str(moved.balance)}

    async def ban(
        self, key: str, reason: str | None, actor: Actor, force: bool = False
    ) -> dict[str, Any]:
        """Ban an address or network and close its open connections.

        :raises hub.model.Conflict: 409, a ban that needs ``force`` (:func:`risky_ban`)
            without it.
        """
        risk = risky_ban(key, actor.source, self.widest)
        if risk is not None and not force:
            raise Conflict(f'{risk}; send "force": true to ban it anyway')
        store = self.hub.store
        if IAuditStore.providedBy(store):
            await store.ban_address(key, actor.name, reason)
        self.hub.bans.add(key)
        closed = sum(
            f.gate.drop(self.hub.bans.banned) for f in self.hub.frontends() if f.gate is not None
        )
        return {"banned": key, "connections": closed}

    async def unban(self, key: str) -> dict[str, Any]:
        """Lift a ban.

        :raises hub.model.NotFound: ``key`` is not banned.
        """
        store = self.hub.store
        found = IAuditStore.providedBy(store) and bool(await store.unban_address(key))
        if not found and not self.hub.bans.banned(key):
            raise NotFound(f"{key} is not banned")
        self.hub.bans.remove(key)
        return {"unbanned": key}

    async def bans(self) -> list[dict[str, Any]]:
        """Every ban."""
        return list(await self._store().banned_addresses())

    async def plugin(self, name: str, action: str) -> dict[str, Any]:
        """``unload`` a dropped-in plugin (its ``.meta`` moves to ``disabled/`` beside
        ``meta/``) or ``reload`` it (moved back, or read again); fires after the
        registry has looked again, with the plugin's state."""
        registry = self.hub.registry
        record = _record(registry, name)
        disabled = self._disabled(name)
        if record is not None and record.source == "builtin":
            raise Conflict(f"{name} is built in: only dropped-in plugins can be {action}ed")
        if action == "unload":
            if record is None:
                raise NotFound(f"no plugin {name!r} is loaded")
            target = record.meta_path.parent.parent / DISABLED / record.meta_path.name
            target.parent.mkdir(mode=0o700, exist_ok=True)
            os.replace(record.meta_path, target)
        elif disabled is not None:
            os.replace(disabled, disabled.parent.parent / "meta" / disabled.name)
        elif record is not None:
            stat = record.meta_path.stat()
            os.utime(record.meta_path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
        else:
            raise NotFound(f"no plugin {name!r} to reload")
        await registry.scan()
        after = _record(registry, name)
        if after is None:
            return {"plugin": name, "status": "unloaded"}
        return {"plugin": name, "status": after.status, "reason": after.reason}

    def _disabled(self, name: str) -> Path | None:
        for sub in ("plugins", "bots"):
            path = self.hub.data_dir / sub / DISABLED / f"{name}.meta"
            if path.is_file():
                return path
        return None


def _record(registry: Any, name: str) -> Any:
    found = [r for r in registry.plugins() if r.name == name]
    return found[0] if found else None


def amount_text(value: Any) -> str:
    """A chips amount of a request as text (``Decimal`` checks it later).

    :raises hub.model.GameError: 400, not a number.
    """
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise GameError("'amount' must be a decimal string such as \"250.00\"", 400)
    try:
        Decimal(str(value))
    except ArithmeticError:
        raise GameError("'amount' must be a decimal string such as \"250.00\"", 400) from None
    return str(value)


__all__ = [
    "WIDEST",
    "Actor",
    "Admin",
    "Bans",
    "audit_command",
    "ban_key",
    "command_actor",
    "risky_ban",
]
