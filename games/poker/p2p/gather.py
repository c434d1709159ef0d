"""Before the first hand: the peers find each other and agree on a table.

Each peer signs a ``hello``: its key, its name, the table parameters it wants
(:class:`.params.Params`), the address it listens on (if any) and a commitment
``SHA-256(nonce)`` to a random nonce.  Hellos are passed on to every peer met, so one
``--peer`` address reaches the whole table.  Once a peer holds hellos with the same
parameters from as many peers as the table seats (its own included), the table's
*roster* is those peers' keys in byte order: seat 0 is the smallest key.  Each peer then
signs a ``seat`` naming the roster and revealing its nonce; when every peer of the
roster said the same roster with a nonce that fits its commitment, the table is agreed:

- ``table id = SHA-256(label || parameters || the keys in seat order)``;
- ``seed = SHA-256(label || table id || the nonces in seat order)`` draws the first
  button; no peer chooses it (a peer could only refuse to reveal, and then no table
  forms).

Names are made unique in seat order (``alice``, ``alice-2``...): the engine needs them so.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import Any

from .params import Params
from .wire import Identity, Signed, WireError, canonical, key_text, parse_key, text, verify

#: most hellos a peer keeps (each from another key)
MAX_HELLOS = 64
_LABEL = b"gamehub p2p table v1\x00"


@dataclass(frozen=True)
class Roster:
    """An agreed table.

    :ivar table_id: 32 bytes.
    :ivar keys: the peers' public keys, in seat order.
    :ivar names: their names, in seat order (unique).
    :ivar params: the parameters.
    :ivar seed: the table's seed (the first button).
    """

    table_id: bytes
    keys: tuple[bytes, ...]
    names: tuple[str, ...]
    params: Params
    seed: bytes

    def seat_of(self, key: bytes) -> int | None:
        """The seat of ``key`` (``None``: not at the table)."""
        return self.keys.index(key) if key in self.keys else None


def unique_names(names: list[str]) -> tuple[str, ...]:
    """``names`` with repeats made unique (``-2``, ``-3``...), first come first."""
    out: list[str] = []
    for name in names:
        candidate, n = name, 2
        while candidate in out:
            candidate, n = f"{name}-{n}", n + 1
        out.append(candidate)
    return tuple(out)


@dataclass(frozen=True)
class Hello:
    """A peer's hello."""

    key: bytes
    name: str
    params: Params
    commit: str
    listen: str | None
    frame: bytes


def read_hello(frame: bytes) -> Hello:
    """A hello frame, its signature checked against the key it names.

    :raises WireError: malformed or badly signed.
    """
    from .wire import open_frame

    body, _, _ = open_frame(frame)
    if body.get("k") != "hello":
        raise WireError("not a hello")
    key = parse_key(body.get("key"))
    verify(frame, key)
    listen = body.get("listen")
    if listen is not None:
        listen = text(body, "listen", 100)
    commit = text(body, "commit", 64)
    if len(commit) != 64 or any(c not in "0123456789abcdef" for c in commit):
        raise WireError("a commitment is 64 hex digits")
    return Hello(
        key, text(body, "name", 64), Params.from_json(body.get("params")), commit, listen, frame
    )


