"""``vandal``: the adversarial client the domino seed asks for, for every front end.

    python -m bots.vandal --target domino|mnm|xml|web --host 127.0.0.1 --port P --seconds N

It first logs in properly (domino: reads ``CONNECT``, sends ``LOGIN``, reads ``OK``;
MNM: the banner and an accepted ``VERSION``; XML: the greeting and an account login),
then, attack after attack until the time is up: malformed, oversized and out-of-turn
messages, cheating moves (taken dominoes, overlapping, detached or out-of-range
placements, moves for another player), floods, slow byte-by-byte sends, half-open
connections and disconnects at every step.  On the web front end: malformed requests,
bodies declared far over any limit, writes with a foreign ``Host`` (DNS rebinding) or
``Origin``, slow headers and bodies, many event streams at once and pipelined floods.
It reports what the server answered to each attack; an answer that accepts a cheat is
reported as ``ACCEPTED``.

Bounded: at most ``--seconds`` (≤ 600) of wall time, at most ``--max-attacks``
attacks, at most 64 KiB per flood and 200 connections at once, every socket
operation with a timeout.  It refuses
targets that are not loopback addresses.
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import random
import re
import select
import socket
import struct
import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from games.kingdomino import rules

MAX_SECONDS = 600
FLOOD_BYTES = 64 * 1024


class Refused(Exception):
    """The target is not allowed (not loopback)."""


def check_loopback(host: str) -> str:
    """The host's address if every address it resolves to is loopback.

    :raises Refused: otherwise.
    """
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except socket.gaierror as e:
        raise Refused(f"cannot resolve {host!r}: {e}") from None
    addresses = {str(info[4][0]) for info in infos}
    for address in addresses:
        if not ipaddress.ip_address(address.split("%")[0]).is_loopback:
            raise Refused(
                f"{host} ({address}) is not a loopback address; vandal attacks only loopback"
            )
    return sorted(addresses)[0]


class Conn:
    """A socket with a line/frame reader; every operation bounded by ``timeout``."""

    def __init__(self, host: str, port: int, timeout: float) -> None:
        self.timeout = timeout
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.buffer = b""
        self.closed = False

    def send(self, data: bytes) -> bool:
        """Send; ``False`` if the server has closed."""
        try:
            self.sock.sendall(data)
            return True
        except OSError:
            self.closed = True
            return False

    def _fill(self, timeout: float) -> bool:
        if self.closed:
            return False
        ready, _, _ = select.select([self.sock], [], [], max(0.0, timeout))
        if not ready:
            return False
        try:
            data = self.sock.recv(65536)
        except OSError:
            data = b""
        if not data:
            self.closed = True
            return False
        self.buffer += data
        if len(self.buffer) > 1 << 20:  # a server that floods us: keep the tail
            self.buffer = self.buffer[-(1 << 16) :]
        return True

    def line(self, timeout: float | None = None) -> str | None:
        """The next ``\\n`` line (``None``: nothing in time, or closed)."""
        stop = time.monotonic() + (self.timeout if timeout is None else timeout)
        while b"\n" not in self.buffer:
            left = stop - time.monotonic()
            if left <= 0 or not self._fill(left):
                if self.closed or left <= 0:
                    return None
        raw, _, self.buffer = self.buffer.partition(b"\n")
        return raw.decode("ascii", "replace").rstrip("\r")

    def lines(self, timeout: float) -> list[str]:
        """Every line arriving within ``timeout``."""
        out: list[str] = []
        stop = time.monotonic() + timeout
        while True:
            line = self.line(max(0.0, stop - time.monotonic()))
            if line is None:
                return out
            out.append(line)

    def frame(self, timeout: float | None = None) -> bytes | None:
        """The next 4-byte-length frame (XML)."""
        stop = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            if len(self.buffer) >= 4:
                (n,) = struct.unpack(">I", self.buffer[:4])
                if len(self.buffer) >= 4 + n:
                    data, self.buffer = self.buffer[4 : 4 + n], self.buffer[4 + n :]
                    return data
            left = stop - time.monotonic()
            if left <= 0 or not self._fill(left):
                if self.closed or left <= 0:
                    return None

    def wait_closed(self, timeout: float) -> bool:
        """Read until the server closes (``True``) or ``timeout`` passes."""
        stop = time.monotonic() + timeout
        while not self.closed and time.monotonic() < stop:
            self._fill(stop - time.monotonic())
            self.buffer = self.buffer[-4096:]
        return self.closed

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
        self.closed = True


@dataclass
class Report:
    """What the server answered, per attack."""

    target: str
    outcomes: dict[str, Counter] = field(default_factory=dict)
    accepted: list[str] = field(default_factory=list)
    attacks: int = 0

    def add(self, attack: str, outcome: str) -> None:
        self.outcomes.setdefault(attack, Counter())[outcome] += 1
        if "ACCEPTED" in outcome:
            self.accepted.append(f"{attack}: {outcome}")

    def to_json(self) -> dict:
        return {
            "target": self.target,
            "attacks": self.attacks,
            "accepted": self.accepted,
            "outcomes": {a: dict(c) for a, c in sorted(self.outcomes.items())},
        }

    def text(self) -> str:
        lines = [f"vandal against {self.target}: {self.attacks} attacks"]
        for attack, counter in sorted(self.outcomes.items()):
            answers = "; ".join(f"{o} x{n}" for o, n in counter.most_common(4))
            lines.append(f"  {attack:<22} {answers}")
        lines.append(
            "  cheats accepted: " + (", ".join(self.accepted) if self.accepted else "none")
        )
        return "\n".join(lines)


def summarize(answers: Sequence[str | None], closed: bool) -> str:
    """``ERROR x3, OK, closed``-style summary of answers."""
    counts = Counter(a if a is not None else "(nothing)" for a in answers)
    parts = [f"{a} x{n}" if n > 1 else a for a, n in counts.most_common(3)]
    if closed:
        parts.append("closed")
    return ", ".join(parts) or "(nothing)"


class Vandal:
    """Runs attacks on one target until the time or the attack budget is spent."""

    def __init__(
        self,
        target: str,
        host: str,
        port: int,
        seconds: float,
        rng: random.Random,
        max_attacks: int = 10_000,
        game_id: str | None = None,
        answer_seconds: float = 2.0,
    ) -> None:
        self.target = target
        self.host = host
        self.port = port
        self.rng = rng
        self.stop_at = time.monotonic() + min(seconds, MAX_SECONDS)
        self.max_attacks = max_attacks
        self.game_id = game_id
        self.answer_seconds = answer_seconds
        self.report = Report(target)
        self._logins = 0

    def left(self) -> float:
        return self.stop_at - time.monotonic()

    def timeout(self, wanted: float = 2.0) -> float:
        return max(0.05, min(wanted, self.left()))

    def connect(self) -> Conn:
        return Conn(self.host, self.port, self.timeout(3.0))

    def run(self) -> Report:
        attacks = ATTACKS[self.target]
        i = 0
        while self.left() > 0 and self.report.attacks < self.max_attacks:
            attack = attacks[i % len(attacks)] if i < len(attacks) else self.rng.choice(attacks)
            i += 1
            name = attack.__name__.removeprefix(f"{self.target}_")
            try:
                outcome = attack(self)
            except OSError as e:
                outcome = f"socket error {type(e).__name__}"
            self.report.attacks += 1
            self.report.add(name, outcome)
        return self.report

    # -- domino ------------------------------------------------------------------------

    def login_name(self) -> str:
        self._logins += 1
        return f"vandal{self.rng.randrange(10**6)}x{self._logins}"

    def domino_login(self, conn: Conn, before_connect: bool = False) -> bool:
        """The seed's condition: CONNECT received, LOGIN sent, OK received."""
        name = self.login_name()
        if before_connect:
            conn.send(f"LOGIN {name}\n".encode())
        if conn.line() != "CONNECT":
            return False
        if not before_connect:
            conn.send(f"LOGIN {name}\n".encode())
        return conn.line() == "OK"


