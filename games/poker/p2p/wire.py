"""The peers' messages: signed canonical JSON, and the frames that carry them.

A message is a JSON object in canonical form (keys sorted, no spaces, ASCII only,
``json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=True)``), signed with
its author's Ed25519 key over :data:`LABEL` followed by those bytes.  Its *frame* is the
64-byte signature followed by the JSON; a peer refuses a frame whose JSON is not in
canonical form, so one message has exactly one frame and one :attr:`Signed.digest`
(SHA-256 of the frame): two frames of one author for one place in the hand are two
different messages, which is the proof of an equivocation.

Keys travel as ``ed25519:<base64>`` (the form of plugin signatures, :mod:`hub.plugins.signing`);
binary values (points, scalars, sealed keys) as standard base64.  Frames are carried
with a 4-byte big-endian length (Twisted's ``Int32StringReceiver``), at most
:data:`MAX_FRAME` bytes.

Every message has ``k`` (its kind) and, once the table is agreed, ``a`` (the author's
seat), ``t`` (the table id), ``h`` (the hand), ``ph`` (the phase of the hand) and
``prev`` (the transcript hash the author had when the phase began, :mod:`.agree`).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from nacl import exceptions as nacl_exceptions
from nacl import signing

#: what every signed message starts with (a signature of anything else never fits)
LABEL = b"gamehub p2p poker v1\n"
KEY_PREFIX = "ed25519:"
SIGNATURE_BYTES = 64
#: the largest frame a peer takes (a hand's whole log fits, for a dump)
MAX_FRAME = 256 * 1024


class WireError(ValueError):
    """A frame or message that is malformed, badly signed or not in canonical form."""


def canonical(body: Mapping[str, Any]) -> bytes:
    """The canonical JSON bytes of ``body``."""
    return json.dumps(
        body, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False
    ).encode("ascii")


def b64(data: bytes) -> str:
    """``data`` as standard base64 text."""
    return base64.b64encode(data).decode("ascii")


def unb64(text: object, size: int | None = None, most: int = MAX_FRAME) -> bytes:
    """The bytes of base64 ``text`` (exactly ``size`` of them, when given).

    :raises WireError: not base64 text, or the wrong length.
    """
    if not isinstance(text, str) or len(text) > most * 4 // 3 + 4:
        raise WireError("expected base64 text")
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise WireError("expected base64 text") from None
    if size is not None and len(data) != size:
        raise WireError(f"expected {size} bytes, not {len(data)}")
    return data


class Identity:
    """A peer's signing key.

    :param seed: the 32-byte Ed25519 seed (``None``: a fresh key).
    """

    def __init__(self, seed: bytes | None = None) -> None:
        self._key = signing.SigningKey(seed) if seed is not None else signing.SigningKey.generate()
        self.verify_key = bytes(self._key.verify_key)
        self.text = key_text(self.verify_key)

    @classmethod
    def from_pem(cls, path: str) -> Identity:
        """The key of a PEM file made by ``gamehub plugin keygen``.

        :raises hub.plugins.signing.SignatureError: unreadable, or not an Ed25519 key.
        """
        from cryptography.hazmat.primitives import serialization

        from hub.plugins.signing import load_private_key

        raw = load_private_key(path).private_bytes(
            serialization.Encoding.Raw,
            serialization.PrivateFormat.Raw,
            serialization.NoEncryption(),
        )
        return cls(raw)

    def sign(self, body: Mapping[str, Any]) -> bytes:
        """The frame of ``body`` signed with this key."""
        data = canonical(body)
        return self._key.sign(LABEL + data).signature + data

    def sign_raw(self, data: bytes) -> bytes:
        """The 64-byte signature of ``data`` as it is (for another protocol's proof)."""
        return self._key.sign(data).signature

    @property
    def box_key(self) -> bytes:
        """This key's X25519 private half, to open boxes sent to this peer."""
        return bytes(self._key.to_curve25519_private_key())


def key_text(raw: bytes) -> str:
    """``ed25519:<base64>`` of a raw public key."""
    return KEY_PREFIX + b64(raw)


def parse_key(text: object) -> bytes:
    """The raw 32 bytes of a public key written ``ed25519:<base64>``.

    :raises WireError: anything else, or not a point of the curve.
    """
    if not isinstance(text, str) or not text.startswith(KEY_PREFIX):
        raise WireError("a key is written ed25519:<base64>")
    raw = unb64(text[len(KEY_PREFIX) :], 32)
    try:
        signing.VerifyKey(raw)
    except (nacl_exceptions.CryptoError, ValueError):
        raise WireError("not an Ed25519 public key") from None
    return raw


def box_public(raw: bytes) -> bytes:
    """The X25519 public key of the Ed25519 public key ``raw`` (to box for that peer).

    :raises WireError: ``raw`` is no usable key.
    """
    try:
        return bytes(signing.VerifyKey(raw).to_curve25519_public_key())
    except (nacl_exceptions.CryptoError, ValueError, TypeError):
        raise WireError("not an Ed25519 public key") from None


@dataclass(frozen=True)
class Signed:
    """A message whose signature is checked.

    :ivar body: the decoded JSON object.
    :ivar frame: its bytes on the wire (signature + JSON).
    :ivar digest: SHA-256 of ``frame``.
    """

    body: dict[str, Any]
    frame: bytes
    digest: bytes

    @property
    def kind(self) -> str:
        """The message's kind (``k``)."""
        return str(self.body.get("k"))


def open_frame(frame: bytes) -> tuple[dict[str, Any], bytes, bytes]:
    """Read a frame without checking its signature: ``(body, signature, JSON bytes)``.

    :raises WireError: too long, too short, not canonical JSON or not an object.
    """
    if not isinstance(frame, bytes) or not SIGNATURE_BYTES < len(frame) <= MAX_FRAME:
        raise WireError("a frame is a signature and a JSON object")
    signature, data = frame[:SIGNATURE_BYTES], frame[SIGNATURE_BYTES:]
    try:
        body = json.loads(data.decode("ascii"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise WireError("a frame's message is not ASCII JSON") from None
    if not isinstance(body, dict):
        raise WireError("a message is a JSON object")
    try:
        again = canonical(body)
    except (ValueError, TypeError):
        raise WireError("a message is not canonical JSON") from None
    if again != data:
        raise WireError("a message is not in canonical form")
    return body, signature, data


def verify(frame: bytes, key: bytes) -> Signed:
    """The message of ``frame`` if ``key`` signed it.

    :raises WireError: malformed, or not signed by ``key``.
    """
    body, signature, data = open_frame(frame)
    try:
        signing.VerifyKey(key).verify(LABEL + data, signature)
    except (nacl_exceptions.BadSignatureError, nacl_exceptions.CryptoError, ValueError):
        raise WireError("the signature does not verify") from None
    return Signed(body, frame, hashlib.sha256(frame).digest())


# -- reading fields ---------------------------------------------------------------------


def field(body: Mapping[str, Any], name: str, kind: type | tuple[type, ...]) -> Any:
    """``body[name]`` if it is of ``kind`` (a ``bool`` is never an ``int``).

    :raises WireError: missing or of another type.
    """
    value = body.get(name)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise WireError(f"field {name!r} is missing or not a {getattr(kind, '__name__', kind)}")
    return value


def text(body: Mapping[str, Any], name: str, most: int = 200) -> str:
    """A printable text field of at most ``most`` characters."""
    value = field(body, name, str)
    if len(value) > most or not value.isprintable():
        raise WireError(f"field {name!r} is not a printable text of at most {most} characters")
    return value


def number(body: Mapping[str, Any], name: str, lo: int, hi: int) -> int:
    """An integer field between ``lo`` and ``hi``."""
    value = field(body, name, int)
    if not lo <= value <= hi:
        raise WireError(f"field {name!r} must be {lo} to {hi}")
    return int(value)


def position_map(value: object, size: int, most: int = 52) -> dict[int, bytes]:
    """``{"<position>": base64}`` → ``{position: bytes}`` (positions 0–51).

    :raises WireError: malformed.
    """
    if not isinstance(value, dict) or len(value) > most:
        raise WireError("expected an object of positions")
    out: dict[int, bytes] = {}
    for key, item in value.items():
        if not isinstance(key, str) or not key.isdigit() or str(int(key)) != key or int(key) > 51:
            raise WireError("a position is 0 to 51, written plainly")
        out[int(key)] = unb64(item, size)
    return out


def positions_out(keys: Mapping[int, bytes]) -> dict[str, str]:
    """``{position: bytes}`` → ``{"<position>": base64}``."""
    return {str(p): b64(v) for p, v in sorted(keys.items())}
