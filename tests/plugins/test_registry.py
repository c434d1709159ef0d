"""The plugin registry: discovery, import, verification, failures, hot reload."""

from __future__ import annotations

import io
import os
import random
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from twisted.internet.task import Clock
from zope.interface.verify import verifyObject

from hub.interfaces import IBotFactory, IGameFactory
from hub.model import GameConfig, GameContext, NotFound
from hub.plugins.registry import (
    FAILED,
    LOADED,
    PLUGIN_MODULE_ROOT,
    POLL_INTERVAL,
    Registry,
    builtin_meta_dir,
)

from .helpers import FIXTURE_MODULE, copy_fixture, make_zip_plugin, write_meta, zip_folder

TINY = f"{FIXTURE_MODULE}.tinygame.server:TinyGameFactory"
FIRSTBOT = f"{FIXTURE_MODULE}.tinybot:TinyBotFactory"
NOMETHOD = f"{FIXTURE_MODULE}.nomethod.server:NoCreateFactory"


def record(registry: Registry, name: str):
    found = [r for r in registry.plugins() if r.name == name]
    assert len(found) == 1, found
    return found[0]


def play_tiny(factory) -> list:
    events: list = []
    context = GameContext(clock=Clock(), emit=events.append, rng=random.Random(1))
    game = factory.create(GameConfig("t", None, 1), context)
    game.seat_player(0, "ann")
    game.act(0, {"say": "ping"})
    return [e.kind for e in events]


@pytest.fixture
def builtin(tmp_path) -> Path:
    folder = tmp_path / "meta"
    folder.mkdir()
    return folder


@pytest.fixture
def data(tmp_path) -> Path:
    return tmp_path / "data"


def test_builtin_meta_dir_is_the_checkouts_meta_folder():
    here = Path(__file__).resolve().parents[2]
    # hub/builtin_meta is a link to the top-level meta/ (installed as package data)
    assert builtin_meta_dir().resolve() == (here / "meta").resolve()
    assert (builtin_meta_dir() / "hello.meta").is_file()


def test_the_builtins_load_and_offer_drop_in_archives(tmp_path):
    registry = Registry(None, Clock(), builtin_meta_dir())
    registry.load()
    failed = [(r.name, r.reason) for r in registry.plugins() if r.status != LOADED]
    assert failed == []
    assert "hello" in [g.name for g in registry.game_types()]
    hello = registry.plugin("hello")
    download = registry.download("hello", hello.filename)
    meta = registry.download("hello", hello.meta_filename)
    data = tmp_path / "data"
    (data / "plugins" / "meta").mkdir(parents=True)
    (data / "plugins" / hello.filename).write_bytes(download.data)
    (data / "plugins" / "meta" / "hello.meta").write_bytes(meta.data)
    other = Registry(data, Clock(), None)
    other.load()
    copy = other.game_factory("hello")
    assert type(copy).__module__.startswith(PLUGIN_MODULE_ROOT)


def test_builtin_game_and_bot(builtin):
    write_meta(builtin, "tiny", TINY, client=f"{FIXTURE_MODULE}.tinygame.client")
    write_meta(builtin, "firstbot", FIRSTBOT, kind="bot", frontends=[])
    registry = Registry(None, Clock(), builtin)
    registry.load()

    factory = registry.game_factory("tiny")
    assert verifyObject(IGameFactory, factory)
    assert registry.game_types() == [factory]
    assert play_tiny(factory) == ["turn", "over"]
    bot = registry.bot_factory("firstbot")
    assert verifyObject(IBotFactory, bot)
    assert registry.bots() == [bot]
    assert [r.name for r in registry.plugins()] == ["firstbot", "tiny"]
    tiny = record(registry, "tiny")
    assert tiny.status == LOADED and tiny.reason == ""
    assert tiny.source == "builtin"
    assert tiny.filename == "tiny-1.0.0.zip"
    assert tiny.frontends == ("web",)

    with pytest.raises(NotFound):
        registry.game_factory("firstbot")
    with pytest.raises(NotFound):
        registry.bot_factory("tiny")
    with pytest.raises(NotFound):
        registry.game_factory("nope")


