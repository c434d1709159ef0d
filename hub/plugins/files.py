"""Files a plugin brings inside its own package (page scripts, payload schemas).

A plugin object names such a file by a path relative to the package of the module
that defines its class (``IWebView.script``, ``IXMLPayloadSchema.payload_schema``).
:func:`package_file` reads it through the package's loader, so built-ins, folders,
zip archives and wheels all work, and a path that is not plain can never leave the
package.
"""

from __future__ import annotations

import importlib.resources
import re
import sys
from typing import Any

from zope.interface import Interface

#: a plain relative path: ``[A-Za-z0-9_-]`` parts, one dot before the suffix
_PLAIN = re.compile(r"^[A-Za-z0-9_-]+(/[A-Za-z0-9_-]+)*\.[a-z]{1,8}$")


def plain_path(path: Any, suffix: str) -> str | None:
    """``path`` if it is a plain relative path ending in ``suffix`` (``".js"``)."""
    if isinstance(path, str) and path.endswith(suffix) and _PLAIN.match(path):
        return path
    return None


def package_of(obj: Any) -> str | None:
    """The package of the module that defines ``obj``'s class, or ``None``."""
    module = sys.modules.get(type(obj).__module__)
    package = getattr(module, "__package__", None)  # foreign: any module
    return package or None


class IOwnFiles(Interface):
    """A plugin object whose files are not in the package of its class: one that stands
    in the hub for a plugin whose code runs elsewhere (:mod:`hub.plugins.isolation`)."""

    def read_file(path):
        """The bytes of the plugin's file ``path`` (a plain relative path), or ``None``."""


def package_file(obj: Any, path: str) -> bytes | None:
    """The bytes of the file ``path`` (a plain path) in ``obj``'s package, or ``None``.

    A file its own package lacks is read from the package of a class it derives from,
    nearest first: a plugin's game type that subclasses a built-in one (a poker
    variant, docs/plugins.md) has the built-in's page script."""
    if not _PLAIN.match(path):
        return None
    if IOwnFiles.providedBy(obj):
        data: bytes | None = obj.read_file(path)
        return data
    for package in _packages(obj):
        try:
            resource = importlib.resources.files(package)
            for part in path.split("/"):
                resource = resource.joinpath(part)
            return resource.read_bytes()
        except (OSError, ModuleNotFoundError, ValueError):
            continue
    return None


def _packages(obj: Any) -> list[str]:
    """The packages of the modules that define ``obj``'s class and the classes it
    derives from, nearest first, each once."""
    found: list[str] = []
    for cls in type(obj).__mro__:
        module = sys.modules.get(cls.__module__)
        package = getattr(module, "__package__", None)
        if package and package not in found:
            found.append(package)
    return found
