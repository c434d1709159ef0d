"""ACPC matches as a hostile user and an operator meet them, on a real ``twistd -n
gamehub`` over loopback sockets (issue 32): the log of a match in play is for admins
and, for its own lines, each program; the seats' ports take only the addresses the
match allows; the front end listens on loopback unless told otherwise."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

from bots.acpc.state import GAMES, parse
from tests.hubprocess import LOOPBACK, HubProcess

GAME = "holdem.limit.2p.reverse_blinds"
#: a STATE line's cards field with both players' hole cards
BOTH = re.compile(r"^STATE:0:[^:]*:[2-9TJQKA][cdhs]{1}[2-9TJQKA][cdhs]\|[2-9TJQKA][cdhs]")


class Program:
    """A program of the protocol on a raw socket that folds (or ``move``) whenever it
    must act."""

    def __init__(
        self, port: int, host: str = "127.0.0.1", source: str | None = None, move: str = "f"
    ) -> None:
        self.move = move
        bind = (source, 0) if source else None
        self.sock = socket.create_connection((host, port), timeout=30, source_address=bind)
        self.reader = self.sock.makefile("rb")
        self.sock.sendall(b"VERSION:2.0.0\r\n")
        self.states: list[str] = []

    def line(self) -> str | None:
        raw = self.reader.readline(8192)
        return raw.decode("ascii", "replace").rstrip("\r\n") if raw else None

    def play_until(self, hand: int) -> bool:
        """Fold at every turn until a state of ``hand`` arrives (``False``: the
        connection closed first)."""
        rules = GAMES[GAME]
        for _ in range(500):
            line = self.line()
            if line is None:
                return False
            if not line.startswith("MATCHSTATE"):
                continue
            self.states.append(line)
            state = parse(line, rules)
            assert state is not None, line
            if not state.over and state.next == state.position:
                self.sock.sendall(f"{line}:{self.move}\r\n".encode())
            if state.number >= hand:
                return True
        raise AssertionError(self.states[-3:])

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


def test_a_programs_own_lines_show_what_it_saw(hub):
    """Its own hole cards always, the others' when they were shown to it, never more:
    each own line is the full log's line with some hole cards left out."""
    match = create(hub, game=GAME, players=["acpc:ann", "bot:caller"], hands=4)
    key = match["players"][0]["key"]
    program = Program(match["ports"][0], move="c")  # calls: every hand goes to the river
    try:
        assert program.play_until(3)  # hands 0 to 2 are over
        status, body, _ = hub.request("GET", f"/acpc/matches/{match['id']}/log",
                                      headers={"Authorization": f"Bearer {key}"})  # fmt: skip
        own = [line for line in body.decode().splitlines() if line.startswith("STATE:")]
        assert status == 200 and len(own) >= 3, body
        assert program.play_until(10**6) is False
    finally:
        program.close()
    wait_over(hub, match["id"])
    status, body, _ = hub.request("GET", f"/acpc/matches/{match['id']}/log")
    full = {
        line.split(":")[1]: line for line in body.decode().splitlines() if line.startswith("STATE:")
    }
    for line in own:
        number, betting, cards, payoffs, names = line.split(":")[1:]
        whole = full[number].split(":")
        assert [betting, payoffs, names] == [whole[2], whole[4], whole[5]], (line, whole)
        mine = names.split("|").index("ann")
        holes, board = cards.split("/", 1)[0].split("|"), cards.partition("/")[2]
        all_holes = whole[3].split("/", 1)[0].split("|")
        assert board == whole[3].partition("/")[2]
        assert holes[mine] == all_holes[mine] != ""
        assert all(h in ("", a) for h, a in zip(holes, all_holes, strict=True)), (line, whole)


def create(hub: HubProcess, **spec) -> dict:
    status, body, _ = hub.request("POST", "/acpc/matches", spec)
    assert status == 201, body
    return json.loads(body)


def wait_over(hub: HubProcess, match_id: str) -> dict:
    for _ in range(600):
        match = hub.get_json(f"/acpc/matches/{match_id}")
        if match["state"] == "over":
            return match
        import time

        time.sleep(0.1)
    raise AssertionError(match)


@pytest.fixture
def hub(tmp_path: Path):
    h = HubProcess(tmp_path, web=LOOPBACK, acpc=LOOPBACK)
    with h:
        yield h


