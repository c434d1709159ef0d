"""docs/plugins.md, "Write a bot" and "A new poker variant", are true: every block of
the two sections is run in order, as a reader would, against a running hub started
with the sections' ``gamehub.toml`` (``--config``): the files they show are written
(each block that starts with ``# <path>``), their shell lines run (``curl`` against
the test hub's web port; its data folder for ``gamehub-data``), and each table they
make is played by the bots to its end, every chip conserved."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import tomllib
from decimal import Decimal
from pathlib import Path

from tests.hubprocess import HubProcess
from tests.kit.support import wait_loaded
from tests.support import wait_until

DOC = Path(__file__).resolve().parents[1] / "docs" / "plugins.md"
POKER = DOC.parents[1] / "games" / "poker"
FENCE = re.compile(r"^( *)```(\w*)\n(.*?)^\1```$", re.S | re.M)
SECTIONS = ("Write a bot", "A new poker variant")


def blocks() -> list[tuple[str, str]]:
    """``(language, text)`` of each fenced block of the sections, in order."""
    text = DOC.read_text(encoding="utf-8")
    found = []
    for title in SECTIONS:
        section = text.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]
        found += [(lang, textwrap.dedent(body)) for _, lang, body in FENCE.findall(section)]
    return found


def played_to_the_end(hub: HubProcess, made: str, hands: int) -> None:
    """The table ``made`` (``POST /api/games``' answer) plays its ``hands`` hands and
    is over; the bots leave with what they bought in for, and each hand's winnings are
    what went into it."""
    game = json.loads(made)
    gid, kind = game["id"], game["type"]

    def over() -> dict | None:
        now = hub.get_json(f"/api/games/{gid}")
        return now if now["state"] == "over" else None

    final = wait_until(over, f"{kind} table {gid} over", 60.0)
    stacks = [Decimal(s) for s in final["result"]["scores"]]
    assert final["result"]["hands"] == hands and len(stacks) == 2, final["result"]
    assert sum(stacks) == 2 * Decimal(100) * 10, final["result"]  # 100 big blinds each
    listed = hub.get_json(f"/api/hands?type={kind}&limit=50")
    mine = [h for h in listed if h["game_id"] == gid]
    assert len(mine) == hands, listed
    for hand in mine:
        put = sum(Decimal(p["money_in"]) for p in hand["players"])
        won = sum(Decimal(p["winnings"]) for p in hand["players"])
        assert put == won > 0, hand
        if kind == "three-card-holdem":  # pairs never folds: every hand is shown down
            assert len(hand["board"]) == 4, hand
            assert [len(c) for c in hand["shown"].values()] == [3, 3], hand


def test_every_block_of_write_a_bot_and_a_new_variant_runs(tmp_path):
    found = blocks()
    assert [lang for lang, _ in found] == ["python", "toml", "sh", "sh"] + [
        "python",
        "toml",
        "toml",
        "sh",
    ]
    cwd = tmp_path / "reader"
    (cwd / "work").mkdir(parents=True)
    config = next(b for lang, b in found if b.startswith("# gamehub.toml"))
    (cwd / "gamehub.toml").write_text(config, encoding="utf-8")
    (tmp_path / "hub").mkdir()
    hub = HubProcess(tmp_path / "hub", web="tcp:0:interface=127.0.0.1")
    hub.extra += ["--config", str(cwd / "gamehub.toml")]
    hub.start()
    words = {
        "gamehub-data": str(hub.data),
        "http://127.0.0.1:8080": hub.url("").rstrip("/"),
    }
    tables = []
    try:
        for sub in ("plugins/meta", "bots/meta"):
            (hub.data / sub).mkdir(parents=True, exist_ok=True)
        for lang, body in found:
            first = body.splitlines()[0]
            if lang in ("python", "toml") and first.startswith("# "):
                path = cwd / first[2:].strip()
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(body, encoding="utf-8")
                if lang == "toml" and "plugin" in tomllib.loads(body):
                    assert tomllib.loads(body)["plugin"]["name"] in ("pairs", "three-card-holdem")
                continue
            assert lang == "sh", body
            for line in body.splitlines():
                for old, new in words.items():
                    line = line.replace(old, new)
                line = re.sub(r"^python ", f"{sys.executable} ", line)
                done = subprocess.run(
                    line, shell=True, cwd=cwd, capture_output=True, text=True, timeout=90
                )
                assert done.returncode == 0, (line, done.stdout, done.stderr)
                if line.startswith("cp ") and "/meta/" in line:
                    wait_loaded(hub, Path(line.split()[1]).stem)
                if line.startswith("curl ") and "/api/games" in line:
                    hands = json.loads(line.split(" -d ", 1)[1].strip("'"))["options"]["hands"]
                    tables.append((done.stdout, hands))
        assert len(tables) == 2
        for made, hands in tables:
            played_to_the_end(hub, made, hands)
        index = {p["name"]: p for p in hub.get_json("/plugins/index.json")["plugins"]}
        assert not index["three-card-holdem"].get("isolated"), index["three-card-holdem"]
        page = hub.request("GET", "/plugin-scripts/three-card-holdem.js")  # poker's own
        assert page[:2] == (200, (POKER / "web.js").read_bytes()), page[0]
    finally:
        hub.stop()
    assert hub.errors() == [], hub.log()
    slips = re.compile(r"played an illegal action|did not answer in time|of game \S+ failed")
    assert not slips.search(hub.log()), hub.log()  # pairs answered every decision itself