def _with_conn(v: Vandal, body: Callable[[Conn], str]) -> str:
    conn = v.connect()
    try:
        return body(conn)
    finally:
        conn.close()


# -- domino attacks -------------------------------------------------------------------

MALFORMED_DOMINO = [
    b"",
    b"   ",
    b"choose 1",
    b"CHOOSE",
    b"CHOOSE x",
    b"CHOOSE 1 2",
    b"CHOOSE -1",
    b"CHOOSE 99999999999999999999999999",
    b"MOVE 1",
    b"MOVE 1 2 3 4",
    b"MOVE a b c",
    b"MOVE 1 0 45",
    b"MOVE 101 0 0",
    b"MOVE 0 -101 90",
    b"LOGIN",
    b"LOGIN two words",
    b"PLAYER MOVE 1 1 0 0",
    b"PLAYER CHOICE 2 5",
    b"START 1 1 2 3 4 1 2 3 4",
    b"GAME OVER RESULTS vandal 999",
    b"OK",
    b"ERROR",
    b"\x00\x01\x02\xff",
    "CHOOSE \u0661".encode(),
    b"CHOOSE\t1",
    b"MOVE 1\r0 0",
]


def domino_malformed(v: Vandal) -> str:
    def body(conn: Conn) -> str:
        if not v.domino_login(conn):
            return "login failed"
        sample = v.rng.sample(MALFORMED_DOMINO, 6)
        answers = []
        for line in sample:
            conn.send(line + b"\n")
            answers.append(conn.line(v.timeout()))
        bad = [a for a in answers if a == "OK"]
        outcome = summarize(answers, conn.closed)
        return f"ACCEPTED malformed: {outcome}" if bad else outcome

    return _with_conn(v, body)