def test_the_log_of_a_match_in_play_is_for_admins_and_each_program_its_own(hub):
    match = create(hub, game=GAME, players=["acpc:ann", "bot:raiser"], hands=3)
    key = match["players"][0]["key"]
    assert "seed" not in match
    program = Program(match["ports"][0])
    try:
        assert program.play_until(1)  # hand 0 is over and in the log; hand 1 runs
        path = f"/acpc/matches/{match['id']}/log"
        for headers in ({}, {"X-Gamehub-Door": "forged"}, {"Authorization": "Bearer nope"}):
            status, body, answer = hub.request("GET", path, headers=headers)
            assert status == 401, (headers, status, body)
            assert b"STATE:" not in body and answer["WWW-Authenticate"].startswith("Bearer")
        status, body, _ = hub.request("GET", path, admin=True)
        full = body.decode()
        assert status == 200 and any(BOTH.match(line) for line in full.splitlines()), full
        status, body, _ = hub.request("GET", path, headers={"Authorization": f"Bearer {key}"})
        own = [line for line in body.decode().splitlines() if line.startswith("STATE:0:")]
        assert status == 200 and len(own) == 1, body
        cards = own[0].split(":")[3]
        assert cards.count("|") == 1 and "||" not in cards
        assert min(len(h) for h in cards.split("/")[0].split("|")) == 0, own  # folded: hidden
        assert not BOTH.match(own[0])
        for shown in (hub.get_json(f"/acpc/matches/{match['id']}"), hub.get_json("/acpc/matches")):
            assert key not in json.dumps(shown) and "seed" not in json.dumps(shown)
        (table,) = hub.get_json(f"/acpc/matches/{match['id']}")["games"]
        status, _, _ = hub.request("GET", f"/api/games/{table}/transcript")
        assert status in (401, 403)
        assert program.play_until(10**6) is False  # to the end
    finally:
        program.close()
    over = wait_over(hub, match["id"])
    assert "seed" in over
    status, body, _ = hub.request("GET", f"/acpc/matches/{match['id']}/log")
    assert status == 200 and any(BOTH.match(line) for line in body.decode().splitlines())
    # the table's transcript, public now, has no line private to a seat: no match state
    status, body, _ = hub.request("GET", f"/api/games/{table}/transcript")
    assert status == 200 and b"MATCHSTATE" not in body and b"seat 0" in body
    status, body, _ = hub.request("GET", f"/api/games/{table}/transcript", admin=True)
    assert status == 200 and b"MATCHSTATE" in body
    assert hub.errors() == []


# -- where seats listen, and who may take them ------------------------------------------


def other_address() -> str | None:
    """An IPv4 address of this machine that is not loopback (``None``: it has none)."""
    import fcntl
    import struct

    for _, name in socket.if_nameindex():
        if name == "lo":
            continue
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            try:
                packed = fcntl.ioctl(s.fileno(), 0x8915, struct.pack("256s", name.encode()[:15]))
            except OSError:  # SIOCGIFADDR: no IPv4 address on it
                continue
        return socket.inet_ntoa(packed[20:24])
    return None


