"""The MNM move path in process: two real MNM protocols of the hub's front end, its
lobby, a morris game, the game's transcript and its journal (the real writer, whose
store keeps nothing: the store's thread is not measured), on string transports (no
sockets, no reactor loop), play recorded random games; prints the CPU time a move
(``THINKING`` and ``PLAY`` of one player, the answers and the other player's move
request, and a share of the game's end: the replay the hub's history encodes then, on
the reactor's thread).  ``--no-journal --no-replay`` is the harness before
6 December 2026.

No anchor: this is the part of ``bench/mnm_lines.py``'s hub figure that is the hub's
own Python, for judging a change by instructions rather than by a noisy clock::

    PYTHONHASHSEED=0 valgrind --tool=callgrind python bench/mnm_inprocess.py --rounds 1
    PYTHONHASHSEED=0 valgrind --tool=callgrind python bench/mnm_inprocess.py --rounds 3

(the difference of the two totals over twice the moves a round is the instructions a
move; docs/performance.md quotes such counts).

    python bench/mnm_inprocess.py [--games 30] [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from twisted.internet import defer, reactor  # noqa: E402
from twisted.internet.testing import StringTransport  # noqa: E402

from games.morris import rules  # noqa: E402
from games.morris.server import MorrisGameFactory  # noqa: E402
from hub.frontends.mnm import make_factory  # noqa: E402
from hub.model import GameEvent  # noqa: E402
from hub.play.game import GameInstance  # noqa: E402
from hub.play.journal import JournalWriter  # noqa: E402
from hub.store.journal import Entry, Header  # noqa: E402
from tests.support import DictRegistry, FakeHub  # noqa: E402


class Transport(StringTransport):
    """A transport that keeps nothing (a move request is not worth keeping)."""

    def setTcpNoDelay(self, enabled: bool) -> None:  # noqa: N802
        """TCP's no-delay switch: nothing to switch."""

    def write(self, data: bytes) -> None:
        """Drop ``data``."""


class NoStore:
    """A journal store that keeps nothing (what the store's thread does is not measured)."""

    def journal_write(
        self, headers: list[Header], entries: list[tuple[str, Entry]], drops: list[str]
    ) -> defer.Deferred[set[str]]:
        """Written at once."""
        return defer.succeed(set())


def record_games(count: int, seed: int) -> list[list[str]]:
    """``count`` random games of at most 60 turns, as their moves' wire texts."""
    rng = random.Random(seed)
    games = []
    for _ in range(count):
        state = rules.MorrisState(rules.MorrisRules(max_turns=60))
        moves = []
        while not state.over:
            move = rng.choice(state.legal_moves())
            moves.append(move.wire)
            state.apply(move)
        games.append(moves)
    return games


def keep_replay(game: GameInstance, event: GameEvent) -> str:
    """What the hub's history makes on the reactor's thread when a game ends: its
    replay as JSON text (``hub.store.history``)."""
    return game.replay_text() or ""


def play(hub: FakeHub, factory: object, moves: list[str]) -> float:
    """One game through two protocols; the CPU seconds of its moves (and its end)."""
    game = hub.lobby.create_game("nmmorris", name="Bench", options={"max_turns": 60})
    players = []
    for _ in range(2):
        proto = factory.buildProtocol(None)  # type: ignore[attr-defined]
        proto.makeConnection(Transport())
        proto.dataReceived(f"VERSION 3.1\nID {game.id}\nPLAYER\n".encode())
        players.append(proto)
    engine = game.engine.engine
    start = time.process_time()
    for move in moves:
        proto = players[engine.to_move]
        proto.dataReceived(b"THINKING\n")
        proto.dataReceived(b"PLAY " + move.encode() + b"\n")
    used = time.process_time() - start
    for proto in players:
        proto.connectionLost(None)
    journal = hub.lobby.journal
    if journal is not None:  # as the writer's timer would (the reactor does not run)
        journal.flush()
    return used


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=30, help="games a round (default 30)")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--no-journal", action="store_true", help="no journal writer")
    parser.add_argument("--no-replay", action="store_true", help="no replay at a game's end")
    args = parser.parse_args()
    registry = DictRegistry(games=[MorrisGameFactory()], bots=[])
    hub = FakeHub(registry, reactor=reactor, data=tempfile.mkdtemp(),
                  lobby={"rng": random.Random(4), "id_length": 13}, mnm_wait_interval=30)  # fmt: skip
    if not args.no_journal:
        hub.lobby.journal = JournalWriter(NoStore(), reactor, interval=0.02)
    if not args.no_replay:
        hub.lobby.on_game_over(keep_replay)
    factory = make_factory(hub)
    games = record_games(args.games, 1)
    moves = sum(map(len, games))
    per_move = [sum(play(hub, factory, g) for g in games) / moves * 1e6 for _ in range(args.rounds)]
    print(f"{moves} moves a round, {args.rounds} rounds: CPU a move median "
          f"{statistics.median(per_move or [0]):.1f} µs")  # fmt: skip


if __name__ == "__main__":
    main()