def domino_oversized(v: Vandal) -> str:
    def body(conn: Conn) -> str:
        if not v.domino_login(conn):
            return "login failed"
        kind = v.rng.choice(["251", "long-line", "stream-no-newline"])
        if kind == "251":
            conn.send(b"CHOOSE " + b"1" * 244 + b"\n")
        elif kind == "long-line":
            conn.send(b"A" * 10_000 + b"\n")
        else:
            sent = 0
            while sent < FLOOD_BYTES and v.left() > 0:
                if not conn.send(b"Z" * 4096):
                    break
                sent += 4096
            conn.send(b"\n")
        answers = [conn.line(v.timeout())]
        conn.send(b"LOGIN again\n")  # still alive? (already logged in: ERROR)
        answers.append(conn.line(v.timeout()))
        return f"{kind}: {summarize(answers, conn.closed)}"

    return _with_conn(v, body)


def domino_out_of_turn(v: Vandal) -> str:
    def body(conn: Conn) -> str:
        if not v.domino_login(conn, before_connect=v.rng.random() < 0.5):
            return "login failed"
        answers = []
        for line in (b"CHOOSE 1", b"MOVE 1 0 0", b"LOGIN again"):
            conn.send(line + b"\n")
            answers.append(conn.line(v.timeout()))
        outcome = summarize(answers, conn.closed)
        return f"ACCEPTED out of turn: {outcome}" if "OK" in answers else outcome

    return _with_conn(v, body)


def domino_flood(v: Vandal) -> str:
    def body(conn: Conn) -> str:
        if not v.domino_login(conn):
            return "login failed"
        payload = b"CHOOSE 0\n" * 150
        conn.send(payload)
        errors = 0
        while True:
            line = conn.line(v.timeout())
            if line is None:
                break
            errors += line == "ERROR"
        return f"{errors} ERROR then {'closed' if conn.closed else 'still open'}"

    return _with_conn(v, body)


