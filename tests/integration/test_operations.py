"""Operations: a hub that cannot start says why and exits non-zero; a slow plugin
never freezes the hub; what the hub creates is readable by its owner only."""

from __future__ import annotations

import json
import socket
import stat
import subprocess
import time

import pytest

from tests.hubprocess import LOOPBACK, ROOT, HubProcess
from tests.plugins.helpers import make_zip_plugin


def _twistd(tmp_path, *args: str) -> subprocess.CompletedProcess:
    """Run ``twistd -n gamehub`` (web front end only) with ``args``; it must end."""
    hub = HubProcess(tmp_path)
    hub.extra = list(args)
    return subprocess.run(
        hub.command(), cwd=tmp_path, capture_output=True, timeout=60, env={"PYTHONPATH": str(ROOT)}
    )


def _one_line(stderr: bytes) -> str:
    lines = [line for line in stderr.decode().splitlines() if line.strip()]
    assert len(lines) == 1, lines
    return lines[0]


def test_a_taken_port_exits_non_zero_with_one_line(tmp_path):
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen(1)
    port = taken.getsockname()[1]
    try:
        run = _twistd(tmp_path, "--web", f"tcp:{port}:interface=127.0.0.1")
    finally:
        taken.close()
    assert run.returncode != 0
    line = _one_line(run.stderr)
    assert line.startswith("gamehub: cannot start: the web front end cannot listen")
    assert "Address already in use" in line


def test_an_unreachable_database_exits_non_zero_with_one_line(tmp_path):
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there
    dsn = f"postgresql://gamehub:pw-not-logged@127.0.0.1:{port}/nowhere"
    run = _twistd(tmp_path, "--web", LOOPBACK, "--db", dsn)
    assert run.returncode != 0
    line = _one_line(run.stderr)
    assert line.startswith("gamehub: cannot start: cannot open the database postgresql://")
    assert "pw-not-logged" not in line and "***" in line


@pytest.mark.parametrize(
    "setting", ["xml_max_frame=big", "api_require_token=perhaps", "keep_finished=-5"]
)
def test_a_bad_setting_exits_non_zero_with_one_line(tmp_path, setting):
    run = _twistd(tmp_path, "--web", LOOPBACK, "--set", setting)
    assert run.returncode != 0
    line = _one_line(run.stderr)
    assert line.startswith(f"gamehub: --set {setting}")
    assert not (tmp_path / "data").exists()  # refused before anything was made


def test_data_folder_database_and_transcripts_are_owner_only(tmp_path):
    with HubProcess(tmp_path, web=LOOPBACK) as hub:
        status, body, _ = hub.request("POST", "/api/games", {"type": "hello"})
        assert status == 201, body
        game = json.loads(body)
        deadline = time.monotonic() + 10
        transcript = hub.data / "transcripts" / f"{game['id']}.log"
        while not transcript.exists():
            assert time.monotonic() < deadline, "no transcript written"
            time.sleep(0.1)
        made = [hub.data, *hub.data.rglob("*")]  # everything the hub made there
        named = [hub.data / "transcripts", hub.data / "plugins", hub.data / "bots"]
        named += [hub.data / "hub.sqlite", transcript, hub.data / "hub.sqlite.hubs"]
        assert set(named) <= set(made) and list(hub.data.glob("hub.sqlite-*"))
        for path in made:
            mode = stat.S_IMODE(path.stat().st_mode)
            assert mode & 0o077 == 0, f"{path} is {oct(mode)}"


def _plugin_status(hub, name: str) -> str | None:
    index = hub.get_json("/plugins/index.json")
    for plugin in index["plugins"]:
        if plugin["name"] == name:
            return f"{plugin['status']}: {plugin.get('reason') or ''}"
    return None


def test_a_plugin_that_sleeps_at_import_is_failed_after_its_limit(tmp_path):
    """The import runs off the reactor thread: /api/health answers while it sleeps
    (how fast is measured by bench/plugin_import.py); after its time limit it is
    reported failed, and the hub goes on."""
    hub = HubProcess(tmp_path, web=LOOPBACK)
    hub.extra = ["--set", "plugin_import_seconds=2"]
    with hub:
        make_zip_plugin(
            hub.data,
            "sleepy",
            replace={"from . import rules": "import time\ntime.sleep(8)\nfrom . import rules"},
        )
        deadline = time.monotonic() + 20
        answered_while_loading = False
        while True:
            assert time.monotonic() < deadline, "the plugin never reached failed"
            status = _plugin_status(hub, "sleepy") or ""
            if status.startswith("loading"):
                health = hub.get_json("/api/health")
                answered_while_loading = health["status"] == "ok"
            if status.startswith("failed"):
                break
            time.sleep(0.05)
        assert answered_while_loading
        assert "time limit of 2 s" in status
        assert hub.get_json("/api/health")["status"] == "ok"
    assert hub.errors() == [], hub.log()[-3000:]
