"""``twistd gamehub``: command-line options and the service they make.

Every option may also be given in a TOML file (``--config FILE``) under the same name;
the command line wins over the file, the file over the defaults.
"""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path
from typing import Any

from twisted.python import usage

from hub import settings as typed
from hub.frontends import FRONTENDS

DEFAULT_DATA = "./gamehub-data"
DEFAULT_MNM_VERSION = "3.1"
#: options that hold settings rather than endpoints, with their defaults
SETTINGS: dict[str, Any] = {
    "data": DEFAULT_DATA,
    "db": None,  # sqlite:<data>/hub.sqlite
    "mnm-version": DEFAULT_MNM_VERSION,
    "api-token": None,
}


class Options(usage.Options):
    """The options of ``twistd gamehub`` (``twistd -n gamehub --help`` lists them)."""

    synopsis = "[options]"
    longdesc = (
        "Run a Gamehub: the XML, MNM, domino and web front ends on one reactor. "
        "Each front end takes a Twisted endpoint description (tcp:4000, "
        "ssl:4443:privateKey=key.pem:certKey=cert.pem, ...) or 'none'."
    )
    optParameters = [
        [name, None, None, f"{name} front end endpoint, or 'none' [default: {default}]"]
        for name, (default, _) in FRONTENDS.items()
    ] + [
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
    ]

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
            if getattr(self, "parent", None) is None:
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
        """Merge the config file and the defaults; check every value."""
        from_file: dict[str, Any] = {}
        if self["config"]:
            try:
                with open(self["config"], "rb") as f:
                    from_file = tomllib.load(f)
            except OSError as e:
                raise usage.UsageError(f"cannot read config file: {e}") from None
            except tomllib.TOMLDecodeError as e:
                raise usage.UsageError(f"config file {self['config']}: {e}") from None
            known = set(FRONTENDS) | set(SETTINGS) | {"settings"}
            unknown = {k.replace("_", "-") for k in from_file} - known
            if unknown:
                raise usage.UsageError(
                    f"config file {self['config']}: unknown key(s) {', '.join(sorted(unknown))}"
                )
            from_file = {k.replace("_", "-"): v for k, v in from_file.items()}
            table = from_file.pop("settings", {})
            if not isinstance(table, dict):
                raise usage.UsageError(f"config file {self['config']}: [settings] must be a table")
            self["settings"] = {k.replace("-", "_"): v for k, v in table.items()} | self["settings"]
        defaults = {name: default for name, (default, _) in FRONTENDS.items()} | SETTINGS
        for key, default in defaults.items():
            if self[key] is None:
                value = from_file.get(key, default)
                if value is not None and not isinstance(value, str):
                    raise usage.UsageError(f"config key {key!r} must be a string")
                self[key] = value
        for key, value in list(self["settings"].items()):
            try:
                self["settings"][key] = typed.convert(key, value)
            except ValueError as e:
                raise usage.UsageError(f"--set {key}={value}: {e}") from None
        for name in FRONTENDS:
            self[name] = _check_endpoint(name, self[name])
        if self["db"] is None:
            self["db"] = "sqlite:" + str(Path(self["data"]) / "hub.sqlite")
        version = self["mnm-version"]
        parts = version.split(".")
        if len(parts) != 2 or not all(p.isdigit() for p in parts):
            raise usage.UsageError(f"--mnm-version must look like 3.1, not {version!r}")
        if not (
            self["db"].startswith("sqlite:")
            or self["db"].startswith("postgresql://")
            or self["db"].startswith("postgres://")
        ):
            raise usage.UsageError("--db must be sqlite:PATH or postgresql://...")


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

    from hub.registry import Registry
    from hub.service import HubService

    data_dir = Path(options["data"])
    import_seconds = float(options["settings"].get("plugin_import_seconds", 5.0))
    registry = Registry(data_dir, reactor, import_timeout=import_seconds)
    store = make_store(options["db"], reactor, options["settings"])
    settings = dict(options["settings"]) | {
        "mnm_version": options["mnm-version"],
        "api_token": options["api-token"],
        "db": options["db"],
    }
    endpoints = {name: options[name] for name in FRONTENDS}
    return HubService(
        reactor, data_dir, endpoints, registry, store=store, options=settings, exit_on_failure=True
    )


def make_store(dsn: str, reactor: Any, settings: Any = None) -> Any:
    """The accounts/ledger/history store for ``dsn`` (SQLite or PostgreSQL), its login
    throttle with the ``login_*`` settings."""
    from hub.store import open_store
    from hub.store.accounts import LoginThrottle

    throttle = LoginThrottle.from_options(reactor, settings or {})
    return open_store(dsn, reactor=reactor, throttle=throttle)