def test_builtin_download_is_a_drop_in_archive(builtin, data, tmp_path):
    write_meta(builtin, "tiny", TINY, client=f"{FIXTURE_MODULE}.tinygame.client")
    registry = Registry(None, Clock(), builtin)
    registry.load()
    tiny = record(registry, "tiny")
    download = registry.download("tiny", "tiny-1.0.0.zip")
    assert download is not None
    assert download.sha256 == tiny.sha256 and len(download.data) == tiny.size
    # Built twice, it is the same archive (a stable digest).
    again = Registry(None, Clock(), builtin)
    again.load()
    assert record(again, "tiny").sha256 == tiny.sha256

    with zipfile.ZipFile(io.BytesIO(download.data)) as z:
        names = z.namelist()
        inner = tomllib.loads(z.read("tiny.meta").decode())["plugin"]
    assert "tinygame/server.py" in names and "tinygame/rules.py" in names
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc")]
    assert inner["package"] == "tiny-1.0.0.zip"
    assert inner["server"] == "tinygame.server:TinyGameFactory"
    assert inner["client"] == "tinygame.client"

    served = registry.download("tiny", "tiny.meta")
    assert served is not None
    served_meta = tomllib.loads(served.data.decode())["plugin"]
    assert served_meta["sha256"] == tiny.sha256

    # The download works as a drop-in for another hub.
    (data / "plugins" / "meta").mkdir(parents=True)
    (data / "plugins" / "tiny-1.0.0.zip").write_bytes(download.data)
    (data / "plugins" / "meta" / "tiny.meta").write_bytes(served.data)
    other = Registry(data, Clock(), None)
    other.load()
    assert record(other, "tiny").status == LOADED
    assert play_tiny(other.game_factory("tiny")) == ["turn", "over"]

    assert registry.download("tiny", "other.zip") is None
    assert registry.download("nope", "tiny-1.0.0.zip") is None


def test_zip_drop_in_imported_under_a_private_name(data):
    archive, _ = make_zip_plugin(data, "zippy")
    registry = Registry(data, Clock(), None)
    registry.load()
    factory = registry.game_factory("zippy")
    assert factory.name == "zippy"
    assert type(factory).__module__.startswith(PLUGIN_MODULE_ROOT + ".")
    assert "tinygame" not in sys.modules
    rec = record(registry, "zippy")
    assert rec.filename == archive.name
    assert rec.size == archive.stat().st_size
    download = registry.download("zippy", archive.name)
    assert download is not None and download.data == archive.read_bytes()
    assert play_tiny(factory) == ["turn", "over"]


def test_two_drop_ins_sharing_a_top_level_package(data):
    make_zip_plugin(data, "one")
    make_zip_plugin(data, "two")
    registry = Registry(data, Clock(), None)
    registry.load()
    one, two = registry.game_factory("one"), registry.game_factory("two")
    assert (one.name, two.name) == ("one", "two")
    assert type(one) is not type(two)


def test_folder_and_wheel_drop_ins(data):
    plugins = data / "plugins"
    copy_fixture("tinygame", plugins / "tinygame", {'NAME = "tiny"': 'NAME = "folder"'})
    write_meta(plugins / "meta", "folder", "tinygame.server:TinyGameFactory", package="tinygame")
    work = data / "work" / "wheeled"
    copy_fixture("tinygame", work, {'NAME = "tiny"': 'NAME = "wheeled"'})
    zip_folder(work, plugins / "wheeled-1.0.0-py3-none-any.whl", "wheeled")
    write_meta(
        plugins / "meta",
        "wheeled",
        "wheeled.server:TinyGameFactory",
        package="wheeled-1.0.0-py3-none-any.whl",
    )
    registry = Registry(data, Clock(), None)
    registry.load()
    assert [f.name for f in registry.game_types()] == ["folder", "wheeled"]
    folder = record(registry, "folder")
    assert folder.filename == "folder-1.0.0.zip"
    download = registry.download("folder", "folder-1.0.0.zip")
    with zipfile.ZipFile(io.BytesIO(download.data)) as z:
        assert "tinygame/server.py" in z.namelist()


