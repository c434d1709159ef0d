"""The fuzz suite's shared parts: the hub it attacks, byte mutations, the batch loop.

A front end plugs in as a :class:`Target`: it connects real clients to the running hub
and sends, in :meth:`Target.batch`, messages of three kinds mixed at random:

- built from the protocol's grammar with random field values;
- valid in structure but sent in the wrong state;
- byte-level mutations (:func:`mutate`) of valid messages;

while driving its clients through real game states (log in, join, play) so that the
deep handlers see them too.  :func:`run` sends batches until the budget is spent and
after every batch checks the hub's log (no traceback, no ``Unhandled``, no
``CRITICAL``), that ``/api/health`` answers and that a fresh, normal client of the
target's front end is still served (:meth:`Target.served`).

The budget per front end is :data:`CI_MESSAGES` (a bounded run) or, with
``GAMEHUB_SOAK=full``, :data:`FULL_MESSAGES`; ``GAMEHUB_FUZZ_SEED`` picks the seed
(printed with the counts) and ``GAMEHUB_FUZZ_MESSAGES`` the budget.  A new front end (ACPC, when it lands) adds a module
``test_fuzz_<name>.py`` with one :class:`Target` subclass named by ``TARGET`` (the
fixture ``hub`` of ``conftest.py`` starts the hub with that front end) and the two
tests every module has, :func:`bounded` and :func:`full`; nothing here changes.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import socket
import threading
import time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests.hubprocess import HubProcess

FULL = os.environ.get("GAMEHUB_SOAK") == "full"
#: messages per front end in the bounded run (CI) and with GAMEHUB_SOAK=full
CI_MESSAGES = 2_000
FULL_MESSAGES = 100_000
#: messages between two checks of the hub
BATCH = 500
LOOPBACK = "tcp:0:interface=127.0.0.1"
#: the limits a fuzzing client would hit at once, raised (``--set``) for the fuzz hub
RAISED_LIMITS = {
    "create_rate": 100_000,
    "create_burst": 100_000,
    "chat_rate": 100_000,
    "web_chat_rate": 100_000,
    "web_chat_burst": 100_000,
    "xml_rate": 100_000,
    "xml_burst": 100_000,
    "login_free_failures": 1_000_000,
    "login_address_failures": 1_000_000,
    "keep_finished": 60,
    "retire_after": 5,
    "domino_answer_seconds": 60,
    "domino_login_seconds": 60,
    "acpc_seat_endpoint": LOOPBACK,
    "acpc_max_ignored": 1_000_000,
}
_BAD = ("Unhandled", "Traceback", "CRITICAL")


def seed() -> int:
    """The run's seed: ``GAMEHUB_FUZZ_SEED``, else a new one (printed by :func:`run`)."""
    text = os.environ.get("GAMEHUB_FUZZ_SEED")
    return int(text) if text else random.SystemRandom().randrange(2**32)


def budget() -> int:
    """Messages to send per front end (``GAMEHUB_FUZZ_MESSAGES`` overrides it)."""
    text = os.environ.get("GAMEHUB_FUZZ_MESSAGES")
    if text:
        return int(text)
    return FULL_MESSAGES if FULL else CI_MESSAGES


def start_hub(tmp: Path, **frontends: str) -> HubProcess:
    """A real ``twistd -n gamehub`` with ``frontends`` (and the web front end, for
    ``/api/health`` and game creation) and the raised limits."""
    hub = HubProcess(tmp, **{"web": LOOPBACK, **frontends})
    for key, value in RAISED_LIMITS.items():
        hub.extra += ["--set", f"{key}={value}"]
    return hub.start()


