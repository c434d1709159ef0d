"""Plugin discovery: read ``.meta`` files, import, verify, register; hot reload.

The registry reads every ``.meta`` file in three folders, in this order:

1. the built-in ``meta/`` folder (:func:`hub.meta.builtin_meta_dir`),
2. ``<data>/plugins/meta/`` (games dropped in; packages in ``<data>/plugins/``),
3. ``<data>/bots/meta/`` (bots dropped in; packages in ``<data>/bots/``).

Each plugin's named object is imported and checked with
:func:`zope.interface.verify.verifyObject` against :class:`~hub.interfaces.IGameFactory`
or :class:`~hub.interfaces.IBotFactory`.  A broken plugin (bad ``.meta``, wrong digest,
syntax error, missing method, name clash) is logged, listed with status ``failed`` and
the reason, and skipped; the others go on.

Before a drop-in's code is imported, its signature (a ``[signature]`` table in its
``.meta``) is checked against the package and the ``.meta`` with the registry's
:class:`~hub.plugins.signing.PluginTrust`: a signature that does not verify is always refused;
with ``require_signed_plugins`` so are unsigned packages and keys not in
``trusted_plugin_keys``.  Built-ins come with the hub and are not checked.

Drop-ins (a ``.zip``/``.whl`` archive or a folder) are imported under a private module
name (``_gamehub_plugins.p<N>_<name>.<their modules>``), so two drop-ins may share a
top-level package name and a replaced plugin is imported afresh.  A plugin's modules
must therefore import each other relatively (``from . import rules``).

:meth:`Registry.start` polls the folders every two seconds on the injected clock:
new, changed and removed ``.meta`` files (and changed packages) take effect then.  A
removed or replaced game type disappears from :meth:`Registry.game_types`; games
already running keep the factory object they hold.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import importlib.util
import io
import itertools
import os
import threading
import zipfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from twisted.internet import defer
from twisted.internet.task import LoopingCall
from twisted.logger import Logger
from twisted.python.failure import Failure
from zope.interface import Interface, implementer
from zope.interface.exceptions import (  # type: ignore[attr-defined]
    BrokenImplementation,
    BrokenMethodImplementation,
    DoesNotImplement,
    Invalid,
    MultipleInvalid,
)
from zope.interface.interface import Method
from zope.interface.verify import verifyObject

import hub
from hub.interfaces import IBotFactory, IGameFactory, IRegistry
from hub.meta import (
    ISettingsReader,
    MetaError,
    PluginMeta,
    builtin_meta_dir,
    meta_folders,
    parse_meta,
    version_satisfies,
)
from hub.model import GameError, NotFound
from hub.plugins.isolation.host import Isolation
from hub.plugins.packages import (
    SKIP_NAMES,
    SKIP_SUFFIXES,
    ArchiveError,
    build_archive,
    forget_modules,
    forget_zip,
    make_package,
)
from hub.plugins.signing import PluginTrust, SignatureError, Signer
from hub.settings import TYPES as SETTING_TYPES

LOADED = "loaded"
FAILED = "failed"
#: the plugin's import is running (off the reactor thread, see ``import_timeout``)
LOADING = "loading"

#: How often (seconds) :meth:`Registry.start` looks for changed ``.meta`` files.
POLL_INTERVAL = 2.0

#: Top-level module under which drop-ins are imported.
PLUGIN_MODULE_ROOT = "_gamehub_plugins"

#: Source folders, in the order they are read (an earlier one wins a name clash).
SOURCES = ("builtin", "plugins", "bots")

INTERFACES: dict[str, type[Interface]] = {"game": IGameFactory, "bot": IBotFactory}

ZIP_CONTENT_TYPE = "application/zip"
META_CONTENT_TYPE = "application/toml; charset=utf-8"


@dataclass(frozen=True)
class PluginRecord:
    """What the hub knows of one plugin, for listings and downloads.

    :ivar status: ``loaded`` or ``failed``.
    :ivar reason: why it failed (empty when loaded).
    :ivar filename: the file clients download (``None`` unless loaded).
    :ivar sha256: digest of that file; :ivar size: its length in bytes.
    :ivar source: ``builtin``, ``plugins`` or ``bots``: the folder of its ``.meta``.
    :ivar signer: who signed it (``None``: unsigned, or a built-in).
    """

    name: str
    kind: str
    version: str
    summary: str
    frontends: tuple[str, ...]
    status: str
    reason: str
    meta_path: Path
    source: str
    server: str | None = None
    client: str | None = None
    package_path: Path | None = None
    filename: str | None = None
    sha256: str | None = None
    size: int | None = None
    signer: Signer | None = None
    #: whether its games run in workers (:mod:`hub.plugins.isolation`), its code never in the hub
    isolated: bool = False

    @property
    def loaded(self) -> bool:
        """Whether the plugin is in use."""
        return self.status == LOADED

    @property
    def meta_filename(self) -> str:
        """The name under which its (rewritten) ``.meta`` is offered."""
        return f"{self.name}.meta"


@dataclass(frozen=True)
class Download:
    """One file the distribution resource may send.

    :ivar data: the whole file.
    :ivar sha256: digest of ``data`` (the ``ETag``).
    """

    filename: str
    content_type: str
    data: bytes
    sha256: str


@dataclass
class _Entry:
    """The registry's bookkeeping for one ``.meta`` file."""

    meta_path: Path
    source: str
    signature: tuple[Any, ...]
    record: PluginRecord
    meta: PluginMeta | None = None
    package_path: Path | None = None
    obj: Any = None
    archive: bytes | None = None
    served_meta: str | None = None
    clash: bool = False
    module_prefix: str | None = None


