"""After a plain ``pip install .`` the built-in plugins are found and load."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.hubprocess import ROOT

PROBE = """
import json, hub.registry as r
from twisted.internet.task import Clock
registry = r.Registry(None, Clock())
registry.load()
print(json.dumps({"module": r.__file__, "meta": str(r.builtin_meta_dir()),
                  "plugins": {p.name: [p.status, p.reason] for p in registry.plugins()}}))
"""


def test_installed_copy_loads_its_builtins(tmp_path):
    site = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "--target",
            str(site),
            str(ROOT),
        ],
        check=True,
        cwd=tmp_path,
        capture_output=True,
        timeout=300,
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=elsewhere,
        env={"PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    found = json.loads(done.stdout)
    assert found["module"].startswith(str(site))
    assert found["meta"] == str(site / "hub" / "builtin_meta")
    assert found["plugins"]["hello"] == ["loaded", ""]
    assert all(status == "loaded" for status, _ in found["plugins"].values()), found
