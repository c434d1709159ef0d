"""Isolated plugins (issue 34, point 9): a drop-in whose games run in worker processes
cannot touch the hub's data, and a worker that misbehaves ends only its own game.

Real parts: the registry loads the ``rogue`` fixture from a data folder, the lobby
creates its games, and every game runs in a real worker process (``python -m
hub.plugins.isolation.worker``) on the test's reactor; the hub's "database" is a file in the
data folder, its PostgreSQL a listening loopback socket.
"""

from __future__ import annotations

import random
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import pytest_twisted
from twisted.internet import reactor

from hub.meta import builtin_meta_dir
from hub.model import GAME_OVER, OVER, Conflict, IllegalAction
from hub.play.lobby import Lobby
from hub.plugins.files import package_file
from hub.plugins.isolation.host import IsolatedFactory, Isolation, IsolationSettings
from hub.plugins.registry import Registry
from tests.support import until

FIXTURES = Path(__file__).resolve().parent / "fixtures"
SECRET = b"the hub's accounts: alice=hunter2"
#: a worker's call deadline here (a looping plugin is stopped after it)
CALL_SECONDS = 2.0


def drop_rogue(data: Path, name: str = "rogue", **fields: str) -> None:
    shutil.copytree(FIXTURES / "rogue", data / "plugins" / name)
    meta = {
        "name": name,
        "kind": "game",
        "version": "1.0",
        "summary": "rogue",
        "package": name,
        "server": f"{name}.server:RogueFactory",
        "frontends": '["xml", "web"]',
    } | fields
    lines = [f"{k} = {v}" if v.startswith("[") else f'{k} = "{v}"' for k, v in meta.items()]
    (data / "plugins" / "meta").mkdir(parents=True, exist_ok=True)
    (data / "plugins" / "meta" / f"{name}.meta").write_text("[plugin]\n" + "\n".join(lines))


@pytest.fixture
def data(tmp_path):
    data = tmp_path / "data"
    (data / "plugins").mkdir(parents=True)
    (data / "hub.sqlite").write_bytes(SECRET)
    drop_rogue(data)
    return data


@pytest.fixture
def builtins(tmp_path):
    folder = tmp_path / "builtin"
    folder.mkdir()
    shutil.copy(builtin_meta_dir() / "hello.meta", folder)
    return folder


async def start(data: Path, builtins: Path, **settings: object):
    settings = {"call_seconds": CALL_SECONDS, **settings}
    isolation = Isolation(IsolationSettings(**settings), reactor)  # type: ignore[arg-type]
    registry = Registry(data, reactor, builtin_dir=builtins, isolation=isolation)
    await registry.load()
    return isolation, registry, Lobby(registry, reactor, rng=random.Random(3))


async def seated(lobby: Lobby, **options: str):
    game = lobby.create_game("rogue", seats=["open"], options=options)
    game.take_seat("ann")
    await until(lambda: game.legal_actions(0), "the worker to seat ann")
    return game


def kinds(game, player: str | None = None) -> list[str]:
    return [e.kind for e in game.events_for(0, player)]


@pytest_twisted.ensureDeferred
async def test_an_unsigned_drop_in_runs_isolated_and_plays_to_the_end(data, builtins):
    isolation, registry, lobby = await start(data, builtins)
    record = registry.plugin("rogue")
    assert record.loaded and record.isolated and not registry.plugin("hello").isolated
    factory = registry.game_factory("rogue")
    assert isinstance(factory, IsolatedFactory)
    assert factory.protection.startswith("landlock ABI"), factory.protection
    assert "_gamehub_isolated" not in str(sys.modules.keys())  # the hub never imported it
    # its web view's files come from the hub's copy of the package
    view = factory.adapter("web")
    assert view is not None and view.script == "web.js"
    assert package_file(view, "web.js") == (FIXTURES / "rogue" / "web.js").read_bytes()
    assert package_file(factory, "server.py") == (FIXTURES / "rogue" / "server.py").read_bytes()
    assert package_file(factory, "../hub.sqlite") is None
    game = await seated(lobby)
    game.act(0, {"name": "fly"})  # the worker's game refuses it: an error event to ann
    await until(lambda: "error" in kinds(game, "ann"), "the refusal")
    assert [e.data for e in game.events_for(0, "ann") if e.kind == "error"] == [
        {"reason": "not now"}
    ]
    assert "error" not in [e.kind for e in game.events_for(None)]  # ann's alone
    await until(lambda: game.legal_actions(0), "ann's turn again")
    for count in (1, 2, 3):
        game.act(0, {"name": "count"})
        await until(lambda c=count: game.view(0).get("count") == c, f"count {count}")
    await until(lambda: game.state == OVER, "the game's end")
    assert game.result()["winners"] == [0]
    assert kinds(game).count("counted") == 3 and GAME_OVER in kinds(game)
    # the game's timers run on the hub's clock
    timed = await seated(lobby, tick="0.2")
    await until(lambda: "ticked" in kinds(timed), "the game's timer")
    (ticked,) = [e for e in timed.events_for(None) if e.kind == "ticked"]
    assert ticked.data["at"] >= timed.created + 0.2
    assert not isolation.incidents
    with pytest.raises(IllegalAction):
        game.act(0, {"name": "count"})  # over: nothing to do
    lobby.stop()


