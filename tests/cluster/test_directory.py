"""The directory without a database: a real lobby on a ``task.Clock``, a store that
keeps what it is asked to write, and notices handed in as text."""

from __future__ import annotations

import json
from typing import Any

from twisted.internet import defer
from twisted.internet.task import Clock

from bots.hello import HelloBotFactory
from games.hello.server import HelloGameFactory
from hub.cluster.directory import Directory
from hub.cluster.notify import quote_channel
from hub.cluster.remote import RemoteGame, snapshot
from hub.play.lobby import Lobby
from hub.store.cluster import MAX_NOTICE, channel_name, notice, write_notices
from tests.support import DictRegistry


class Store:
    """What the directory asks of the store, kept in lists."""

    hub_id = "here"

    def __init__(self) -> None:
        self.writes: list[tuple[list[dict[str, Any]], list[str]]] = []
        self.rows: list[dict[str, Any]] = []
        self.reads: list[tuple[Any, Any]] = []

    def on_availability(self, listener: Any) -> None:
        pass

    def directory_write(self, puts: Any, deletes: Any = ()) -> defer.Deferred:
        self.writes.append((list(puts), list(deletes)))
        return defer.succeed(None)

    def directory_sync(self, rows: Any) -> defer.Deferred:
        return self.directory_write(rows, [])

    def directory_rows(self, hubs: Any = None, games: Any = None) -> defer.Deferred:
        self.reads.append((hubs, games))
        found = [
            r
            for r in self.rows
            if (hubs is None or r["hub"] in hubs) and (games is None or r["id"] in games)
        ]
        return defer.succeed(found)


class Listener:
    def __init__(self) -> None:
        self.changes: list[tuple[str, str, str]] = []

    def lobby_changed(self, change: str, game: Any) -> None:
        self.changes.append((change, game.id, game.state))


def make() -> tuple[Clock, Lobby, Store, Directory, Listener]:
    clock = Clock()
    lobby = Lobby(DictRegistry([HelloGameFactory()], [HelloBotFactory()]), clock)
    store = Store()
    endpoints = {"there": {"xml": {"host": "10.0.0.2", "port": 4000, "tls": False}}}
    directory = Directory(store, lobby, clock, lambda hub: endpoints.get(hub, {}))
    directory.start()
    listener = Listener()
    directory.add_listener(listener)
    return clock, lobby, store, directory, listener


def row(game_id: str, rev: int, state: str = "waiting", hub: str = "there") -> dict[str, Any]:
    return {
        "id": game_id,
        "hub": hub,
        "rev": rev,
        "type": "hello",
        "name": f"game {game_id}",
        "state": state,
        "seats": [{"seat": 0, "player": "ann", "kind": "client", "present": True}],
        "info": {"variant": None, "frontend": "xml", "frontends": ["xml", "web"],
                 "paused": None, "observers": 2, "created": "2026-12-01T00:00:00+00:00"},
    }  # fmt: skip


def test_local_changes_are_gathered_into_one_write_and_a_removal_deletes():
    clock, lobby, store, _, _ = make()
    store.writes.clear()
    game = lobby.create_game("hello", seats=["open", "bot:hello-bot"])
    game.observe(object())
    assert store.writes == []  # gathered first
    clock.advance(1)
    [(puts, gone)] = store.writes
    assert [p["id"] for p in puts] == [game.id] and gone == []
    assert puts[0]["hub"] == "here" and puts[0]["info"]["observers"] == 1
    lobby.remove(game.id)
    clock.advance(1)
    assert store.writes[-1] == ([], [game.id])


def test_creations_published_within_the_delay_share_one_write_with_the_changes_waiting():
    clock, lobby, store, directory, _ = make()
    directory.delay, directory.publish_delay = 0.25, 0.02
    store.writes.clear()
    older = lobby.create_game("hello", seats=["open", "open"])
    clock.advance(0.1)  # its row waits (gathered for 0.25 s)
    first = lobby.create_game("hello", seats=["open", "open"])
    published = [directory.published()]
    clock.advance(0.01)
    second = lobby.create_game("hello", seats=["open", "open"])
    published.append(directory.published())  # within the first's delay: the same write
    assert store.writes == [] and not any(d.called for d in published)
    clock.advance(0.015)
    [(puts, _)] = store.writes
    assert [p["id"] for p in puts] == [older.id, first.id, second.id]
    assert all(d.called for d in published)
    third = lobby.create_game("hello", seats=["open", "open"])
    late = directory.published()
    clock.advance(0.025)
    assert late.called and [p["id"] for p in store.writes[-1][0]] == [third.id]


