"""A single hub restarts and resumes its own games (issue 31): real ``twistd`` hubs on
SQLite, a web player (an account) against in-hub bots in hello, nmmorris and King
Domino; SIGTERM, then kill -9; after each restart the games go on from where they
stood, with the same moves before and after, their clocks having stood still while
the hub was down, and they end normally."""

from __future__ import annotations

import json
import signal
import sqlite3
import time
import urllib.request
from pathlib import Path
from typing import Any

from tests.hubprocess import LOOPBACK, HubProcess
from tests.integration.test_cluster import wait_for

#: the morris player's time per move: the hub stays down longer than this
MOVE_MS = 6000


class Player:
    """An account's web session (cookie and CSRF token)."""

    def __init__(self, hub: HubProcess, name: str, password: str, create: bool) -> None:
        self.hub = hub
        status, raw, headers = hub.request("GET", "/api/session")
        assert status == 200, raw
        self.cookie = headers["Set-Cookie"].split(";", 1)[0]
        self.csrf = json.loads(raw)["csrf"]
        path = "/api/accounts" if create else "/api/session"
        status, answer = self.call("POST", path, {"name": name, "password": password})
        assert status in (200, 201), answer
        self.cookie = self.set_cookie or self.cookie
        self.csrf = answer["csrf"]

    def call(self, method: str, path: str, body: object = None) -> tuple[int, Any]:
        headers = {"Cookie": self.cookie, "X-CSRF-Token": self.csrf}
        status, raw, answered = self.hub.request(method, path, body, headers=headers)
        cookie = answered.get("Set-Cookie")
        self.set_cookie = cookie.split(";", 1)[0] if cookie else None
        return status, json.loads(raw)

    def snapshot(self, game_id: str) -> dict[str, Any]:
        """The first message of the game's event stream: view, legal actions."""
        request = urllib.request.Request(
            self.hub.url(f"/api/games/{game_id}/events"), headers={"Cookie": self.cookie}
        )
        with urllib.request.urlopen(request, timeout=10) as stream:  # noqa: S310
            for line in iter(stream.readline, b""):
                if line.startswith(b"data:"):
                    return dict(json.loads(line[5:]))
        raise AssertionError("the event stream sent nothing")


def create(hub: HubProcess, body: dict[str, Any]) -> str:
    status, raw, _ = hub.request("POST", "/api/games", body, admin=True)
    assert status in (200, 201), raw
    return str(json.loads(raw)["id"])


def game(hub: HubProcess, game_id: str) -> dict[str, Any]:
    status, raw, _ = hub.request("GET", f"/api/games/{game_id}")
    assert status == 200, raw
    return json.loads(raw)


def still(view: Any) -> Any:
    if isinstance(view, dict):
        return {k: still(v) for k, v in view.items() if k != "timeleft_ms"}
    if isinstance(view, list):
        return [still(v) for v in view]
    return view


def my_turn(player: Player, game_id: str, seconds: float = 20.0) -> list[Any]:
    """The actions the player may take, once it is their turn (bounded wait)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        snapshot = player.snapshot(game_id)
        if snapshot["legal"] or snapshot["game"]["state"] == "over":
            return list(snapshot["legal"])
        time.sleep(0.05)
    raise AssertionError(f"never my turn in {game_id}")


def play(player: Player, game_id: str, moves: int) -> int:
    """Play the first legal action ``moves`` times (or to the end); how many were made."""
    made = 0
    for _ in range(moves):
        legal = my_turn(player, game_id)
        if not legal:
            return made
        status, answer = player.call("POST", f"/api/games/{game_id}/actions", {"action": legal[0]})
        assert status == 200, answer
        made += 1
    return made


def journal_rows(data: Path) -> tuple[int, int]:
    """(journaled games, entries) in the hub's SQLite database."""
    db = sqlite3.connect(data / "hub.sqlite", timeout=10)
    try:
        games = db.execute("SELECT count(*) FROM game_journal").fetchone()[0]
        entries = db.execute("SELECT count(*) FROM game_journal_entry").fetchone()[0]
        return int(games), int(entries)
    finally:
        db.close()


