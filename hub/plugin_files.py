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


def package_file(obj: Any, path: str) -> bytes | None:
    """The bytes of the file ``path`` (a plain path) in ``obj``'s package, or ``None``."""
    package = package_of(obj)
    if package is None or not _PLAIN.match(path):
        return None
    try:
        resource = importlib.resources.files(package)
        for part in path.split("/"):
            resource = resource.joinpath(part)
        return resource.read_bytes()
    except (OSError, ModuleNotFoundError, ValueError):
        return None