def test_bot_drop_in(data):
    make_zip_plugin(
        data,
        "firstbot",
        fixture="tinybot",
        top="tinybot",
        kind="bot",
        server="tinybot:TinyBotFactory",
        frontends=[],
    )
    registry = Registry(data, Clock(), None)
    registry.load()
    assert registry.bot_factory("firstbot").name == "firstbot"
    assert record(registry, "firstbot").source == "bots"


def test_missing_method_is_named_and_others_go_on(builtin, data):
    write_meta(builtin, "nomethod", NOMETHOD)
    write_meta(builtin, "tiny", TINY)
    registry = Registry(data, Clock(), builtin)
    registry.load()
    broken = record(registry, "nomethod")
    assert broken.status == FAILED
    assert "missing method create" in broken.reason
    assert "IGameFactory" in broken.reason
    assert [f.name for f in registry.game_types()] == ["tiny"]
    with pytest.raises(NotFound):
        registry.game_factory("nomethod")
    assert registry.download("nomethod", "nomethod-1.0.0.zip") is None


def test_failures_are_logged_with_name_and_reason(builtin):
    from twisted.logger import globalLogPublisher

    write_meta(builtin, "nomethod", NOMETHOD)
    seen: list = []
    globalLogPublisher.addObserver(seen.append)
    try:
        Registry(None, Clock(), builtin).load()
    finally:
        globalLogPublisher.removeObserver(seen.append)
    from twisted.logger import formatEvent

    lines = [formatEvent(e) for e in seen]
    assert any("nomethod" in line and "missing method create" in line for line in lines), lines


def test_syntax_error(data):
    make_zip_plugin(data, "syntax", replace={"def act(self, seat, action):": "def act(self, seat"})
    registry = Registry(data, Clock(), None)
    registry.load()
    rec = record(registry, "syntax")
    assert rec.status == FAILED
    assert "SyntaxError" in rec.reason
    assert PLUGIN_MODULE_ROOT not in rec.reason  # the private module name is hidden
    assert not [m for m in sys.modules if m.endswith("_syntax") or "_syntax." in m]


def test_wrong_digest_refused_before_import(data):
    make_zip_plugin(
        data,
        "tampered",
        sha256="0" * 64,
        replace={'"""The tiny game\'s factory': 'raise RuntimeError("imported")\n"""'},
    )
    registry = Registry(data, Clock(), None)
    registry.load()
    rec = record(registry, "tampered")
    assert rec.status == FAILED
    assert "digest mismatch" in rec.reason
    assert "imported" not in rec.reason


def test_right_digest_accepted(data):
    archive, meta = make_zip_plugin(data, "signed")
    import hashlib

    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    meta.write_text(meta.read_text() + f'sha256 = "{digest}"\n')
    registry = Registry(data, Clock(), None)
    registry.load()
    assert record(registry, "signed").status == LOADED


def test_name_clash_builtin_wins_then_retry(builtin, data):
    write_meta(builtin, "tiny", TINY)
    _, meta = make_zip_plugin(data, "tiny")
    registry = Registry(data, Clock(), builtin)
    registry.load()
    records = [r for r in registry.plugins() if r.name == "tiny"]
    assert [(r.source, r.status) for r in records] == [("builtin", LOADED), ("plugins", FAILED)]
    assert "name clash" in records[1].reason
    builtin_factory = registry.game_factory("tiny")
    assert type(builtin_factory).__module__.startswith(FIXTURE_MODULE)

    (builtin / "tiny.meta").unlink()
    registry.scan()
    assert [(r.source, r.status) for r in registry.plugins()] == [("plugins", LOADED)]
    assert registry.game_factory("tiny") is not builtin_factory


def test_factory_name_must_match_meta(data):
    make_zip_plugin(data, "named", replace={'NAME = "named"': 'NAME = "other"'})
    registry = Registry(data, Clock(), None)
    registry.load()
    assert "'other'" in record(registry, "named").reason