class LogWatch:
    """Reads a hub's log as it grows; :meth:`bad_lines` returns the new bad lines."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0

    def bad_lines(self) -> list[str]:
        """Lines logged since the last call that show an error."""
        with open(self.path, "rb") as log:
            log.seek(self.offset)
            data = log.read()
        end = data.rfind(b"\n") + 1
        self.offset += end
        lines = data[:end].decode("utf-8", "replace").splitlines()
        return [line for line in lines if any(word in line for word in _BAD)]


def quick_ack(sock: socket.socket) -> None:
    """Acknowledge at once what arrives next on ``sock`` (Linux): a server that writes
    a second small segment before the first is acknowledged (Nagle) waits for our
    delayed acknowledgement otherwise, some 40 ms per exchange."""
    if hasattr(socket, "TCP_QUICKACK"):
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)


# -- byte mutations ---------------------------------------------------------------------

SPECIAL = (b"\x00", b"\r", b"\n", b"\r\n", b"\xff", b"\xc3", b"\xed\xa0\x80", b" ", b"\t")


def mutate(rng: random.Random, data: bytes, others: list[bytes] | None = None) -> bytes:
    """``data`` with one to three random byte-level changes: bit flips, random bytes,
    truncation, a splice with another valid message, inserted NUL/CR/LF (and other
    special bytes), a deleted or repeated chunk."""
    out = bytearray(data)
    for _ in range(rng.choice((1, 1, 2, 3))):
        kind = rng.randrange(8)
        at = rng.randrange(len(out) + 1)
        if kind == 0 and out:  # flip a bit
            i = rng.randrange(len(out))
            out[i] ^= 1 << rng.randrange(8)
        elif kind == 1 and out:  # a random byte
            out[rng.randrange(len(out))] = rng.randrange(256)
        elif kind == 2:  # truncate
            del out[at:]
        elif kind == 3:  # splice with another message
            other = rng.choice(others) if others else bytes(out)
            out = out[:at] + other[rng.randrange(len(other) + 1) :]
        elif kind == 4:  # insert NUL, CR, LF, invalid UTF-8, spaces
            out[at:at] = rng.choice(SPECIAL)
        elif kind == 5 and out:  # delete a chunk
            del out[at : at + rng.randrange(1, 8)]
        elif kind == 6 and out:  # repeat a chunk
            chunk = out[at : at + rng.randrange(1, 16)]
            out[at:at] = chunk * rng.randrange(1, 4)
        else:  # random bytes
            out[at:at] = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 6)))
    return bytes(out)


#: texts that break naive handlers: empty, huge, unusual Unicode, markup, numbers
NASTY_TEXT = (
    "",
    " ",
    "0",
    "-1",
    "99999999999999999999",
    "1e308",
    "NaN",
    "null",
    "true",
    "%s%n",
    "../../etc/passwd",
    "<b>&amp;</b>",
    "]]>",
    "\u202eevil",
    "\ufeff",
    "\ufffe",
    "\U0001f600",
    "\u2028",
    "e\u0301",
    "\x7f",
    "tab\there",
    "x" * 300,
)


def text(rng: random.Random, ascii_only: bool = False, most: int = 12) -> str:
    """A random text: a nasty one now and then, else random characters."""
    if rng.random() < 0.3:
        choice = rng.choice(NASTY_TEXT)
        return choice.encode("ascii", "replace").decode() if ascii_only else choice
    top = 0x7E if ascii_only else rng.choice((0x7E, 0xFF, 0x2FFF, 0x10FFFF))
    chars = []
    for _ in range(rng.randrange(most + 1)):
        code = rng.randrange(0x20, top + 1)
        if 0xD800 <= code <= 0xDFFF:
            code = 0xFFFD
        chars.append(chr(code))
    return "".join(chars)


def number(rng: random.Random) -> int:
    """A random whole number, small ones most often."""
    return rng.choice(
        (rng.randrange(-2, 10), rng.randrange(100), rng.randrange(-(2**70), 2**70), 2**63, 0)
    )


# -- targets and the batch loop ---------------------------------------------------------


@dataclass
class Tally:
    """What a run sent: messages by kind (``grammar``, ``wrong_state``, ``mutated``,
    ``valid``) and the health checks made."""

    sent: Counter = field(default_factory=Counter)
    checks: int = 0

    def total(self) -> int:
        """Every message sent."""
        return sum(self.sent.values())

    def fuzzed(self) -> int:
        """The messages that were not plain valid ones."""
        return self.total() - self.sent["valid"]


class Target:
    """One front end under fuzz (the seam a new front end plugs into).

    A subclass says how one client connection goes (:meth:`connection`) and how a
    fresh, normal client is checked (:meth:`served`); :meth:`batch` runs
    :attr:`parallel` connections at a time (each with a random generator of its own,
    drawn from the run's seed) until a batch's messages are sent.

    :ivar name: the front end (``xml``, ``mnm``, ...).
    """

    name = ""
    #: connections fuzzing at the same time
    parallel = 6

    def __init__(self, hub: HubProcess, rng: random.Random, tally: Tally) -> None:
        self.hub = hub
        self.rng = rng
        self.tally = tally
        self._lock = threading.Lock()

    def count(self, kind: str) -> None:
        """One message of ``kind`` was sent (``""``: a health check's, not counted)."""
        if not kind:
            return
        with self._lock:
            self.tally.sent[kind] += 1

    def connection(self, rng: random.Random) -> None:
        """One client: through real game states, sending fuzzed messages on the way,
        each counted with :meth:`count` (bounded: every socket wait has a timeout)."""
        raise NotImplementedError

    def batch(self, messages: int) -> None:
        """Connections until ``messages`` more fuzzed messages were sent."""
        goal = self.tally.fuzzed() + messages

        def work(rng: random.Random) -> None:
            while self.tally.fuzzed() < goal:
                self.connection(rng)

        rngs = [random.Random(self.rng.getrandbits(64)) for _ in range(self.parallel)]
        with ThreadPoolExecutor(self.parallel) as pool:
            for done in [pool.submit(work, rng) for rng in rngs]:
                done.result()

    def served(self) -> None:
        """Assert that a fresh, well-behaved client of this front end is served."""
        raise NotImplementedError

    def close(self) -> None:
        """Close what the connections left open."""


def health(hub: HubProcess) -> dict:
    """``GET /api/health`` (it must answer 200)."""
    with urllib.request.urlopen(hub.url("/api/health"), timeout=30) as answer:
        assert answer.status == 200
        return json.loads(answer.read())


def run(hub: HubProcess, target_class: type[Target], total: int | None = None) -> Tally:
    """Fuzz ``hub`` with ``target_class`` until ``total`` fuzzed messages were sent
    (default :func:`budget`); after every batch the hub must be clean and serving."""
    total = budget() if total is None else total
    run_seed = seed()
    rng = random.Random(run_seed)
    tally = Tally()
    watch = LogWatch(hub.log_path)
    target = target_class(hub, rng, tally)
    started = time.monotonic()
    try:
        while tally.fuzzed() < total:
            target.batch(min(BATCH, total - tally.fuzzed()))
            bad = watch.bad_lines()
            assert bad == [], f"seed {run_seed}: {bad[:5]}\n{hub.log()[-4000:]}"
            assert health(hub)["status"] == "ok"
            target.served()
            tally.checks += 1
    finally:
        target.close()
    print(
        f"fuzz {target.name}: seed {run_seed}, {tally.total()} messages"
        f" ({tally.fuzzed()} fuzzed: {dict(tally.sent)}), {tally.checks} health checks,"
        f" {time.monotonic() - started:.1f} s"
    )
    assert watch.bad_lines() == []
    return tally


def bounded(hub: HubProcess, target_class: type[Target]) -> None:
    """The CI run of a module: :data:`CI_MESSAGES` (skipped with GAMEHUB_SOAK=full,
    which runs :func:`full` instead)."""
    if FULL:
        pytest.skip("GAMEHUB_SOAK=full runs the full soak instead")
    run(hub, target_class)


def full(hub: HubProcess, target_class: type[Target]) -> None:
    """The soak of a module: at least :data:`FULL_MESSAGES` (GAMEHUB_SOAK=full)."""
    if not FULL:
        pytest.skip("the full fuzz soak runs with GAMEHUB_SOAK=full")
    assert run(hub, target_class).fuzzed() >= FULL_MESSAGES
