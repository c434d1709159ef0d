"""Download a plugin from a hub and install it (``gamehub fetch``, :mod:`hub.cli.fetch`).

The plugin's package is downloaded into a temporary file next to its destination,
its SHA-256 and size are checked against the hub's ``/plugins/index.json``, and only
then are package and ``.meta`` renamed into place::

    DIR/plugins/<package>          DIR/plugins/meta/<name>.meta     (games)
    DIR/bots/<package>             DIR/bots/meta/<name>.meta        (bots)

so ``DIR`` works at once as another hub's data folder (archives are imported with
``zipimport``; nothing is unpacked).  A digest mismatch, a short or interrupted
download, a bad ``.meta`` or a refused signature leaves ``DIR`` as it was.

A signed plugin's signature (:mod:`hub.plugins.signing`) must verify against the downloaded
package and ``.meta``; with a :class:`~hub.plugins.signing.PluginTrust` that requires it,
unsigned packages and keys not trusted are refused too.  ``DIR`` must not be the data
folder of a running hub (:func:`hub.ops.datalock.in_use`): that hub would load the package
at once, before anyone looked at it; ``force`` installs there all the same.
"""

from __future__ import annotations

import hashlib
import io
import os
import sys
import tempfile
import zipfile
from pathlib import Path, PurePosixPath
from typing import IO, Any
from urllib.parse import urljoin

import treq

from hub.meta import NAME_RE, PACKAGE_RE, MetaError, parse_meta
from hub.ops.datalock import in_use
from hub.ops.progress import bar
from hub.plugins.signing import PluginTrust, SignatureError
from hub.tls import describe

DEFAULT_HUB = "http://127.0.0.1:8080"

#: Downloads at least this large show a progress bar on a terminal.
PROGRESS_MIN_SIZE = 256 * 1024

#: Largest package or .meta accepted (bytes).
MAX_PACKAGE_SIZE = 512 * 1024 * 1024
MAX_META_SIZE = 64 * 1024


class FetchError(Exception):
    """The plugin cannot be fetched; the message says why."""


def _plain_name(value: Any, what: str) -> str:
    """A file name from the index that may be written into ``DIR`` (no paths)."""
    if (
        not isinstance(value, str)
        or not PACKAGE_RE.match(value)
        or ".." in value
        or PurePosixPath(value).name != value
    ):
        raise FetchError(f"the hub offers a bad {what} name: {value!r}")
    return value


def check_archive(data: bytes) -> None:
    """Refuse an archive that is not a zip or names a member outside its top level.

    The hub imports archives without unpacking them; this keeps a downloaded archive
    safe for any tool that does unpack it.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = archive.namelist()
    except zipfile.BadZipFile as e:
        raise FetchError(f"the package is not a valid archive: {e}") from e
    for name in names:
        path = PurePosixPath(name.replace("\\", "/"))
        if path.is_absolute() or ".." in path.parts or "\0" in name or ":" in path.parts[0]:
            raise FetchError(f"the archive names a path outside itself: {name!r}")


def describe_error(error: BaseException) -> str:
    """A short text for a transport error (``ResponseFailed`` holds a list of failures;
    a certificate that fails its check says so, see :func:`hub.tls.describe`)."""
    reasons = getattr(error, "reasons", None)  # foreign: ssl errors only
    if reasons:
        parts = []
        for reason in reasons:
            text = describe(reason)
            parts.append(
                text if text.startswith("TLS") else f"{type(reason.value).__name__}: {text}"
            )
        return "; ".join(parts)
    return f"{type(error).__name__}: {error}".rstrip(": ")


async def _download(
    client: Any, url: str, expected_size: int, tmp: IO[bytes], progress: Any
) -> str:
    """Stream ``url`` into ``tmp``; returns the SHA-256 of what arrived."""
    response = await client.get(url)
    if response.code != 200:
        raise FetchError(f"GET {url} answered {response.code}")
    digest = hashlib.sha256()
    received = 0

    def collect(data: bytes) -> None:
        nonlocal received
        received += len(data)
        if received > max(expected_size, 0):
            raise FetchError(f"{url} is longer than the index says ({expected_size} bytes)")
        digest.update(data)
        tmp.write(data)
        progress.update(len(data))

    try:
        await treq.collect(response, collect)
    except FetchError:
        raise
    except Exception as e:
        raise FetchError(f"the download of {url} was interrupted ({describe_error(e)})") from e
    if received != expected_size:
        raise FetchError(f"{url} ended after {received} of {expected_size} bytes")
    return digest.hexdigest()


async def _download_package(
    client: Any, url: str, entry: dict[str, Any], filename: str, tmp: IO[bytes], stream: IO[str]
) -> None:
    """Stream the package of the index ``entry`` into ``tmp`` with a progress bar;
    refuse it unless its digest is the index's."""
    size, sha256 = entry["size"], entry["sha256"]
    progress = bar(
        size,
        entry["name"],
        stream,
        unit="B",
        enabled=size >= PROGRESS_MIN_SIZE,
        unit_scale=True,
        unit_divisor=1024,
    )
    with progress:
        got = await _download(client, url, size, tmp, progress)
    if got != sha256:
        raise FetchError(
            f"digest mismatch for {filename}: got sha256 {got}, the index says {sha256}"
        )


