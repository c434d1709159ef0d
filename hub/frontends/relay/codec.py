"""The relay protocol without I/O: a frame's JSON → a request, a reply → bytes.

Every frame is one JSON object (UTF-8) with an ``op``, carried with a 4-byte
big-endian length (``Int32StringReceiver``).  What a peer sends:

- ``{"op": "join", "table", "game", "seats", "key", "name"}``: join the table named
  ``table`` (made by the first join, with its game type and number of seats), as the
  holder of the Ed25519 key ``key`` (``ed25519:<base64>``);
- ``{"op": "auth", "proof"}``: the answer to the hub's challenge: base64 of the
  Ed25519 signature of :data:`PROOF_LABEL` ``|| nonce || table`` (the nonce as the hex
  text the hub sent; :func:`proof_message`);
- ``{"op": "send", "to", "data"}``: pass ``data`` (base64, opaque to the hub) to the
  peer whose key is ``to``, or to every other peer of the table (``to`` null);
- ``{"op": "list"}``: the tables.

What the hub sends: ``challenge {nonce}``, ``joined {table, game, seats, peers}``,
``peer {key, name}``, ``from {key, data}``, ``left {key}``, ``tables {tables}`` and
``error {reason}``.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from dataclasses import dataclass
from typing import Any

from hub.connections import fields

#: what a peer signs to prove its key (then the hub's nonce, then the table's name)
PROOF_LABEL = b"gamehub relay v1\n"
#: a table's name
_TABLE = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")
_TYPE = re.compile(r"^[a-z0-9-]{1,64}$")
_KEY = re.compile(r"^ed25519:[A-Za-z0-9+/]{43}=$")
#: most seats of a relayed table
MAX_SEATS = 10


@dataclass(frozen=True, slots=True)
class Join:
    """A peer joins ``table``."""

    table: str
    game: str
    seats: int
    key: str
    name: str


@dataclass(frozen=True, slots=True)
class Auth:
    """The signature that answers the challenge."""

    proof: bytes


@dataclass(frozen=True, slots=True)
class Send:
    """Data for one peer (``to``: its key) or for every other peer (``None``)."""

    to: str | None
    data: bytes


@dataclass(frozen=True, slots=True)
class ListTables:
    """The tables, please."""


@dataclass(frozen=True, slots=True)
class Invalid:
    """A frame that is no request, and why."""

    reason: str


Request = Join | Auth | Send | ListTables | Invalid


def proof_message(nonce: str, table: str) -> bytes:
    """What a peer signs to join ``table`` after the challenge ``nonce`` (hex text)."""
    return PROOF_LABEL + nonce.encode("ascii") + table.encode("ascii")


def _b64(value: object, most: int) -> bytes | None:
    if not isinstance(value, str) or len(value) > most * 4 // 3 + 4:
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        return None


def decode(frame: bytes, max_data: int) -> Request:
    """One frame → the peer's request (:class:`Invalid` when it is none)."""
    try:
        body = json.loads(frame.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return Invalid("a frame is one JSON object")
    if not isinstance(body, dict):
        return Invalid("a frame is one JSON object")
    op = body.get("op")
    if op == "send":
        to = body.get("to")
        if to is not None and (not isinstance(to, str) or not _KEY.match(to)):
            return Invalid("send: 'to' is a key or null")
        data = _b64(body.get("data"), max_data)
        if data is None or len(data) > max_data:
            return Invalid(f"send: 'data' is base64 of at most {max_data} bytes")
        return Send(to, data)
    if op == "join":
        return _join(body)
    if op == "auth":
        proof = _b64(body.get("proof"), 64)
        if proof is None or len(proof) != 64:
            return Invalid("auth: 'proof' is base64 of a 64-byte signature")
        return Auth(proof)
    if op == "list":
        return ListTables()
    return Invalid(f"unknown op {str(op)[:20]!r}")


def _join(body: dict[str, Any]) -> Request:
    table, game, seats = body.get("table"), body.get("game"), body.get("seats")
    key, name = body.get("key"), body.get("name")
    if not isinstance(table, str) or not _TABLE.match(table):
        return Invalid("join: 'table' is 1 to 64 letters, digits, '_', '.', '-'")
    if not isinstance(game, str) or not _TYPE.match(game):
        return Invalid("join: 'game' is a game type")
    if type(seats) is not int or not 2 <= seats <= MAX_SEATS:
        return Invalid(f"join: 'seats' is 2 to {MAX_SEATS}")
    if not isinstance(key, str) or not _KEY.match(key):
        return Invalid("join: 'key' is ed25519:<base64 of 32 bytes>")
    if not isinstance(name, str) or not fields.SEATED_NAME.ok(name) or not name.isprintable():
        return Invalid("join: 'name' is a player name")
    return Join(table, game, seats, key, name)


def key_bytes(key: str) -> bytes:
    """The 32 bytes of a key ``ed25519:<base64>`` (the relay seats a table's peers in
    their byte order)."""
    return base64.b64decode(key.removeprefix("ed25519:"))


def encode(op: str, **values: Any) -> bytes:
    """A reply of the hub."""
    return json.dumps({"op": op, **values}, separators=(",", ":")).encode("utf-8")


def data_text(data: bytes) -> str:
    """``data`` in base64 for a ``from`` reply."""
    return base64.b64encode(data).decode("ascii")