def post_from(hub: HubProcess, source: str, path: str, spec: dict) -> tuple[int, dict]:
    """POST ``spec`` to the hub (on 127.0.0.1) from the local address ``source``, with
    the API token."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", hub.ports["web"], timeout=30,
                                      source_address=(source, 0))  # fmt: skip
    try:
        headers = {"Authorization": f"Bearer {hub.TOKEN}", "Content-Type": "application/json"}
        conn.request("POST", path, json.dumps(spec), headers)
        answer = conn.getresponse()
        return answer.status, json.loads(answer.read())
    finally:
        conn.close()


def refused(port: int, source: str) -> list[str]:
    """What a seat's port says to a program from ``source`` that it refuses: the lines
    until it closes."""
    program = Program(port, source=source)
    try:
        lines = [line for line in iter(program.line, None)]
    finally:
        program.close()
    return lines


def connected(hub: HubProcess, match_id: str) -> list[bool]:
    return [p["connected"] for p in hub.get_json(f"/acpc/matches/{match_id}")["players"]]


def test_seats_listen_on_the_front_ends_own_interface(tmp_path):
    with HubProcess(tmp_path, web=LOOPBACK, acpc=LOOPBACK) as hub:  # no acpc_seat_endpoint
        match = create(hub, game=GAME, players=["acpc:ann", "acpc:bob"], hands=1)
        for port in match["ports"]:
            with pytest.raises(ConnectionRefusedError):  # another address of this machine
                socket.create_connection(("127.0.0.2", port), timeout=10).close()
            socket.create_connection(("127.0.0.1", port), timeout=10).close()
        assert hub.errors() == []


def test_a_seat_takes_only_the_addresses_the_match_allows(hub):
    match = create(hub, game=GAME, players=["acpc:ann", "bot:caller"], hands=1,
                   allow=["127.0.0.1"])  # fmt: skip
    assert match["allow"] == ["127.0.0.1/32"]
    lines = refused(match["ports"][0], "127.0.0.2")
    assert lines and "refused" in lines[0] and "127.0.0.2" in lines[0], lines
    assert not any(line.startswith("MATCHSTATE") for line in lines)
    assert connected(hub, match["id"]) == [False, False]
    # the front end's own port gives it no seat of that match either
    stranger = Program(hub.ports["acpc"], source="127.0.0.2")
    try:
        program = Program(match["ports"][0])  # from an allowed address: it plays
        assert program.play_until(10**6) is False
        program.close()
        assert wait_over(hub, match["id"])["reason"] == "1 hands played"
    finally:
        stranger.close()
    for bad in ("nowhere", ["10.0.0.0/33"], [], ["127.0.0.1"] * 65, 7):
        status, body, _ = hub.request("POST", "/acpc/matches",
                                      {"game": GAME, "players": ["acpc", "acpc"], "allow": bad})  # fmt: skip
        assert status == 400 and "allow" in json.loads(body)["error"], (bad, body)
    assert hub.errors() == []


def test_by_default_the_seats_take_only_the_creators_address(tmp_path):
    address = other_address()
    if address is None:
        pytest.skip("this machine has no address but loopback")
    h = HubProcess(tmp_path, web=LOOPBACK, acpc="tcp:0")  # the front end on every interface
    with h:
        status, match = post_from(h, address, "/acpc/matches",
                                  {"game": GAME, "players": ["acpc:ann", "acpc:bob"], "hands": 1})  # fmt: skip
        assert status == 201 and match["allow"] == [f"{address}/32"], match
        lines = refused(match["ports"][0], "127.0.0.1")  # loopback is not the creator
        assert lines and "refused" in lines[0]
        local = Program(h.ports["acpc"])  # nor on the front end's own port
        taker = Program(match["ports"][0], source=address)
        try:
            for _ in range(100):
                if connected(h, match["id"]) == [True, False]:
                    break
                import time

                time.sleep(0.05)
            assert connected(h, match["id"]) == [True, False]
            remote = Program(h.ports["acpc"], source=address)  # the creator's: seated
            for _ in range(100):
                if connected(h, match["id"]) == [True, True]:
                    break
                time.sleep(0.05)
            assert connected(h, match["id"]) == [True, True]
            remote.close()
        finally:
            local.close()
            taker.close()
        assert h.errors() == []


def test_a_hub_without_acpc_option_listens_on_loopback_only(tmp_path):
    blocker = socket.socket()
    blocker.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        blocker.bind(("127.0.0.2", 18791))  # the port taken on another interface
    except OSError:
        blocker.close()
        pytest.skip("127.0.0.2:18791 is taken here")
    blocker.listen(1)
    try:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", 18791)) == 0:
                pytest.skip("127.0.0.1:18791 is taken here (another hub runs)")
        h = HubProcess(tmp_path, web=LOOPBACK)
        del h.frontends["acpc"]  # no --acpc: the default
        with h:
            assert "gamehub acpc front end listening on 127.0.0.1:18791" in h.log()
            match = create(h, game=GAME, players=["acpc:ann", "acpc:bob"], hands=1)
            with pytest.raises(ConnectionRefusedError):
                socket.create_connection(("127.0.0.2", match["ports"][0]), timeout=10).close()
    finally:
        blocker.close()


def test_hostile_match_requests_are_clear_refusals(tmp_path):
    h = HubProcess(tmp_path, web=LOOPBACK, acpc=LOOPBACK)
    h.extra += ["--set", "acpc_max_matches=2"]
    with h:
        for raw, words in (
            (b"[" * 15000, "deeper than"),  # once a RecursionError: 500 and a traceback
            (b'{"game": "limit", "seed": "\\ud800"}', "not valid Unicode"),
            (b"{" + b" " * 20000 + b"}", "larger than"),
            (b"\xff\xfe", "not valid JSON"),
            (b"[]", "JSON object"),
        ):
            status, body, _ = h.request("POST", "/acpc/matches", raw=raw)
            assert status in (400, 413) and words in json.loads(body)["error"], (raw[:20], body)
        for _ in range(2):
            create(h, game=GAME, players=["acpc", "bot:caller"], hands=1)
        status, body, _ = h.request("POST", "/acpc/matches",
                                    {"game": GAME, "players": ["acpc", "bot:caller"]})  # fmt: skip
        assert status == 503 and "2 matches" in json.loads(body)["error"], body
        assert h.errors() == []


def test_the_acpc_match_command_prints_the_keys_and_allows_addresses(hub):
    import os
    import subprocess
    import sys

    from tests.hubprocess import ROOT

    done = subprocess.run(
        [sys.executable, "-m", "hub.cli", "acpc-match", GAME, "acpc:ann", "bot:caller",
         "--hands", "1", "--allow", "127.0.0.1", "--hub", hub.url("")],
        capture_output=True, text=True, timeout=60, cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    (key_line,) = [line for line in lines if line.startswith("key of ann")]
    (port,) = [int(p) for p in lines[-1].split()]
    match_id = lines[0].split()[1].rstrip(":")
    key = key_line.rsplit(" ", 1)[1]
    assert refused(port, "127.0.0.2")  # only 127.0.0.1 may take the seat
    program = Program(port)
    try:
        assert program.play_until(1) is False  # one hand, then the match is over
    finally:
        program.close()
    assert wait_over(hub, match_id)["reason"] == "1 hands played"
    status, _, _ = hub.request("GET", f"/acpc/matches/{match_id}/log",
                               headers={"Authorization": f"Bearer {key}"})  # fmt: skip
    assert status == 200
