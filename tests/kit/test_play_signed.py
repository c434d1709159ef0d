"""``gamehub play`` against a hub that requires signed plugins: the client requires a
signature too, checked against the package and ``.meta`` it downloaded (by the key
the hub trusts, or by the keys the player names), and plays nothing it refuses."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.hubprocess import HubProcess
from tests.plugins.helpers import zip_folder

from .support import FIXTURES, wait_loaded
from .test_play_cli import gamehub_play


def gamehub(*args: str, cwd) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "hub.cli", *args], capture_output=True, text=True, cwd=cwd,
        timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def signed_hub(tmp_path):
    """A hub trusting alice's key only, with Nim zipped and signed by alice dropped in;
    mallory's public key."""
    keys = {}
    for name in ("alice", "mallory"):
        gamehub("plugin", "keygen", str(tmp_path / f"{name}.key"), cwd=tmp_path)
        keys[name] = (tmp_path / f"{name}.key.pub").read_text().strip()
    config = tmp_path / "hub.toml"
    config.write_text(
        f'[settings]\nrequire_signed_plugins = true\ntrusted_plugin_keys = ["{keys["alice"]}"]\n'
    )
    hub = HubProcess(tmp_path, xml="tcp:0:interface=127.0.0.1", web="tcp:0:interface=127.0.0.1")
    hub.extra = ["--config", str(config)]
    work = tmp_path / "work"
    work.mkdir()
    zip_folder(FIXTURES / "nim", work / "nim-1.0.0.zip")
    meta = (FIXTURES / "nim.meta").read_text().replace('"nim"\nserver', '"nim-1.0.0.zip"\nserver')
    (work / "nim.meta").write_text(meta)
    gamehub("plugin", "sign", str(work / "nim-1.0.0.zip"), "--key", str(tmp_path / "alice.key"),
            cwd=work)  # fmt: skip
    with hub:
        (hub.data / "plugins" / "meta").mkdir(parents=True, exist_ok=True)
        (hub.data / "plugins" / "nim-1.0.0.zip").write_bytes((work / "nim-1.0.0.zip").read_bytes())
        (hub.data / "plugins" / "meta" / "nim.meta").write_text((work / "nim.meta").read_text())
        wait_loaded(hub, "nim")
        yield hub, keys["mallory"]
    assert hub.errors() == []


def test_play_checks_the_signature_a_hub_requires(signed_hub, tmp_path):
    hub, mallory = signed_hub
    common = ("--type", "nim", "--seat", "open", "--seat", "bot:kit-random", "--bot", "random")
    played = gamehub_play(hub, tmp_path, *common, "--name", "sig", "--password", "sig-pw-1",
                          "--register")  # fmt: skip
    assert played.returncode == 0, played.stderr
    assert "game over: " in played.stdout
    games = len(hub.get_json("/api/games"))
    refused = gamehub_play(hub, tmp_path, *common, "--name", "sig", "--password", "sig-pw-1",
                           "--trusted-key", mallory)  # fmt: skip
    assert refused.returncode == 1
    assert "refused" in refused.stderr and "alice" in refused.stderr, refused.stderr
    assert len(hub.get_json("/api/games")) == games  # no game was made for nothing