async def _index_entry(client: Any, base: str, name: str) -> dict[str, Any]:
    """The hub's index entry of the loaded plugin ``name``, with a usable ``kind``,
    ``sha256`` (lower case) and ``size``."""
    index_url = urljoin(base, "plugins/index.json")
    response = await client.get(index_url)
    if response.code != 200:
        raise FetchError(f"GET {index_url} answered {response.code}")
    index = await treq.json_content(response)
    entries = [p for p in index.get("plugins", []) if isinstance(p, dict) and p.get("name") == name]
    loaded = [p for p in entries if p.get("status") == "loaded"]
    if not loaded:
        if entries:
            raise FetchError(f"plugin {name!r} failed on the hub: {entries[0].get('reason')}")
        raise FetchError(f"the hub has no plugin {name!r}")
    entry = dict(loaded[0])
    kind = entry.get("kind")
    if kind not in ("game", "bot"):
        raise FetchError(f"plugin {name!r} has an unknown kind {kind!r}")
    sha256 = entry["sha256"] = str(entry.get("sha256") or "").lower()
    size = entry.get("size")
    if len(sha256) != 64 or not isinstance(size, int) or not 0 < size <= MAX_PACKAGE_SIZE:
        raise FetchError(f"the index gives no usable digest and size for {name!r}")
    return entry


async def _meta_text(
    client: Any,
    meta_url: str,
    meta_path: Path,
    entry: dict[str, Any],
    filename: str,
    trust: PluginTrust,
) -> str:
    """The hub's ``.meta`` of the index ``entry``, checked to describe exactly the
    package ``filename`` downloaded and accepted by ``trust``: the text to install."""
    response = await client.get(meta_url)
    if response.code != 200:
        raise FetchError(f"GET {meta_url} answered {response.code}")
    raw = await treq.content(response)
    if len(raw) > MAX_META_SIZE:
        raise FetchError(f"{meta_url} is too large")
    try:
        meta = parse_meta(meta_path, raw.decode("utf-8"))
    except (MetaError, UnicodeDecodeError) as e:
        raise FetchError(f"the hub's .meta is not usable: {e}") from e
    sha256 = entry["sha256"]
    if meta.name != entry["name"] or meta.kind != entry["kind"] or meta.package != filename:
        raise FetchError(f"the hub's .meta does not describe {filename}")
    if meta.sha256 not in (None, sha256):
        raise FetchError("the hub's .meta names another digest than its index")
    try:
        trust.check(meta, sha256)
    except SignatureError as e:
        raise FetchError(f"refused: {e}") from e
    # a signed .meta is kept byte for byte: its signature covers every byte
    return meta.signature.text if meta.signature else meta.to_toml(sha256=sha256)


def _check_target(name: str, into: Path, force: bool) -> None:
    """Refuse a bad name, and (unless ``force``) the data folder of a running hub."""
    if not NAME_RE.match(name):
        raise FetchError(f"{name!r} is not a plugin name")
    if not force and in_use(into):
        raise FetchError(
            f"{into} is the data folder of a running hub, which would load the plugin at "
            "once: install elsewhere (--into DIR) and look at it first, or use --force"
        )


