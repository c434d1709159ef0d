"""One command line: every ``gamehub`` command that touches the store takes the hub's
``--data``, ``--db`` and ``--config`` with the hub's defaults, and no command ends in a
traceback for a missing terminal or bad input (a clear line, a non-zero status)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hub.cli.store import account_parser, store_dsn, store_options
from hub.tap import PLACE_OPTIONS, Options

ROOT = Path(__file__).resolve().parents[2]

#: every command that opens the store, with the arguments it needs
STORE_COMMANDS = [
    ["account", "create", "x"],
    ["account", "password", "x"],
    ["account", "delete", "x"],
    ["account", "list"],
    ["account", "set-type", "x", "bot"],
    ["account", "grant", "x", "1"],
    ["ledger", "check"],
    ["ledger", "problems"],
    ["ledger", "hubs"],
    ["verify-hand", "h"],
    ["hand-history", "h"],
]


def gamehub(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    """``gamehub ARGS`` in a process whose stdin is not a terminal."""
    return subprocess.run(
        [sys.executable, "-m", "hub.cli", *args],
        cwd=cwd,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        timeout=60,
    )


def no_traceback(done: subprocess.CompletedProcess) -> None:
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout, done.stderr


@pytest.mark.parametrize("command", STORE_COMMANDS, ids=" ".join)
def test_every_store_command_takes_the_hubs_place_options(command, tmp_path):
    helped = gamehub(*command[:2] if command[0] in ("account", "ledger") else command[:1],
                     "--help", cwd=tmp_path)  # fmt: skip
    assert helped.returncode == 0, helped.stderr
    for long, short, _, _ in PLACE_OPTIONS:
        assert f"--{long}" in helped.stdout
        if short:
            assert f"-{short}" in helped.stdout
    # and uses them: a folder without hub data is a clear refusal, not a new database
    done = gamehub(*command, "--data", str(tmp_path / "nothing"), cwd=tmp_path)
    no_traceback(done)
    assert done.returncode in (1, 2)
    if command[:2] not in (["account", "create"], ["account", "password"]):
        assert "no hub data here: the folder" in done.stderr
    assert not (tmp_path / "nothing").exists()


def test_defaults_are_the_hubs(tmp_path, monkeypatch):
    parser = argparse.ArgumentParser()
    store_options(parser)
    args = parser.parse_args([])
    hub = Options()
    hub.parseOptions([])
    assert store_dsn(args) == hub["db"]
    config = tmp_path / "hub.toml"
    config.write_text(f'data = "{tmp_path / "srv"}"\n')
    hub = Options()
    hub.parseOptions(["--config", str(config)])
    assert store_dsn(parser.parse_args(["--config", str(config)])) == hub["db"]
    assert store_dsn(parser.parse_args(["--data", "d", "--db", "sqlite:x.db"])) == "sqlite:x.db"
    assert account_parser().parse_args(["list", "-d", "d"]).data == "d"


def test_data_db_and_config_reach_the_same_store(tmp_path):
    data = tmp_path / "hubdata"
    data.mkdir()
    made = gamehub("account", "create", "alice", "--password-stdin", "--data", str(data),
                   cwd=tmp_path, stdin="secret1\n")  # fmt: skip
    assert made.returncode == 0, made.stderr
    assert (data / "hub.sqlite").is_file()
    checked = gamehub("ledger", "check", "--data", str(data), cwd=tmp_path)
    assert checked.returncode == 0 and "issued 1000.00" in checked.stdout, checked.stderr
    config = tmp_path / "hub.toml"
    config.write_text(f'data = "{data}"\nweb = "tcp:8081"\n')
    listed = gamehub("account", "list", "--config", str(config), cwd=tmp_path)
    assert listed.returncode == 0 and "alice" in listed.stdout, listed.stderr
    listed = gamehub("account", "list", "-c", str(config), "--db", f"sqlite:{data}/hub.sqlite",
                     cwd=tmp_path)  # fmt: skip
    assert "alice" in listed.stdout
    # the default, like twistd gamehub: ./gamehub-data
    (tmp_path / "gamehub-data").mkdir()
    gamehub("account", "create", "bob", "--password", "secret2", cwd=tmp_path)
    assert (tmp_path / "gamehub-data" / "hub.sqlite").is_file()
    assert "bob" in gamehub("account", "list", cwd=tmp_path).stdout


def test_no_terminal_for_a_password(tmp_path):
    (tmp_path / "gamehub-data").mkdir()
    for action in (["create", "bob"], ["password", "bob"]):
        done = gamehub("account", *action, cwd=tmp_path)
        no_traceback(done)
        assert done.returncode == 2
        assert "no terminal to ask for the password" in done.stderr
        assert "--password-stdin" in done.stderr
    empty = gamehub("account", "create", "bob", "--password-stdin", cwd=tmp_path, stdin="")
    assert empty.returncode == 2 and "gave no password" in empty.stderr
    piped = gamehub("account", "create", "bob", "--password-stdin", cwd=tmp_path,
                    stdin="secret3\n")  # fmt: skip
    assert piped.returncode == 0, piped.stderr


@pytest.mark.parametrize(
    ("args", "status", "words"),
    [
        (["account", "grant", "nobody", "abc"], 1, "not an amount"),
        (["account", "grant", "nobody", "5"], 1, "no account named"),
        (["account", "create", "x y", "--password", "secret"], 1, "account name"),
        (["account", "create", "bob", "--password", "x"], 1, "at least 4 characters"),
        (["account", "set-type", "bob", "god"], 2, "invalid choice"),
        (["ledger", "check", "--config", "missing.toml"], 2, "cannot read config file"),
        (["ledger", "check", "--db", "mysql://x"], 2, "--db must be"),
        (["ledger", "check", "--db", "postgresql://nobody@127.0.0.1:1/x"], 1, "unavailable"),
        (["verify-hand", "nohand"], 1, "no hand"),
        (["fetch", "hello"], 2, "--into"),
        (["fetch", "hello", "--into", "x", "--ca", "ca.pem"], 2, "https://"),
        (["fetch", "hello", "--into", "x", "--trusted-key", "nonsense"], 2, "not a public key"),
        (["plugin", "sign", "missing.zip", "--key", "k"], 1, "not a file"),
        (["frobnicate"], 2, "unknown command"),
    ],
)
def test_bad_input_is_one_clear_line(tmp_path, args, status, words):
    (tmp_path / "gamehub-data").mkdir()
    done = gamehub(*args, cwd=tmp_path)
    no_traceback(done)
    assert done.returncode == status, done.stderr
    assert words in done.stderr
