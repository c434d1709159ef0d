"""Plugins everywhere: a plugin dropped into one hub of a cluster is installed on all.

:class:`SharedPlugins` publishes this hub's dropped-in plugins (those of its
``plugins/`` and ``bots/`` folders that loaded) in the plugin index
(:mod:`hub.store.plugin_index`) whenever its registry changes, and reads the index
whenever a notice says another hub's changed (and after every reconnection of the
notice connection, when a hub joins or goes, and once a minute).

For each plugin name the index holds a last-writer-wins register: the row with the
greatest ``since`` among the rows of the hubs alive and the tombstones wins.  ``since``
is the time the plugin arrived (its ``.meta``'s modification time), and a fetched copy
is installed with its source's time, so copies never win over their source, and a
plugin dropped (or removed) later wins over every older one.  Then, for each name:

- the winner is another hub's package this hub has not (another digest, or none): it
  is downloaded from a live hub that has it, with the verified download of ``gamehub
  fetch`` (:func:`hub.plugins.fetch.fetch`: the hub's own index must give the digest and size
  the cluster's index says, the bytes must have that SHA-256, the signature policy of
  this hub applies), into a staging folder, then moved into ``plugins/`` or ``bots/``
  (package first, ``.meta`` last) and loaded by the registry as a dropped file is;
- the winner is a tombstone newer than this hub's copy: the copy's ``.meta`` and
  package are deleted, and the registry unloads it (games already running finish).

Bounded: the largest package (``cluster_plugin_max_bytes``), downloads at once
(``cluster_plugin_downloads``), each download's time (``cluster_plugin_timeout``), tries
of one package (``cluster_plugin_retries``, the delay doubling from 1 s to 30 s).  A
package that fails is logged with its reason at each try and given up after the last;
the hub serves on without it.
"""

from __future__ import annotations

import io
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from twisted.internet import defer, task
from twisted.logger import Logger

from hub.plugins.fetch import FetchError, fetch
from hub.tls import http_client

from .once import OneAtATime

#: the registry's folders of dropped-in plugins, and the kind each one holds
SOURCES = {"plugins": "game", "bots": "bot"}
FOLDERS = {"game": "plugins", "bot": "bots"}
#: the staging folder of downloads, inside the data folder (the registry never reads it)
STAGING = ".cluster-incoming"
#: the first and the longest delay between two tries of one package (seconds)
RETRY_DELAYS = (1.0, 30.0)


def signer_state(record: Any) -> str:
    """``unsigned``, ``trusted <signer>`` or ``untrusted <signer>``."""
    signer = record.signer
    if signer is None:
        return "unsigned"
    return f"{'trusted' if signer.trusted else 'untrusted'} {signer.name}"


def arrived(record: Any) -> int:
    """When a plugin arrived on this hub: its ``.meta``'s modification time (ns)."""
    try:
        return int(record.meta_path.stat().st_mtime_ns)
    except OSError:
        return 0


def winners(rows: list[dict[str, Any]], live: set[str]) -> dict[str, dict[str, Any]]:
    """Name → the row that wins: the greatest ``since`` among the rows of ``live``
    hubs and every tombstone (a tie goes to the package, then to the larger digest)."""
    out: dict[str, dict[str, Any]] = {}
    for row in rows:
        if not row["removed"] and row["hub"] not in live:
            continue
        best = out.get(row["name"])
        key = (row["since"], not row["removed"], row["sha256"])
        if best is None or key > (best["since"], not best["removed"], best["sha256"]):
            out[row["name"]] = row
    return out


