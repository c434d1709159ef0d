"""Plugins everywhere (docs/cluster.md): a plugin zip dropped into one hub's folder is
installed on every hub of the cluster, and a tampered package is refused.

Real PostgreSQL (a database of each test's own, :func:`tests.integration.test_cluster.cluster_dsn`)
and real ``twistd gamehub`` processes on loopback; waits poll with a deadline.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path

from tests.hubprocess import HubProcess
from tests.integration.test_cluster import cluster_dsn, start_hub, three, wait_for
from tests.plugins.helpers import zip_folder
from tests.web.test_web_api import Browser

ROOT = Path(__file__).resolve().parents[2]
__all__ = ["cluster_dsn", "three"]  # fixtures


def write_plugin(work: Path, name: str) -> tuple[Path, Path]:
    """The tutorial's ``hello`` renamed ``name``: (its zip, its .meta) in ``work``."""
    package = work / name
    shutil.copytree(ROOT / "games" / "hello", package, ignore=shutil.ignore_patterns("__pycache__"))
    server = package / "server.py"
    server.write_text(server.read_text().replace('name = "hello"', f'name = "{name}"'))
    archive = work / f"{name}-1.0.0.zip"
    digest = zip_folder(package, archive)
    meta = work / f"{name}.meta"
    meta.write_text(
        "[plugin]\n"
        f'name = "{name}"\n'
        'kind = "game"\n'
        'version = "1.0.0"\n'
        'summary = "hello, renamed"\n'
        f'package = "{archive.name}"\n'
        f'server = "{name}.server:HelloGameFactory"\n'
        f'client = "{name}.client"\n'
        'frontends = ["xml", "web"]\n'
        f'sha256 = "{digest}"\n'
    )
    return archive, meta


def drop(hub: HubProcess, archive: Path, meta: Path) -> None:
    """Drop the archive, then its .meta, into ``hub``'s folder (as docs/plugins.md says)."""
    shutil.copy(archive, hub.data / "plugins" / archive.name)
    shutil.copy(meta, hub.data / "plugins" / "meta" / meta.name)


def plugin_entry(hub: HubProcess, name: str) -> dict | None:
    index = hub.get_json("/plugins/index.json")
    found = [p for p in index["plugins"] if p["name"] == name]  # type: ignore[index]
    return found[0] if found else None


def loaded(hub: HubProcess, name: str) -> dict | None:
    entry = plugin_entry(hub, name)
    return entry if entry is not None and entry["status"] == "loaded" else None


def test_a_plugin_dropped_into_a_is_played_on_c(three, tmp_path):
    a, b, c = three
    a_id = a.get_json("/api/health")["cluster"]["hub"]  # type: ignore[index]
    work = tmp_path / "work"
    work.mkdir()
    archive, meta = write_plugin(work, "greet")
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    drop(a, archive, meta)
    for hub in (b, c):
        entry = wait_for(lambda h=hub: loaded(h, "greet"), "B and C load greet")
        assert entry["sha256"] == digest and entry["source"] == "plugins"
        assert (hub.data / "plugins" / archive.name).read_bytes() == archive.read_bytes()
        assert f"fetched from hub {a_id}" in hub.log()
    # a game of it is created through C's JSON API and played there to the end
    ann, bob = Browser(c), Browser(c)
    ann.start()
    bob.start()
    status, game = ann.call(
        "POST", "/api/games", {"type": "greet", "seats": ["human"] * 2, "sit": 0}
    )
    assert status == 201 and game["type"] == "greet" and game["hub"] != a_id, game
    status, seated = bob.call("POST", f"/api/games/{game['id']}/seats", {})
    assert status == 200, seated
    for person, text in ((ann, "hi from ann"), (bob, "hi from bob")):
        status, answer = person.call(
            "POST", f"/api/games/{game['id']}/actions", {"action": {"hello": text}}
        )
        assert status == 200, answer
    # an unsigned drop-in runs isolated (docs/plugins.md): its worker answers a moment later
    final = wait_for(
        lambda: (g := c.get_json(f"/api/games/{game['id']}"))["state"] == "over" and g,  # type: ignore[index]
        "greet's game over",
    )
    assert final["state"] == "over", final  # type: ignore[index]

    # removed from A's folder: removed on every hub (running games finish)
    (a.data / "plugins" / "meta" / meta.name).unlink()
    for hub in (a, b, c):
        wait_for(lambda h=hub: plugin_entry(h, "greet") is None, "greet removed everywhere")
    assert not (c.data / "plugins" / "meta" / meta.name).exists()
    status, _, _ = c.request("POST", "/api/games", {"type": "greet"})
    assert status == 404
    for hub in three:
        assert hub.errors() == [], hub.log()


