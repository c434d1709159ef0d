"""A peer-to-peer table that meets at a real hub (``twistd -n gamehub --relay``): the
lobby lists it and shows it as it goes, and nothing the hub keeps or shows holds a card
before it is shown: its transcript is read as the strongest hub would read it (every
key it ever relayed, against every locked deck), and its lobby views and replay are
checked card by card against the peers' own record of the hands."""

from __future__ import annotations

import base64
import json
import os
import re
import subprocess
import sys
import time
from decimal import Decimal

from games.poker.p2p import deck, group
from games.poker.p2p.history import check_hand
from games.poker.p2p.wire import WireError, open_frame
from tests.hubprocess import LOOPBACK, HubProcess
from tests.p2p.peers import ROOT, Peer
from tests.support import wait_until

HANDS = 12
_IN = re.compile(r"^\S+ r\d+ in  (.*)$")


def env() -> dict[str, str]:
    """The environment of a ``gamehub`` command of this checkout."""
    return dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))


def relayed_frames(hub: HubProcess, game_id: str) -> list[bytes]:
    """Every frame the peers sent through the hub, as its transcript of the game holds
    them."""
    folder = hub.data / "transcripts"
    frames = []
    for path in sorted(folder.glob(f"{game_id}.log*")):
        for line in path.read_text(errors="replace").splitlines():
            m = _IN.match(line)
            if m is None:
                continue
            body = json.loads(m.group(1))
            if body.get("op") == "send":
                frames.append(base64.b64decode(body["data"]))
    return frames


def openable(frames: list[bytes], hands: int) -> dict[int, dict[int, int]]:
    """Hand → position → card: what a hub could open with everything it relayed (the
    locked decks, and every unlock key sent in the clear)."""
    final: dict[int, tuple[bytes, ...]] = {}
    keys: dict[int, dict[int, dict[int, bytes]]] = {}  # hand → position → author → key
    for frame in frames:
        try:
            body, _, _ = open_frame(frame)
        except WireError:
            continue
        hand, author = body.get("h"), body.get("a")
        if not isinstance(hand, int) or not isinstance(author, int):
            continue
        if body.get("k") in ("lock", "shuffle") and "deck" in body:
            raw = base64.b64decode(body["deck"])
            final[hand] = tuple(raw[i * 32 : i * 32 + 32] for i in range(52))  # the last one wins
        for field in ("hole", "keys", "board", "show"):
            for pos, key in (body.get(field) or {}).items():
                keys.setdefault(hand, {}).setdefault(int(pos), {})[author] = base64.b64decode(key)
    out: dict[int, dict[int, int]] = {}
    for hand, positions in keys.items():
        for pos, by_author in positions.items():
            try:
                card = deck.open_card(final[hand][pos], list(by_author.values()))
            except (group.GroupError, KeyError):
                card = None
            if card is not None:
                out.setdefault(hand, {})[pos] = card
    return out