class Gathering:
    """One peer finding the others and agreeing on a table (no I/O: frames in and out).

    :param me: this peer's key.
    :param name: its player's name.
    :param params: the table it wants.
    :param listen: the address other peers reach it at (``None``: none).
    """

    def __init__(self, me: Identity, name: str, params: Params, listen: str | None = None) -> None:
        self.me = me
        self.name = name
        self.params = params
        self._nonce = secrets.token_bytes(32)
        body: dict[str, Any] = {
            "k": "hello",
            "key": me.text,
            "name": name,
            "params": params.to_json(),
            "commit": hashlib.sha256(self._nonce).hexdigest(),
        }
        if listen is not None:
            body["listen"] = listen
        self.hello = me.sign(body)
        self.hellos: dict[bytes, Hello] = {me.verify_key: read_hello(self.hello)}
        self.roster_keys: tuple[bytes, ...] | None = None
        self.seat_frame: bytes | None = None
        self.seats: dict[bytes, bytes] = {}  # key → revealed nonce
        #: seats whose hello, or this peer's roster, is not known yet: key → body
        self.early: dict[bytes, dict[str, Any]] = {}
        self.roster: Roster | None = None
        self.refused: list[str] = []

    def matching(self) -> list[Hello]:
        """The hellos that want this peer's table."""
        return [h for h in self.hellos.values() if h.params == self.params]

    def take_hello(self, frame: bytes) -> Hello | None:
        """Keep a peer's hello; the new hello (``None``: known already, or for another
        table, or one too many).  Then, if the table is full, :attr:`seat_frame` is the
        ``seat`` to send to every peer.

        :raises WireError: a bad hello.
        """
        hello = read_hello(frame)
        if hello.key in self.hellos:
            return None
        if hello.params != self.params:
            if len(self.refused) < MAX_HELLOS:
                self.refused.append(f"{hello.name} wants another table ({hello.params})")
            return None
        if len(self.hellos) >= MAX_HELLOS:
            return None
        self.hellos[hello.key] = hello
        self._maybe_seat()
        return hello

    @property
    def agreed(self) -> Roster | None:
        """The table, once agreed (seats that were waiting for a hello are taken now)."""
        return self._take_seats() if self.roster is None else self.roster

    def _maybe_seat(self) -> None:
        if self.seat_frame is not None:
            return
        keys = sorted(h.key for h in self.matching())
        if len(keys) < self.params.players:
            return
        roster = tuple(keys[: self.params.players])
        if self.me.verify_key not in roster:
            self.refused.append("the table is full without this peer")
            return
        self.roster_keys = roster
        self.seat_frame = self.me.sign(
            {
                "k": "seat",
                "key": self.me.text,
                "roster": [key_text(k) for k in roster],
                "nonce": self._nonce.hex(),
            }
        )
        self.take_seat(self.seat_frame)

    def take_seat(self, frame: bytes) -> Roster | None:
        """Take a peer's ``seat`` (kept until its hello and this peer's roster are
        known); the agreed table once every seat is in.

        :raises WireError: a bad seat, a roster that is not this peer's, or a nonce that
            does not fit the peer's commitment.
        """
        from .wire import open_frame

        body, _, _ = open_frame(frame)
        if body.get("k") != "seat":
            raise WireError("not a seat")
        key = parse_key(body.get("key"))
        verify(frame, key)
        if key not in self.early and len(self.early) < MAX_HELLOS:
            self.early[key] = body
        return self._take_seats()

    def _take_seats(self) -> Roster | None:
        if self.roster_keys is None:
            return None
        for key, body in list(self.early.items()):
            hello = self.hellos.get(key)
            if hello is None:
                continue
            del self.early[key]
            roster = body.get("roster")
            if not isinstance(roster, list) or len(roster) > MAX_HELLOS:
                raise WireError("a roster is a list of keys")
            keys = tuple(parse_key(k) for k in roster)
            if keys != self.roster_keys:
                raise WireError(f"{hello.name} sees another table")
            nonce_text = text(body, "nonce", 64)
            try:
                nonce = bytes.fromhex(nonce_text)
            except ValueError:
                raise WireError("a nonce is hex") from None
            if hashlib.sha256(nonce).hexdigest() != hello.commit:
                raise WireError(f"{hello.name}'s nonce does not fit its commitment")
            self.seats[key] = nonce
        return self._maybe_agree()

    def _maybe_agree(self) -> Roster | None:
        roster = self.roster_keys
        if roster is None or self.roster is not None or set(self.seats) != set(roster):
            return self.roster
        self.roster = roster_of(self.params, roster, self.hellos, self.seats)
        return self.roster


def roster_of(
    params: Params, keys: tuple[bytes, ...], hellos: dict[bytes, Hello], nonces: dict[bytes, bytes]
) -> Roster:
    """The agreed table of ``keys`` (in seat order), from their hellos and nonces."""
    table_id = hashlib.sha256(_LABEL + canonical(params.to_json()) + b"".join(keys)).digest()
    seed = hashlib.sha256(_LABEL + table_id + b"".join(nonces[k] for k in keys)).digest()
    names = unique_names([hellos[k].name for k in keys])
    return Roster(table_id, keys, names, params, seed)


class Witness:
    """Follows a table's gathering without taking part (the hub relaying it): the table
    its peers agree on, from their hellos and seats.

    :param players: how many peers the table seats.
    """

    def __init__(self, players: int) -> None:
        self.players = players
        self.hellos: dict[bytes, Hello] = {}
        self.seats: dict[bytes, tuple[tuple[bytes, ...], bytes]] = {}  # key → roster, nonce
        self.roster: Roster | None = None

    def take(self, frame: bytes) -> Roster | None:
        """Follow one frame (anything else than a hello or a seat is not looked at);
        the table once agreed.

        :raises WireError: a hello or seat that is malformed or badly signed.
        """
        from .wire import open_frame

        body, _, _ = open_frame(frame)
        kind = body.get("k")
        if kind == "hello" and len(self.hellos) < MAX_HELLOS:
            hello = read_hello(frame)
            self.hellos.setdefault(hello.key, hello)
        elif kind == "seat" and len(self.seats) < MAX_HELLOS:
            key = parse_key(body.get("key"))
            verify(frame, key)
            roster = body.get("roster")
            if not isinstance(roster, list) or len(roster) != self.players:
                raise WireError("a roster is a list of keys")
            try:
                nonce = bytes.fromhex(text(body, "nonce", 64))
            except ValueError:
                raise WireError("a nonce is hex") from None
            self.seats.setdefault(key, (tuple(parse_key(k) for k in roster), nonce))
        if self.roster is None:
            self.roster = self._agreed()
        return self.roster

    def _agreed(self) -> Roster | None:
        for keys, _ in self.seats.values():
            hellos = [self.hellos.get(k) for k in keys]
            seats = [self.seats.get(k) for k in keys]
            if any(h is None for h in hellos) or any(s is None or s[0] != keys for s in seats):
                continue
            params = {h.params for h in hellos if h is not None}
            nonces = {k: s[1] for k, s in zip(keys, seats, strict=True) if s is not None}
            fits = all(hashlib.sha256(nonces[k]).hexdigest() == self.hellos[k].commit for k in keys)
            if len(params) == 1 and fits:
                return roster_of(params.pop(), keys, self.hellos, nonces)
        return None


def signed_by_roster(frame: bytes, roster: Roster, seat: int) -> Signed:
    """The message of ``frame`` if the peer at ``seat`` signed it.

    :raises WireError: not so.
    """
    return verify(frame, roster.keys[seat])
