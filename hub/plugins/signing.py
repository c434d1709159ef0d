"""Ed25519 signatures of plugins: who made a package, and that nobody changed it since.

``gamehub plugin sign PACKAGE --key KEY`` appends a ``[signature]`` table to the
plugin's ``.meta`` (docs/plugins.md)::

    [signature]
    signer = "alice"
    key = "ed25519:<base64 of the 32-byte public key>"
    package_sha256 = "<SHA-256 of the package file, hex>"
    value = "<base64 of the 64-byte Ed25519 signature>"

The signature is over :func:`message`: a fixed label, the signer, the key, the
package's SHA-256 and every byte of the ``.meta`` before the ``[signature]`` line.  So
one changed byte of the package or of the ``.meta`` (a comment included), and a changed
signer name, are all refused; only ``value`` itself is not covered.

:class:`PluginTrust` is the hub's and ``gamehub fetch``'s policy: a signature that is
there must verify, always; with ``require_signed_plugins`` every dropped-in or fetched
package must be signed by one of ``trusted_plugin_keys``.  The built-in plugins come
with the hub and are not checked.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from hub.meta import SIGNATURE_LINE, MetaSignature, PluginMeta, split_signature

#: what every signed message starts with (a signature of anything else never fits)
LABEL = b"gamehub plugin signature v1\n"
KEY_PREFIX = "ed25519:"


class SignatureError(ValueError):
    """A signature is missing, wrong or untrusted, or a key is unusable; the message
    says which, for the plugin index, the log and ``gamehub fetch``."""


@dataclass(frozen=True)
class Signer:
    """Who signed a plugin whose signature verified.

    :ivar name: the name in the signature; :ivar key: the public key (``ed25519:…``);
    :ivar trusted: whether the key is one of ``trusted_plugin_keys``.
    """

    name: str
    key: str
    trusted: bool

    def to_json(self) -> dict[str, Any]:
        """For ``/plugins/index.json``."""
        return {"name": self.name, "key": self.key, "trusted": self.trusted}


# -- keys -------------------------------------------------------------------------------


def public_text(key: Ed25519PublicKey | Ed25519PrivateKey) -> str:
    """``ed25519:<base64>`` of a key (of a private key: its public half)."""
    public = key.public_key() if isinstance(key, Ed25519PrivateKey) else key
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return KEY_PREFIX + base64.b64encode(raw).decode("ascii")


def parse_public_key(text: str) -> Ed25519PublicKey:
    """The public key written ``ed25519:<base64>``.

    :raises SignatureError: anything else.
    """
    if not isinstance(text, str) or not text.strip().startswith(KEY_PREFIX):
        raise SignatureError(f"{text!r} is not a public key (ed25519:<base64>)")
    try:
        raw = base64.b64decode(text.strip()[len(KEY_PREFIX) :], validate=True)
        return Ed25519PublicKey.from_public_bytes(raw)
    except (binascii.Error, ValueError):
        raise SignatureError(f"{text!r} is not a public key (ed25519:<base64>)") from None


def short(key: str) -> str:
    """A key shortened for messages (``ed25519:AbCdEfGh…``)."""
    return key if len(key) <= 20 else key[:20] + "…"


def generate_key() -> Ed25519PrivateKey:
    """A new signing key."""
    return Ed25519PrivateKey.generate()


def private_pem(key: Ed25519PrivateKey) -> bytes:
    """The key as an unencrypted PKCS#8 PEM file's contents."""
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def write_private_key(key: Ed25519PrivateKey, path: Path) -> None:
    """Write ``key`` to a new file ``path`` readable by its owner only.

    :raises FileExistsError: ``path`` exists (a key is never overwritten).
    """
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(private_pem(key))


def load_private_key(path: str | Path) -> Ed25519PrivateKey:
    """The Ed25519 key of a PEM file (as :func:`write_private_key` writes it).

    :raises SignatureError: unreadable, or not an Ed25519 private key.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise SignatureError(f"cannot read the key {path}: {e.strerror or e}") from None
    try:
        key = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as e:
        raise SignatureError(f"{path} is not an unencrypted PEM private key: {e}") from None
    if not isinstance(key, Ed25519PrivateKey):
        raise SignatureError(f"{path} is not an Ed25519 key")
    return key


# -- signing and checking ---------------------------------------------------------------


def package_digest(path: Path) -> str:
    """The SHA-256 of a package file, hex."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def message(signer: str, key: str, package_sha256: str, head: str) -> bytes:
    """The bytes a plugin's signature is over."""
    fields = "\n".join((signer, key, package_sha256)).encode("utf-8")
    return LABEL + fields + b"\n" + head.encode("utf-8")