def domino_slow(v: Vandal) -> str:
    def body(conn: Conn) -> str:
        if conn.line() != "CONNECT":
            return "no CONNECT"
        for byte in f"LOGIN {v.login_name()}\n".encode():
            if v.left() <= 0 or not conn.send(bytes([byte])):
                break
            time.sleep(0.01)
        return f"byte by byte login: {summarize([conn.line(v.timeout())], conn.closed)}"

    return _with_conn(v, body)


def domino_disconnects(v: Vandal) -> str:
    step = v.rng.choice(["at once", "after CONNECT", "mid-line", "after LOGIN", "half-open"])
    conn = v.connect()
    try:
        if step == "at once":
            return step
        conn.line()
        if step == "mid-line":
            conn.send(b"LOGIN vand")
        elif step in ("after LOGIN", "half-open"):
            conn.send(f"LOGIN {v.login_name()}\n".encode())
            conn.line(v.timeout())
            if step == "half-open":
                conn.sock.shutdown(socket.SHUT_WR)
                return f"{step}: {'closed by server' if conn.wait_closed(0.2) else 'kept'}"
        return step
    finally:
        conn.close()


def domino_game_cheats(v: Vandal) -> str:
    """Four vandal connections form a game and cheat in it."""
    conns: list[Conn] = []
    counts: Counter = Counter()
    try:
        for _ in range(4):
            conn = v.connect()
            conns.append(conn)
            if not v.domino_login(conn):
                return "login failed"
        players: dict[int, dict] = {}
        stop = time.monotonic() + max(0.1, min(20.0, v.left()))
        silent = v.rng.randrange(4) if v.rng.random() < 0.3 else None
        quitter = v.rng.randrange(4) if v.rng.random() < 0.3 else None
        while time.monotonic() < stop:
            live = [c for c in conns if not c.closed]
            if not live:
                break
            ready, _, _ = select.select([c.sock for c in live], [], [], 0.5)
            for i, conn in enumerate(conns):
                if conn.closed or (conn.sock not in ready and b"\n" not in conn.buffer):
                    continue
                line = conn.line(0.05)
                if line is None:
                    continue
                p = players.setdefault(
                    i, {"kingdom": rules.Kingdom(), "current": [], "taken": set()}
                )
                _domino_react(v, i, conn, line, p, players, conns, counts, silent, quitter)
            if all(c.closed for c in conns):
                break
        return ", ".join(f"{k} x{n}" for k, n in counts.most_common(6)) or "(no game)"
    finally:
        for conn in conns:
            conn.close()


