"""Nothing grows with finished games (issues 19 and 21): open files and game records
come back to their baseline; what is kept of finished games is bounded by count."""

from __future__ import annotations

import http.client
import json
import os
import random
import resource
import time

import pytest
from twisted.internet.task import Clock

from tests.hubprocess import HubProcess

LOOPBACK = "tcp:0:interface=127.0.0.1"


def _limit_open_files() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))


def _open_files(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def _create(conn: http.client.HTTPConnection, n: int) -> list[int]:
    statuses = []
    for _ in range(n):
        conn.request(
            "POST",
            "/api/games",
            json.dumps({"type": "hello", "seats": ["bot:hello-bot"]}),
            {"Content-Type": "application/json"},
        )
        response = conn.getresponse()
        response.read()
        statuses.append(response.status)
    return statuses


def _games_listed(hub) -> int:
    return hub.get_json("/api/health")["games"]


def _wait_for_no_games(hub, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while _games_listed(hub):
        assert time.monotonic() < deadline, f"{_games_listed(hub)} games still listed"
        time.sleep(0.2)


@pytest.mark.slow
def test_two_thousand_games_under_an_open_file_limit_of_256(tmp_path):
    hub = HubProcess(tmp_path, web=LOOPBACK, preexec_fn=_limit_open_files)
    hub.extra = [
        *("--set", "keep_finished=1", "--set", "keep_finished_count=100"),
        *("--set", "retire_after=0.2", "--set", "transcript_flush_seconds=0.2"),
        *("--set", "create_rate=100000", "--set", "create_burst=100000"),
    ]
    with hub:
        pid = hub.proc.pid
        assert resource.prlimit(pid, resource.RLIMIT_NOFILE)[0] == 256
        conn = http.client.HTTPConnection("127.0.0.1", hub.ports["web"], timeout=30)
        assert _create(conn, 20) == [201] * 20  # warm up: threads, database connections
        _wait_for_no_games(hub, 30)
        conn.close()
        time.sleep(0.5)
        baseline = _open_files(pid)
        conn = http.client.HTTPConnection("127.0.0.1", hub.ports["web"], timeout=30)
        statuses = _create(conn, 2000)
        conn.close()
        assert statuses == [201] * 2000
        _wait_for_no_games(hub, 120)
        time.sleep(0.5)
        assert _open_files(pid) <= baseline
        assert len(list((hub.data / "transcripts").glob("*.log"))) >= 2000
        history = hub.get_json("/api/history?type=hello&limit=500")
        assert len(history) == 500
    assert hub.errors() == [], hub.log()[-3000:]


def test_finished_games_keep_bounded_records_in_memory(tmp_path):
    """Issue 21: creating and finishing hello games leaves a bounded number of records
    (counted, not bytes): the lobby keeps at most ``keep_finished_count`` finished
    games, each a summary; no transcript, wire id or history row piles up.
    10,000 games with GAMEHUB_SOAK=full, 2,000 otherwise."""
    from games.hello.server import HelloGameFactory
    from hub.chat import ChatService
    from hub.frontends.web.play import WebFrontend
    from hub.frontends.xml.server import KNOWN_IDS, XMLFrontend
    from hub.lobby import Lobby
    from hub.service import Seating
    from hub.transcript import Transcripts
    from tests.support import DictRegistry

    games = 10_000 if os.environ.get("GAMEHUB_SOAK") == "full" else 2_000
    keep = 50

    class Hub(Seating):
        """The parts of a hub the lobby and the front ends keep records in."""

        def __init__(self) -> None:
            self.reactor = Clock()
            self.options = {"web_history_limit": 100}
            self.transcripts = Transcripts(tmp_path / "t", self.reactor)
            self.registry = DictRegistry([HelloGameFactory()])
            self.lobby = Lobby(
                self.registry,
                self.reactor,
                transcripts=self.transcripts,
                rng=random.Random(3),
                keep_finished=3600,
                keep_finished_count=keep,
                retire_after=1,
            )
            self.chat = ChatService(self.reactor, self.lobby)
            self.store = None
            self.bound_ports: dict[str, int] = {}

        def game_json(self, game, detail=False):
            return game.to_json(detail)

    hub = Hub()
    xml = XMLFrontend(hub)
    xml.startFactory()
    web = WebFrontend(hub, hub.reactor)
    for n in range(games):
        game = hub.lobby.create_game("hello", seats=["open", "open"])
        game.take_seat(f"p{n}")
        game.take_seat(f"q{n}")
        game.act(0, {"hello": "hi"})
        game.act(1, {"hello": "bye"})
        assert game.state == "over"
        xml.wire_id(game)  # as a lobby listing over XML would
        hub.reactor.advance(0.5)
    hub.reactor.advance(2)
    listed = hub.lobby.games()
    assert len(listed) == keep == hub.lobby.finished_count
    assert all(g.retired for g in listed)  # only a summary of each
    assert hub.transcripts.live_count == 0
    assert len(xml._wire) <= keep and len(xml._known) <= KNOWN_IDS
    assert len(web.finished) == 100
    assert len(hub.reactor.getDelayedCalls()) <= 2 * keep + 1
    hub.transcripts.flush()
