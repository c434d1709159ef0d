"""``gamehub fetch``: download, verify, install atomically; refuse and leave nothing."""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
from pathlib import Path

import pytest
from treq.testing import StubTreq
from twisted.internet import defer
from twisted.internet.task import Clock
from twisted.web.resource import Resource

from hub.plugins.distribution import PluginsResource
from hub.plugins.fetch import PROGRESS_MIN_SIZE, FetchError, check_archive, fetch
from hub.plugins.registry import LOADED, Registry

from .helpers import FIXTURE_MODULE, make_zip_plugin, write_meta

TINY = f"{FIXTURE_MODULE}.tinygame.server:TinyGameFactory"
FIRSTBOT = f"{FIXTURE_MODULE}.tinybot:TinyBotFactory"
HUB = "http://hub.example"


def snapshot(folder: Path) -> dict[str, bytes]:
    if not folder.exists():
        return {}
    return {
        str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else b"<dir>")
        for p in sorted(folder.rglob("*"))
    }


def run(coroutine):
    """Run a coroutine that completes synchronously (StubTreq answers at once)."""
    d = defer.ensureDeferred(coroutine)
    results: list = []
    d.addBoth(results.append)
    assert results, "the fetch did not complete synchronously"
    outcome = results[0]
    if hasattr(outcome, "raiseException"):
        outcome.raiseException()
    return outcome


class TTY(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def hub(tmp_path):
    builtin = tmp_path / "meta"
    write_meta(builtin, "tiny", TINY, client=f"{FIXTURE_MODULE}.tinygame.client")
    write_meta(builtin, "firstbot", FIRSTBOT, kind="bot", frontends=[])
    data = tmp_path / "hubdata"
    archive, _ = make_zip_plugin(data, "zippy")
    registry = Registry(data, Clock(), builtin)
    registry.load()
    root = Resource()
    root.putChild(b"plugins", PluginsResource(registry))
    return registry, StubTreq(root), archive


def test_fetch_builtin_game_installs_a_working_drop_in(hub, tmp_path):
    registry, client, _ = hub
    into = tmp_path / "client"
    meta_path = run(fetch("tiny", HUB, into, client=client, stream=io.StringIO()))
    assert meta_path == into / "plugins" / "meta" / "tiny.meta"
    package = into / "plugins" / "tiny-1.0.0.zip"
    assert hashlib.sha256(package.read_bytes()).hexdigest() == registry.plugin("tiny").sha256
    assert sorted(snapshot(into)) == [
        "plugins",
        "plugins/meta",
        "plugins/meta/tiny.meta",
        "plugins/tiny-1.0.0.zip",
    ]
    second = Registry(into, Clock(), None)
    second.load()
    assert [r.status for r in second.plugins()] == [LOADED]
    assert second.game_factory("tiny").name == "tiny"


def test_fetch_bot_goes_to_bots(hub, tmp_path):
    _, client, _ = hub
    into = tmp_path / "client"
    run(fetch("firstbot", HUB, into, client=client, stream=io.StringIO()))
    assert (into / "bots" / "meta" / "firstbot.meta").is_file()
    assert (into / "bots" / "firstbot-1.0.0.zip").is_file()
    second = Registry(into, Clock(), None)
    second.load()
    assert second.bot_factory("firstbot").name == "firstbot"


def test_fetch_dropped_archive_byte_for_byte(hub, tmp_path):
    _, client, archive = hub
    into = tmp_path / "client"
    run(fetch("zippy", HUB, into, client=client, stream=io.StringIO()))
    assert (into / "plugins" / archive.name).read_bytes() == archive.read_bytes()


def test_tampered_byte_is_refused_and_dir_unchanged(hub, tmp_path):
    _, client, archive = hub
    into = tmp_path / "client"
    (into / "plugins" / "meta").mkdir(parents=True)
    (into / "plugins" / "keep.txt").write_text("mine")
    before = snapshot(into)
    data = bytearray(archive.read_bytes())
    data[len(data) // 2] ^= 0x01
    archive.write_bytes(bytes(data))
    with pytest.raises(FetchError, match="digest mismatch"):
        run(fetch("zippy", HUB, into, client=client, stream=io.StringIO()))
    assert snapshot(into) == before


def test_refusal_into_a_new_dir_leaves_no_dir(hub, tmp_path):
    _, client, archive = hub
    data = bytearray(archive.read_bytes())
    data[-1] ^= 0xFF
    archive.write_bytes(bytes(data))
    into = tmp_path / "fresh"
    with pytest.raises(FetchError, match="digest mismatch"):
        run(fetch("zippy", HUB, into, client=client, stream=io.StringIO()))
    assert not into.exists()


def test_short_download_is_refused(hub, tmp_path):
    _, client, archive = hub
    archive.write_bytes(archive.read_bytes()[:100])
    into = tmp_path / "client"
    with pytest.raises(FetchError, match="ended after 100 of"):
        run(fetch("zippy", HUB, into, client=client, stream=io.StringIO()))
    assert not into.exists()


def test_unknown_and_failed_plugins(hub, tmp_path):
    registry, client, _ = hub
    with pytest.raises(FetchError, match="no plugin 'nothing'"):
        run(fetch("nothing", HUB, tmp_path / "c", client=client, stream=io.StringIO()))
    with pytest.raises(FetchError, match="not a plugin name"):
        run(fetch("../etc", HUB, tmp_path / "c", client=client, stream=io.StringIO()))
    assert not (tmp_path / "c").exists()


def test_progress_bar_on_a_terminal_for_large_files(hub, tmp_path):
    registry, client, archive = hub
    big = TTY()
    with zipfile.ZipFile(archive, "a") as z:  # a package over PROGRESS_MIN_SIZE
        z.writestr("tinygame/noise.bin", os.urandom(PROGRESS_MIN_SIZE))
    (archive.parent / "meta" / "zippy.meta").touch()
    registry.scan()
    run(fetch("zippy", HUB, tmp_path / "big", client=client, stream=big))
    assert "100%" in big.getvalue() and "zippy" in big.getvalue()
    piped = io.StringIO()
    run(fetch("zippy", HUB, tmp_path / "piped", client=client, stream=piped))
    assert piped.getvalue() == ""  # not a terminal
    small = TTY()
    run(fetch("tiny", HUB, tmp_path / "small", client=client, stream=small))
    assert small.getvalue() == ""  # too small to bother


@pytest.mark.parametrize("member", ["../evil.py", "/abs/evil.py", "a/../../evil.py", "..\\evil.py"])
def test_archives_naming_paths_outside_are_refused(member):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("ok/__init__.py", "")
        z.writestr(member, "x")
    with pytest.raises(FetchError, match="outside"):
        check_archive(buffer.getvalue())
    with pytest.raises(FetchError, match="not a valid archive"):
        check_archive(b"plain bytes")


def test_cli_lists_fetch():
    from hub.cli import COMMANDS

    assert COMMANDS["fetch"][0] == "hub.cli.fetch:main"
    assert os.path.exists(Path(__file__).parents[2] / "hub" / "cli" / "fetch.py")