def _domino_react(v, i, conn, line, p, players, conns, counts, silent, quitter) -> None:
    words = line.split()
    if words[0] == "START":
        p["current"] = [int(w) for w in words[6:]]
        p["id"] = int(words[1])
        counts["START"] += 1
    elif words[0] == "ROUND":
        p["current"] = [int(w) for w in words[1:]]
        p["taken"] = set()
        counts["ROUND" if len(words) > 1 else "empty ROUND"] += 1
    elif words[:2] == ["PLAYER", "CHOICE"]:
        p["taken"].add(int(words[3]))
    elif words[:3] == ["GAME", "OVER", "RESULTS"]:
        counts["GAME OVER"] += 1
    elif line == "ERROR":
        counts["out of turn refused"] += 1
    elif line == "OK":
        counts["ACCEPTED out of turn"] += 1
    elif line in ("YOUR CHOICE", "YOUR MOVE"):
        if i == silent:
            counts["stayed silent"] += 1
            return
        if i == quitter and v.rng.random() < 0.2:
            conn.close()
            counts["quit mid-game"] += 1
            return
        # someone else acts out of turn or for this player (answers read as they come)
        other = conns[(i + 1) % 4]
        if not other.closed:
            other.send(b"CHOOSE 1\nPLAYER MOVE 1 1 0 0\n")
        if line == "YOUR CHOICE":
            available = [d for d in p["current"] if d not in p["taken"]]
            cheats = [f"CHOOSE {d}" for d in sorted(p["taken"])[:1]] + ["CHOOSE 0", "CHOOSE 49"]
            cheats += [f"CHOOSE {d}" for d in range(1, 49) if d not in p["current"]][:1]
            good = f"CHOOSE {v.rng.choice(available)}" if available else None
        else:
            k = p["kingdom"]
            cells = sorted(k.cells)
            x, y = v.rng.choice(cells)
            cheats = [f"MOVE {x} {y} 0", "MOVE 50 50 0", "MOVE 100 0 0", "MOVE 1 0 45"]
            placement = k.random_placement(v.rng)
            good = "MOVE " + " ".join(map(str, placement.as_list()))
            p["pending"] = placement
        for cheat in v.rng.sample(cheats, min(len(cheats), 2)):
            conn.send(cheat.encode() + b"\n")
            answer = conn.line(v.timeout())
            if answer == "OK":
                counts[f"ACCEPTED cheat {cheat}"] += 1
            else:
                counts["cheat refused" if answer == "ERROR" else f"cheat answered {answer}"] += 1
        if good is not None:
            conn.send(good.encode() + b"\n")
            answer = conn.line(v.timeout())
            counts["legal OK" if answer == "OK" else f"legal answered {answer}"] += 1
            if answer == "OK":
                if line == "YOUR CHOICE":
                    p["taken"].add(int(good.split()[1]))
                else:
                    p["kingdom"].place(1, p.pop("pending"))


# -- MNM attacks --------------------------------------------------------------------------


def mnm_login(v: Vandal, conn: Conn) -> tuple[bool, list[str]]:
    seen = []
    banner = conn.line()
    seen.append(banner or "(nothing)")
    if banner is None or not banner.startswith("+ MNM"):
        return False, seen
    version = banner.split(" v")[-1].split()[0] if " v" in banner else "3.1"
    major = version.split(".")[0]
    if int(major or 0) >= 3:
        seen.append(conn.line() or "(nothing)")  # the announcement
    conn.send(f"VERSION {major}.0\n".encode())
    answer = conn.line() or "(nothing)"
    seen.append(answer)
    return answer.startswith("+ Client version accepted"), seen


def mnm_malformed(v: Vandal) -> str:
    def body(conn: Conn) -> str:
        ok, _ = mnm_login(v, conn)
        if not ok:
            return "login failed"
        line = v.rng.choice(
            [
                b"ID " + b"x" * 13,
                b"ID " + (v.game_id or "a" * 13).encode() + b" extra",
                b"PLAY A1",
                b"THINKING",
                b"\xff\xfe\x00",
                b"VERSION 3.1",
                b"",
            ]
        )
        conn.send(line + b"\n")
        answers = conn.lines(v.timeout(1.0))
        outcome = summarize(answers, conn.closed)
        return f"ACCEPTED: {outcome}" if "+ MOVEOK" in answers else outcome

    return _with_conn(v, body)


def mnm_oversized(v: Vandal) -> str:
    def body(conn: Conn) -> str:
        ok, _ = mnm_login(v, conn)
        if not ok:
            return "login failed"
        conn.send(b"ID " + b"a" * 5000 + b"\n")
        return summarize(conn.lines(v.timeout(1.0)), conn.closed)

    return _with_conn(v, body)


def mnm_game(v: Vandal) -> str:
    """Join a game (``--game-id``) and cheat: moves out of turn, occupied fields."""

    def body(conn: Conn) -> str:
        ok, _ = mnm_login(v, conn)
        if not ok:
            return "login failed"
        conn.send(f"ID {v.game_id or 'b' * 13}\n".encode())
        first = conn.lines(v.timeout(1.0))
        if not any(a.startswith("+ PLAYING") for a in first):
            return f"no game: {summarize(first, conn.closed)}"
        conn.send(b"PLAYER\n")
        more = conn.lines(v.timeout(1.0))
        conn.send(b"PLAY A1:C7\nPLAY Z9\n")
        answers = conn.lines(v.timeout(1.0))
        outcome = summarize(more + answers, conn.closed)
        return f"ACCEPTED: {outcome}" if "+ MOVEOK" in answers else outcome

    return _with_conn(v, body)


