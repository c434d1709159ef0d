"""``gamehub ladder`` and ``gamehub ratings`` in subprocesses, on SQLite and PostgreSQL:
the ladder places ``morris`` above ``morris-random`` with intervals, and a rebuild from
the stored rankings equals what the ladder stored."""

from __future__ import annotations

import re

from .test_cli_and_crash import gamehub

ROW = re.compile(
    r"^\s*(\d+)\s+(\S+)\s+bot\s+(-?\d+\.\d+)\s+\[\s*(-?\d+\.\d+),\s*(-?\d+\.\d+)\]\s+(\d+)", re.M
)


def test_ladder_places_morris_above_morris_random_and_rebuild_agrees(dsn, tmp_path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    where = ["--data", str(data), "--db", dsn]
    ladder = gamehub("ladder", "nmmorris", "--games", "2", "--seconds", "0.05", *where)
    assert ladder.returncode == 0, ladder.stderr
    rows = {m.group(2): m.groups() for m in ROW.finditer(ladder.stdout)}
    assert set(rows) == {"morris", "morris-random"}, ladder.stdout
    place, _, mu, low, high, games = rows["morris"]
    assert place == "1" and games == "2", ladder.stdout
    assert rows["morris-random"][0] == "2"
    for _, _, mu, low, high, _ in rows.values():
        assert float(low) < float(mu) < float(high)
        assert abs((float(high) - float(mu)) - (float(mu) - float(low))) < 0.02  # mu ± 2 sigma
    assert float(rows["morris"][2]) > float(rows["morris-random"][2])
    assert "2-0-0 (won-tied-lost)" in ladder.stdout

    check = gamehub("ratings", "rebuild", "--check", *where)
    assert check.returncode == 0, check.stdout + check.stderr
    assert "checked 2 ratings from 2 rated games: the recomputed values equal" in check.stdout
    shown = gamehub("ratings", "show", "nmmorris", *where)
    assert shown.returncode == 0 and [m.group(2) for m in ROW.finditer(shown.stdout)] == [
        "morris",
        "morris-random",
    ]
    again = gamehub("ratings", "rebuild", *where)
    assert again.returncode == 0 and "equal the stored ones" in again.stdout
    assert gamehub("ratings", "show", "nmmorris", *where).stdout == shown.stdout


def test_ladder_refuses_what_it_cannot_play(tmp_path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    few = gamehub("ladder", "kingdomino", "--games", "1", "--data", str(data))
    assert few.returncode == 1 and "needs 4 bots or more" in few.stderr
    bad = gamehub("ladder", "nmmorris", "--games", "0", "--data", str(data))
    assert bad.returncode == 2 and "--games is 1 to 1000" in bad.stderr