def sign_meta(text: str, package_sha256: str, key: Ed25519PrivateKey, signer: str) -> str:
    """``text`` (a ``.meta``) with a ``[signature]`` table for the package whose digest
    is ``package_sha256``; an earlier signature is replaced.

    :raises SignatureError: the signer's name is not one line of plain text.
    """
    if (
        not signer
        or len(signer) > 100
        or not signer.isprintable()
        or any(c in signer for c in '"\\')
    ):
        raise SignatureError(f"{signer!r} is not a signer name (one line, no quotes)")
    head, _ = split_signature(text)
    head = head.rstrip("\n") + "\n\n"
    public = public_text(key)
    value = key.sign(message(signer, public, package_sha256, head))
    signed = "\n".join(
        [
            SIGNATURE_LINE,
            f'signer = "{signer}"',
            f'key = "{public}"',
            f'package_sha256 = "{package_sha256}"',
            f'value = "{base64.b64encode(value).decode("ascii")}"',
        ]
    )
    return head + signed + "\n"


def verify(signature: MetaSignature, package_sha256: str) -> None:
    """Check ``signature`` against the package's digest and the ``.meta`` it is in.

    :raises SignatureError: with the reason: the package or the ``.meta`` changed after
        signing, or the signature is malformed.
    """
    if signature.package_sha256 != package_sha256:
        raise SignatureError(
            f"the package changed after {signature.signer} signed it: its sha256 is "
            f"{package_sha256}, the signature is for {signature.package_sha256}"
        )
    public = parse_public_key(signature.key)
    try:
        value = base64.b64decode(signature.value, validate=True)
    except binascii.Error:
        raise SignatureError("the signature value is not base64") from None
    signed = message(signature.signer, signature.key, signature.package_sha256, signature.head)
    try:
        public.verify(value, signed)
    except InvalidSignature:
        raise SignatureError(
            f"the .meta changed after {signature.signer} signed it "
            f"(the signature by {short(signature.key)} does not match its text)"
        ) from None


@dataclass(frozen=True)
class PluginTrust:
    """Which plugin packages the hub (or ``gamehub fetch``) accepts.

    :ivar required: ``require_signed_plugins``: refuse unsigned and untrusted packages.
    :ivar keys: ``trusted_plugin_keys``, each ``ed25519:<base64>``.
    """

    required: bool = False
    keys: frozenset[str] = frozenset()

    @classmethod
    def of(cls, required: bool, keys: Iterable[str]) -> PluginTrust:
        """A policy; every key is checked.

        :raises SignatureError: a key is not ``ed25519:<base64>``.
        """
        normal = set()
        for key in keys:
            parse_public_key(key)
            normal.add(key.strip())
        return cls(bool(required), frozenset(normal))

    @classmethod
    def from_settings(cls, settings: Mapping[str, Any]) -> PluginTrust:
        """From the hub's settings ``require_signed_plugins`` and ``trusted_plugin_keys``
        (already converted by :mod:`hub.settings`).

        :raises SignatureError: a key is not ``ed25519:<base64>``.
        """
        keys = settings.get("trusted_plugin_keys") or ()
        if isinstance(keys, str):
            keys = (keys,)
        return cls.of(bool(settings.get("require_signed_plugins", False)), keys)

    def check(self, meta: PluginMeta, package_sha256: str | None) -> Signer | None:
        """Accept or refuse the plugin ``meta`` whose package has ``package_sha256``
        (``None``: a folder, which cannot be signed).

        :returns: the signer (``None``: unsigned, accepted because not required).
        :raises SignatureError: a bad signature; or, when required, none or an
            untrusted one.
        """
        signature = meta.signature
        if signature is None:
            if self.required:
                raise SignatureError(
                    "unsigned, and require_signed_plugins is on (sign it with gamehub plugin sign)"
                )
            return None
        if package_sha256 is None:
            raise SignatureError("a signature is for an archive package, not a folder")
        verify(signature, package_sha256)
        trusted = signature.key in self.keys
        if self.required and not trusted:
            raise SignatureError(
                f"signed by {signature.signer} with key {signature.key}, which is not "
                "in trusted_plugin_keys"
            )
        return Signer(signature.signer, signature.key, trusted)