def _expected(
    entry: dict[str, Any], expect: tuple[str, int] | None, max_size: int
) -> dict[str, Any]:
    """``entry`` if it has the digest and size ``expect`` says and is not too large."""
    name, sha256, size = entry["name"], entry["sha256"], entry["size"]
    if expect is not None and (sha256, size) != (expect[0].lower(), expect[1]):
        raise FetchError(
            f"the hub offers {name} with sha256 {sha256} ({size} bytes),"
            f" the index says sha256 {expect[0]} ({expect[1]} bytes)"
        )
    if size > max_size:
        raise FetchError(f"{name} is larger ({size} bytes) than the limit ({max_size})")
    return entry


async def fetch(
    name: str,
    hub_url: str,
    into: Path | str,
    client: Any = treq,
    stream: IO[str] | None = None,
    trust: PluginTrust | None = None,
    force: bool = False,
    expect: tuple[str, int] | None = None,
    max_size: int = MAX_PACKAGE_SIZE,
) -> Path:
    """Download plugin ``name`` from the hub at ``hub_url`` and install it into ``into``.

    :param client: ``treq``, an ``HTTPClient`` (:func:`hub.tls.http_client`) or an
        object with their ``get`` (``treq.testing.StubTreq``).
    :param stream: where the progress bar goes (default ``sys.stderr``; drawn only on a
        terminal).
    :param trust: which signatures to accept (default: any that verifies, and none).
    :param force: install even into the data folder of a running hub.
    :param expect: ``(sha256, size)`` the package must have, as another index says
        (the cluster's, :mod:`hub.cluster.plugins`): the hub's own index must agree,
        and the download is checked against it.
    :param max_size: the largest package accepted (bytes).
    :returns: the path of the installed ``.meta`` file.
    :raises FetchError: nothing was installed, and why.
    """
    _check_target(name, Path(into), force)
    trust = trust if trust is not None else PluginTrust()
    stream = stream if stream is not None else sys.stderr
    base = hub_url.rstrip("/") + "/"
    entry = _expected(await _index_entry(client, base, name), expect, max_size)
    kind, filename = entry["kind"], _plain_name(entry.get("file"), "package")
    package_url = urljoin(base, str(entry.get("url")))
    meta_url = urljoin(base, str(entry.get("meta_url")))

    root = Path(into)
    folder = root / ("plugins" if kind == "game" else "bots")
    meta_folder = folder / "meta"
    package_path = folder / filename
    meta_path = meta_folder / f"{name}.meta"

    temps: list[Path] = []
    created = [p for p in (root, folder, meta_folder) if not p.exists()]
    installed = False
    try:
        meta_folder.mkdir(parents=True, exist_ok=True)
        for check in (folder, meta_folder):
            if not check.resolve().is_relative_to(root.resolve()):
                raise FetchError(f"{check} leads outside {root}")
        # The package, streamed into a temporary file beside its final place.
        fd, tmp_name = tempfile.mkstemp(prefix=f".{name}-", suffix=".part", dir=folder)
        temps.append(Path(tmp_name))
        with os.fdopen(fd, "wb") as tmp:
            await _download_package(client, package_url, entry, filename, tmp, stream)
        check_archive(Path(tmp_name).read_bytes())

        text = await _meta_text(client, meta_url, meta_path, entry, filename, trust)
        fd, meta_tmp = tempfile.mkstemp(prefix=f".{name}-", suffix=".meta.part", dir=meta_folder)
        temps.append(Path(meta_tmp))
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)

        # Install: the package first, so a hub that sees the .meta finds its package.
        os.chmod(tmp_name, 0o644)
        os.chmod(meta_tmp, 0o644)
        os.replace(tmp_name, package_path)
        temps.remove(Path(tmp_name))
        os.replace(meta_tmp, meta_path)
        temps.remove(Path(meta_tmp))
        installed = True
    finally:
        for leftover in temps:
            leftover.unlink(missing_ok=True)
        if not installed:
            for made in reversed(created):
                try:
                    made.rmdir()
                except OSError:
                    pass
    return meta_path