def mnm_slow_and_disconnect(v: Vandal) -> str:
    conn = v.connect()
    try:
        conn.line()
        for byte in b"VERSION 3.1\n"[: v.rng.randrange(1, 12)]:
            if v.left() <= 0 or not conn.send(bytes([byte])):
                break
            time.sleep(0.01)
        return "disconnected mid-prolog"
    finally:
        conn.close()


# -- XML attacks ---------------------------------------------------------------------------


def _frame(text: bytes) -> bytes:
    return struct.pack(">I", len(text)) + text


def _xml_request(body: str, session: int = 0) -> bytes:
    return f'<message sessionid="{session}"><request>{body}</request></message>'.encode()


def xml_login(v: Vandal, conn: Conn) -> tuple[bool, str]:
    greeting = conn.frame()
    if greeting is None:
        return False, "no greeting"
    name = v.login_name()
    password = f"pw{v.rng.randrange(10**9)}"
    conn.send(
        _frame(
            _xml_request(
                f'<accountmanagement><create accountname="{name}" password="{password}" '
                'accounttype="0"/></accountmanagement>'
            )
        )
    )
    conn.frame()
    conn.send(
        _frame(
            _xml_request(
                f'<authentication><login accountname="{name}" password="{password}"/>'
                "</authentication>"
            )
        )
    )
    answer = conn.frame() or b""
    return b'success="true"' in answer, answer[:200].decode("utf-8", "replace")


BILLION_LAUGHS = (
    b'<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">'
    b'<!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">'
    b'<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>'
    b'<message sessionid="0"><request>&lol3;</request></message>'
)
EXTERNAL_ENTITY = (
    b'<?xml version="1.0"?><!DOCTYPE m [<!ENTITY x SYSTEM "file:///etc/passwd">]>'
    b'<message sessionid="0"><request>&x;</request></message>'
)


def xml_summary(answer: bytes | None) -> str:
    """``closed``, or the answer's first element with its success and error code."""
    if answer is None:
        return "closed"
    text = answer.decode("utf-8", "replace")
    element = re.search(r"<(?:response|stateupdate|info)>\s*<([a-z]+)", text)
    success = re.search(r'success="(\w+)"', text)
    code = re.search(r'errorcode="(\d+)"', text)
    parts = [element.group(1) if element else text[:40].replace("\n", " ")]
    if success:
        parts.append(f"success={success.group(1)}")
    if code:
        parts.append(f"errorcode={code.group(1)}")
    return " ".join(parts)


def xml_malformed(v: Vandal) -> str:
    def body(conn: Conn) -> str:
        ok, _ = xml_login(v, conn)
        payload = v.rng.choice(
            [
                b"not xml at all",
                b"<message",
                b"\xff\xfe<message/>",
                BILLION_LAUGHS,
                EXTERNAL_ENTITY,
                b"<a>" * 5000 + b"</a>" * 5000,
                _xml_request("<lobby><gamelist/></lobby>", session=123456789),
                _xml_request('<game><action gameid="nope"/></game>', session=1),
            ]
        )
        conn.send(_frame(payload))
        answer = conn.frame(v.timeout())
        leaked = b"root:" in (answer or b"")
        prefix = "ACCEPTED entity " if leaked else ""
        return f"{prefix}{'logged in, ' if ok else ''}{xml_summary(answer)}"

    return _with_conn(v, body)