def stored_games(data: Path, game_id: str) -> int:
    """How many rows of ``game_id`` the hub's SQLite history holds (0 or 1)."""
    db = sqlite3.connect(data / "hub.sqlite", timeout=10)
    try:
        return int(
            db.execute("SELECT count(*) FROM game WHERE game_id = ?", (game_id,)).fetchone()[0]
        )
    finally:
        db.close()


def test_a_restarted_hub_resumes_its_games_after_sigterm_and_after_kill_9(tmp_path):
    hub = HubProcess(tmp_path, web=LOOPBACK)
    hub.start()
    try:
        alice = Player(hub, "alice", "alice-pw-1", create=True)
        hello = create(hub, {"type": "hello", "seats": ["human", "bot:hello-bot"]})
        morris = create(
            hub,
            {
                "type": "nmmorris",
                "seats": ["human", "bot:morris-random"],
                "options": {"move_time_ms": MOVE_MS, "grace_ms": 0},
            },
        )
        domino = create(
            hub,
            {
                "type": "kingdomino",
                "seats": ["human"] + ["bot:domino-random"] * 3,
                "options": {"answer_seconds": 20},
            },
        )
        for g in (hello, morris, domino):
            status, answer = alice.call("POST", f"/api/games/{g}/seats", {"seat": 0})
            assert status == 200, answer
        assert play(alice, morris, 3) == 3 and play(alice, domino, 2) == 2
        my_turn(alice, morris)
        before = {g: game(hub, g) for g in (hello, morris, domino)}
        left = before[morris]["view"]["timeleft_ms"]
        assert before[morris]["state"] == "running" and left is not None

        # 1. SIGTERM: the games are left to their journal, the clocks stand still
        hub.stop(signal.SIGTERM)
        assert "gamehub stopped" in hub.log(), hub.log()
        assert "running games left to their journal" in hub.log()
        assert journal_rows(hub.data)[0] == 3
        time.sleep(MOVE_MS / 1000 + 0.5)  # longer than the morris player had left
        hub.start()
        assert "journal: game " + morris in hub.log() and not hub.errors(), hub.log()
        after = {g: game(hub, g) for g in (hello, morris, domino)}
        for g in (hello, morris, domino):
            assert after[g]["state"] == before[g]["state"], g
            assert still(after[g]["view"]) == still(before[g]["view"]), g
        assert after[morris]["seats"][0]["player"] == "alice"
        # she comes back to her seats, and lost nothing on time
        alice = Player(hub, "alice", "alice-pw-1", create=False)
        for g in (hello, morris, domino):
            status, answer = alice.call("POST", f"/api/games/{g}/seats", {"seat": 0})
            assert status == 200 and answer["seat"] == 0, answer
        assert play(alice, morris, 2) == 2, game(hub, morris)
        assert play(alice, domino, 1) == 1
        # the writes of the moves reach the store within a reactor turn or two
        entries = journal_rows(hub.data)[1]
        time.sleep(0.3)
        entries = wait_for(
            lambda: journal_rows(hub.data)[1] >= entries and journal_rows(hub.data)[1], "entries"
        )
        my_turn(alice, morris)
        before = {g: game(hub, g) for g in (morris, domino)}

        # 2. kill -9: what was journaled is resumed
        hub.stop(signal.SIGKILL)
        hub.start()
        assert not hub.errors(), hub.log()
        after = {g: game(hub, g) for g in (morris, domino)}
        for g in (morris, domino):
            assert still(after[g]["view"]) == still(before[g]["view"]), g
        alice = Player(hub, "alice", "alice-pw-1", create=False)
        for g in (hello, morris, domino):
            status, answer = alice.call("POST", f"/api/games/{g}/seats", {"seat": 0})
            assert status == 200, answer
        # every game ends normally
        status, answer = alice.call(
            "POST", f"/api/games/{hello}/actions", {"action": {"hello": "back"}}
        )
        assert status == 200, answer
        play(alice, morris, 400)
        play(alice, domino, 400)
        for g in (hello, morris, domino):
            final = wait_for(lambda g=g: game(hub, g)["state"] == "over" and game(hub, g), g)
            assert "time" not in json.dumps(final.get("result") or {}).lower(), final
        # the history is written and the journal dropped
        wait_for(lambda: journal_rows(hub.data)[0] == 0, "the journals dropped")
        assert not hub.errors(), hub.log()
    finally:
        hub.stop()


