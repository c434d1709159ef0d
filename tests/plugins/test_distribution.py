"""Serving plugins over HTTP: the index, the files, and nothing else."""

from __future__ import annotations

import hashlib
import io
import json
import os
import tomllib
import zipfile

import pytest
from twisted.internet.address import IPv4Address
from twisted.internet.task import Clock
from twisted.internet.testing import StringTransport
from twisted.web.resource import Resource
from twisted.web.server import Site

from hub.plugins.distribution import PluginIndexResource, PluginsResource, plugin_index
from hub.plugins.registry import Registry

from .helpers import FIXTURE_MODULE, copy_fixture, make_zip_plugin, write_meta, zip_folder

TINY = f"{FIXTURE_MODULE}.tinygame.server:TinyGameFactory"
NOMETHOD = f"{FIXTURE_MODULE}.nomethod.server:NoCreateFactory"


class Response:
    def __init__(self, raw: bytes) -> None:
        head, _, self.body = raw.partition(b"\r\n\r\n")
        lines = head.split(b"\r\n")
        self.status = int(lines[0].split()[1])
        self.headers: dict[str, str] = {}
        for line in lines[1:]:
            key, _, value = line.partition(b":")
            self.headers[key.decode().lower()] = value.decode().strip()


def get(site: Site, path: bytes, headers: bytes = b"") -> Response:
    """Send one raw HTTP/1.1 request through the site's real protocol."""
    channel = site.buildProtocol(IPv4Address("TCP", "127.0.0.1", 12345))
    transport = StringTransport()
    channel.makeConnection(transport)
    channel.dataReceived(b"GET " + path + b" HTTP/1.1\r\nHost: hub\r\n" + headers + b"\r\n")
    raw = transport.value()
    channel.connectionLost(None)
    assert raw, path
    return Response(raw)


@pytest.fixture
def setup(tmp_path):
    builtin = tmp_path / "meta"
    write_meta(builtin, "tiny", TINY, client=f"{FIXTURE_MODULE}.tinygame.client")
    write_meta(builtin, "nomethod", NOMETHOD)
    data = tmp_path / "data"
    archive, _ = make_zip_plugin(data, "zippy")
    # A package that is a symbolic link leading outside the plugin folder.
    work = tmp_path / "work"
    copy_fixture("tinygame", work, {'NAME = "tiny"': 'NAME = "linked"'})
    zip_folder(work, tmp_path / "outside.zip", "tinygame")
    os.symlink(tmp_path / "outside.zip", data / "plugins" / "linked.zip")
    write_meta(
        data / "plugins" / "meta", "linked", "tinygame.server:TinyGameFactory", package="linked.zip"
    )
    (tmp_path / "secret.txt").write_text("secret")
    registry = Registry(data, Clock(), builtin)
    registry.load()
    root = Resource()
    root.putChild(b"plugins", PluginsResource(registry))
    api = Resource()
    root.putChild(b"api", api)
    api.putChild(b"plugins", PluginIndexResource(registry))
    site = Site(root)
    site.displayTracebacks = False
    return registry, site, archive


def test_index(setup):
    registry, site, archive = setup
    response = get(site, b"/plugins/index.json")
    assert response.status == 200
    assert response.headers["content-type"].startswith("application/json")
    assert int(response.headers["content-length"]) == len(response.body)
    index = json.loads(response.body)
    assert index == plugin_index(registry)
    by_name = {p["name"]: p for p in index["plugins"]}
    assert set(by_name) == {"tiny", "nomethod", "zippy", "linked"}
    zippy = by_name["zippy"]
    assert zippy["status"] == "loaded"
    assert zippy["url"] == f"/plugins/zippy/{archive.name}"
    assert zippy["sha256"] == hashlib.sha256(archive.read_bytes()).hexdigest()
    assert zippy["size"] == archive.stat().st_size
    assert zippy["kind"] == "game" and zippy["frontends"] == ["web"]
    assert by_name["tiny"]["client"].endswith("tinygame.client")
    broken = by_name["nomethod"]
    assert broken["status"] == "failed"
    assert "missing method create" in broken["reason"]
    assert broken["url"] is None and broken["sha256"] is None
    assert by_name["linked"]["status"] == "failed"
    assert get(site, b"/api/plugins").body == response.body


def test_download_dropped_archive(setup):
    registry, site, archive = setup
    response = get(site, f"/plugins/zippy/{archive.name}".encode())
    assert response.status == 200
    assert response.body == archive.read_bytes()
    assert response.headers["content-type"] == "application/zip"
    assert int(response.headers["content-length"]) == archive.stat().st_size
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    assert response.headers["etag"] == f'"{digest}"'
    cached = get(
        site, f"/plugins/zippy/{archive.name}".encode(), f'If-None-Match: "{digest}"\r\n'.encode()
    )
    assert cached.status == 304 and cached.body == b""


def test_download_builtin_archive_and_meta(setup):
    registry, site, _ = setup
    index = {p["name"]: p for p in plugin_index(registry)["plugins"]}
    tiny = index["tiny"]
    response = get(site, tiny["url"].encode())
    assert response.status == 200
    assert hashlib.sha256(response.body).hexdigest() == tiny["sha256"]
    assert response.headers["etag"] == f'"{tiny["sha256"]}"'
    with zipfile.ZipFile(io.BytesIO(response.body)) as z:
        assert "tinygame/client.py" in z.namelist()
    meta = get(site, tiny["meta_url"].encode())
    assert meta.status == 200
    assert meta.headers["content-type"].startswith("application/toml")
    served = tomllib.loads(meta.body.decode())["plugin"]
    assert served["sha256"] == tiny["sha256"]
    assert served["package"] == tiny["file"]


@pytest.mark.parametrize(
    "path",
    [
        b"/plugins",
        b"/plugins/",
        b"/plugins/tiny",
        b"/plugins/tiny/",
        b"/plugins/tiny/tiny-1.0.0.zip/",
        b"/plugins/tiny/tiny-1.0.0.zip/extra",
        b"/plugins/nomethod/nomethod-1.0.0.zip",
        b"/plugins/nope/nope.zip",
        b"/plugins/../secret.txt",
        b"/plugins/tiny/../../secret.txt",
        b"/plugins/%2e%2e/secret.txt",
        b"/plugins/tiny/%2e%2e%2f%2e%2e%2fsecret.txt",
        b"/plugins/tiny/..%2F..%2Fsecret.txt",
        b"/plugins/zippy/..%5c..%5csecret.txt",
        b"/plugins/zippy/..\\..\\secret.txt",
        b"/plugins/zippy/zippy-1.0.0.zip%00",
        b"/plugins/zippy/%00",
        b"/plugins/%00/x",
        b"/plugins/%ff/x",
        b"/plugins/zippy/%ff",
        b"/plugins/zippy/.",
        b"/plugins/zippy/meta",
        b"/plugins/zippy/meta/zippy.meta",
        b"/plugins/meta/zippy.meta",
        b"/plugins/linked/linked.zip",
        b"/plugins/linked/linked.meta",
        b"/plugins/index.json/x",
        b"/plugins/INDEX.JSON",
    ],
)
def test_nothing_else_is_served(setup, path):
    _, site, _ = setup
    response = get(site, path)
    assert response.status == 404, (path, response.status)
    assert b"secret" not in response.body


def test_replaced_by_symlink_after_load_is_not_served(setup, tmp_path):
    registry, site, archive = setup
    archive.unlink()
    os.symlink(tmp_path / "secret.txt", archive)
    assert get(site, f"/plugins/zippy/{archive.name}".encode()).status == 404
