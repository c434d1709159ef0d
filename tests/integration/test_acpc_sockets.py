"""The ACPC front end over real loopback sockets, in a real ``twistd -n gamehub``:
``bots.acpc`` programs play 1,000-hand limit and no-limit matches against each other,
against an in-hub bot and against an XML client at the same table; the log's payoffs
are the engine's, each hand's sum to zero, the chips are conserved in the ledger."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from hub.frontends.xml.payload import wire_game_id
from tests.hubprocess import ROOT, HubProcess

LOOPBACK = "tcp:0:interface=127.0.0.1"
#: hands of the long matches: 1,000 as the issue asks with GAMEHUB_SOAK=full (about
#: three minutes each, most of it the ledger settling every hand); a bounded run else
HANDS = 1000 if os.environ.get("GAMEHUB_SOAK") == "full" else 300


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[HubProcess]:
    h = HubProcess(tmp_path, web=LOOPBACK, acpc=LOOPBACK, xml=LOOPBACK)
    h.extra += ["--set", f"acpc_seat_endpoint={LOOPBACK}", "--set", "create_rate=1000"]
    with h:
        yield h


def create(hub: HubProcess, **spec) -> dict:
    status, body, _ = hub.request("POST", "/acpc/matches", spec)
    assert status == 201, body
    return json.loads(body)


def program(port: int, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "bots.acpc", "127.0.0.1", str(port), *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_over(hub: HubProcess, match_id: str, seconds: float = 600) -> dict:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        match = hub.get_json(f"/acpc/matches/{match_id}")
        if match["state"] == "over":
            return match
        time.sleep(0.2)
    raise AssertionError(f"match {match_id} did not end: {match}")


def finish(procs: list[subprocess.Popen]) -> list[str]:
    outs = []
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        outs.append(out)
    return outs


def log_lines(hub: HubProcess, match_id: str) -> list[str]:
    status, body, headers = hub.request("GET", f"/acpc/matches/{match_id}/log")
    assert status == 200 and headers["Content-Type"].startswith("text/plain")
    return body.decode("ascii").splitlines()


def check_against_the_engine(hub: HubProcess, match: dict, lines: list[str]) -> None:
    """Each STATE line's payoffs sum to zero and are what the store's hand says."""
    states = [line for line in lines if line.startswith("STATE:")]
    assert len(states) == match["played"]
    (game_id,) = match["games"]
    stored = hub.get_json(f"/api/hands?game={game_id}&limit=1000")
    by_key = {h["hand_key"]: h for h in stored}
    assert len(by_key) == len(states)
    for line in states:
        _, number, _betting, _cards, payoffs, names = line.split(":")
        values = [int(v) for v in payoffs.split("|")]
        assert sum(values) == 0, line
        hand = by_key[f"{game_id}-{int(number) + 1}"]
        nets = {
            p["name"]: int(float(p["winnings"] or 0) - float(p["money_in"] or 0))
            for p in hand["players"]
        }
        for name, value in zip(names.split("|"), values, strict=True):
            account = name if name in nets else f"acpc.{name}"
            if account not in nets:
                account = f"bot.{name}"
            assert nets[account] == value, (line, nets)
    score = lines[-1]
    assert score.startswith("SCORE:")
    totals = [int(v) for v in score.split(":")[1].split("|")]
    assert sum(totals) == 0
    assert totals == [r["total"] for r in match["results"]]


def ledger_check(hub: HubProcess) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "hub.cli", "ledger", "check", "--data", str(hub.data)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    ("game", "bots"),
    [
        ("holdem.limit.2p.reverse_blinds", ("poker-random", "raiser")),
        ("holdem.nolimit.2p.reverse_blinds", ("poker-random", "caller")),
    ],
)
@pytest.mark.slow
def test_two_programs_play_a_thousand_hands(hub, game, bots):
    match = create(hub, game=game, players=["acpc:ann", "acpc:bob"], hands=HANDS)
    assert len(match["ports"]) == 2 and match["state"] == "waiting"
    procs = [
        program(port, "--game", game, "--bot", bot, "--seed", str(i))
        for i, (port, bot) in enumerate(zip(match["ports"], bots, strict=True))
    ]
    match = wait_over(hub, match["id"])
    outs = finish(procs)
    assert match["reason"] == f"{HANDS} hands played", match
    assert all(out.startswith(f"{HANDS} hands") for out in outs), outs
    lines = log_lines(hub, match["id"])
    check_against_the_engine(hub, match, lines)
    for result in match["results"]:
        assert result["hands"] == HANDS and result["ci95"] is not None
    ledger_check(hub)
    assert hub.errors() == []


def test_a_program_plays_an_in_hub_bot_on_the_front_ends_own_port(hub):
    game = "holdem.limit.2p.reverse_blinds"
    match = create(hub, game=game, players=["acpc:ann", "bot:raiser"], hands=50)
    proc = program(hub.ports["acpc"], "--game", game, "--bot", "caller")
    match = wait_over(hub, match["id"], 300)
    finish([proc])
    assert match["reason"] == "50 hands played"
    check_against_the_engine(hub, match, log_lines(hub, match["id"]))
    ledger_check(hub)


def test_a_program_plays_an_xml_client_at_the_same_table(hub):
    game = "holdem.limit.2p.reverse_blinds"
    hands = 20
    match = create(hub, game=game, players=["acpc:ann", "open"], hands=hands)
    proc = program(match["ports"][0], "--game", game, "--bot", "caller")
    deadline = time.monotonic() + 60
    while not hub.get_json(f"/acpc/matches/{match['id']}")["games"]:
        assert time.monotonic() < deadline
        time.sleep(0.1)
    (game_id,) = hub.get_json(f"/acpc/matches/{match['id']}")["games"]
    subprocess.run(
        [sys.executable, "-m", "hub.cli", "account", "create", "xena", "--password-stdin",
         "--type", "bot", "--data", str(hub.data)],
        input="pw-xena\n", cwd=ROOT, check=True, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    subprocess.run(
        [sys.executable, "-m", "hub.cli", "account", "grant", "xena", "10000",
         "--data", str(hub.data)],
        cwd=ROOT, check=True, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    xml = subprocess.Popen(
        [sys.executable, "-m", "bots.holdem", "--host", "127.0.0.1",
         "--port", str(hub.ports["xml"]), "--account", "xena", "--password", "pw-xena",
         "--game", str(wire_game_id(game_id)), "--seat", "1", "--policy", "caller",
         "--buyin", str(240 * hands), "--hands", str(hands)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    match = wait_over(hub, match["id"], 300)
    finish([proc])
    try:
        out, _ = xml.communicate(timeout=30)
    except subprocess.TimeoutExpired:  # it waits for a table that closed: ours to stop
        xml.terminate()
        out, _ = xml.communicate(timeout=30)
    assert "seated at table" in out
    assert match["reason"] == f"{hands} hands played", match
    lines = log_lines(hub, match["id"])
    assert all(line.endswith("|xena") or ":xena|" in line for line in lines if line.startswith("STATE"))
    check_against_the_engine(hub, match, lines)
    ledger_check(hub)
