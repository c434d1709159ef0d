"""``twistd gamehub``: command-line options and the service they make.

Every option may also be given in a TOML file (``--config FILE``) under the same name;
the command line wins over the file, the file over the defaults.

:data:`PLACE_OPTIONS` (``--data``, ``--db``, ``--config``: where the hub keeps its
things), :func:`read_config` and :func:`resolve_place` are shared with the ``gamehub``
commands that touch the store (:func:`hub.cli.store.store_options`), so they take the
same options with the same defaults as the hub.
"""

from __future__ import annotations

import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twisted.python import usage

from hub import settings as typed
from hub.frontends import FRONTENDS
from hub.meta import builtin_meta_dir, meta_folders
from hub.ops.logs import FORMATS, json_observer, twistd_log_file
from hub.plugins.signing import PluginTrust, SignatureError

DEFAULT_DATA = "./gamehub-data"
DEFAULT_MNM_VERSION = "3.1"
#: options that hold settings rather than endpoints, with their defaults
SETTINGS: dict[str, Any] = {
    "data": DEFAULT_DATA,
    "db": None,  # sqlite:<data>/hub.sqlite
    "mnm-version": DEFAULT_MNM_VERSION,
    "api-token": None,
    "log-format": "text",
}
DB_SCHEMES = ("sqlite:", "postgresql://", "postgres://")
#: top-level keys of a config file that are neither front ends nor settings
PLACE_KEYS = ("config",)

#: ``[long, short, default, help]`` of the options that say where the hub keeps its
#: accounts, ledger and files; every ``gamehub`` command that touches the store takes them
PLACE_OPTIONS: list[list[Any]] = [
    [
        "data",
        "d",
        None,
        f"data folder: plugins, bots, transcripts, SQLite file [default: {DEFAULT_DATA}]",
    ],
    [
        "db",
        None,
        None,
        "database: sqlite:PATH or postgresql://user:pass@host:port/db "
        "[default: sqlite:<data>/hub.sqlite]",
    ],
    ["config", "c", None, "TOML file with the same keys; the command line wins"],
]


class ConfigError(ValueError):
    """A config file or a place option cannot be used; the message says why."""


