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
    """The bytes of the file ``path`` (a plain path) in ``obj``'s package, or ``None``."""
    if not _PLAIN.match(path):
        return None
    if IOwnFiles.providedBy(obj):
        data: bytes | None = obj.read_file(path)
        return data
    package = package_of(obj)
    if package is None:
        return None
    try:
        resource = importlib.resources.files(package)
        for part in path.split("/"):
            resource = resource.joinpath(part)
        return resource.read_bytes()
    except (OSError, ModuleNotFoundError, ValueError):
        return None
