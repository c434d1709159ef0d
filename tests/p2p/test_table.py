"""Peer-to-peer tables in memory (:mod:`tests.p2p.sim`: a ``task.Clock`` and a network
that can drop, change or double frames): honest tables agree with the hub's engine,
every cheater is named by every honest peer, a peer that goes away is folded or
voids the hand, and an observer (the hub) sees only what is public."""

from __future__ import annotations

from decimal import Decimal

import pytest

from games.poker.p2p import deck, group
from games.poker.p2p.history import check_hand
from games.poker.p2p.params import Params
from games.poker.p2p.table import PeerTable
from games.poker.p2p.wire import open_frame
from tests.p2p import sim


def play(params: Params, setup=None, seed: int = 1, observe: bool = True):
    """Play a table to its end; the peers (and the observer, last)."""
    clock, net, peers = sim.table(params, seed=seed, observe=observe)
    if setup is not None:
        setup(net, peers)
    for peer in peers + net.observers:
        peer.start()
    sim.run(clock, peers + net.observers, seconds=3600)
    return peers + net.observers


def notes(peer: PeerTable, kind: str) -> list[dict]:
    return peer.watcher.kinds(kind)


def check_every_hand(peer: PeerTable) -> int:
    """Every hand the peer counted, played again by the hub's engine from its cards and
    the signed actions (:func:`check_hand`); how many there were."""
    (started,) = notes(peer, "started")
    results = notes(peer, "result")
    for result in results:
        assert check_hand(started, result) == [], result
    return len(results)


@pytest.mark.parametrize("players", [2, 3, 6])
def test_honest_peers_agree_and_the_engine_agrees_with_them(players):
    hands = {2: 12, 3: 8, 6: 4}[players]
    everyone = play(Params(players=players, hands=hands, buyin="100000"))
    *peers, observer = everyone
    stacks = peers[0].stacks
    assert sum(stacks.values()) == players * Decimal(100000)
    for peer in everyone:
        assert peer.over and not peer.failed and peer.hands_played == hands
        assert peer.stacks == stacks
        assert peer.named == {}
    for peer in peers:
        assert check_every_hand(peer) == hands
        for result in notes(peer, "result"):
            assert sorted(int(c) for c in result["cards"].values()) == list(range(52))


def test_every_player_sees_its_own_cards_and_nobody_else_s_before_the_end():
    peers = play(Params(players=3, hands=3, buyin="100000"))[:3]
    for peer in peers:
        holes = notes(peer, "hole")
        assert len(holes) == 3
        results = notes(peer, "result")
        for hole, result in zip(holes, results, strict=True):
            mine = sorted(hole["cards"])
            # the cards it saw are its own cards in the full deck opened at the end
            assert set(mine) <= {int(c) for c in result["cards"].values()}


def test_the_observer_sees_the_board_and_the_shown_hands_only():
    everyone = play(Params(players=3, hands=6, buyin="100000"))
    *peers, observer = everyone
    full = {r["hand"]: r for r in notes(peers[0], "result")}
    for seen in notes(observer, "result"):
        cards = {int(p): c for p, c in seen["cards"].items()}
        whole = {int(p): c for p, c in full[seen["hand"]]["cards"].items()}
        assert all(whole[p] == c for p, c in cards.items())
        n = len([s for s in seen["before"]])
        board = {2 * n + 1, 2 * n + 2, 2 * n + 3, 2 * n + 5, 2 * n + 7}
        holes = set(range(2 * n))
        for p in cards:
            assert p in board or p in holes
        hidden = set(range(52)) - set(cards)
        assert len(hidden) >= 52 - 5 - 2 * n  # burns and the deck's rest stay hidden
    # the observer's own records: every hole card it passed on is hidden
    for rec in observer.watcher.recs:
        if rec.kind == "hole":
            assert set(rec.cards) == {-1}


# -- cheaters -------------------------------------------------------------------------------


class WrongBoardKey(deck.DealSecrets):
    """Reveals keys of a street that do not open it."""

    def reveal(self, positions):
        out = super().reveal(positions)
        if positions and min(positions) > 12 and len(positions) <= 3:
            out = {p: group.random_scalar() for p in positions}
        return out


class WrongHoleKey(deck.DealSecrets):
    """Reveals a key of another player's hole card that does not open it."""

    def reveal(self, positions):
        out = super().reveal(positions)
        if positions and max(positions) < 10 and len(positions) >= 2:
            out[positions[0]] = group.random_scalar()
        return out


class ReorderedLock(deck.DealSecrets):
    """Swaps two positions while it locks."""

    def lock(self, given):
        out = super().lock(given)
        out[20], out[21] = out[21], out[20]
        return out


class ChosenDeck(deck.DealSecrets):
    """Shuffles the plain deck instead of the one it is given (it would know it)."""

    def shuffle(self, given):
        return super().shuffle(group.CARDS) if self.key is not None else super().shuffle(given)


