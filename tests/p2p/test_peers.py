"""``gamehub p2p`` as separate processes over real loopback sockets: three bots play
100 hands and the hub's engine agrees with every one of them; the seed's VT22 (a peer
starts, reaches the others and asks its player's name) and VT23 (a player leaves in
the middle of its own turn, or its program stops answering: the others play on)."""

from __future__ import annotations

import os
import signal
from decimal import Decimal

import pytest

from games.poker.p2p.history import check_hand
from tests.p2p.peers import Peer, free_port

HANDS = 500 if os.environ.get("GAMEHUB_SOAK") == "full" else 100


@pytest.fixture
def peers(tmp_path):
    started: list[Peer] = []

    def start(name, args, pipe=False):
        peer = Peer(tmp_path, name, args, pipe)
        started.append(peer)
        return peer

    yield start
    for peer in started:
        peer.close()


def table_args(hands: int, *extra: str) -> list[str]:
    return ["--players", "3", "--hands", str(hands), "--buyin", "100000", "--quiet", *extra]


def test_three_bot_peers_play_100_hands_and_the_engine_agrees_with_each(peers):
    port = free_port()
    first = peers("alice", table_args(HANDS, f"--listen=tcp:{port}:interface=127.0.0.1",
                                      "--bot", "holdem", "--seed", "1"))  # fmt: skip
    others = [
        peers(name, table_args(HANDS, f"--listen=tcp:{free_port()}:interface=127.0.0.1",
                               f"--peer=127.0.0.1:{port}", "--bot", bot))
        for name, bot in (("bob", "caller"), ("carol", "poker-random"))
    ]  # fmt: skip
    for peer in [first, *others]:
        assert peer.wait(300) == 0, peer.log()
    finals = []
    for peer in [first, *others]:
        (started,) = peer.notes("started")
        results = peer.notes("result")
        assert len(results) == HANDS
        for result in results:
            assert check_hand(started, result) == [], (peer.label, result["hand"])
            assert len(result["cards"]) == 52  # every peer checked the whole deal
        (over,) = peer.notes("over")
        assert over["reason"] == f"{HANDS} hands played"
        finals.append(over["stacks"])
    assert finals[0] == finals[1] == finals[2]
    assert sum(Decimal(v) for v in finals[0].values()) == 3 * Decimal(100000)


def test_vt22_a_peer_starts_reaches_the_others_and_asks_its_players_name(peers):
    port = free_port()
    alice = peers("alice", ["--players", "2", "--hands", "2", "--bot", "caller",
                            f"--listen=tcp:{port}:interface=127.0.0.1"])  # fmt: skip
    nameless = peers(None, ["--players", "2", "--hands", "2", "--bot", "raiser",
                            f"--listen=tcp:{free_port()}:interface=127.0.0.1",
                            f"--peer=127.0.0.1:{port}"], pipe=True)  # fmt: skip
    nameless.read_until("trying to reach 127.0.0.1")
    nameless.read_until("Your name?")
    nameless.read_until("reached a peer")  # it reached alice while it waits for the name
    nameless.say("vt22")
    nameless.read_until("hello, vt22")
    nameless.read_until("table agreed: ")
    nameless.read_until("table over (2 hands played)")
    assert nameless.wait() == 0 and alice.wait() == 0
    assert "vt22 is here" in alice.log()


@pytest.mark.parametrize("how", ["kill -9", "stops answering"])
def test_vt23_a_player_who_leaves_in_its_own_turn_does_not_stop_the_others(peers, how):
    port = free_port()
    quick = ["--action-time", "3", "--step-time", "1.5"]
    person = peers("dave", table_args(4, *quick, f"--listen=tcp:{port}:interface=127.0.0.1"),
                   pipe=True)  # fmt: skip
    bots = [
        peers(name, table_args(4, *quick, f"--listen=tcp:{free_port()}:interface=127.0.0.1",
                               f"--peer=127.0.0.1:{port}", "--bot", bot))
        for name, bot in (("erin", "caller"), ("frank", "raiser"))
    ]  # fmt: skip
    person.read_until("your turn:")
    person.kill(signal.SIGKILL if how == "kill -9" else signal.SIGSTOP)
    for bot in bots:
        assert bot.wait(180) == 0, bot.log()
    overs = [bot.notes("over")[0] for bot in bots]
    assert overs[0]["stacks"] == overs[1]["stacks"]
    assert overs[0]["reason"] == "4 hands played"
    for bot in bots:
        (left,) = bot.notes("left")
        assert left["name"] == "dave" and left["why"] == "stopped answering"
        first = bot.notes("result")[0]
        # dave was folded (and lost what he had put in) or the hand was void
        if first["void"]:
            assert first["stacks"] == first["before"]
        (started,) = bot.notes("started")
        for result in bot.notes("result"):
            assert check_hand(started, result) == []