@pytest.mark.parametrize(
    ("frontends", "reason"),
    [
        (["xml", "web"], "the front ends web, the .meta says web, xml"),
        ([], "the front ends web, the .meta says none"),
    ],
)
def test_front_ends_must_match_meta_logged_and_others_go_on(builtin, frontends, reason):
    from twisted.logger import formatEvent, globalLogPublisher

    write_meta(builtin, "tiny", TINY, frontends=frontends)
    write_meta(builtin, "firstbot", FIRSTBOT, kind="bot")
    seen: list = []
    globalLogPublisher.addObserver(seen.append)
    try:
        registry = Registry(None, Clock(), builtin)
        registry.load()
    finally:
        globalLogPublisher.removeObserver(seen.append)
    broken = record(registry, "tiny")
    assert broken.status == FAILED and reason in broken.reason
    assert registry.game_types() == [] and [b.name for b in registry.bots()] == ["firstbot"]
    lines = [formatEvent(e) for e in seen]
    assert any("tiny" in line and reason in line for line in lines), lines


def test_wrong_interface(builtin):
    write_meta(builtin, "firstbot", FIRSTBOT, kind="game")
    registry = Registry(None, Clock(), builtin)
    registry.load()
    assert "does not implement IGameFactory" in record(registry, "firstbot").reason


def test_bad_meta_listed_by_file_name(data):
    folder = data / "plugins" / "meta"
    folder.mkdir(parents=True)
    (folder / "junk.meta").write_text('[plugin]\nname = "junk"\n')
    registry = Registry(data, Clock(), None)
    registry.load()
    rec = record(registry, "junk")
    assert rec.status == FAILED
    assert "junk.meta" in rec.reason and "'kind'" in rec.reason


def test_missing_package_and_not_an_archive(data):
    write_meta(data / "plugins" / "meta", "ghost", "g.server:F", package="ghost.zip")
    (data / "plugins" / "notzip.zip").write_bytes(b"this is not a zip")
    write_meta(data / "plugins" / "meta", "notzip", "g.server:F", package="notzip.zip")
    registry = Registry(data, Clock(), None)
    registry.load()
    assert "not found" in record(registry, "ghost").reason
    assert "not a valid archive" in record(registry, "notzip").reason


def test_package_symlink_leading_outside_is_refused(data, tmp_path):
    outside = tmp_path / "outside.zip"
    work = tmp_path / "work"
    copy_fixture("tinygame", work, {'NAME = "tiny"': 'NAME = "linked"'})
    zip_folder(work, outside, "tinygame")
    (data / "plugins").mkdir(parents=True)
    os.symlink(outside, data / "plugins" / "linked.zip")
    write_meta(
        data / "plugins" / "meta", "linked", "tinygame.server:TinyGameFactory", package="linked.zip"
    )
    registry = Registry(data, Clock(), None)
    registry.load()
    assert "leads outside" in record(registry, "linked").reason


def test_requires_hub(builtin):
    write_meta(builtin, "tiny", TINY, requires_hub=">=99")
    registry = Registry(None, Clock(), builtin)
    registry.load()
    assert "needs hub >=99" in record(registry, "tiny").reason


def test_hot_install_change_and_removal(data):
    clock = Clock()
    registry = Registry(data, clock, None)
    changes: list = []
    registry.add_listener(lambda change, rec: changes.append((change, rec.name, rec.status)))
    registry.start()
    assert registry.game_types() == []

    _, meta = make_zip_plugin(data, "hot")
    clock.advance(POLL_INTERVAL)
    assert changes == [("added", "hot", LOADED)]
    first = registry.game_factory("hot")

    # Replace the archive in place with a new version: a new object, the old one lives on.
    archive, _ = make_zip_plugin(
        data / "v2", "hot", replace={'summary = "Every seat says ping."': 'summary = "v2"'}
    )
    os.replace(archive, data / "plugins" / archive.name)
    clock.advance(POLL_INTERVAL)
    assert changes[-1] == ("changed", "hot", LOADED)
    second = registry.game_factory("hot")
    assert second is not first
    assert second.summary == "v2" and first.summary == "Every seat says ping."
    assert play_tiny(first) == ["turn", "over"]  # a running game keeps its factory

    meta.unlink()
    clock.advance(POLL_INTERVAL)
    assert changes[-1] == ("removed", "hot", LOADED)
    assert registry.game_types() == []
    with pytest.raises(NotFound):
        registry.game_factory("hot")
    assert play_tiny(second) == ["turn", "over"]

    registry.stop()
    make_zip_plugin(data / "v3", "late")
    clock.advance(POLL_INTERVAL * 3)
    assert [r.name for r in registry.plugins()] == []


