"""Acceptance (issue 34): ``gamehub play`` plays a kit game dropped into a running hub
with no game code installed on the client: the client module is downloaded from the
hub (size and SHA-256 checked), imported under a private name from a temporary folder,
and played over XML as a person at the terminal (scripted standard input) or as a bot.
The command runs as its own process, from a folder where the fixtures cannot be
imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import pytest_twisted
from twisted.internet import defer, reactor, task, threads

from hub import kit
from hub.cli.play import CLIENT_ROOT, PlayError, load_game

from .support import bounded, drop, payload_json, player

TIMEOUT = 60


def gamehub_play(hub, cwd: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess:
    command = [
        sys.executable, "-m", "hub.cli", "play",
        "--hub", f"127.0.0.1:{hub.ports['xml']}", "--web", hub.url(""), *args,
    ]  # fmt: skip
    return subprocess.run(
        command, input=stdin, capture_output=True, text=True, timeout=TIMEOUT, cwd=cwd
    )


def test_the_client_module_is_loaded_apart_and_forgotten(tmp_path):
    drop(tmp_path, "noughts")
    game = load_game(tmp_path / "plugins" / "meta" / "noughts.meta", "noughts")
    assert isinstance(game, kit.Game) and game.name == "noughts"
    assert type(game).__module__.startswith(CLIENT_ROOT + ".p")
    assert not [m for m in sys.modules if m.startswith(CLIENT_ROOT + ".p")]
    with pytest.raises(PlayError, match="no kit game"):
        load_game(tmp_path / "plugins" / "meta" / "noughts.meta", "nim")


def test_a_bot_plays_a_dropped_in_game_with_the_downloaded_module(hub, tmp_path):
    done = gamehub_play(
        hub, tmp_path,
        "--type", "nim", "--seat", "open", "--seat", "bot:kit-random", "--option", "piles=2",
        "--bot", "mcts", "--name", "botty", "--password", "botty-pw1", "--register",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "game over: " in done.stdout
    assert list(tmp_path.iterdir()) == []  # nothing was installed


@pytest_twisted.ensureDeferred
async def test_a_person_plays_tictactoe_at_the_terminal(hub, tmp_path):
    other = await player(hub, "oona")
    gameid = await bounded(other.create_game("noughts", "terminal game", seats=2))
    moves = "a1\nb1\nzz\nc1\n"  # X; "zz" is no move: asked again
    run = threads.deferToThread(
        gamehub_play, hub, tmp_path,
        "--game", str(gameid), "--as", "human", "--name", "hugo", "--password", "hugo-pw1",
        "--register", stdin=moves,
    )  # fmt: skip
    for _ in range(200):  # until hugo sat down (seat 0, X)
        rows = {r["gameid"]: r for r in await bounded(other.game_list())}
        if "hugo" in rows[gameid]["players"]:
            break
        await task.deferLater(reactor, 0.05, lambda: None)
    await bounded(other.join(gameid))  # O
    for seen, cell in ((1, 4), (3, 8)):
        await bounded(other.wait_for(lambda u, n=seen: _moves(u) == n))
        await bounded(other.act(gameid, f'<action>{{"move": {cell}}}</action>'))
    done = await defer.Deferred.addTimeout(run, TIMEOUT, reactor)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "'zz' is not one of the legal moves" in out
    assert "1 X X ." in out and "game over: hugo wins" in out
    assert "  1. b1" in out.split("your move:")[1]  # the legal moves, numbered, in words
    await other.close()


def _moves(update) -> int | None:
    if update.payload is None:
        return None
    kind, data = payload_json(update)
    return data.get("moves") if kind == "view" and data.get("state") == "running" else None