def xml_framing(v: Vandal) -> str:
    def body(conn: Conn) -> str:
        conn.frame()
        kind = v.rng.choice(["zero", "huge", "short-then-close", "slow"])
        if kind == "zero":
            conn.send(struct.pack(">I", 0))
        elif kind == "huge":
            conn.send(struct.pack(">I", 0x7FFFFFFF) + b"<message")
        elif kind == "short-then-close":
            conn.send(struct.pack(">I", 1000) + b"<message/>")
            return kind
        else:
            for byte in _frame(b'<message sessionid="0"><request/></message>'):
                if v.left() <= 0 or not conn.send(bytes([byte])):
                    break
                time.sleep(0.005)
        answer = conn.frame(v.timeout())
        return f"{kind}: {xml_summary(answer)}"

    return _with_conn(v, body)


def xml_flood(v: Vandal) -> str:
    def body(conn: Conn) -> str:
        conn.frame()
        frame = _frame(_xml_request("<lobby><gamelist/></lobby>"))
        conn.send(frame * min(500, FLOOD_BYTES // len(frame)))
        answers = 0
        while conn.frame(v.timeout(0.5)) is not None:
            answers += 1
        return f"{answers} answers{', closed' if conn.closed else ''}"

    return _with_conn(v, body)


# -- web attacks ---------------------------------------------------------------------------


def _http(path: str, method: str = "GET", host: str = "127.0.0.1", **headers: str) -> bytes:
    lines = [f"{method} {path} HTTP/1.1", f"Host: {host}"]
    lines += [f"{name.replace('_', '-')}: {value}" for name, value in headers.items()]
    return ("\r\n".join(lines) + "\r\n\r\n").encode()


def _status(conn: Conn, timeout: float) -> str:
    """The status code of the next answer (``closed`` or ``(nothing)`` without one)."""
    line = conn.line(timeout)
    if line is None:
        return "closed" if conn.closed else "(nothing)"
    parts = line.split(" ", 2)
    return parts[1] if len(parts) > 1 and parts[0].startswith("HTTP/") else line[:40]


HOSTILE_HTTP = [
    b"\r\n\r\n",
    b"GARBAGE\r\n\r\n",
    b"GET /api/health HTTP/9.9\r\nHost: 127.0.0.1\r\n\r\n",
    b"GET /%00%ff/../../etc/passwd HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    b"GET /static/../../hub/tap.py HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
    b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\n{{{{{",
    b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -1\r\n\r\n",
    b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    b"GET /api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + b"x" * 20000 + b"\r\n\r\n",
    b"GET /api/games/" + b"a" * 5000 + b"/transcript?tail=-5 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
]


def web_malformed(v: Vandal) -> str:
    def body(conn: Conn) -> str:
        request = v.rng.choice(HOSTILE_HTTP)
        conn.send(request)
        answer = _status(conn, v.timeout())
        if answer.startswith("2") and b"../" in request:
            return f"ACCEPTED path {answer}"
        return answer

    return _with_conn(v, body)


def web_oversized(v: Vandal) -> str:
    """A body declared far over any limit: refused before it is sent."""

    def body(conn: Conn) -> str:
        size = v.rng.choice([10**6, 2**30, 2**40])
        conn.send(_http("/api/games", "POST", Content_Type="application/json",
                        Content_Length=str(size)))  # fmt: skip
        answer = _status(conn, v.timeout())
        return f"ACCEPTED body of {size} bytes: {answer}" if answer.startswith("2") else answer

    return _with_conn(v, body)


def web_forged(v: Vandal) -> str:
    """Writes that a page of another site could make: a foreign ``Host`` (DNS
    rebinding) or a foreign ``Origin``; a 2xx answer is a cheat accepted."""

    def body(conn: Conn) -> str:
        data = json.dumps({"type": "hello", "seats": ["open"]})
        host, origin = v.rng.choice(
            [
                ("evil.example:8080", "http://evil.example:8080"),
                ("127.0.0.1", "http://evil.example"),
            ]
        )
        conn.send(
            _http(
                "/api/games",
                "POST",
                host,
                Origin=origin,
                Content_Type="application/json",
                Content_Length=str(len(data)),
            )  # fmt: skip
            + data.encode()
        )
        answer = _status(conn, v.timeout())
        return f"ACCEPTED {host} from {origin}: {answer}" if answer.startswith("2") else answer

    return _with_conn(v, body)


#: how long one slow web request drips (longer than the default header deadline)
SLOW_SECONDS = 15.0


def web_slow(v: Vandal) -> str:
    """Headers or a body one byte at a time, for at most :data:`SLOW_SECONDS` (beyond a
    hub's usual deadlines) and the time left."""

    def body(conn: Conn) -> str:
        if v.rng.random() < 0.5:
            conn.send(b"GET /api/health HTTP/1.1\r\n")
            drip = b"X"
        else:
            conn.send(_http("/api/games", "POST", Content_Length="1000") + b"{")
            drip = b" "
        stop = time.monotonic() + SLOW_SECONDS
        while v.left() > 0.1 and time.monotonic() < stop and conn.send(drip):
            answer = _status(conn, v.timeout(0.25))
            if answer != "(nothing)":
                return answer
        return "still open when the time was up"

    return _with_conn(v, body)


def web_streams(v: Vandal) -> str:
    """Open many live event streams at once: the hub answers 200 up to its caps."""
    held: list[Conn] = []
    counts: Counter[str] = Counter()
    try:
        for _ in range(v.rng.randrange(50, 201)):
            if v.left() <= 0:
                break
            conn = v.connect()
            held.append(conn)
            conn.send(_http("/api/lobby/events", Accept="text/event-stream"))
            counts[_status(conn, v.timeout())] += 1
    finally:
        for conn in held:
            conn.close()
    return ", ".join(f"{status} x{n}" for status, n in counts.most_common(3))


def web_flood(v: Vandal) -> str:
    """Hundreds of pipelined requests on one connection."""

    def body(conn: Conn) -> str:
        conn.send(_http("/api/health") * v.rng.randrange(100, 501))
        answers = 0
        while _status(conn, v.timeout(0.5)) == "200":
            answers += 1
            while conn.line(v.timeout(0.5)) not in (None, ""):
                pass  # the headers
            if not conn.line(v.timeout(0.5)):  # the body: one line of JSON
                break
        return f"{answers} answers{', closed' if conn.closed else ''}"

    return _with_conn(v, body)


ATTACKS: dict[str, list[Callable[[Vandal], str]]] = {
    "domino": [
        domino_malformed,
        domino_oversized,
        domino_out_of_turn,
        domino_flood,
        domino_slow,
        domino_disconnects,
        domino_game_cheats,
    ],
    "mnm": [mnm_malformed, mnm_oversized, mnm_game, mnm_slow_and_disconnect],
    "xml": [xml_malformed, xml_framing, xml_flood],
    "web": [web_malformed, web_oversized, web_forged, web_streams, web_flood, web_slow],
}


def main(argv: Sequence[str] | None = None) -> int:
    """Attack one front end for a bounded time and print what it answered."""
    parser = argparse.ArgumentParser(
        prog="python -m bots.vandal", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("--target", choices=sorted(ATTACKS), required=True)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--max-attacks", type=int, default=10_000)
    parser.add_argument("--game-id", default=None, help="an MNM game id to join and cheat in")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    args = parser.parse_args(argv)
    if not 0 < args.seconds <= MAX_SECONDS:
        parser.error(f"--seconds: more than 0, at most {MAX_SECONDS}")
    if not 1 <= args.max_attacks <= 100_000:
        parser.error("--max-attacks: 1 to 100000")
    try:
        address = check_loopback(args.host)
    except Refused as e:
        print(f"vandal: {e}", file=sys.stderr)
        return 2
    vandal = Vandal(
        args.target,
        address,
        args.port,
        args.seconds,
        random.Random(args.seed),
        max_attacks=args.max_attacks,
        game_id=args.game_id,
    )
    report = vandal.run()
    print(json.dumps(report.to_json()) if args.json else report.text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
