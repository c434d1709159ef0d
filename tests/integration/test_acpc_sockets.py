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
    assert all(
        line.endswith("|xena") or ":xena|" in line for line in lines if line.startswith("STATE")
    )
    check_against_the_engine(hub, match, lines)
    ledger_check(hub)


# -- hostile programs over TCP ------------------------------------------------------------


class Raw:
    """A program on a raw socket (bounded reads); lines read while looking for a
    comment are kept for :meth:`line`."""

    def __init__(self, port: int) -> None:
        import socket

        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.reader = self.sock.makefile("rb")
        self.pending: list[str] = []

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _read(self) -> str | None:
        raw = self.reader.readline(8192)
        return raw.decode("ascii", "replace").rstrip("\r\n") if raw else None

    def line(self) -> str | None:
        return self.pending.pop(0) if self.pending else self._read()

    def until(self, test, most: int = 2000) -> list[str]:
        out: list[str] = []
        for _ in range(most):
            line = self.line()
            if line is None:
                return out
            out.append(line)
            if test(line):
                return out
        raise AssertionError(out[-5:])

    def comment(self, text: str) -> str | None:
        """The next comment holding ``text`` (match states meanwhile kept); ``None``
        when the connection closed first (the match ended)."""
        for _ in range(2000):
            line = self._read()
            if line is None or "match over" in line:
                return None
            if line.startswith("#") and text in line:
                return line
            if not line.startswith("#"):
                self.pending.append(line)
        raise AssertionError(text)

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


def test_hostile_programs_get_warnings_and_the_match_plays_on(hub):
    from bots.acpc.state import GAMES, parse

    rules = GAMES["holdem.limit.2p.reverse_blinds"]
    match = create(hub, game="limit", players=["acpc:ann", "bot:caller"], hands=3)
    raw = Raw(match["ports"][0])
    raw.send(b"\x00\xff\xfe garbage\r\n" + b"A" * 100_000 + b"\r\nVERSION:2.0.0\n")
    comments = raw.until(lambda line: "line longer" in line)
    assert all(line.startswith("#") for line in comments)
    answered = 0
    for _ in range(200):
        lines = raw.until(lambda line: line.startswith("MATCHSTATE") or "match over" in line)
        if not lines or "match over" in lines[-1]:
            break
        state = lines[-1]
        hand = parse(state, rules)
        if hand is None or hand.over or hand.next != hand.position:
            if not hand.over:
                raw.send(f"{state}:c\r\n".encode())  # out of turn: a warning, nothing else
                # (not its turn; or, when a newer state asks it already, another state)
                if raw.comment("line ignored") is None:
                    break
            continue
        raw.send(b"MATCHSTATE:0:999::|:c\r\n")  # another state
        assert raw.comment("another state") is not None
        raw.send(f"{state}:c".encode() + b"\r\n")
        answered += 1
    raw.close()
    assert answered and wait_over(hub, match["id"], 120)["reason"] == "3 hands played"
    ledger_check(hub)
    assert hub.errors() == []


def test_a_silent_program_is_dropped_and_nothing_is_left_listening(tmp_path):
    import socket

    h = HubProcess(tmp_path, web=LOOPBACK, acpc=LOOPBACK)
    h.extra += ["--set", f"acpc_seat_endpoint={LOOPBACK}", "--set", "acpc_version_seconds=1",
                "--set", "acpc_wait_seconds=3"]  # fmt: skip
    with h:
        match = create(h, game="limit", players=["acpc:ann", "acpc:bob"], hands=1)
        silent = Raw(match["ports"][0])
        lines = silent.until(lambda line: False, most=10)  # read until it is closed
        assert any("no VERSION line" in line for line in lines)
        fixed = Raw(h.ports["acpc"])  # the front end's own port: dropped the same way
        assert any("no VERSION line" in line for line in fixed.until(lambda line: False, 10))
        over = wait_over(h, match["id"], 60)  # nobody came: cancelled
        assert "not every program connected" in over["reason"]
        for port in match["ports"]:  # the seats' ports are closed
            with pytest.raises(OSError):
                socket.create_connection(("127.0.0.1", port), timeout=5).close()
        assert h.errors() == []


def test_the_api_refuses_bad_matches(hub):
    for spec, status in (
        ({"game": "chess", "players": ["acpc", "acpc"]}, 404),
        ({"game": "limit", "players": ["acpc"]}, 400),
        ({"game": "limit", "players": ["acpc", "acpc", "acpc"]}, 400),
        ({"game": "limit", "players": ["acpc", "bot:nobody"]}, 404),
        ({"game": "limit", "players": ["acpc:a", "acpc:a"]}, 400),
        ({"game": "limit", "players": ["acpc", "acpc"], "hands": 0}, 400),
        ({"game": "limit", "players": ["acpc", "acpc"], "seed": "nope"}, 400),
        ({"game": "limit", "players": ["acpc", "acpc"], "extra": 1}, 400),
        ({"game": "limit", "players": ["acpc", "acpc"], "deals": "dealer"}, 400),
        ({"game": "limit", "players": ["acpc", "acpc"], "deals": "dealer", "seed": -1}, 400),
        ({"game": "limit", "players": ["acpc", "acpc"], "deals": "dealer", "seed": 2**32}, 400),
        ({"game": "limit", "players": ["acpc", "acpc"], "deals": "dealer", "seed": "1"}, 400),
        ({"game": "limit", "players": ["acpc", "acpc"], "deals": "dealer", "seed": True}, 400),
        ({"game": "limit", "players": ["acpc", "acpc"], "deals": "mine", "seed": 1}, 400),
        ({"game": "limit", "players": ["acpc", "acpc"], "seed": 5}, 400),
    ):
        got, body, _ = hub.request("POST", "/acpc/matches", spec)
        assert got == status, (spec, body)
        assert "error" in json.loads(body)
    got, _, _ = hub.request("POST", "/acpc/matches", raw=b"{not json")
    assert got == 400
    got, _, _ = hub.request("GET", "/acpc/matches/nope")
    assert got == 404


def test_programs_play_over_tls(tmp_path):
    from tests.tlscerts import make_pki

    pki = make_pki(tmp_path / "pki", "hub")
    h = HubProcess(tmp_path, web=LOOPBACK, acpc=pki.endpoint())
    h.extra += ["--set", f"acpc_seat_endpoint={pki.endpoint()}"]
    with h:
        match = create(h, game="limit", players=["acpc:ann", "bot:caller"], hands=3)
        plain = subprocess.run(
            [sys.executable, "-m", "bots.acpc", "127.0.0.1", str(h.ports["acpc"])],
            cwd=ROOT, capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert plain.stdout.startswith("0 hands")  # plain text on a TLS port: nothing
        proc = program(match["ports"][0], "--ca", str(pki.ca))
        over = wait_over(h, match["id"], 120)
        (out,) = finish([proc])
        assert over["reason"] == "3 hands played" and out.startswith("3 hands")
        assert h.errors() == []
