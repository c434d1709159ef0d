"""What the hub's front ends read of the plugins' records: a plugin as the plugin
index lists it (:class:`PluginInfo`), one file a client may download
(:class:`PluginFile`) and the hub's signing rule (:class:`SigningRule`).

The registry that makes them (``hub.plugins.registry.Registry``: its ``PluginRecord``,
``Download`` and ``hub.plugins.signing.PluginTrust``) sits above the seams, so the seams
name them by what they offer; :class:`hub.interfaces.PluginRegistry` hands them over.
Importable from :mod:`hub.interfaces` like every seam.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol


class PluginSigner(Protocol):
    """Who signed a plugin whose signature verified (``hub.plugins.signing.Signer``)."""

    def to_json(self) -> Mapping[str, object]: ...


class PluginInfo(Protocol):
    """One plugin, loaded or failed, as the plugin index lists it."""

    @property
    def name(self) -> str: ...
    @property
    def kind(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def summary(self) -> str: ...
    @property
    def frontends(self) -> Sequence[str]: ...
    @property
    def status(self) -> str: ...
    @property
    def loaded(self) -> bool: ...
    @property
    def reason(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def client(self) -> str | None: ...
    @property
    def filename(self) -> str | None: ...
    @property
    def meta_filename(self) -> str: ...
    @property
    def size(self) -> int | None: ...
    @property
    def sha256(self) -> str | None: ...
    @property
    def signer(self) -> PluginSigner | None: ...
    @property
    def isolated(self) -> bool: ...


class PluginFile(Protocol):
    """One file of a loaded plugin that clients may download."""

    @property
    def filename(self) -> str: ...
    @property
    def content_type(self) -> str: ...
    @property
    def data(self) -> bytes: ...
    @property
    def sha256(self) -> str: ...


class SigningRule(Protocol):
    """Which plugins' signatures the hub accepts (``hub.plugins.signing.PluginTrust``)."""

    @property
    def required(self) -> bool: ...


__all__ = ["PluginFile", "PluginInfo", "PluginSigner", "SigningRule"]
