"""Parsing ``.meta`` files: good ones become records, bad ones name file and field."""

from __future__ import annotations

import pytest

from hub.plugins.meta import MetaError, parse_meta, version_satisfies

GOOD = """
[plugin]
name = "hello"
kind = "game"
version = "1.0.0"
summary = "Say hello."
package = "hello-1.0.0.zip"
server = "hello.server:HelloGameFactory"
client = "hello.client"
frontends = ["xml", "web"]
sha256 = "%s"
requires_hub = ">=1.0, <2"
""" % ("AB" * 32)


def test_good_meta(tmp_path):
    path = tmp_path / "hello.meta"
    path.write_text(GOOD)
    meta = parse_meta(path)
    assert meta.name == "hello"
    assert meta.kind == "game"
    assert meta.frontends == ("xml", "web")
    assert meta.server_module == "hello.server"
    assert meta.server_object == "HelloGameFactory"
    assert meta.client == "hello.client"
    assert meta.sha256 == "ab" * 32
    assert meta.path == path


def test_to_toml_round_trip(tmp_path):
    path = tmp_path / "hello.meta"
    path.write_text(GOOD)
    meta = parse_meta(path)
    text = meta.to_toml(package="other.zip", sha256=None, summary='quote " and \\ back')
    again = parse_meta(path, text)
    assert again.package == "other.zip"
    assert again.sha256 is None
    assert again.summary == 'quote " and \\ back'
    assert again.frontends == meta.frontends


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (('name = "hello"', 'name = "Hello World"'), "name"),
        (('name = "hello"', ""), "name"),
        (('kind = "game"', 'kind = "toy"'), "kind"),
        (('version = "1.0.0"', "version = 1"), "version"),
        (('server = "hello.server:HelloGameFactory"', 'server = "hello.server"'), "server"),
        (('client = "hello.client"', 'client = "hello/client.py"'), "client"),
        (('package = "hello-1.0.0.zip"', 'package = "../evil.zip"'), "package"),
        (('package = "hello-1.0.0.zip"', 'package = "sub/evil.zip"'), "package"),
        (('frontends = ["xml", "web"]', 'frontends = ["telnet"]'), "frontends"),
        (('frontends = ["xml", "web"]', 'frontends = "xml"'), "frontends"),
        (("AB" * 32, "xyz"), "sha256"),
        (('requires_hub = ">=1.0, <2"', 'requires_hub = "new enough"'), "requires_hub"),
    ],
)
def test_bad_field_is_named(tmp_path, change, field):
    path = tmp_path / "bad.meta"
    path.write_text(GOOD.replace(*change))
    with pytest.raises(MetaError) as info:
        parse_meta(path)
    assert info.value.field == field
    assert str(path) in str(info.value)
    assert repr(field) in str(info.value)


COMMANDS = """
[commands.hello-stats]
run = "hello.stats:main"
summary = "count the hellos"

[commands.hello-reset]
run = "hello.stats:reset"
"""


def test_commands_are_read_and_written_back(tmp_path):
    path = tmp_path / "hello.meta"
    path.write_text(GOOD + COMMANDS)
    meta = parse_meta(path)
    assert [(c.name, c.run, c.summary) for c in meta.commands] == [
        ("hello-reset", "hello.stats:reset", ""),
        ("hello-stats", "hello.stats:main", "count the hellos"),
    ]
    assert parse_meta(path, meta.to_toml()).commands == meta.commands
    assert parse_meta(tmp_path / "x.meta", GOOD).commands == ()


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (("[commands.hello-stats]", "[commands.Hello_Stats]"), "not a command name"),
        (('run = "hello.stats:main"', 'run = "hello.stats"'), "module.path:function"),
        (('run = "hello.stats:main"', 'run = "hello.stats:main"\ncolour = 1'), "unknown"),
        (('summary = "count the hellos"', "summary = 3"), "summary"),
        (('summary = "count the hellos"', 'summary = "%s"' % ("x" * 201)), "summary"),
    ],
)
def test_bad_command_is_named(tmp_path, change, reason):
    path = tmp_path / "bad.meta"
    path.write_text(GOOD + COMMANDS.replace(*change))
    with pytest.raises(MetaError, match=reason) as info:
        parse_meta(path)
    assert (info.value.field or "").startswith("commands")
    with pytest.raises(MetaError, match="table"):
        parse_meta(path, 'commands = "run"\n' + GOOD)


def test_not_toml(tmp_path):
    path = tmp_path / "broken.meta"
    path.write_text("[plugin\nname = ")
    with pytest.raises(MetaError, match="not valid TOML") as info:
        parse_meta(path)
    assert str(path) in str(info.value)


def test_no_plugin_table(tmp_path):
    path = tmp_path / "empty.meta"
    path.write_text('name = "x"\n')
    with pytest.raises(MetaError, match=r"no \[plugin\] table"):
        parse_meta(path)


def test_digest_without_package(tmp_path):
    path = tmp_path / "x.meta"
    path.write_text(GOOD.replace('package = "hello-1.0.0.zip"', ""))
    with pytest.raises(MetaError) as info:
        parse_meta(path)
    assert info.value.field == "sha256"


def test_unreadable(tmp_path):
    with pytest.raises(MetaError, match="cannot read"):
        parse_meta(tmp_path / "missing.meta")


@pytest.mark.parametrize(
    ("version", "requirement", "ok"),
    [
        ("1.0.0", ">=1.0", True),
        ("1.0.0", ">1.0", False),
        ("1.2", ">=1.0, <2", True),
        ("2.0", ">=1.0, <2", False),
        ("1.0", "==1.0.0", True),
        ("1.0", "!=1.0", False),
        ("0.9", "<=1", True),
    ],
)
def test_version_satisfies(version, requirement, ok):
    assert version_satisfies(version, requirement) is ok


SETTINGS = """
[settings]
hello_greeting = { type = "str", default = "hi", summary = "what it says" }
hello_loud = "bool"
hello_hosts = { type = "list", default = ["a", "b"] }
hello_wait = { type = "float", default = 2 }
"""


def test_settings_are_read_and_written_back(tmp_path):
    path = tmp_path / "hello.meta"
    path.write_text(GOOD + SETTINGS)
    meta = parse_meta(path)
    assert [(s.name, s.type, s.default) for s in meta.settings] == [
        ("hello_greeting", "str", "hi"),
        ("hello_loud", "bool", None),
        ("hello_hosts", "list", ("a", "b")),
        ("hello_wait", "float", 2),
    ]
    assert parse_meta(path, meta.to_toml()).settings == meta.settings


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (("hello_loud", "web_max_body"), "hello_<word>"),
        (("hello_loud", "hello_"), "hello_<word>"),
        (('"bool"', '"number"'), "type must be one of"),
        (('default = "hi"', "default = 3"), "not a str"),
        (("default = 2 }", "default = true }"), "not a float"),
        (('default = ["a", "b"]', "default = [1]"), "not a list"),
        (('summary = "what it says"', "colour = 1"), "type name or"),
    ],
)
def test_bad_setting_is_named(tmp_path, change, reason):
    path = tmp_path / "bad.meta"
    path.write_text(GOOD + SETTINGS.replace(*change))
    with pytest.raises(MetaError, match=reason) as info:
        parse_meta(path)
    assert (info.value.field or "").startswith("settings")
