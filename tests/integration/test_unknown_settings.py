"""A misspelled setting stops a real ``twistd -n gamehub`` (issue 32): on the command
line (``--set``), in a config file's ``[settings]`` or top level, the hub exits
non-zero with one line that names the key and the closest known one; a setting a
plugin declares in its ``.meta`` is known, and handed to the plugin."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hubprocess import LOOPBACK, ROOT, HubProcess
from tests.plugins.helpers import write_meta

#: a plugin declaring its settings (the tiny bot of the registry tests, built in form)
DECLARED = """
[settings]
firstbot_patience = { type = "float", default = 2.5, summary = "seconds it waits" }
firstbot_greeting = "str"
"""


def start(hub: HubProcess) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(hub.command(), cwd=hub.tmp, env=env, capture_output=True, text=True,
                          timeout=60)  # fmt: skip


def refused(done: subprocess.CompletedProcess, *words: str) -> None:
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert done.returncode != 0, done.stdout + done.stderr
    assert len(lines) == 1, lines
    assert all(word in lines[0] for word in words), lines[0]
    assert "Traceback" not in lines[0]


@pytest.mark.parametrize(
    ("how", "words"),
    [
        (["--set", "no_such_setting=1"], ["no_such_setting", "closest known setting is"]),
        (
            ["--set", "require_signed_plugin=true"],
            ["require_signed_plugin;", "require_signed_plugins"],
        ),
        (["--set", "web_max_bodyy=10"], ["web_max_bodyy", "web_max_body"]),
    ],
)
def test_an_unknown_setting_on_the_command_line_stops_the_hub(tmp_path, how, words):
    hub = HubProcess(tmp_path, web=LOOPBACK)
    hub.extra += how
    refused(start(hub), *words)


def test_an_unknown_setting_in_a_config_file_stops_the_hub(tmp_path):
    config = tmp_path / "hub.toml"
    for text, words in (
        ("[settings]\nrequire_signed_plugin = true\n", ["[settings]", "require_signed_plugins"]),
        (
            "require_signed_plugin = true\n",
            ["unknown key", "require_signed_plugins under [settings]"],
        ),
        ("wbe = 'tcp:0'\n", ["unknown key wbe", "web"]),
    ):
        config.write_text(text)
        hub = HubProcess(tmp_path, web=LOOPBACK)
        hub.extra += ["--config", str(config)]
        refused(start(hub), *words)
        # the commands that read the same file refuse it the same way
        done = subprocess.run(
            [sys.executable, "-m", "hub.cli", "account", "list", "--config", str(config),
             "--data", str(tmp_path / "data")],
            cwd=tmp_path, env=dict(os.environ, PYTHONPATH=str(ROOT)), capture_output=True,
            text=True, timeout=60,
        )  # fmt: skip
        refused(done, *words)


def test_a_plugins_declared_settings_are_known(tmp_path: Path):
    data = tmp_path / "data"
    meta = write_meta(data / "bots" / "meta", "firstbot",
                      "tests.plugins.fixtures.tinybot:TinyBotFactory", kind="bot")  # fmt: skip
    meta.write_text(meta.read_text() + DECLARED)
    hub = HubProcess(tmp_path, web=LOOPBACK, data=data)
    hub.extra += ["--set", "firstbot_patience=4", "--set", "firstbot_greeting=hi"]
    with hub:
        assert hub.get_json("/api/health")["status"] == "ok"
        assert "Plugin firstbot 1.0.0 loaded" in hub.log()
    hub = HubProcess(tmp_path / "again", web=LOOPBACK, data=data)
    (tmp_path / "again").mkdir()
    hub.extra += ["--set", "firstbot_patiense=4"]
    refused(start(hub), "firstbot_patiense", "firstbot_patience")
    hub.extra[-1] = "firstbot_patience=slow"  # typed as it declares
    refused(start(hub), "firstbot_patience", "float")