class PluginError(Exception):
    """A plugin cannot be used; the message says why (for the log and the index)."""


@implementer(IRegistry)
class Registry:
    """Finds, loads and serves game and bot plugins.

    :param data_dir: the hub's data folder (``None``: built-ins only).
    :param clock: an ``IReactorTime`` for the polling loop (``task.Clock`` in tests).
    :param builtin_dir: the built-in ``.meta`` folder (``None``: no built-ins).
    :param import_timeout: seconds a plugin's import may take; with it every import
        runs in a thread of its own, off the reactor thread, and one that is not done
        in time is reported failed (its thread is left to finish or hang on its own;
        the plugin is tried again when its files change).  ``None`` (tests, tools):
        import at once.
    :param trust: which drop-ins' signatures are accepted (default: any signature that
        verifies, and unsigned packages).
    :param isolation: which drop-ins run isolated (:mod:`hub.plugins.isolation`); ``None``:
        every plugin runs in the hub's process.
    :param settings: the hub's settings; a plugin that declares settings in its
        ``.meta`` and provides :class:`hub.meta.ISettingsReader` gets their values.
    """

    log = Logger()
    _counter = itertools.count(1)

    def __init__(
        self,
        data_dir: Path | None,
        clock: Any,
        builtin_dir: Path | None = builtin_meta_dir(),  # noqa: B008
        import_timeout: float | None = None,
        trust: PluginTrust | None = None,
        settings: Mapping[str, Any] | None = None,
        isolation: Isolation | None = None,
    ) -> None:
        #: runs the games of isolated drop-ins in workers (``None``: none is isolated)
        self.isolation = isolation
        self._data_dir = Path(data_dir) if data_dir is not None else None
        #: the hub's settings: a plugin gets those it declares (``ISettingsReader``)
        self.settings = dict(settings or {})
        self._clock = clock
        self._builtin_dir = Path(builtin_dir) if builtin_dir is not None else None
        self._entries: dict[Path, _Entry] = {}
        self._by_name: dict[str, _Entry] = {}
        self._listeners: list[Callable[[str, PluginRecord], None]] = []
        self._loop: LoopingCall | None = None
        self._loaded = False
        self.import_timeout = import_timeout
        self.trust = trust if trust is not None else PluginTrust()
        self._scanning: defer.Deferred[None] | None = None

    # -- folders ---------------------------------------------------------------------

    def meta_dirs(self) -> list[tuple[str, Path]]:
        """``(source, folder)`` for every folder of ``.meta`` files, in reading order."""
        return meta_folders(self._data_dir, self._builtin_dir)

    def _meta_files(self) -> Iterator[tuple[str, Path]]:
        for source, folder in self.meta_dirs():
            try:
                names = sorted(os.listdir(folder))
            except OSError:
                continue
            for name in names:
                if name.endswith(".meta") and not name.startswith("."):
                    path = folder / name
                    if path.is_file():
                        yield source, path

    # -- queries ---------------------------------------------------------------------

    def game_factory(self, name: str) -> Any:
        """The loaded :class:`IGameFactory` called ``name``.

        :raises hub.model.NotFound: no such game type is loaded.
        """
        entry = self._by_name.get(name)
        if entry is None or entry.record.kind != "game":
            raise NotFound(f"no game type {name!r}")
        return entry.obj

    def bot_factory(self, name: str) -> Any:
        """The loaded :class:`IBotFactory` called ``name``.

        :raises hub.model.NotFound: no such bot is loaded.
        """
        entry = self._by_name.get(name)
        if entry is None or entry.record.kind != "bot":
            raise NotFound(f"no bot {name!r}")
        return entry.obj

    def game_types(self) -> list[Any]:
        """Every loaded game factory, by name."""
        return [e.obj for _, e in sorted(self._by_name.items()) if e.record.kind == "game"]

    def bots(self) -> list[Any]:
        """Every loaded bot factory, by name."""
        return [e.obj for _, e in sorted(self._by_name.items()) if e.record.kind == "bot"]

    def plugins(self) -> list[PluginRecord]:
        """Every plugin the registry has seen, loaded or failed, by name."""
        records = [e.record for e in self._entries.values()]
        return sorted(records, key=lambda r: (r.name, SOURCES.index(r.source), str(r.meta_path)))

    def plugin(self, name: str) -> PluginRecord:
        """The loaded plugin called ``name``.

        :raises hub.model.NotFound: none is loaded.
        """
        entry = self._by_name.get(name)
        if entry is None:
            raise NotFound(f"no plugin {name!r}")
        return entry.record

    def client_module(self, factory: Any) -> str:
        """The module clients download for ``factory``'s game: its ``.meta``'s
        ``client``, else :func:`default_client_module`."""
        entry = self._by_name.get(factory.name)
        if entry is not None and entry.record.client:
            return str(entry.record.client)
        return default_client_module(factory)

    def download(self, name: str, filename: str) -> Download | None:
        """The file ``filename`` of the loaded plugin ``name``, or ``None``.

        A plugin offers its package (as dropped in, or an archive the hub built of
        a built-in or folder package) and its ``.meta`` rewritten to work as a
        drop-in next to that package.
        """
        entry = self._by_name.get(name)
        if entry is None:
            return None
        record = entry.record
        if filename == record.meta_filename and entry.served_meta is not None:
            data = entry.served_meta.encode("utf-8")
            return Download(filename, META_CONTENT_TYPE, data, _sha256(data))
        if filename != record.filename:
            return None
        if entry.archive is not None:
            data = entry.archive
        else:
            path = entry.package_path
            if path is None or not _inside(path, path.parent):
                return None
            try:
                data = path.read_bytes()
            except OSError:
                return None
        return Download(filename, ZIP_CONTENT_TYPE, data, _sha256(data))

    # -- listeners -------------------------------------------------------------------

    def add_listener(self, listener: Callable[[str, PluginRecord], None]) -> None:
        """Call ``listener(change, record)`` on every change after :meth:`load`.

        ``change`` is ``added``, ``changed`` or ``removed``.
        """
        self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[str, PluginRecord], None]) -> None:
        """Stop calling ``listener``."""
        if listener in self._listeners:
            self._listeners.remove(listener)

    def _notify(self, change: str, record: PluginRecord) -> None:
        for listener in list(self._listeners):
            try:
                listener(change, record)
            except Exception:
                self.log.failure(
                    "Plugin listener {listener!r} failed on {change} {name}",
                    listener=listener,
                    change=change,
                    name=record.name,
                )

    # -- loading ---------------------------------------------------------------------

    def load(self) -> defer.Deferred[None]:
        """Read every ``.meta`` file now and load what they describe (fires when done;
        at once without ``import_timeout``)."""
        if self._data_dir is not None:
            for sub in ("plugins", "bots"):
                try:
                    (self._data_dir / sub / "meta").mkdir(parents=True, exist_ok=True)
                except OSError as e:
                    self.log.warn("Cannot create {path}: {error}", path=e.filename, error=e)
        self._loaded = True
        return self.scan()

    def start(self) -> None:
        """Load (if not done yet) and poll for changes every :data:`POLL_INTERVAL` s."""
        if not self._loaded:
            self.load()
        if self._loop is not None and self._loop.running:
            return
        self._loop = LoopingCall(self._poll)
        self._loop.clock = self._clock
        d = self._loop.start(POLL_INTERVAL, now=False)
        d.addErrback(lambda f: self.log.failure("Plugin polling stopped", failure=f))

    def stop(self) -> None:
        """Stop polling."""
        if self._loop is not None and self._loop.running:
            self._loop.stop()
        self._loop = None

    def _poll(self) -> None:
        if self._scanning is not None:
            return  # a slow import is still running: the next poll looks again
        self.scan().addErrback(lambda f: self.log.failure("Plugin scan failed", f))

    def scan(self) -> defer.Deferred[None]:
        """Pick up new, changed and removed ``.meta`` files (and changed packages).

        Fires when every import is done (at once without ``import_timeout``); a scan
        asked for while one runs waits for it.
        """
        if self._scanning is not None:
            waiting: defer.Deferred[None] = defer.Deferred()

            def again(result: Any) -> Any:
                self.scan().chainDeferred(waiting)
                return result

            self._scanning.addBoth(again)
            return waiting
        d = defer.ensureDeferred(self._scan())
        if not d.called:
            self._scanning = d

            def done(result: Any) -> Any:
                self._scanning = None
                return result

            d.addBoth(done)
        return d

    async def _scan(self) -> None:
        present: dict[Path, str] = {}
        for source, path in self._meta_files():
            present.setdefault(path, source)

        for path in [p for p in self._entries if p not in present]:
            entry = self._entries.pop(path)
            self._unregister(entry)
            self.log.info("Plugin {name} removed ({path})", name=entry.record.name, path=str(path))
            self._notify("removed", entry.record)

        changes: list[tuple[str, _Entry]] = []
        for path, source in present.items():
            old = self._entries.get(path)
            if old is not None:
                if self._signature(path, old.package_path) == old.signature:
                    continue
                self._unregister(old)
                del self._entries[path]
            entry = await self._load_entry(path, source)
            self._entries[path] = entry
            changes.append(("added" if old is None else "changed", entry))

        # A plugin refused for a name clash gets another chance once the name is free.
        for entry in list(self._entries.values()):
            if entry.clash and entry.record.name not in self._by_name:
                retry = await self._load_entry(entry.meta_path, entry.source)
                self._entries[entry.meta_path] = retry
                changes.append(("changed", retry))

        for change, entry in changes:
            self._notify(change, entry.record)

    def _unregister(self, entry: _Entry) -> None:
        if self._by_name.get(entry.record.name) is entry:
            del self._by_name[entry.record.name]

    def _signature(self, meta_path: Path, package_path: Path | None) -> tuple[Any, ...]:
        return (_stat_signature(meta_path), _package_signature(package_path))

    async def _load_entry(self, meta_path: Path, source: str) -> _Entry:
        """Parse, check and import one plugin; never raises."""
        signature = self._signature(meta_path, None)
        try:
            meta = parse_meta(meta_path)
        except MetaError as e:
            record = PluginRecord(
                name=meta_path.stem,
                kind="unknown",
                version="",
                summary="",
                frontends=(),
                status=FAILED,
                reason=str(e),
                meta_path=meta_path,
                source=source,
            )
            self.log.error(
                "Plugin {name} failed: {reason}", name=meta_path.stem, reason=record.reason
            )
            return _Entry(meta_path, source, signature, record)

        folder = meta_path.parent.parent
        package_path = folder / meta.package if meta.package is not None else None
        signature = self._signature(meta_path, package_path)
        base = PluginRecord(
            name=meta.name,
            kind=meta.kind,
            version=meta.version,
            summary=meta.summary,
            frontends=meta.frontends,
            status=LOADING,
            reason="",
            meta_path=meta_path,
            source=source,
            server=meta.server,
            client=meta.client,
            package_path=package_path,
        )
        entry = _Entry(meta_path, source, signature, base, meta=meta, package_path=package_path)
        self._entries[meta_path] = entry  # listed as loading meanwhile
        try:
            await self._load(entry, meta, folder)
        except Exception as e:
            reason = str(e) if isinstance(e, PluginError) else f"{type(e).__name__}: {e}"
            if entry.module_prefix is not None:
                forget_modules(entry.module_prefix)
            entry.obj = None
            entry.archive = None
            entry.record = replace(base, status=FAILED, reason=reason)
            self.log.error(
                "Plugin {name} ({path}) failed: {reason}",
                name=meta.name,
                path=str(meta_path),
                reason=reason,
            )
            return entry
        self._by_name[meta.name] = entry
        self.log.info(
            "Plugin {name} {version} loaded ({kind}, {path})",
            name=meta.name,
            version=meta.version,
            kind=meta.kind,
            path=str(meta_path),
        )
        return entry

    async def _load(self, entry: _Entry, meta: PluginMeta, folder: Path) -> None:
        """Fill ``entry`` with the plugin's object and download; raise PluginError."""
        owner = self._by_name.get(meta.name)
        if owner is not None:
            entry.clash = True
            raise PluginError(
                f"name clash: plugin {meta.name!r} is already loaded from {owner.meta_path}"
            )
        if meta.requires_hub is not None and not version_satisfies(
            hub.__version__, meta.requires_hub
        ):
            raise PluginError(f"needs hub {meta.requires_hub}, this is {hub.__version__}")

        package_path = entry.package_path
        archive_digest, archive_size = "", 0
        signer = None
        if package_path is None:
            obj = await self._import(meta.name, meta.server_module, meta.server_object)
        else:
            root, archive_digest, archive_size = self._check_package(meta, package_path, folder)
            try:  # before any of its code runs
                signer = self.trust.check(meta, archive_digest if package_path.is_file() else None)
            except SignatureError as e:
                raise PluginError(f"refused: {e}") from None
            trusted = signer is not None and signer.trusted
            if (
                self.isolation
                and meta.kind == "game"
                and self.isolation.isolates(meta.name, trusted)
            ):
                obj = await self._isolated(entry, meta, package_path)
            else:
                prefix = (
                    f"{PLUGIN_MODULE_ROOT}.p{next(self._counter)}_{meta.name.replace('-', '_')}"
                )
                entry.module_prefix = prefix
                make_package(PLUGIN_MODULE_ROOT, [])
                make_package(prefix, [str(root)])
                if package_path.is_file():
                    forget_zip(str(root))
                importlib.invalidate_caches()
                obj = await self._import(
                    meta.name, f"{prefix}.{meta.server_module}", meta.server_object, prefix + "."
                )
        owner = self._by_name.get(meta.name)
        if owner is not None:  # another plugin took the name while this one imported
            entry.clash = True
            raise PluginError(
                f"name clash: plugin {meta.name!r} is already loaded from {owner.meta_path}"
            )
        obj = self._verify(meta, obj)
        self._configure(meta, obj)
        entry.obj = obj

        # What clients download.
        if package_path is not None and package_path.is_file():
            filename = package_path.name
            digest, size = archive_digest, archive_size
            # a signed .meta is offered as it is: the signature covers every byte
            served = meta.signature.text if meta.signature else meta.to_toml(sha256=digest)
        else:
            filename = f"{meta.name}-{meta.version}.zip"
            try:
                archive, inner_meta = build_archive(meta, package_path, filename)
            except ArchiveError as e:
                raise PluginError(str(e)) from None
            entry.archive = archive
            digest, size = _sha256(archive), len(archive)
            served = inner_meta.to_toml(sha256=digest)
        entry.served_meta = served
        entry.record = replace(
            entry.record,
            status=LOADED,
            reason="",
            filename=filename,
            sha256=digest,
            size=size,
            signer=signer,
        )

    async def _isolated(self, entry: _Entry, meta: PluginMeta, package_path: Path) -> Any:
        """The factory of a drop-in whose games run isolated (:mod:`hub.plugins.isolation`): a
        worker imports it, never the hub."""
        assert self.isolation is not None
        try:
            obj = await self.isolation.describe(
                meta.name, package_path, meta.server_module, meta.server_object, self.import_timeout
            )
        except GameError as e:
            raise PluginError(e.reason) from None
        client = meta.client or f"{meta.server_module.rpartition('.')[0]}.client".lstrip(".")
        entry.record = replace(entry.record, isolated=True, client=client)
        return obj

    def _check_package(self, meta: PluginMeta, path: Path, folder: Path) -> tuple[Path, str, int]:
        """Where to import a drop-in from, after checking its place and digest."""
        if not path.exists():
            raise PluginError(f"package {meta.package!r} not found in {folder}")
        if not _inside(path, folder):
            raise PluginError(f"package {meta.package!r} leads outside {folder}")
        if path.is_dir():
            if meta.sha256 is not None:
                raise PluginError("sha256 is for archives; package is a folder")
            if (path / "__init__.py").is_file():
                top = meta.server_module.split(".")[0]
                if top != path.name:
                    raise PluginError(
                        f"server module {meta.server_module!r} is not in package folder {path.name!r}"
                    )
                return path.parent, "", 0
            return path, "", 0
        if not path.name.endswith((".zip", ".whl")):
            raise PluginError(f"package {meta.package!r} is not a .zip, .whl or folder")
        try:
            data = path.read_bytes()
        except OSError as e:
            raise PluginError(f"cannot read package {meta.package!r}: {e.strerror}") from e
        digest = _sha256(data)
        if meta.sha256 is not None and digest != meta.sha256:
            raise PluginError(
                f"digest mismatch: {meta.package} has sha256 {digest}, .meta says {meta.sha256}"
            )
        try:
            with zipfile.ZipFile(io.BytesIO(data)) as archive:
                archive.namelist()
        except (zipfile.BadZipFile, OSError) as e:
            raise PluginError(f"package {meta.package!r} is not a valid archive: {e}") from e
        return path, digest, len(data)

    def _import(self, name: str, module_name: str, attr_path: str, hide: str = "") -> Any:
        """:meth:`_import_object`, in a thread with a time limit when the registry has
        an ``import_timeout`` (a Deferred); at once otherwise."""
        if self.import_timeout is None:
            return defer.maybeDeferred(self._import_object, module_name, attr_path, hide)
        d: defer.Deferred[Any] = defer.Deferred()
        reactor: Any = self._clock

        def work() -> None:
            try:
                obj = self._import_object(module_name, attr_path, hide)
            except BaseException as e:  # noqa: BLE001 - reported through the Deferred
                reactor.callFromThread(d.errback, Failure(e))
            else:
                reactor.callFromThread(d.callback, obj)

        def late(result: Any, timeout: float) -> Any:
            return Failure(
                PluginError(f"import did not finish within its time limit of {timeout:g} s")
            )

        threading.Thread(target=work, name=f"plugin-import-{name}", daemon=True).start()
        return d.addTimeout(self.import_timeout, reactor, onTimeoutCancel=late)

    def _import_object(self, module_name: str, attr_path: str, hide: str = "") -> Any:
        try:
            obj: Any = importlib.import_module(module_name)
            for attr in attr_path.split("."):
                obj = getattr(obj, attr)  # a plugin's attribute path
            if isinstance(obj, type):
                obj = obj()
        except Exception as e:
            text = f"{type(e).__name__}: {e}"
            if hide:
                text = text.replace(hide, "")
            raise PluginError(
                f"cannot load {module_name.replace(hide, '')}:{attr_path}: {text}"
            ) from e
        return obj

    def _configure(self, meta: PluginMeta, obj: Any) -> None:
        """Hand the plugin the settings it declares (their values, else defaults)."""
        taken = [s.name for s in meta.settings if s.name in SETTING_TYPES]
        if taken:
            raise PluginError(f"declares the hub's own setting(s) {_words(taken)}")
        if meta.settings and ISettingsReader.providedBy(obj):
            obj.configure({s.name: self.settings.get(s.name, s.default) for s in meta.settings})

    def _verify(self, meta: PluginMeta, obj: Any) -> Any:
        interface = INTERFACES[meta.kind]
        try:
            verifyObject(interface, obj)
        except Invalid as e:
            raise PluginError(
                f"{meta.server} does not implement {interface.__name__}: {explain_invalid(e)}"
            ) from e
        # verified: the interface declares them
        if obj.name != meta.name:
            raise PluginError(f"{meta.server} is called {obj.name!r}, the .meta says {meta.name!r}")
        if meta.kind == "game":
            declared = sorted(set(meta.frontends))
            offered = sorted({str(f) for f in obj.frontends})
            if declared != offered:
                raise PluginError(
                    f"{meta.server} is played on the front ends {_words(offered)},"
                    f" the .meta says {_words(declared)}"
                )
        return obj