def read_config(path: str) -> dict[str, Any]:
    """The keys of the TOML file ``path`` (``-`` for ``_``), its ``[settings]`` table
    under ``"settings"`` (``_`` for ``-``), checked to be known keys.

    :raises ConfigError: unreadable, not TOML, or an unknown key.
    """
    try:
        with open(path, "rb") as f:
            from_file = tomllib.load(f)
    except OSError as e:
        raise ConfigError(f"cannot read config file: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"config file {path}: {e}") from None
    known = set(FRONTENDS) | set(SETTINGS) | set(PLACE_KEYS) | {"settings"}
    for key in sorted(from_file):
        name = key.replace("_", "-")
        if name not in known:
            like = typed.closest(key, known | set(typed.TYPES))
            where = " under [settings]" if like in typed.TYPES else ""
            raise ConfigError(
                f"config file {path}: unknown key {key}; the closest known key is {like}{where}"
            )
    from_file = {k.replace("_", "-"): v for k, v in from_file.items()}
    table = from_file.pop("settings", {})
    if not isinstance(table, dict):
        raise ConfigError(f"config file {path}: [settings] must be a table")
    from_file["settings"] = {k.replace("-", "_"): v for k, v in table.items()}
    return from_file


def default_db(data: str) -> str:
    """The database of a hub whose data folder is ``data``."""
    return "sqlite:" + str(Path(data) / "hub.sqlite")


def check_db(dsn: str) -> str:
    """``dsn`` if it names a database the hub can use.

    :raises ConfigError: it does not.
    """
    if not dsn.startswith(DB_SCHEMES):
        raise ConfigError("--db must be sqlite:PATH or postgresql://...")
    return dsn


@dataclass(frozen=True)
class Place:
    """Where a hub keeps its things, as :data:`PLACE_OPTIONS` resolve.

    :ivar settings: the config file's ``[settings]`` (as written, not converted).
    """

    data: str
    db: str
    settings: dict[str, Any] = field(default_factory=dict)


def resolve_place(data: str | None, db: str | None, config: str | None) -> Place:
    """The data folder and database for ``--data``, ``--db`` and ``--config`` (each
    ``None`` when not given), with the hub's own precedence and defaults.

    :raises ConfigError: the config file or a value cannot be used.
    """
    from_file = read_config(config) if config else {}
    for key in ("data", "db"):
        if key in from_file and not isinstance(from_file[key], str):
            raise ConfigError(f"config key {key!r} must be a string")
    data = data or from_file.get("data") or DEFAULT_DATA
    db = db or from_file.get("db") or default_db(data)
    table = dict(from_file.get("settings", {}))
    try:
        typed.check_known(table, known_settings(data))
    except ValueError as e:
        raise ConfigError(f"config file {config}: [settings]: {e}") from None
    return Place(data, check_db(db), table)


def known_settings(data: str) -> dict[str, Any]:
    """Every setting a hub with the data folder ``data`` knows: the hub's own
    (:data:`hub.settings.TYPES`) and those its plugins declare (built in, dropped into
    ``<data>/plugins`` or ``<data>/bots``)."""
    folders = [folder for _, folder in meta_folders(Path(data), builtin_meta_dir())]
    return {**typed.TYPES, **typed.declared(folders)}


class Options(usage.Options):
    """The options of ``twistd gamehub`` (``twistd -n gamehub --help`` lists them)."""

    synopsis = "[options]"
    longdesc = (
        "Run a Gamehub: the XML, MNM, domino and web front ends on one reactor. "
        "Each front end takes a Twisted endpoint description (tcp:4000, "
        "ssl:4443:privateKey=key.pem:certKey=cert.pem, ...) or 'none'."
    )
    optParameters = (
        [
            [name, None, None, f"{name} front end endpoint, or 'none' [default: {default}]"]
            for name, (default, _) in FRONTENDS.items()
        ]
        + PLACE_OPTIONS
        + [
            [
                "mnm-version",
                None,
                None,
                "MNM server version in the banner; clients must send "
                f"the same major [default: {DEFAULT_MNM_VERSION}]",
            ],
            [
                "api-token",
                None,
                None,
                "token that allows writes to the JSON API from other hosts than loopback",
            ],
            [
                "log-format",
                None,
                None,
                "text, or json: one JSON object per event and line [default: text]",
            ],
        ]
    )

    def __init__(self) -> None:
        super().__init__()
        self["settings"] = {}

    def parseOptions(self, options: Any = None) -> None:
        """Parse.  Under twistd (a parent command) a bad option or value ends the
        program with one line on stderr and exit status 2, not the whole usage text;
        otherwise it raises :class:`usage.UsageError`."""
        try:
            super().parseOptions(options)
        except usage.UsageError as e:
            if getattr(self, "parent", None) is None:  # foreign: usage.Options
                raise
            sys.stderr.write(f"gamehub: {e} (see twistd -n gamehub --help)\n")
            sys.stderr.flush()
            raise SystemExit(2) from None

    def opt_set(self, value: str) -> None:
        """A front-end setting KEY=VALUE, e.g. xml_max_frame=131072 or
        domino_answer_seconds=5 (repeatable; see docs/settings.md)"""
        key, sep, setting = value.partition("=")
        key = key.strip().replace("-", "_")
        if not sep or not key.isidentifier():
            raise usage.UsageError(f"--set wants KEY=VALUE, not {value!r}")
        self["settings"][key] = setting.strip()

    def postOptions(self) -> None:
        """Merge the config file and the defaults; check every value (an unknown
        setting, in the file or in ``--set``, is an error naming the closest known)."""
        from_file: dict[str, Any] = {}
        file_settings: dict[str, Any] = {}
        if self["config"]:
            try:
                from_file = read_config(self["config"])
            except ConfigError as e:
                raise usage.UsageError(str(e)) from None
            file_settings = from_file.pop("settings")
        defaults = {name: default for name, (default, _) in FRONTENDS.items()} | SETTINGS
        for key, default in defaults.items():
            if self[key] is None:
                value = from_file.get(key, default)
                if value is not None and not isinstance(value, str):
                    raise usage.UsageError(f"config key {key!r} must be a string")
                self[key] = value
        known = known_settings(self["data"])
        plugins = {k: v for k, v in known.items() if k not in typed.TYPES}
        for where, given in (
            (f"config file {self['config']}: [settings]", file_settings),
            ("--set", self["settings"]),
        ):
            try:
                typed.check_known(given, known)
            except ValueError as e:
                raise usage.UsageError(f"{where}: {e}") from None
        self["settings"] = file_settings | self["settings"]
        for key, value in list(self["settings"].items()):
            try:
                self["settings"][key] = typed.convert(key, value, plugins)
            except ValueError as e:
                raise usage.UsageError(f"--set {key}={value}: {e}") from None
        try:
            PluginTrust.from_settings(self["settings"])
        except SignatureError as e:
            raise usage.UsageError(f"--set trusted_plugin_keys: {e}") from None
        for name in FRONTENDS:
            self[name] = _check_endpoint(name, self[name])
        if self["db"] is None:
            self["db"] = default_db(self["data"])
        version = self["mnm-version"]
        parts = version.split(".")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise usage.UsageError(f"--mnm-version must look like 3.1, not {version!r}")
        try:
            check_db(self["db"])
        except ConfigError as e:
            raise usage.UsageError(str(e)) from None
        if self["log-format"] not in FORMATS:
            raise usage.UsageError(
                f"--log-format must be {' or '.join(FORMATS)}, not {self['log-format']!r}"
            )


def _check_endpoint(name: str, description: str) -> str:
    if description.strip().lower() == "none":
        return "none"
    from twisted.internet import reactor
    from twisted.internet.endpoints import serverFromString

    try:
        serverFromString(reactor, description)  # parses (and loads TLS keys); binds nothing
    except (ValueError, KeyError, TypeError, OSError) as e:
        raise usage.UsageError(
            f"--{name}: not an endpoint description: {description!r} ({e})"
        ) from None
    return description


def makeService(options: Options):
    """The root :class:`hub.service.HubService` for ``options``."""
    from twisted.internet import reactor

    from hub.plugins.isolation.host import Isolation, IsolationSettings
    from hub.plugins.registry import Registry
    from hub.service import HubService

    data_dir = Path(options["data"])
    import_seconds = float(options["settings"].get("plugin_import_seconds", 5.0))
    trust = PluginTrust.from_settings(options["settings"])
    isolation = Isolation(IsolationSettings.from_settings(options["settings"]), reactor)
    registry = Registry(
        data_dir,
        reactor,
        import_timeout=import_seconds,
        trust=trust,
        settings=options["settings"],
        isolation=isolation,
    )
    store = make_store(options["db"], reactor, options["settings"])
    settings = dict(options["settings"]) | {
        "mnm_version": options["mnm-version"],
        "api_token": options["api-token"],
        "db": options["db"],
    }
    endpoints = {name: options[name] for name in FRONTENDS}
    service = HubService(
        reactor,
        data_dir,
        endpoints,
        registry,
        store=store,
        options=settings,
        exit_on_failure=True,
        freeze_heap=True,
    )
    if options["log-format"] == "json":
        service.log_observer = json_observer(twistd_log_file(getattr(options, "parent", None)))
    return service


def make_store(dsn: str, reactor: Any, settings: Any = None) -> Any:
    """The accounts/ledger/history store for ``dsn`` (SQLite or PostgreSQL), its login
    throttle with the ``login_*`` settings, its hands bounded by ``hand_record_max``,
    its finished games written together by the ``history_*`` settings, its lease by
    ``lease_interval`` and ``lease_grace``."""
    from hub.store import open_store
    from hub.store.accounts import LoginThrottle

    settings = settings or {}
    throttle = LoginThrottle.from_options(reactor, settings)
    most = int(settings.get("hand_record_max", 65536))
    return open_store(
        dsn,
        reactor=reactor,
        throttle=throttle,
        hand_record_max=most,
        history_batch_seconds=float(settings.get("history_batch_seconds", 0.1)),
        history_batch_max=int(settings.get("history_batch_max", 64)),
        history_queue_max=int(settings.get("history_queue_max", 10000)),
        lease_interval=float(settings.get("lease_interval", 5.0)),
        lease_grace=float(settings.get("lease_grace", 15.0)),
    )