class SharedPlugins:
    """This hub's part in the cluster's one set of plugins.

    :param cluster: the hub's :class:`hub.cluster.Cluster` (``store``, ``hub_id``,
        ``members``, ``endpoints_of``).
    :param registry: the hub's plugin registry.
    :param data_dir: the hub's data folder.
    :param reactor: ``IReactorTime`` (and what ``treq`` needs).
    :param options: the hub's settings (``cluster_plugin_*``).
    """

    log = Logger()

    def __init__(
        self, cluster: Any, registry: Any, data_dir: Path, reactor: Any, options: Any
    ) -> None:
        self.cluster = cluster
        self.store = cluster.store
        self.registry = registry
        self.data_dir = Path(data_dir)
        self._reactor = reactor
        self.max_bytes = int(options.get("cluster_plugin_max_bytes", 64 * 1024 * 1024))
        self.timeout = float(options.get("cluster_plugin_timeout", 60.0))
        self.retries = max(1, int(options.get("cluster_plugin_retries", 4)))
        self.keep_removed = float(options.get("cluster_plugin_keep_removed", 86400.0))
        downloads = max(1, int(options.get("cluster_plugin_downloads", 2)))
        self._slots = defer.DeferredSemaphore(downloads)
        self._client: Any = None
        self._running = False
        self._reads = OneAtATime(self._reconcile, "cluster: reading the plugin index failed")
        self._publishes = OneAtATime(self._publish_now, "cluster: publishing the plugins failed")
        self._tombstones: list[dict[str, Any]] = []
        #: name → the (sha256, since) being fetched, and the job's Deferred
        self._jobs: dict[str, tuple[tuple[str, int], defer.Deferred[None]]] = {}
        #: (name, sha256) that failed every try: not tried again while it wins
        self._given_up: set[tuple[str, str]] = set()
        #: names whose files this hub is changing itself (no tombstone for them)
        self._own: set[str] = set()
        self._warned: set[str] = set()

    # -- life ----------------------------------------------------------------------------

    async def start(self) -> None:
        """Publish this hub's plugins, follow its registry, read the index."""
        self._running = True
        self._client = http_client(self._reactor)
        self.registry.add_listener(self._registry_changed)
        await self._publish()
        await self.changed()

    async def stop(self) -> None:
        """Stop fetching; this hub's rows leave the index (its tombstones stay)."""
        self._running = False
        self.registry.remove_listener(self._registry_changed)
        for _, job in list(self._jobs.values()):
            job.cancel()
        self._jobs.clear()
        try:
            await self.store.plugins_leave()
        except Exception as e:  # the others ignore the rows of a hub that is not alive
            self.log.warn("cluster: could not remove this hub's plugin rows: {e}", e=e)

    def purge(self) -> defer.Deferred[int]:
        """(Once a minute.)  Write this hub's rows again (a write the store refused is
        made then) and remove old rows (see
        :meth:`hub.store.plugin_index.PluginIndexMixin.plugins_purge`)."""
        self._publish()
        return self.store.plugins_purge(self.keep_removed)

    # -- this hub's plugins --------------------------------------------------------------

    def _local(self) -> dict[str, Any]:
        """Name → the loaded plugin of this hub's ``plugins/`` or ``bots/`` folder."""
        return {r.name: r for r in self.registry.plugins() if r.source in SOURCES and r.loaded}

    def _rows(self) -> list[dict[str, Any]]:
        return [
            {
                "name": r.name,
                "kind": r.kind,
                "version": r.version,
                "sha256": r.sha256,
                "size": r.size,
                "file": r.filename,
                "signer": signer_state(r),
                "since": arrived(r),
            }
            for r in self._local().values()
            if r.sha256 and r.size
        ]

    def _publish(self, tombstones: list[dict[str, Any]] | None = None) -> defer.Deferred[None]:
        """Write this hub's rows (and ``tombstones``) soon: one write at a time, the
        last one with the registry's state after every change before it."""
        self._tombstones.extend(tombstones or ())
        return self._publishes()

    async def _publish_now(self) -> None:
        tombstones, self._tombstones = self._tombstones, []
        try:
            await self.store.plugins_publish(self._rows() + tombstones, only=True)
        except Exception:
            self._tombstones[:0] = tombstones  # written with the next one
            raise

    def _registry_changed(self, change: str, record: Any) -> None:
        if not self._running or record.source not in SOURCES:
            return
        if change != "removed" or not record.sha256 or record.name in self._own:
            self._publish()
            return
        # a removal: once the registry has loaded what else its folders hold (a .meta
        # renamed, a new version), a plugin still gone is removed on every hub
        d = self.registry.scan()
        d.addCallback(lambda _: self._removed(record))
        d.addErrback(lambda f: self.log.failure("cluster: publishing a removal failed", f))

    def _removed(self, record: Any) -> defer.Deferred[None] | None:
        if not self._running:
            return None
        if record.name in self._local():
            return self._publish()
        tombstone = {
            "name": record.name,
            "kind": record.kind,
            "version": record.version,
            "sha256": record.sha256,
            "size": record.size,
            "file": record.filename,
            "signer": signer_state(record),
            "since": int(self._reactor.seconds() * 1e9),
            "removed": True,
        }
        self.log.info("cluster: plugin {name} removed here: every hub removes it", name=record.name)
        return self._publish([tombstone])

    # -- the index -----------------------------------------------------------------------

    def changed(self) -> defer.Deferred[None]:
        """Read the index and act on it (a read asked for while one runs runs once more
        after it)."""
        if not self._running:
            return defer.succeed(None)
        return self._reads()

    async def _reconcile(self) -> None:
        rows = await self.store.plugins_index()
        own = self.cluster.hub_id
        live = {h for h, m in self.cluster.members.items() if m["live"]} | {own}
        local = self._local()
        builtin = {r.name for r in self.registry.plugins() if r.source == "builtin"}
        for name, row in sorted(winners(rows, live).items()):
            mine = local.get(name)
            if row["hub"] == own or (mine is not None and arrived(mine) > row["since"]):
                continue  # this hub's is the newest (published, or about to be)
            if row["removed"]:
                if mine is not None:
                    self._remove(mine, row)
                continue
            if mine is not None and mine.sha256 == row["sha256"]:
                continue
            if name in builtin:
                if name not in self._warned:
                    self._warned.add(name)
                    self.log.warn(
                        "cluster: hub {hub} has a plugin {name}, a built-in's name here: not"
                        " installed",
                        hub=row["hub"],
                        name=name,
                    )
                continue
            want = (row["sha256"], row["since"])
            job = self._jobs.get(name)
            if (job is not None and job[0] == want) or (name, row["sha256"]) in self._given_up:
                continue
            if job is not None:
                job[1].cancel()
            having = {r["hub"] for r in rows if r["name"] == name and r["sha256"] == row["sha256"]}
            sources = [row["hub"]] + sorted((having & live) - {row["hub"], own})
            self._start(name, want, row, sources)

    def _start(self, name: str, want: tuple[str, int], row: Any, sources: list[str]) -> None:
        def failed(failure: Any) -> None:
            if not failure.check(defer.CancelledError):
                self.log.failure("cluster: fetching {name} failed", failure, name=name)

        def done(_: Any) -> None:
            job = self._jobs.get(name)
            if job is not None and job[0] == want:
                del self._jobs[name]

        d = defer.ensureDeferred(self._fetch(row, sources))
        self._jobs[name] = (want, d)
        d.addErrback(failed)
        d.addBoth(done)

    # -- fetching and removing -------------------------------------------------------------

    def _url(self, hub_id: str) -> str | None:
        web = self.cluster.endpoints_of(hub_id).get("web")
        if not web or not web.get("port"):
            return None
        scheme = "https" if web.get("tls") else "http"
        return f"{scheme}://{web['host']}:{web['port']}/"

    async def _fetch(self, row: dict[str, Any], sources: list[str]) -> None:
        name, sha256 = row["name"], row["sha256"]
        delay = RETRY_DELAYS[0]
        for attempt in range(1, self.retries + 1):
            source = sources[(attempt - 1) % len(sources)]
            url = self._url(source)
            try:
                if row["size"] > self.max_bytes:
                    raise FetchError(
                        f"{row['size']} bytes, more than cluster_plugin_max_bytes"
                        f" ({self.max_bytes})"
                    )
                if url is None:
                    raise FetchError(f"hub {source} advertises no web front end")
                await self._slots.run(self._download_now, row, url)
            except FetchError as e:
                self.log.error(
                    "cluster: plugin {name} (sha256 {sha}) from hub {hub} refused, try"
                    " {n} of {most}: {reason}",
                    name=name,
                    sha=sha256,
                    hub=source,
                    n=attempt,
                    most=self.retries,
                    reason=str(e),
                )
            else:
                self.log.info(
                    "cluster: plugin {name} {version} (sha256 {sha}) fetched from hub {hub}",
                    name=name,
                    version=row["version"],
                    sha=sha256,
                    hub=source,
                )
                return
            if attempt < self.retries:
                await task.deferLater(self._reactor, delay, lambda: None)
                delay = min(delay * 2, RETRY_DELAYS[1])
        self._given_up.add((name, sha256))
        self.log.error(
            "cluster: giving up on plugin {name} (sha256 {sha}) after {n} tries;"
            " this hub serves on without it",
            name=name,
            sha=sha256,
            n=self.retries,
        )

    def _download_now(self, row: dict[str, Any], url: str) -> defer.Deferred[None]:
        return defer.ensureDeferred(self._download(row, url))

    async def _download(self, row: dict[str, Any], url: str) -> None:
        """Fetch ``row``'s package from ``url`` into a staging folder, then install it."""
        staging = self.data_dir / STAGING
        staging.mkdir(mode=0o700, exist_ok=True)
        into = Path(tempfile.mkdtemp(prefix=f"{row['name']}-", dir=staging))
        try:
            d = defer.ensureDeferred(
                fetch(
                    row["name"],
                    url,
                    into,
                    client=self._client,
                    stream=io.StringIO(),
                    trust=self.registry.trust,
                    force=True,
                    expect=(row["sha256"], row["size"]),
                    max_size=self.max_bytes,
                )
            )
            d.addTimeout(self.timeout, self._reactor)
            try:
                meta = await d
            except defer.TimeoutError:
                raise FetchError(f"the download took longer than {self.timeout:g} s") from None
            await self._install(row, Path(meta))
        finally:
            shutil.rmtree(into, ignore_errors=True)

    def _install(self, row: dict[str, Any], staged_meta: Path) -> defer.Deferred[None]:
        """Move a verified download into this hub's folder and load it."""
        name = row["name"]
        folder = self.data_dir / FOLDERS[row["kind"]]
        staged_package = staged_meta.parent.parent / row["file"]
        os.utime(staged_meta, ns=(row["since"], row["since"]))
        old = self._local().get(name)
        old_metas = [
            r.meta_path for r in self.registry.plugins() if r.name == name and r.source in SOURCES
        ]
        self._own.add(name)
        (folder / "meta").mkdir(parents=True, exist_ok=True)
        os.replace(staged_package, folder / row["file"])
        os.replace(staged_meta, folder / "meta" / f"{name}.meta")
        for path in old_metas:
            if path.name != f"{name}.meta":
                path.unlink(missing_ok=True)
        if old is not None and old.package_path is not None and old.package_path.is_file():
            if old.package_path.name != row["file"]:
                old.package_path.unlink(missing_ok=True)
        return self._rescan(name)

    def _remove(self, record: Any, tombstone: dict[str, Any]) -> None:
        self.log.warn(
            "cluster: plugin {name} removed here too (hub {hub} removed it)",
            name=record.name,
            hub=tombstone["hub"],
        )
        self._own.add(record.name)
        record.meta_path.unlink(missing_ok=True)
        package = record.package_path
        if package is not None and package.is_file():
            package.unlink(missing_ok=True)
        self._rescan(record.name)

    def _rescan(self, name: str) -> defer.Deferred[None]:
        def done(_: Any) -> None:
            self._own.discard(name)

        d = self.registry.scan()
        d.addErrback(
            lambda f: self.log.failure("cluster: loading plugin {name} failed", f, name=name)
        )
        d.addBoth(done)
        return d