def test_a_tampered_or_unsigned_package_is_refused_and_the_hub_serves_on(tmp_path, cluster_dsn):
    hubs: list[HubProcess] = []
    try:
        a = start_hub(tmp_path, "a", cluster_dsn, extra=["--set", "cluster_plugin_retries=2"])
        hubs.append(a)
        work = tmp_path / "work"
        work.mkdir()
        archive, meta = write_plugin(work, "greet2")
        drop(a, archive, meta)
        drop(a, *write_plugin(work, "greet3"))  # unsigned, untouched
        entry = wait_for(lambda: loaded(a, "greet2"), "A loads greet2")
        wait_for(lambda: loaded(a, "greet3"), "A loads greet3")
        # the package on A changes after A published its digest: the same size, the same
        # modification time (A's registry does not notice), other bytes
        served = a.data / "plugins" / archive.name
        stat = served.stat()
        data = bytearray(served.read_bytes())
        data[-30] ^= 0xFF  # in the zip's central directory's comment-free tail
        with open(served, "r+b") as f:
            f.write(bytes(data))
        os.utime(served, ns=(stat.st_atime_ns, stat.st_mtime_ns))
        assert hashlib.sha256(served.read_bytes()).hexdigest() != entry["sha256"]

        # C requires signed plugins: A's unsigned greet3 is refused there too
        policy = ["--set", "cluster_plugin_retries=2", "--set", "require_signed_plugins=true"]
        c = start_hub(tmp_path, "c", cluster_dsn, extra=policy)
        hubs.append(c)
        wait_for(lambda: "giving up on plugin greet2" in c.log(), "C gives up on greet2")
        wait_for(lambda: "giving up on plugin greet3" in c.log(), "C gives up on greet3")
        unsigned = [line for line in c.log().splitlines() if "plugin greet3" in line]
        assert any("unsigned, and require_signed_plugins is on" in line for line in unsigned)
        assert plugin_entry(c, "greet3") is None
        refusals = [line for line in c.log().splitlines() if "plugin greet2" in line]
        assert any(
            "refused" in line and "digest mismatch" in line and entry["sha256"] in line
            for line in refusals
        ), refusals
        assert plugin_entry(c, "greet2") is None
        assert not (c.data / "plugins" / "meta" / meta.name).exists()
        assert not list((c.data / "plugins").glob("greet[23]*"))
        # C serves on: its health is ok and a game of a built-in type is played
        assert c.get_json("/api/health")["status"] == "ok"  # type: ignore[index]
        person = Browser(c)
        person.start()
        status, game = person.call(
            "POST", "/api/games", {"type": "hello", "seats": ["human"], "sit": 0}
        )
        assert status == 201, game
        status, answer = person.call(
            "POST", f"/api/games/{game['id']}/actions", {"action": {"hello": "still here"}}
        )
        assert status == 200 and c.get_json(f"/api/games/{game['id']}")["state"] == "over"  # type: ignore[index]
        for hub in hubs:
            assert hub.errors() == [], hub.log()
    finally:
        for hub in hubs:
            hub.stop()