# -- helpers --------------------------------------------------------------------------


def _words(names: list[str]) -> str:
    return ", ".join(names) if names else "none"


def default_client_module(factory: Any) -> str:
    """``<the package of factory's module>.client`` (``""`` for a top-level module)."""
    package = type(factory).__module__.rpartition(".")[0]
    return f"{package}.client" if package else ""


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` (following symbolic links) lies within ``folder``."""
    try:
        resolved = path.resolve(strict=True)
        return resolved.is_relative_to(folder.resolve(strict=True))
    except (OSError, RuntimeError):
        return False


def _stat_signature(path: Path) -> tuple[Any, ...] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def _package_signature(path: Path | None) -> Any:
    if path is None:
        return None
    if not path.is_dir():
        return _stat_signature(path)
    parts = []
    for dirpath, dirnames, filenames in os.walk(path):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_NAMES)
        for filename in sorted(filenames):
            if filename.endswith(SKIP_SUFFIXES):
                continue
            full = Path(dirpath) / filename
            parts.append((str(full.relative_to(path)), _stat_signature(full)))
    return tuple(parts)


def explain_invalid(error: Invalid) -> str:
    """A zope verification error as a short reason naming what is missing."""
    if isinstance(error, MultipleInvalid):
        return "; ".join(explain_invalid(e) for e in error.exceptions)
    if isinstance(error, BrokenImplementation):
        described = error.name
        if isinstance(described, str):
            try:
                described = error.interface[described]
            except (KeyError, TypeError):
                pass
        name = getattr(described, "__name__", str(described))  # foreign: zope's error
        kind = "method" if isinstance(described, Method) else "attribute"
        return f"missing {kind} {name}"
    if isinstance(error, BrokenMethodImplementation):
        name = getattr(error.method, "__name__", error.method)  # as above
        return f"method {name} has the wrong signature ({error.mess})"
    if isinstance(error, DoesNotImplement):
        return "the object does not declare the interface (@implementer)"
    return str(error)