@pytest.mark.parametrize(
    ("cheat", "why"),
    [
        (WrongBoardKey, "that is not its published one"),
        (WrongHoleKey, "that is not its published one"),
        (ReorderedLock, "does not follow from its keys"),
        (ChosenDeck, "not a permutation of the deck it was given"),
    ],
)
def test_a_cheating_dealer_is_named_by_every_honest_peer_and_the_table_goes_on(cheat, why):
    def setup(net, peers):
        peers[1].dealer = cheat

    everyone = play(Params(players=3, hands=4, buyin="100000"), setup)
    honest = [everyone[0], everyone[2], everyone[3]]  # the observer follows the verdicts
    for peer in honest:
        assert list(peer.named) == [1] and why in peer.named[1], peer.named
        assert peer.hands_played == 4 and not peer.failed
        assert set(peer.stacks) == {0, 2}
    assert honest[0].stacks == honest[1].stacks == honest[2].stacks
    voided = notes(everyone[0], "void")
    assert voided and "keys" in voided[0]["why"] or "open" in voided[0]["why"]
    assert check_every_hand(everyone[0]) == 4


def test_a_forged_action_is_named_and_its_sender_cut_off():
    def setup(net, peers):
        forger = peers[1].identity

        def forge(sender, target, frame):
            body, _, _ = open_frame(frame)
            out = [frame]
            if body.get("k") == "act":
                out.append(forger.sign({**body, "a": 2, "act": "fold"}))  # signed by 1, says 2
            return out

        net.tamper[1] = forge

    everyone = play(Params(players=3, hands=3, buyin="100000"), setup)
    for peer in (everyone[0], everyone[2]):
        (forged,) = notes(peer, "forged")
        assert forged["seat"] == 1
        assert 1 not in peer.live and peer.hands_played == 3
    assert everyone[0].stacks == everyone[2].stacks


def test_different_messages_to_different_peers_are_proven_and_named():
    def setup(net, peers):
        cheat = peers[1].identity

        def two_faced(sender, target, frame):
            body, _, _ = open_frame(frame)
            if body.get("k") == "act" and target == 2:
                body["act"] = "fold" if body["act"] != "fold" else "call"
                return [cheat.sign(body)]
            return [frame]

        net.tamper[1] = two_faced

    everyone = play(Params(players=3, hands=3, buyin="100000"), setup)
    for peer in (everyone[0], everyone[2], everyone[3]):
        assert peer.named == {1: "sent different messages to different peers"}
        assert peer.hands_played == 3 and not peer.failed
    assert everyone[0].stacks == everyone[2].stacks == everyone[3].stacks
    # the cheater left with the stack it had before the hand it cheated in
    last = [r for r in notes(everyone[0], "result") if "1" in r["stacks"]]
    left_with = Decimal(last[-1]["stacks"]["1"]) if last else Decimal(100000)
    assert sum(everyone[0].stacks.values()) + left_with == 3 * Decimal(100000)


# -- peers that go away ----------------------------------------------------------------------


def test_a_peer_that_crashes_in_its_turn_is_folded_or_the_hand_is_void():
    def setup(net, peers):
        def crash(view, legal, seconds, answer):
            net.crash(1)

        peers[1].player.ask = crash

    everyone = play(Params(players=3, hands=4, buyin="100000", step_time=1, action_time=2), setup)
    for peer in (everyone[0], everyone[2], everyone[3]):
        assert peer.departed == {1: "stopped answering"}
        assert peer.hands_played == 4 and not peer.failed
    assert everyone[0].stacks == everyone[2].stacks == everyone[3].stacks
    first = notes(everyone[0], "result")[0]
    if first["void"]:
        assert first["stacks"] == first["before"]  # every bet went back
    assert check_every_hand(everyone[0]) == 4


def test_a_peer_that_stops_answering_leaves_and_the_others_play_on():
    def setup(net, peers):
        peers[2].player.mute = True

    everyone = play(Params(players=3, hands=3, buyin="100000", step_time=1, action_time=2), setup)
    assert everyone[0].departed == {2: "stopped answering"} == everyone[1].departed
    assert everyone[0].hands_played == everyone[1].hands_played == 3
    assert everyone[0].stacks == everyone[1].stacks


def test_an_action_that_reached_one_peer_before_its_author_crashed_reaches_all():
    """The author of an action crashes while sending it: peer 1 has it, peer 2 does not.
    Peer 2's claim is answered with an echo by peer 1, so both take the action (and
    then both see the author silent)."""
    acted = []

    def setup(net, peers):
        def half_sent(sender, target, frame):
            body, _, _ = open_frame(frame)
            if body.get("k") == "act" and not acted:
                if target == 1:
                    return [frame]
                acted.append(body)
                net.crash(0)
                return []
            return [frame]

        net.tamper[0] = half_sent

    everyone = play(Params(players=3, hands=3, buyin="100000", step_time=1, action_time=2), setup)
    assert acted
    for peer in everyone[1:]:
        assert peer.departed == {0: "stopped answering"} and peer.hands_played == 3
    assert everyone[1].stacks == everyone[2].stacks == everyone[3].stacks
    for peer in everyone[1:3]:
        (started,) = notes(peer, "started")
        first = notes(peer, "result")[0]
        frames = [a for a in first["actions"] if "frame" in a]
        assert frames, "the half-sent action counts"