def table_state(data: Path, game_id: str) -> tuple[int, int, int]:
    """(hands settled, chips at the table, refund rows) of a chip table."""
    db = sqlite3.connect(data / "hub.sqlite", timeout=10)
    try:
        hands, distinct = db.execute(
            "SELECT count(*), count(DISTINCT hand_key) FROM finished_hand WHERE game_id = ?",
            (game_id,),
        ).fetchone()
        assert hands == distinct, "a hand settled twice"
        chips = db.execute(
            "SELECT coalesce(sum(amount), 0) FROM table_chips WHERE game_id = ?", (game_id,)
        ).fetchone()[0]
        refunds = db.execute(
            "SELECT count(*) FROM ledger WHERE kind = 'refund' AND game_id = ?", (game_id,)
        ).fetchone()[0]
        return int(hands), int(chips), int(refunds)
    finally:
        db.close()


def test_a_chip_table_resumes_with_its_chips_and_settles_every_hand_once(tmp_path):
    from tests.store.test_cli_and_crash import gamehub

    hub = HubProcess(tmp_path, web=LOOPBACK)
    hub.start()
    try:
        table = create(
            hub,
            {
                "type": "texas-holdem",
                "seats": ["bot:caller", "bot:raiser"],
                "options": {"showdown_pause": 0},
                "bots_only": True,  # it deals on however long the test runs
                "broke_bots": "rebuy",  # and a broke bot buys in again
            },
        )
        dsn = "sqlite:" + str(hub.data / "hub.sqlite")
        wait_for(lambda: table_state(hub.data, table)[0] >= 3, "three hands settled")
        for stop in (signal.SIGTERM, signal.SIGKILL):
            hub.stop(stop)
            hands, chips, refunds = table_state(hub.data, table)
            assert chips > 0 and refunds == 0  # the chips stay at the table for its resume
            hub.start()
            assert f"journal: game {table} (texas-holdem) resumed" in hub.log(), hub.log()
            assert game(hub, table)["state"] == "running"
            # it deals on: more hands, each settled once, no refund, chips conserved
            wait_for(lambda h=hands: table_state(hub.data, table)[0] >= h + 3, "more hands")
            assert table_state(hub.data, table)[2] == 0
            r = gamehub("ledger", "check", "--db", dsn)
            assert r.returncode == 0, r.stdout + r.stderr
            assert not hub.errors(), hub.log()
    finally:
        hub.stop()


def test_a_game_over_before_its_history_was_written_is_recorded_after_kill_9(tmp_path):
    """Finished games wait up to ``history_batch_seconds`` to be written together (issue
    36): a hub killed in that wait keeps the game's journal, and the hub started again
    replays the game to its end and writes its history (once), then drops the journal.
    The wait is made long here, so the kill falls in it for sure."""
    hub = HubProcess(tmp_path, web=LOOPBACK)
    hub.extra = ["--set", "history_batch_seconds=600"]
    hub.start()
    try:
        over = create(hub, {"type": "hello", "seats": ["bot:hello-bot", "bot:hello-bot"]})
        wait_for(lambda: game(hub, over)["state"] == "over", "the game over")
        wait_for(lambda: journal_rows(hub.data)[0] == 1, "the game journaled")
        assert stored_games(hub.data, over) == 0  # it waits (the lobby still shows it)
        hub.stop(signal.SIGKILL)
        hub.extra = []
        hub.start()
        wait_for(lambda: journal_rows(hub.data)[0] == 0, "the journal dropped")
        assert stored_games(hub.data, over) == 1
        kept = hub.get_json(f"/api/history?game={over}")
        assert [h["game_id"] for h in kept] == [over]
        assert [p["name"] for p in kept[0]["players"]] == ["hello-bot", "hello-bot-2"]
        assert game(hub, over)["state"] == "over"
        assert not hub.errors(), hub.log()
    finally:
        hub.stop()
