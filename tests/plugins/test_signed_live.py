"""Signed plugins on a running ``twistd -n gamehub`` with ``require_signed_plugins``:
the signer in ``/plugins/index.json`` and ``/api/plugins``; a flipped byte of the zip, a
changed line of its ``.meta``, an unsigned and an untrusted package each refused with
its reason while the hub keeps serving; ``gamehub fetch`` with the hub's own config."""

from __future__ import annotations

import shutil
import subprocess
import sys

import pytest

from tests.hubprocess import ROOT, HubProcess

from .test_live import gamehub, wait_for


def run_gamehub(*args: str, cwd) -> subprocess.CompletedProcess:
    done = gamehub(*args, cwd=cwd)
    assert done.returncode == 0, done.stderr
    return done


@pytest.fixture
def keys(tmp_path):
    """alice (trusted by the hub) and mallory (not): key files and public keys."""
    out = {}
    for name in ("alice", "mallory"):
        run_gamehub("plugin", "keygen", str(tmp_path / f"{name}.key"), cwd=tmp_path)
        out[name] = (tmp_path / f"{name}.key", (tmp_path / f"{name}.key.pub").read_text().strip())
    return out


@pytest.fixture
def hub(tmp_path, keys):
    config = tmp_path / "hub.toml"
    config.write_text(
        f'[settings]\nrequire_signed_plugins = true\ntrusted_plugin_keys = ["{keys["alice"][1]}"]\n'
    )
    running = HubProcess(tmp_path, web="tcp:0:interface=127.0.0.1")
    running.extra = ["--config", str(config)]
    with running:
        yield running
    assert running.errors() == []


def make_game(work, name: str, key, signer: str | None = None):
    """``name``, a copy of hello zipped as docs/plugins.md says, signed with ``key``
    (``None``: unsigned); returns (zip, .meta)."""
    work.mkdir(exist_ok=True)
    package = work / name
    shutil.copytree(ROOT / "games" / "hello", package, ignore=shutil.ignore_patterns("__pycache__"))
    server = package / "server.py"
    server.write_text(server.read_text().replace('name = "hello"', f'name = "{name}"'))
    subprocess.run(
        [sys.executable, "-m", "zipfile", "-c", f"{name}-1.0.0.zip", name], cwd=work, check=True
    )
    meta = work / f"{name}.meta"
    meta.write_text(
        f'[plugin]\nname = "{name}"\nkind = "game"\nversion = "1.0.0"\n'
        f'summary = "hello, renamed"\npackage = "{name}-1.0.0.zip"\n'
        f'server = "{name}.server:HelloGameFactory"\nfrontends = ["xml", "web"]\n'
    )
    if key is not None:
        run_gamehub("plugin", "sign", str(work / f"{name}-1.0.0.zip"), "--key", str(key),
                    cwd=work)  # fmt: skip
    return work / f"{name}-1.0.0.zip", meta


def drop(hub: HubProcess, archive, meta) -> None:
    shutil.copy(archive, hub.data / "plugins" / archive.name)
    shutil.copy(meta, hub.data / "plugins" / "meta" / meta.name)


def settled(name: str):
    return lambda index: index.get(name, {}).get("status") not in (None, "loading")


def still_serving(hub: HubProcess) -> None:
    assert hub.get_json("/api/health")["status"] == "ok"
    status, body, _ = hub.request("POST", "/api/games", {"type": "hello"})
    assert status == 201, body


def test_signed_plugins_on_a_live_hub(hub, keys, tmp_path):
    work = tmp_path / "work"
    alice_key, alice = keys["alice"]
    archive, meta = make_game(work, "greet", alice_key)
    drop(hub, archive, meta)
    index = wait_for(hub, lambda i: i.get("greet", {}).get("status") == "loaded", "greet")
    assert index["greet"]["signer"] == {"name": "alice", "key": alice, "trusted": True}
    assert index["hello"]["signer"] is None  # a built-in comes with the hub
    assert hub.get_json("/api/plugins") == hub.get_json("/plugins/index.json")
    assert hub.get_json("/plugins/index.json")["require_signed_plugins"] is True
    status, _, _ = hub.request("POST", "/api/games", {"type": "greet", "seats": ["open"]})
    assert status == 201

    # one flipped byte in the signed zip
    data = bytearray(archive.read_bytes())
    data[len(data) // 2] ^= 0x01
    (hub.data / "plugins" / archive.name).write_bytes(bytes(data))
    index = wait_for(hub, lambda i: i["greet"]["status"] == "failed", "greet refused")
    assert "the package changed after alice signed it" in index["greet"]["reason"]
    still_serving(hub)

    # the zip as signed, one changed line in its .meta
    shutil.copy(archive, hub.data / "plugins" / archive.name)
    text = meta.read_text().replace('summary = "hello, renamed"', 'summary = "hello, changed"')
    (hub.data / "plugins" / "meta" / meta.name).write_text(text)
    index = wait_for(
        hub, lambda i: "the .meta changed" in (i["greet"].get("reason") or ""), "meta refused"
    )
    assert index["greet"]["status"] == "failed"
    assert "the .meta changed after alice signed it" in hub.log()
    still_serving(hub)

    # unsigned, and signed by a key the hub does not trust
    drop(hub, *make_game(work, "plain", None))
    drop(hub, *make_game(work, "sneaky", keys["mallory"][0]))
    index = wait_for(hub, lambda i: settled("plain")(i) and settled("sneaky")(i), "both")
    assert index["plain"]["status"] == "failed"
    assert "unsigned, and require_signed_plugins is on" in index["plain"]["reason"]
    assert index["sneaky"]["status"] == "failed"
    assert "which is not in trusted_plugin_keys" in index["sneaky"]["reason"]
    still_serving(hub)
    # nothing of the refused plugins ran: no game type
    for name in ("greet", "plain", "sneaky"):
        status, _, _ = hub.request("POST", "/api/games", {"type": name})
        assert status in (400, 404)


def test_fetch_with_the_hubs_config(hub, keys, tmp_path):
    work = tmp_path / "work"
    drop(hub, *make_game(work, "greet", keys["alice"][0]))
    wait_for(hub, lambda i: i.get("greet", {}).get("status") == "loaded", "greet")
    config = str(tmp_path / "hub.toml")
    into = tmp_path / "client"
    done = run_gamehub("fetch", "greet", "--hub", hub.url(""), "--into", str(into),
                       "--config", config, cwd=tmp_path)  # fmt: skip
    assert "signed by alice" in done.stdout
    # the built-in hello is unsigned: refused under the same config
    refused = gamehub("fetch", "hello", "--hub", hub.url(""), "--into", str(tmp_path / "h"),
                      "--config", config, cwd=tmp_path)  # fmt: skip
    assert refused.returncode == 1 and "unsigned" in refused.stderr
    assert not (tmp_path / "h").exists()
    # and a running hub's own folder is refused without --force
    into_hub = gamehub("fetch", "greet", "--hub", hub.url(""), "--into", str(hub.data),
                       cwd=tmp_path)  # fmt: skip
    assert into_hub.returncode == 1 and "data folder of a running hub" in into_hub.stderr
