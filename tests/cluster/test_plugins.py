"""Which plugin wins a name in the cluster's index (:func:`hub.cluster.plugins.winners`):
the newest arrival among the live hubs' rows and every tombstone."""

from __future__ import annotations

from hub.cluster.plugins import winners


def row(hub: str, sha: str, since: int, removed: bool = False, name: str = "greet") -> dict:
    return {"hub": hub, "name": name, "sha256": sha, "since": since, "removed": removed}


def test_the_newest_package_of_a_live_hub_wins():
    rows = [row("a", "1" * 64, 10), row("b", "2" * 64, 20), row("dead", "3" * 64, 30)]
    assert winners(rows, {"a", "b"})["greet"]["sha256"] == "2" * 64


def test_a_copy_never_beats_its_source_and_the_tie_is_stable():
    source, copy = row("a", "1" * 64, 10), row("b", "1" * 64, 10)
    assert winners([source, copy], {"a", "b"})["greet"]["sha256"] == "1" * 64
    assert winners([copy, source], {"a", "b"})["greet"]["sha256"] == "1" * 64


def test_a_newer_tombstone_wins_even_from_a_hub_gone_and_an_older_one_does_not():
    rows = [row("a", "1" * 64, 10), row("gone", "1" * 64, 20, removed=True)]
    assert winners(rows, {"a"})["greet"]["removed"] is True
    rows = [row("a", "1" * 64, 30), row("gone", "1" * 64, 20, removed=True)]
    assert winners(rows, {"a"})["greet"]["removed"] is False


def test_names_are_apart_and_rows_of_hubs_not_alive_count_not():
    rows = [row("a", "1" * 64, 10), row("x", "2" * 64, 50, name="other")]
    assert set(winners(rows, {"a"})) == {"greet"}