@pytest_twisted.ensureDeferred
async def test_isolation_follows_the_settings(data, builtins):
    _, registry, _ = await start(data, builtins, mode="none")
    assert not registry.plugin("rogue").isolated
    _, registry, _ = await start(data, builtins, in_process=("rogue",))
    assert not registry.plugin("rogue").isolated
    assert Isolation(IsolationSettings(mode="all"), reactor).isolates("x", signed=True)
    assert not Isolation(IsolationSettings(), reactor).isolates("x", signed=True)
    assert Isolation(IsolationSettings(isolated=("x",), mode="none"), reactor).isolates("x", True)
    _, _, lobby = await start(data, builtins, max_games=1)
    try:
        lobby.create_game("rogue", seats=["open"])
        with pytest.raises(Conflict, match="too many isolated games"):
            lobby.create_game("rogue", seats=["open"])
    finally:
        lobby.stop()
    with pytest.raises(ValueError, match="isolate_plugins"):
        IsolationSettings.from_settings({"isolate_plugins": "some"})
    with pytest.raises(ValueError, match="both"):
        IsolationSettings.from_settings({"isolated_plugins": ("a",), "in_process_plugins": ("a",)})


def attempts(data: Path, port: int) -> dict[str, tuple[dict[str, str], str]]:
    """attempt → (the game's options, what the report says)"""
    return {
        "read the database": (
            {"try": "read", "target": str(data / "hub.sqlite")},
            f"refused: open {data / 'hub.sqlite'} for reading",
        ),
        "list the data folder": (
            {"try": "list", "target": str(data)},
            f"refused: os.listdir {data}",
        ),
        "connect to the database server": (
            {"try": "connect", "target": f"127.0.0.1:{port}"},
            "refused: socket.",
        ),
        "loop forever": ({"try": "spin"}, "it did not answer in time"),
        "crash": ({"try": "crash"}, "the worker exited with status 3"),
        "eat memory": ({"try": "memory"}, "MemoryError"),
    }


@pytest_twisted.ensureDeferred
async def test_rogue_games_are_stopped_and_reported_while_the_hub_goes_on(data, builtins):
    """Six games of the plugin try six things at once; each is stopped and reported,
    and another game of the same plugin, a game in the hub's process and a new game
    play on."""
    server = socket.create_server(("127.0.0.1", 0))  # the hub's database server
    server.setblocking(False)
    tries = attempts(data, server.getsockname()[1])
    isolation, _, lobby = await start(data, builtins, memory_mb=512)
    try:
        other = await seated(lobby)  # another game of the same plugin
        hello = lobby.create_game("hello", seats=["open", "open"])  # one in the hub's process
        hello.take_seat("bob")
        rogues = {
            what: lobby.create_game("rogue", seats=["open"], options=o)
            for what, (o, _) in tries.items()
        }
        for rogue in rogues.values():
            rogue.take_seat("eve")
        for what, rogue in rogues.items():
            await until(lambda r=rogue: r.legal_actions(0), f"{what}: eve seated")
            rogue.act(0, {"name": "try"})
        for what, rogue in rogues.items():
            await until(lambda r=rogue: r.state == OVER, f"{what}: stopped", seconds=20)
            report = tries[what][1]
            assert report in rogue.result()["summary"], what
            assert rogue.result()["winners"] == []
            assert "leaked" not in kinds(rogue), what
            assert [i.reason for i in isolation.incidents if i.game_id == rogue.id] == [
                rogue.result()["summary"].split(": ", 1)[1]
            ], what
        assert len(isolation.incidents) == len(tries)
        with pytest.raises(BlockingIOError):
            server.accept()  # nobody connected
        # the hub and its other games go on
        for count in (1, 2, 3):
            other.act(0, {"name": "count"})
            await until(lambda c=count: other.view(0).get("count") == c, f"count {count}")
        assert other.state == OVER and other.result()["winners"] == [0]
        hello.take_seat("cy")
        hello.act(0, {"hello": "hi"})
        hello.act(1, {"hello": "hi"})
        assert hello.state == OVER
        again = await seated(lobby)
        assert again.legal_actions(0)
    finally:
        server.close()
        lobby.stop()


def test_the_kernel_refuses_the_data_folder_without_the_audit_hook(data, tmp_path):
    """Landlock alone (no audit hook): the data folder cannot be read, nor TCP opened."""
    work = tmp_path / "work"
    work.mkdir()
    program = (
        "import socket, sys\n"
        "from pathlib import Path\n"
        "from hub.plugins.isolation import sandbox\n"
        "import hub\n"
        f"print(sandbox.landlock(sandbox.python_paths() + [Path(hub.__file__).parent], [Path({str(work)!r})]))\n"
        f"Path({str(work)!r}, 'mine').write_text('ok')\n"
        "try:\n"
        f"    open({str(data / 'hub.sqlite')!r}, 'rb').read()\n"
        "    print('read')\n"
        "except PermissionError:\n"
        "    print('refused')\n"
        "try:\n"
        "    socket.create_connection(('127.0.0.1', 9), timeout=1)\n"
        "except PermissionError:\n"
        "    print('no tcp')\n"
        "except OSError as e:\n"
        "    print('tcp', e)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, cwd=work
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["landlock ABI 7", "refused", "no tcp"] or (
        done.stdout.startswith("landlock ABI") and "refused\nno tcp" in done.stdout
    ), done.stdout
    assert (work / "mine").read_text() == "ok"


@pytest_twisted.ensureDeferred
async def test_the_kernel_ends_a_worker_past_its_cpu_time(data, builtins):
    """With a call deadline far away, the CPU time limit stops a looping game."""
    isolation, _, lobby = await start(data, builtins, cpu_seconds=2, call_seconds=60.0)
    try:
        rogue = await seated(lobby, **{"try": "spin"})
        rogue.act(0, {"name": "try"})
        await until(lambda: rogue.state == OVER, "the kernel's end of it", seconds=30)
        assert "killed by signal" in rogue.result()["summary"]
        assert [i.game_id for i in isolation.incidents] == [rogue.id]
    finally:
        lobby.stop()
