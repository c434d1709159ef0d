"""The parts every attack uses: loopback-only targets, a bounded socket, the report
and :class:`Vandal`, which runs the attacks of :data:`ATTACKS` (each target's module
adds its own)."""

from __future__ import annotations

import ipaddress
import random
import select
import socket
import struct
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

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


#: target → its attacks, in the order they are first tried (each ``bots/vandal/<target>.py``
#: adds its list when imported; :mod:`bots.vandal` imports them all)
ATTACKS: dict[str, list[Callable[[Vandal], str]]] = {}


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


def with_conn(v: Vandal, body: Callable[[Conn], str]) -> str:
    conn = v.connect()
    try:
        return body(conn)
    finally:
        conn.close()