def test_a_table_relayed_by_a_hub_is_listed_shown_and_keeps_every_secret(tmp_path):
    with HubProcess(tmp_path, relay=LOOPBACK, web=LOOPBACK) as hub:
        where = f"127.0.0.1:{hub.ports['relay']}"
        args = ["--hub", where, "--table", "nightly", "--players", "3", "--hands", str(HANDS),
                "--buyin", "100000", "--quiet"]  # fmt: skip
        peers = [
            Peer(tmp_path, name, [*args, "--bot", bot])
            for name, bot in (("alice", "holdem"), ("bob", "caller"), ("carol", "raiser"))
        ]
        try:
            games = wait_until(
                lambda: [g for g in hub.get_json("/api/games") if g["type"] == "holdem-p2p"],
                "the table in the lobby",
                seconds=60,
            )
            (game,) = games
            assert game["name"] == "nightly" and {s["player"] for s in game["seats"]} == {
                "alice",
                "bob",
                "carol",
            }
            running = hub.get_json(f"/api/games/{game['id']}")
            assert running["view"]["peertopeer"] is True
            listed = subprocess.run(
                [sys.executable, "-c", "from hub.cli import main; raise SystemExit(main())",
                 "p2p", "--hub", where, "--list"],
                capture_output=True, text=True, timeout=60, env=env(), check=True,
            ).stdout  # fmt: skip
            assert listed.startswith("nightly: holdem-p2p, 3/3 seats (") and "playing" in listed
            for peer in peers:
                assert peer.wait(180) == 0, peer.log()
        finally:
            for peer in peers:
                peer.close()
        over = wait_until(
            lambda: (g := hub.get_json(f"/api/games/{game['id']}"))["state"] == "over" and g,
            "the table over in the lobby",
        )
        replay = hub.get_json(f"/api/games/{game['id']}/replay")
        hub.request("GET", "/api/health")
        time.sleep(0.5)  # the transcript is flushed on a timer
        frames = relayed_frames(hub, game["id"])
        assert hub.errors() == [], hub.log()[-3000:]
    histories = {p.label: p for p in peers}
    (started,) = histories["alice"].notes("started")
    results = {r["hand"]: r for r in histories["alice"].notes("result")}
    assert len(results) == HANDS
    for result in results.values():
        assert check_hand(started, result) == []
    # the lobby ends with the peers' stacks, seat by seat
    stacks = histories["alice"].notes("over")[0]["stacks"]
    names = started["names"]
    by_name = {names[int(s)]: Decimal(v) for s, v in stacks.items()}
    lobby = {
        s["player"]: Decimal(v)
        for s, v in zip(over["seats"], over["result"]["scores"], strict=True)
    }
    assert lobby == by_name

    # what the hub could open is exactly what was shown: boards, hands at a showdown
    assert len(frames) > HANDS * 10
    opened = openable(frames, HANDS)
    shown_somewhere = False
    for hand, result in results.items():
        cards = {int(p): c for p, c in result["cards"].items()}
        order = deal_order(result)
        n = len(order)
        board = {2 * n + 1, 2 * n + 2, 2 * n + 3, 2 * n + 5, 2 * n + 7}
        folded = folds(result)
        live = [s for s in order if s not in folded]
        mine = opened.get(hand, {})
        for pos, card in mine.items():
            assert cards[pos] == card
            if pos < 2 * n:  # a hole card: its owner was at a showdown
                owner = order[pos % n]
                assert owner in live and len(live) >= 2, (hand, pos, owner, live)
                shown_somewhere = True
            else:
                assert pos in board, (hand, pos)
        if len(live) < 2:
            assert not set(mine) & set(range(2 * n)), hand
    assert shown_somewhere  # twelve hands of raiser and caller reach a showdown

    # the lobby's replay shows each board and each shown hand as the peers hold them
    kinds = [e["kind"] for e in replay["events"]]
    assert kinds.count("hand") == HANDS and "board" in kinds and "show" in kinds
    assert kinds.count("handover") + kinds.count("cancel") >= HANDS
    hand = 0
    for event in replay["events"]:
        data = event["data"]
        if event["kind"] == "hand":
            hand += 1
            result, order = results[hand], deal_order(results[hand])
            cards = {int(p): c for p, c in result["cards"].items()}
            n = len(order)
        elif event["kind"] == "board":
            positions = [2 * n + 1, 2 * n + 2, 2 * n + 3, 2 * n + 5, 2 * n + 7]
            assert data["board"] == [cards[p] for p in positions[: len(data["board"])]]
        elif event["kind"] == "show":
            i = order.index(data["seat"])
            assert sorted(data["cards"]) == sorted([cards[i], cards[i + n]])
        elif event["kind"] in ("hole", "deal"):
            assert event["kind"] == "deal" and "cards" not in data


def deal_order(result: dict) -> list[int]:
    """The seats dealt in, left of the button first (the engine's dealing order)."""
    seats = sorted(int(s) for s in result["before"])
    button = int(result["button"])
    return [s for s in seats if s > button] + [s for s in seats if s <= button]


def folds(result: dict) -> set[int]:
    """The seats that folded in the hand (signed actions, and silent folds)."""
    out = set()
    for action in result["actions"]:
        if "silent" in action:
            if action["fold"]:
                out.add(action["silent"])
            continue
        body, _, _ = open_frame(base64.b64decode(action["frame"]))
        if body["act"] == "fold":
            out.add(body["a"])
    return out
