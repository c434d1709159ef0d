"""The ``.meta`` file of a plugin: TOML, parsed into a frozen :class:`PluginMeta`.

A ``.meta`` file describes one plugin (a game or a bot)::

    [plugin]
    name = "hello"
    kind = "game"
    version = "1.0.0"
    summary = "The smallest possible game."
    package = "hello-1.0.0.zip"      # omitted for built-ins
    server = "hello.server:HelloGameFactory"
    client = "hello.client"          # optional
    frontends = ["xml", "web"]
    sha256 = "..."                   # optional digest of the package
    requires_hub = ">=1.0"           # optional

    [commands.hello-stats]           # optional: ``gamehub hello-stats ARGS...``
    run = "hello.stats:main"         # a function taking the arguments, returning a status
    summary = "count the hellos said" # one line for ``gamehub --help``

    [settings]                       # optional: the hub settings the plugin reads
    hello_greeting = { type = "str", default = "hello", summary = "what it says" }
    hello_loud = "bool"              # the short form: the type only

    [signature]                      # optional, last: ``gamehub plugin sign`` writes it
    signer = "alice"
    key = "ed25519:..."
    package_sha256 = "..."
    value = "..."

The ``[signature]`` table is read here (:class:`MetaSignature`, with the bytes it
covers); :mod:`hub.plugins.signing` checks it.

Nothing here imports plugin code; :mod:`hub.plugins.registry` does that, and :mod:`hub.cli`
runs the commands of the built-in plugins (:func:`builtin_meta_dir`).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zope.interface import Interface

KINDS = ("game", "bot")
FRONTENDS = ("xml", "mnm", "domino", "web", "acpc", "relay")

NAME_RE = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
VERSION_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9.+_-]{0,62})$")
_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
MODULE_RE = re.compile(rf"^{_IDENT}(?:\.{_IDENT})*$")
OBJECT_RE = re.compile(rf"^{_IDENT}(?:\.{_IDENT})*:{_IDENT}(?:\.{_IDENT})*$")
PACKAGE_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._+-]{0,127}$")
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
REQUIRES_RE = re.compile(r"^\s*(>=|<=|==|!=|>|<)\s*(\d+(?:\.\d+)*)\s*$")

#: Most commands one plugin may contribute; longest command summary.
MAX_COMMANDS = 16
MAX_SUMMARY = 200
#: Most settings one plugin may declare; the types a setting may have.
MAX_SETTINGS = 64
SETTING_TYPES = ("bool", "int", "float", "str", "list")
SETTING_RE = re.compile(r"^[a-z][a-z0-9_]{0,62}$")

#: Fields a ``[plugin]`` table may have.
FIELDS = (
    "name",
    "kind",
    "version",
    "summary",
    "package",
    "server",
    "client",
    "frontends",
    "sha256",
    "requires_hub",
)


#: Fields of the ``[signature]`` table, all required.
SIGNATURE_FIELDS = ("signer", "key", "package_sha256", "value")
#: The line that starts the ``[signature]`` table; the signature covers what comes before.
SIGNATURE_LINE = "[signature]"


class MetaError(ValueError):
    """A ``.meta`` file is unreadable or a field is wrong; the message names both."""

    def __init__(self, path: Path | str, reason: str, field: str | None = None) -> None:
        where = f"{path}" if field is None else f"{path}: field {field!r}"
        super().__init__(f"{where}: {reason}")
        self.path = Path(path)
        self.field = field
        self.reason = reason


def builtin_meta_dir() -> Path:
    """The folder of the built-in ``.meta`` files.

    The installed package data ``hub/builtin_meta/`` after ``pip install``; the
    repository's top-level ``meta/`` in a checkout.
    """
    here = Path(__file__).resolve().parent
    installed = here / "builtin_meta"
    if installed.is_dir():
        return installed
    return here.parent / "meta"


def meta_folders(data_dir: Path | None, builtin: Path | None) -> list[tuple[str, Path]]:
    """``(source, folder)`` of every folder of ``.meta`` files of a hub, in reading
    order: the built-ins' (``builtin``), then ``<data>/plugins/meta`` and
    ``<data>/bots/meta``."""
    dirs: list[tuple[str, Path]] = []
    if builtin is not None:
        dirs.append(("builtin", Path(builtin)))
    if data_dir is not None:
        dirs.append(("plugins", Path(data_dir) / "plugins" / "meta"))
        dirs.append(("bots", Path(data_dir) / "bots" / "meta"))
    return dirs


@dataclass(frozen=True)
class PluginCommand:
    """A ``gamehub`` sub-command a plugin contributes (``[commands.<name>]``).

    :ivar name: the sub-command (``[a-z0-9-]``).
    :ivar run: ``"module:function"``; the function takes the remaining arguments (a
        list of strings) and returns an exit status.
    :ivar summary: one line for ``gamehub --help``.
    """

    name: str
    run: str
    summary: str = ""


@dataclass(frozen=True)
class PluginSetting:
    """A hub setting a plugin reads (``[settings]`` of its ``.meta``): the hub then
    knows it (``--set``, a config file's ``[settings]``), and hands its value to the
    plugin (:class:`ISettingsReader`).

    :ivar name: ``<plugin name, - as _>_<word>``: a plugin's settings never take a
        hub setting's name or another plugin's.
    :ivar type: ``bool``, ``int``, ``float``, ``str`` or ``list`` (of strings).
    :ivar default: its value when the hub is given none (``None``: none).
    :ivar summary: one line for the operator.
    """

    name: str
    type: str
    default: Any = None
    summary: str = ""


class ISettingsReader(Interface):
    """A plugin (a game or bot factory) that reads the hub settings its ``.meta``
    declares (:class:`PluginSetting`; docs/plugins.md).  The registry calls
    :meth:`configure` once the plugin is loaded and verified.  (Beside the settings it
    describes; :mod:`hub.interfaces` holds the hub's other seams.)"""

    def configure(settings):
        """``settings``: each declared setting's name → the hub's value (typed), or its
        declared default (``None`` without one)."""


@dataclass(frozen=True)
class MetaSignature:
    """The ``[signature]`` table of a ``.meta`` file (checked by :mod:`hub.plugins.signing`).

    :ivar signer: the name the signer gave (``gamehub plugin sign --signer``).
    :ivar key: the public key, ``ed25519:<base64>``.
    :ivar package_sha256: the digest of the package that was signed.
    :ivar value: the signature, base64.
    :ivar head: the text of the ``.meta`` before the ``[signature]`` line: what the
        signature covers, with the other fields of this table.
    :ivar text: the whole ``.meta`` as read (a hub serves it unchanged).
    """

    signer: str
    key: str
    package_sha256: str
    value: str
    head: str
    text: str


@dataclass(frozen=True)
class PluginMeta:
    """The contents of one ``.meta`` file, checked.

    :ivar path: the ``.meta`` file it came from.
    :ivar package: file or folder name next to the ``meta/`` folder, or ``None``
        for a built-in whose modules are importable as they are.
    :ivar server: ``"module:object"`` naming the factory (or a class to instantiate).
    :ivar client: the client-side module clients download, or ``None``.
    :ivar sha256: lower-case hex digest of ``package``, or ``None``.
    :ivar commands: the ``gamehub`` sub-commands it contributes, by name.
    :ivar settings: the hub settings it declares (``[settings]``).
    :ivar signature: its ``[signature]`` table, or ``None`` when unsigned.
    """

    path: Path
    name: str
    kind: str
    version: str
    summary: str
    server: str
    frontends: tuple[str, ...] = ()
    package: str | None = None
    client: str | None = None
    sha256: str | None = None
    requires_hub: str | None = None
    commands: tuple[PluginCommand, ...] = ()
    settings: tuple[PluginSetting, ...] = ()
    signature: MetaSignature | None = None

    @property
    def server_module(self) -> str:
        """The module part of :attr:`server`."""
        return self.server.partition(":")[0]

    @property
    def server_object(self) -> str:
        """The attribute path part of :attr:`server`."""
        return self.server.partition(":")[2]

    def to_toml(self, **changes: Any) -> str:
        """This meta as TOML text, with ``changes`` applied (``None`` drops a field)."""
        values: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "version": self.version,
            "summary": self.summary,
            "package": self.package,
            "server": self.server,
            "client": self.client,
            "frontends": list(self.frontends),
            "sha256": self.sha256,
            "requires_hub": self.requires_hub,
        }
        values.update(changes)
        lines = ["[plugin]"]
        for key in FIELDS:
            value = values.get(key)
            if value is None:
                continue
            lines.append(f"{key} = {_toml_value(value)}")
        for command in values.get("commands", self.commands) or ():
            lines.append("")
            lines.append(f"[commands.{command.name}]")
            lines.append(f"run = {_toml_value(command.run)}")
            if command.summary:
                lines.append(f"summary = {_toml_value(command.summary)}")
        declared = values.get("settings", self.settings) or ()
        if declared:
            lines.append("")
            lines.append("[settings]")
        for setting in declared:
            parts = [f"type = {_toml_value(setting.type)}"]
            if setting.default is not None:
                parts.append(f"default = {_toml_default(setting.default)}")
            if setting.summary:
                parts.append(f"summary = {_toml_value(setting.summary)}")
            lines.append(f"{setting.name} = {{ {', '.join(parts)} }}")
        return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    text = str(value)
    escaped = "".join(c if c.isprintable() and c not in '"\\' else _toml_escape(c) for c in text)
    return f'"{escaped}"'


def _toml_default(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    return _toml_value(value)


def _toml_escape(c: str) -> str:
    named = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r"}
    return named.get(c, f"\\u{ord(c):04x}")


def parse_meta(path: Path | str, text: str | None = None) -> PluginMeta:
    """Read and check one ``.meta`` file.

    :param text: the file's contents, if already read (``path`` then only names it).
    :raises MetaError: naming the file and, where it applies, the field.
    """
    path = Path(path)
    text = _read(path) if text is None else text
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise MetaError(path, f"not valid TOML: {e}") from e
    table = document.get("plugin")
    if not isinstance(table, dict):
        raise MetaError(path, "no [plugin] table")

    def string(field: str, rule: re.Pattern[str], what: str) -> str:
        value = _string(path, table, field)
        assert value is not None
        if not rule.match(value):
            raise MetaError(path, f"{value!r} {what}", field)
        return value

    name = string("name", NAME_RE, "is not a plugin name ([a-z0-9-], at most 64)")
    kind = _string(path, table, "kind")
    if kind not in KINDS:
        raise MetaError(path, f"{kind!r} is not one of {', '.join(KINDS)}", "kind")
    version = string("version", VERSION_RE, "is not a version")
    server = string("server", OBJECT_RE, "is not of the form module.path:object")
    client = _string(path, table, "client", required=False)
    if client is not None and not MODULE_RE.match(client):
        raise MetaError(path, f"{client!r} is not a module path", "client")
    package, sha256 = _package(path, table)
    return PluginMeta(
        path=path,
        name=name,
        kind=kind,
        version=version,
        summary=_string(path, table, "summary", required=False) or "",
        server=server,
        frontends=_frontends(path, table),
        package=package,
        client=client,
        sha256=sha256,
        requires_hub=_requires(path, table),
        commands=_commands(path, document.get("commands")),
        settings=_settings(path, name, document.get("settings")),
        signature=_signature(path, text, document),
    )


def _read(path: Path) -> str:
    try:
        raw = path.read_bytes()
    except OSError as e:
        raise MetaError(path, f"cannot read: {e.strerror or e}") from e
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise MetaError(path, "not UTF-8 text") from e


def _string(path: Path, table: dict[str, Any], field: str, required: bool = True) -> str | None:
    """The string ``field`` of the ``[plugin]`` table (``None``: absent, not required)."""
    value = table.get(field)
    if value is None:
        if required:
            raise MetaError(path, "missing", field)
        return None
    if not isinstance(value, str):
        raise MetaError(path, f"must be a string, not {type(value).__name__}", field)
    return value


def _package(path: Path, table: dict[str, Any]) -> tuple[str | None, str | None]:
    """``package`` and its ``sha256`` (lower case), each ``None`` when not given."""
    package = _string(path, table, "package", required=False)
    if package is not None and (not PACKAGE_RE.match(package) or ".." in package):
        raise MetaError(
            path, f"{package!r} is not a plain file or folder name next to meta/", "package"
        )
    sha256 = _string(path, table, "sha256", required=False)
    if sha256 is not None:
        sha256 = sha256.strip().lower()
        if not SHA256_RE.match(sha256):
            raise MetaError(path, "must be 64 hexadecimal digits", "sha256")
        if package is None:
            raise MetaError(path, "a digest needs a package to check", "sha256")
    return package, sha256


def _requires(path: Path, table: dict[str, Any]) -> str | None:
    requires = _string(path, table, "requires_hub", required=False)
    if requires is not None:
        for part in requires.split(","):
            if not REQUIRES_RE.match(part):
                raise MetaError(path, f"{requires!r} is not like '>=1.0, <2'", "requires_hub")
    return requires


def _frontends(path: Path, table: dict[str, Any]) -> tuple[str, ...]:
    value = table.get("frontends", [])
    if not isinstance(value, list) or not all(isinstance(f, str) for f in value):
        raise MetaError(path, "must be a list of strings", "frontends")
    for frontend in value:
        if frontend not in FRONTENDS:
            raise MetaError(path, f"{frontend!r} is not one of {', '.join(FRONTENDS)}", "frontends")
    return tuple(value)


def split_signature(text: str) -> tuple[str, str | None]:
    """``(head, tail)``: the text before the ``[signature]`` line and from it on
    (``tail`` is ``None`` when there is no such line)."""
    lines = text.splitlines(keepends=True)
    for i, line in enumerate(lines):
        if line.strip() == SIGNATURE_LINE:
            return "".join(lines[:i]), "".join(lines[i:])
    return text, None


def _signature(path: Path, text: str, document: dict[str, Any]) -> MetaSignature | None:
    """The ``[signature]`` table, checked to be the last part of the file."""
    if "signature" not in document:
        return None
    head, tail = split_signature(text)
    where = "signature"
    if tail is None:
        raise MetaError(path, f"must be a {SIGNATURE_LINE} table at the end of the file", where)
    try:
        before, after = tomllib.loads(head), tomllib.loads(tail)
    except tomllib.TOMLDecodeError:
        raise MetaError(path, f"{SIGNATURE_LINE} must be the last table", where) from None
    if "signature" in before or set(after) != {"signature"}:
        raise MetaError(path, f"{SIGNATURE_LINE} must be the last table", where)
    table = after["signature"]
    unknown = set(table) - set(SIGNATURE_FIELDS)
    if unknown:
        raise MetaError(path, f"unknown fields {', '.join(sorted(unknown))}", where)
    values = {}
    for field in SIGNATURE_FIELDS:
        value = table.get(field)
        if not isinstance(value, str) or not value or len(value) > 200:
            raise MetaError(path, f"{field} must be a string of 1 to 200 characters", where)
        values[field] = value
    if not SHA256_RE.match(values["package_sha256"]):
        raise MetaError(path, "package_sha256 must be 64 lower-case hexadecimal digits", where)
    return MetaSignature(head=head, text=text, **values)


def _commands(path: Path, table: Any) -> tuple[PluginCommand, ...]:
    """The ``[commands]`` table of a ``.meta`` file, checked."""
    if table is None:
        return ()
    if not isinstance(table, dict):
        raise MetaError(path, "must be a table of [commands.<name>] tables", "commands")
    if len(table) > MAX_COMMANDS:
        raise MetaError(path, f"at most {MAX_COMMANDS} commands", "commands")
    out = []
    for name, spec in sorted(table.items()):
        where = f"commands.{name}"
        if not NAME_RE.match(name):
            raise MetaError(path, f"{name!r} is not a command name ([a-z0-9-])", where)
        if not isinstance(spec, dict):
            raise MetaError(path, 'must be a table with run = "module:function"', where)
        unknown = set(spec) - {"run", "summary"}
        if unknown:
            raise MetaError(path, f"unknown fields {', '.join(sorted(unknown))}", where)
        run = spec.get("run")
        if not isinstance(run, str) or not OBJECT_RE.match(run):
            raise MetaError(path, f"run {run!r} is not of the form module.path:function", where)
        summary = spec.get("summary", "")
        if not isinstance(summary, str) or len(summary) > MAX_SUMMARY:
            raise MetaError(path, f"summary is one line of at most {MAX_SUMMARY} characters", where)
        out.append(PluginCommand(name, run, " ".join(summary.split())))
    return tuple(out)


_SETTING_VALUES: dict[str, tuple[type, ...]] = {
    "bool": (bool,),
    "int": (int,),
    "float": (int, float),
    "str": (str,),
    "list": (list,),
}


def _settings(path: Path, plugin: str, table: Any) -> tuple[PluginSetting, ...]:
    """The ``[settings]`` table: ``name = "type"`` or ``name = {type, default,
    summary}``; every name begins with the plugin's name (``-`` as ``_``) and ``_``."""
    if table is None:
        return ()
    if not isinstance(table, dict):
        raise MetaError(path, "[settings] must be a table")
    if len(table) > MAX_SETTINGS:
        raise MetaError(path, f"at most {MAX_SETTINGS} settings")
    prefix = plugin.replace("-", "_") + "_"
    found: list[PluginSetting] = []
    for name, spec in table.items():
        field = f"settings.{name}"
        if not SETTING_RE.match(name) or not name.startswith(prefix) or name == prefix:
            raise MetaError(path, f"a setting's name is {prefix}<word> ([a-z0-9_])", field)
        if isinstance(spec, str):
            spec = {"type": spec}
        if not isinstance(spec, dict) or set(spec) - {"type", "default", "summary"}:
            raise MetaError(path, 'is a type name or {type = ..., default = ..., summary = ...}',
                            field)  # fmt: skip
        kind = spec.get("type")
        if kind not in SETTING_TYPES:
            raise MetaError(path, f"type must be one of {', '.join(SETTING_TYPES)}", field)
        default = spec.get("default")
        if default is not None and (
            not isinstance(default, _SETTING_VALUES[kind])
            or (kind != "bool" and isinstance(default, bool))
            or (isinstance(default, list) and not all(isinstance(v, str) for v in default))
        ):
            raise MetaError(path, f"the default is not a {kind}", field)
        summary = spec.get("summary", "")
        if not isinstance(summary, str) or len(summary) > MAX_SUMMARY:
            raise MetaError(path, f"summary: a string of at most {MAX_SUMMARY} characters", field)
        if isinstance(default, list):
            default = tuple(default)
        found.append(PluginSetting(name, kind, default, summary))
    return tuple(found)


def _version_tuple(text: str) -> tuple[int, ...]:
    parts = []
    for piece in text.split("."):
        digits = re.match(r"\d+", piece)
        parts.append(int(digits.group()) if digits else 0)
    while parts and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def version_satisfies(version: str, requirement: str) -> bool:
    """Whether ``version`` (``"1.0.0"``) meets ``requirement`` (``">=1.0, <2"``)."""
    have = _version_tuple(version)
    for part in requirement.split(","):
        match = REQUIRES_RE.match(part)
        if match is None:
            return False
        op, want_text = match.groups()
        want = _version_tuple(want_text)
        ok = {
            ">=": have >= want,
            "<=": have <= want,
            ">": have > want,
            "<": have < want,
            "==": have == want,
            "!=": have != want,
        }[op]
        if not ok:
            return False
    return True