def test_notices_make_read_only_records_and_a_newer_revision_wins():
    _, _, _, directory, listener = make()
    directory.notice(notice("put", "there", game=row("g1", 2)))
    game = directory.get("g1")
    assert isinstance(game, RemoteGame) and game.hub == "there" and game.port == 4000
    assert game.factory.frontends == ("xml", "web") and game.factory.adapter("xml") is None
    assert [s.player for s in game.seats] == ["ann"] and game.observer_count == 2
    directory.notice(notice("put", "there", game=row("g1", 1, "over")))  # older: ignored
    directory.notice(notice("put", "there", game=row("g1", 3, "running")))
    directory.notice(notice("put", "here", game=row("g9", 1, hub="here")))  # our own
    directory.notice(notice("del", "there", id="g1"))
    directory.notice("not json")
    assert listener.changes == [
        ("created", "g1", "waiting"),
        ("changed", "g1", "running"),
        ("removed", "g1", "running"),
    ]
    data = RemoteGame.of(row("g2", 1)).to_json()
    assert data["remote"] is True and data["hub"] == "there" and data["observers"] == 2


def test_a_hub_notice_reads_that_hubs_rows_again():
    _, _, store, directory, listener = make()
    directory.notice(notice("put", "there", game=row("g1", 1)))
    directory.notice(notice("put", "there", game=row("g2", 1)))
    store.rows = [row("g1", 2, "aborted")]  # g2 is gone from the directory
    directory.notice(notice("hub", "there"))
    assert store.reads[-1] == ({"there"}, None)
    assert listener.changes[-2:] == [("changed", "g1", "aborted"), ("removed", "g2", "waiting")]


def test_a_whole_read_keeps_what_a_notice_brought_meanwhile():
    _, _, store, directory, _ = make()
    pending: defer.Deferred = defer.Deferred()
    store.directory_rows = lambda hubs=None, games=None: pending  # type: ignore[method-assign]
    directory.reload()
    directory.notice(notice("put", "there", game=row("g3", 5)))
    pending.callback([])  # the read began before g3 was written
    assert directory.get("g3") is not None


def test_a_hubs_read_keeps_a_game_that_moved_to_another_hub_meanwhile():
    """A hub stopping (SIGTERM) hands its game over: the other hubs read its rows again
    (its member notice) while the new hub's notice of the game comes; the read, begun
    before the hand-over, must not put the game back on the old hub (a door waiting
    for the game's new hub then waited in vain)."""
    _, _, store, directory, listener = make()
    directory.notice(notice("put", "there", game=row("g4", 3)))
    pending: defer.Deferred = defer.Deferred()
    store.directory_rows = lambda hubs=None, games=None: pending  # type: ignore[method-assign]
    directory.notice(notice("hub", "there"))  # the old hub stops: its rows read again
    directory.notice(notice("rows", "new", put=[row("g4", 1, hub="new")]))  # handed over
    pending.callback([row("g4", 3)])  # read before the hand-over
    assert directory.get("g4").hub == "new"
    assert listener.changes[-1] == ("changed", "g4", "waiting")


def test_a_large_row_is_announced_by_its_id_only():
    big = row("g1", 1)
    big["name"] = "x" * MAX_NOTICE
    assert len(notice("put", "there", game=big)) > MAX_NOTICE  # the store then sends the id
    _, _, store, directory, _ = make()
    store.rows = [big]
    directory.notice(notice("put", "there", id="g1"))
    assert store.reads[-1] == (None, {"g1"}) and directory.get("g1").name == big["name"]


