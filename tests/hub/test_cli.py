"""The ``gamehub`` dispatcher: the hub's own commands and those plugins bring in their
``.meta`` files (read without importing the plugin or starting a hub)."""

from __future__ import annotations

import sys

import pytest

from hub import cli
from hub.meta import builtin_meta_dir

PLUGIN = """
[plugin]
name = "{name}"
kind = "game"
version = "1.0.0"
server = "{name}.server:Factory"
{extra}
"""


def meta(folder, name, commands, extra=""):
    body = PLUGIN.format(name=name, extra=extra)
    for command, run in commands.items():
        body += f'\n[commands.{command}]\nrun = "{run}"\nsummary = "{command} of {name}"\n'
    (folder / f"{name}.meta").write_text(body)


def test_builtin_plugins_bring_their_commands():
    found = cli.plugin_commands()
    assert found["verify-hand"][0] == "games.poker.verify_hand_cli:main"
    assert found["hand-history"][0] == "games.poker.hand_history_cli:main"
    assert found["match"][0] == "bots.poker.match:main"
    assert found["domino-match"][0] == "bots.kingdomino.match:main"
    assert not set(found) & set(cli.COMMANDS)  # the hub's own are its own
    text = cli.usage()
    for name in ("match", "verify-hand", "hand-history", "account", "fetch"):
        assert f"  {name} " in text
    assert "note:" not in text
    assert builtin_meta_dir().is_dir()


def test_listing_imports_no_plugin(tmp_path):
    meta(tmp_path, "ghost", {"ghost-run": "ghost_never_imported.tool:main"})
    found = cli.plugin_commands(tmp_path)
    assert found == {"ghost-run": ("ghost_never_imported.tool:main", "ghost-run of ghost")}
    assert "ghost_never_imported" not in sys.modules


def test_clashes_and_broken_meta_are_left_out_with_a_note(tmp_path):
    meta(tmp_path, "alpha", {"shared": "alpha.tool:main", "run": "alpha.tool:run"})
    meta(tmp_path, "beta", {"shared": "beta.tool:main", "beta-only": "beta.tool:main"})
    (tmp_path / "broken.meta").write_text("[plugin\n")
    problems: list[str] = []
    found = cli.plugin_commands(tmp_path, problems)
    assert found["shared"][0] == "alpha.tool:main"  # the first .meta by name keeps it
    assert found["beta-only"][0] == "beta.tool:main"
    assert "run" not in found  # the hub's own command wins
    assert len(problems) == 3
    assert any("broken.meta" in p for p in problems)
    assert any("'run' is the hub's" in p for p in problems)
    assert any("plugin beta: command 'shared' is plugin alpha's" in p for p in problems)
    assert cli.plugin_commands(tmp_path / "nowhere") == {}


def test_a_plugin_command_runs_through_the_dispatcher(capsys):
    with pytest.raises(SystemExit) as done:
        cli.main(["verify-hand", "--help"])
    assert done.value.code == 0
    assert "gamehub verify-hand" in capsys.readouterr().out
    assert cli.main(["match", "--list"]) == 0
    assert "holdem" in capsys.readouterr().out
    assert cli.main(["no-such-command"]) == 2
    assert "unknown command" in capsys.readouterr().err


def test_a_downloaded_builtin_keeps_its_commands_relative_to_its_package():
    import tomllib

    from twisted.internet.task import Clock

    from hub.plugins.registry import Registry

    registry = Registry(None, Clock())
    registry.load()
    served = registry.download("texas-holdem", "texas-holdem.meta")
    assert served is not None
    commands = tomllib.loads(served.data.decode())["commands"]
    assert commands["verify-hand"]["run"] == "poker.verify_hand_cli:main"
    assert commands["hand-history"]["summary"].startswith("print a stored poker hand")