def test_broken_then_fixed(data):
    clock = Clock()
    registry = Registry(data, clock, None)
    registry.start()
    folder = data / "plugins" / "meta"
    (folder / "later.meta").write_text("[plugin\n")
    clock.advance(POLL_INTERVAL)
    assert record(registry, "later").status == FAILED
    (folder / "later.meta").unlink()
    make_zip_plugin(data, "later")
    clock.advance(POLL_INTERVAL)
    assert record(registry, "later").status == LOADED
    registry.stop()


def test_listener_errors_do_not_stop_the_registry(data):
    clock = Clock()
    registry = Registry(data, clock, None)

    def bad(change, rec):
        raise RuntimeError("listener broke")

    registry.add_listener(bad)
    registry.start()
    make_zip_plugin(data, "fine")
    clock.advance(POLL_INTERVAL)
    assert registry.game_factory("fine").name == "fine"
    registry.stop()


def test_meta_dropped_before_its_package(data):
    clock = Clock()
    registry = Registry(data, clock, None)
    registry.start()
    archive, meta = make_zip_plugin(data / "staging", "early")
    (data / "plugins" / "meta" / meta.name).write_bytes(meta.read_bytes())
    clock.advance(POLL_INTERVAL)
    assert "not found" in record(registry, "early").reason
    half = archive.read_bytes()[:50]
    (data / "plugins" / archive.name).write_bytes(half)  # still being copied
    clock.advance(POLL_INTERVAL)
    assert "not a valid archive" in record(registry, "early").reason
    (data / "plugins" / archive.name).write_bytes(archive.read_bytes())
    clock.advance(POLL_INTERVAL)
    assert record(registry, "early").status == LOADED
    registry.stop()


def test_unchanged_files_are_not_reloaded(data):
    clock = Clock()
    registry = Registry(data, clock, None)
    make_zip_plugin(data, "steady")
    registry.start()
    first = registry.game_factory("steady")
    changes: list = []
    registry.add_listener(lambda change, rec: changes.append(change))
    clock.advance(POLL_INTERVAL * 5)
    assert registry.game_factory("steady") is first
    assert changes == []
    registry.stop()


def test_unexpected_error_in_plugin_code_is_a_failure_not_a_crash(data):
    make_zip_plugin(
        data, "raises", replace={"    name = NAME\n": "    name = property(lambda self: 1 / 0)\n"}
    )
    make_zip_plugin(data, "fine")
    registry = Registry(data, Clock(), None)
    registry.load()
    assert "ZeroDivisionError" in record(registry, "raises").reason
    assert record(registry, "fine").status == LOADED


def test_a_plugin_gets_the_settings_it_declares(builtin, data):
    meta = write_meta(data / "bots" / "meta", "firstbot", FIRSTBOT, kind="bot")
    meta.write_text(
        meta.read_text()
        + '[settings]\nfirstbot_patience = { type = "float", default = 2.5 }\nfirstbot_tone = "str"\n'
    )
    settings = {"firstbot_tone": "dry", "web_max_body": 10}
    registry = Registry(data, Clock(), builtin, settings=settings)
    registry.load()
    factory = registry.bot_factory("firstbot")
    assert factory.settings == {"firstbot_patience": 2.5, "firstbot_tone": "dry"}


def test_the_settings_plugins_declare_are_known(builtin, data):
    from hub.settings import TYPES, declared

    meta = write_meta(data / "bots" / "meta", "web", FIRSTBOT, kind="bot")
    meta.write_text(meta.read_text() + '[settings]\nweb_max_body = "int"\nweb_colour = "str"\n')
    write_meta(data / "bots" / "meta", "broken", "x:y", kind="nope")
    found = declared([builtin, data / "bots" / "meta"])
    assert list(found) == ["web_colour"]  # the hub's own names stay the hub's
    assert "web_max_body" in TYPES