def test_a_write_is_announced_in_as_few_notices_as_hold_it_and_heard_in_order():
    big = {**row("g99", 1), "name": "x" * MAX_NOTICE}
    rows = [row(f"g{n}", 1) for n in range(1, 40)] + [big]
    notices = write_notices("there", ["g0"], rows)
    assert all(len(text.encode()) <= MAX_NOTICE for text in notices)
    told = [json.loads(text) for text in notices]
    assert 1 < len(told) < len(rows) and {t["op"] for t in told} == {"rows"}
    in_order = [(part, x if part != "put" else x["id"]) for t in told
                for part in ("del", "put", "read") for x in t.get(part, [])]  # fmt: skip
    assert in_order == [("del", "g0")] + [("put", f"g{n}") for n in range(1, 40)] + [
        ("read", "g99")
    ]
    assert write_notices("there", [], [row("g1", 1)]) == [
        notice("rows", "there", put=[row("g1", 1)])
    ]
    _, _, store, directory, listener = make()
    store.rows = [big]
    directory.notice(notice("put", "there", game=row("g0", 1)))
    for text in notices:
        directory.notice(text)
    assert listener.changes[0] == ("created", "g0", "waiting")
    assert listener.changes[1] == ("removed", "g0", "waiting")
    assert [c[1] for c in listener.changes[2:]] == [f"g{n}" for n in range(1, 40)] + ["g99"]
    assert store.reads == [(None, {"g99"})] and directory.get("g99").name == big["name"]
    # this hub's own write is known by its beginning, and not read
    store.reads.clear()
    for text in write_notices("here", ["g1"], [row("g5", 2, hub="here"), big]):
        assert directory.notice(text) == "rows"
    assert store.reads == [] and directory.get("g1") is not None


def test_a_snapshot_of_a_local_game_reads_back_as_a_remote_game():
    clock = Clock()
    lobby = Lobby(DictRegistry([HelloGameFactory()], [HelloBotFactory()]), clock)
    game = lobby.create_game("hello", seats=["open", "bot:hello-bot"])
    copy = RemoteGame.of(json.loads(json.dumps(snapshot(game, "h1", 7))))
    assert (copy.id, copy.type, copy.name, copy.state, copy.rev) == (
        game.id, "hello", game.name, game.state, 7,
    )  # fmt: skip
    assert [s.to_json() for s in copy.seats] == [s.to_json() for s in game.seats]
    shown = {
        k: v for k, v in copy.to_json().items() if k not in ("port", "hub", "remote", "endpoints")
    }
    assert shown == json.loads(json.dumps(game.to_json()))  # what its own hub shows


def test_channel_names_are_identifiers_of_their_schema():
    assert channel_name("public") == "gamehub_public"
    assert channel_name("Gh-Test") == "gamehub_gh_test"
    assert len(channel_name("s" * 100)) <= 63
    assert quote_channel('a"b') == '"a""b"'


def test_the_players_remote_games_keep_seats_for_are_found_by_name():
    """A resumed game of another hub keeps seats for its players (``awaiting``): a
    login at this hub's door finds it by the player's name, as the rows come and go."""
    _, _, _, directory, _ = make()

    def resumed(game_id: str, rev: int, awaiting: list[str], hub: str = "there") -> dict[str, Any]:
        r = row(game_id, rev, "running", hub)
        r["info"] = {**r["info"], "awaiting": awaiting}
        return r

    directory.notice(notice("put", "there", game=resumed("g1", 1, ["ann", "bob"])))
    directory.notice(notice("put", "there", game=resumed("g2", 1, ["bob"])))
    directory.notice(notice("put", "there", game=row("g3", 1)))  # keeps none
    assert [g.id for g in directory.awaiting("ann")] == ["g1"]
    assert sorted(g.id for g in directory.awaiting("bob")) == ["g1", "g2"]
    assert directory.awaiting("carl") == []
    directory.notice(notice("put", "there", game=resumed("g1", 2, ["bob"])))  # ann is back
    assert directory.awaiting("ann") == []
    directory.notice(notice("del", "there", id="g2"))
    assert [g.id for g in directory.awaiting("bob")] == ["g1"]
    directory.notice(notice("put", "there", game=resumed("g1", 3, [])))
    assert directory.awaiting("bob") == [] and len(directory._awaited) == 0
