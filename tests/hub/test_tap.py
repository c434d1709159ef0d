"""``twistd gamehub`` options: defaults, config file, command line wins, bad values."""

from __future__ import annotations

import pytest
from twisted.python import usage

from hub.tap import Options


def parse(*args):
    options = Options()
    options.parseOptions(list(args))
    return options


def test_defaults():
    options = parse()
    assert options["xml"] == "tcp:4000"
    assert options["mnm"] == "tcp:1357"
    assert options["domino"] == "tcp:7000"
    assert options["web"] == "tcp:8080"
    assert options["data"] == "./gamehub-data"
    assert options["db"] == "sqlite:gamehub-data/hub.sqlite"
    assert options["mnm-version"] == "3.1"


def test_none_switches_a_frontend_off():
    assert parse("--web", "none")["web"] == "none"
    assert parse("--xml", "NONE")["xml"] == "none"


def test_config_file_and_command_line_wins(tmp_path):
    config = tmp_path / "hub.toml"
    config.write_text('web = "tcp:8081"\nmnm = "none"\ndata = "/srv/hub"\nmnm_version = "2.0"\n')
    options = parse("--config", str(config), "--web", "tcp:9090")
    assert options["web"] == "tcp:9090"
    assert options["mnm"] == "none"
    assert options["data"] == "/srv/hub"
    assert options["db"] == "sqlite:/srv/hub/hub.sqlite"
    assert options["mnm-version"] == "2.0"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--web", "nonsense:1:2"], "--web"),
        (["--mnm-version", "three"], "--mnm-version"),
        (["--db", "mysql://x"], "--db"),
        (["--config", "/nonexistent/hub.toml"], "cannot read"),
    ],
)
def test_bad_values_are_usage_errors(args, words):
    with pytest.raises(usage.UsageError, match=words):
        parse(*args)


def test_config_file_errors(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("web = \n")
    with pytest.raises(usage.UsageError, match="bad.toml"):
        parse("--config", str(bad))
    unknown = tmp_path / "unknown.toml"
    unknown.write_text('colour = "red"\n')
    with pytest.raises(usage.UsageError, match="colour"):
        parse("--config", str(unknown))
    typed = tmp_path / "typed.toml"
    typed.write_text("web = 8080\n")
    with pytest.raises(usage.UsageError, match="string"):
        parse("--config", str(typed))


def test_every_cli_command_resolves():
    import importlib

    from hub.cli import all_commands, main

    commands = all_commands()
    assert {"match", "verify-hand", "hand-history", "domino-match", "account"} <= set(commands)
    for name, (target, summary) in commands.items():
        module, _, function = target.partition(":")
        assert callable(getattr(importlib.import_module(module), function)), name
        assert summary
    assert main(["--help"]) == 0
    assert main(["no-such-command"]) == 2


def test_front_end_settings_from_file_and_command_line(tmp_path):
    config = tmp_path / "hub.toml"
    config.write_text("[settings]\nxml_max_frame = 131072\ndomino_answer_seconds = 3\n")
    options = parse(
        "--config",
        str(config),
        "--set",
        "domino-answer-seconds=5",
        "--set",
        "mnm_announcement=Welcome back",
    )
    assert options["settings"] == {
        "xml_max_frame": 131072,
        "domino_answer_seconds": 5.0,
        "mnm_announcement": "Welcome back",
    }
    with pytest.raises(usage.UsageError, match="KEY=VALUE"):
        parse("--set", "novalue")
    bad = tmp_path / "bad.toml"
    bad.write_text('settings = "x"\n')
    with pytest.raises(usage.UsageError, match="table"):
        parse("--config", str(bad))


@pytest.mark.parametrize(
    ("text", "value"),
    [("true", True), ("YES", True), ("1", True), ("false", False), ("No", False), ("0", False)],
)
def test_boolean_settings_take_true_false_yes_no_1_0(text, value):
    assert parse("--set", f"api_require_token={text}")["settings"]["api_require_token"] is value


def test_every_documented_setting_has_a_type():
    """docs/settings.md's table lists the hub's settings; each must be declared in
    hub.ops.settings, or a bad value of it would reach the hub unchecked."""
    import re
    from pathlib import Path

    from hub.ops.settings import TYPES

    docs = (Path(__file__).resolve().parents[2] / "docs" / "settings.md").read_text()
    table = docs.split("| setting | default | meaning |", 1)[1].split("\n\n", 1)[0]
    listed = {
        name for row in table.splitlines()[2:] for name in re.findall(r"`(\w+)`", row.split("|")[1])
    }
    assert {"chat_rate", "game_event_log", "money_stop_timeout", "web_chat_rate"} <= listed
    assert sorted(listed - set(TYPES)) == []


@pytest.mark.parametrize(
    "setting",
    [
        "chat_rate=many",
        "game_event_log=-5",
        "money_retry_first=soon",
        "api_require_token=off",
        "api_require_token=",
        "api_require_token=2",
        "xml_max_frame=big",
        "xml_max_frame=1.5",
        "keep_finished=-1",
        "web_header_timeout=nan",
    ],
)
def test_bad_setting_values_are_refused(setting):
    with pytest.raises(usage.UsageError, match=setting.split("=")[0]):
        parse("--set", setting)


def test_boolean_settings_in_the_config_file(tmp_path):
    config = tmp_path / "hub.toml"
    config.write_text('[settings]\napi_require_token = false\nweb_secure_cookies = "yes"\n')
    settings = parse("--config", str(config))["settings"]
    assert settings == {"api_require_token": False, "web_secure_cookies": True}
    config.write_text('[settings]\napi_require_token = "maybe"\n')
    with pytest.raises(usage.UsageError, match="not a boolean"):
        parse("--config", str(config))
