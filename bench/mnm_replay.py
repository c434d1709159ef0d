"""A cheap MNM load generator (for ``bench/cluster.py``), the way wrk or tsung are: the
clients replay games recorded once, and many connections share one process and one
selector.

:func:`record` plays a few Nine Men's Morris games with random legal moves on the pure
rules engine (:mod:`games.morris.rules`, the hub's own rules with the game's options),
and keeps each seat's ``PLAY`` lines and the result.  A :class:`Seat` is one course-style
client: it sends what a course C client sends (``VERSION 3.0``, ``ID <game>``,
``PLAYER <n>``, ``OKWAIT`` to ``+ WAIT``, ``THINKING`` after the piece list of a move
request, its next recorded ``PLAY`` after ``+ OKTHINK``) and does not read the piece
list: the server's rules decide the game as they would for any client, and the seat
checks at the end that they reached the recorded result (``+ PLAYERnWON``, ``+ QUIT``).
A move request after the recording's last move, a ``- `` line, or another result fails
the game.

:func:`play` runs a pass: ``concurrency`` slots, each creating a game through the JSON
API (``POST /api/games`` on one keep-alive HTTP/1.1 connection of its own) and playing
it with two :class:`Seat` connections, then the next game.  Everything is non-blocking
on one ``epoll`` loop (Linux), bounded by the pass's seconds.

As a program, ``python bench/mnm_replay.py RECORDINGS BODY`` is a client process of
``bench/cluster.py``: it replays the games of the file ``RECORDINGS``
(:func:`write_recordings`), creating each with the JSON ``BODY``, one pass for each
:class:`Order` line it reads, and answers each with a line of JSON (``finished``,
``failures``, ``start``, ``end``: wall clock).  ``bench/mnm_replay.c`` is the same
program in C (:mod:`mnm_replay_c` builds it); :class:`Program` runs either.
"""

from __future__ import annotations

import errno
import json
import random
import select
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if __name__ == "__main__":  # a client process: the checkout's packages on the path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from games.morris import rules  # noqa: E402

READ, WRITE = select.EPOLLIN, select.EPOLLOUT
#: what ends a connection, as ``epoll`` says it (a read then tells how)
HANGUP = select.EPOLLERR | select.EPOLLHUP


@dataclass(frozen=True)
class Recording:
    """One recorded game.

    :ivar plays: per seat, its ``PLAY …`` lines in order (with the newline).
    :ivar won: the two result lines the server must send (``+ PLAYER0WON Yes``).
    :ivar decisions: moves and captures in all.
    """

    plays: tuple[tuple[bytes, ...], tuple[bytes, ...]]
    won: tuple[bytes, bytes]
    decisions: int


def record(count: int, max_turns: int, seed: int = 15) -> list[Recording]:
    """``count`` games of random legal moves on the rules engine (``max_turns``, the
    other options at the game's defaults, as ``POST /api/games`` gives them)."""
    if max_turns <= 0:
        raise ValueError("a recorded game needs a turn limit")
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        state = rules.MorrisState(rules.MorrisRules(max_turns=max_turns))
        plays: tuple[list[bytes], list[bytes]] = ([], [])
        while state.outcome is None:  # bounded: max_turns turns of at most 3 decisions
            seat = state.to_move
            move = rng.choice(state.legal_moves())
            state.apply(move)
            plays[seat].append(b"PLAY %s\n" % move.text().encode("ascii"))
        winner = state.outcome.winner
        yes = [b"Yes" if winner in (None, n) else b"No" for n in (0, 1)]
        won = (b"+ PLAYER0WON " + yes[0], b"+ PLAYER1WON " + yes[1])
        out.append(Recording((tuple(plays[0]), tuple(plays[1])), won, len(state.history)))
    return out


def write_recordings(path: Path, recordings: Sequence[Recording]) -> None:
    """Write ``recordings`` for a client process (:func:`read_recordings`, and the C
    program's ``load``): the count, then per game a line ``<plays of seat 0> <plays of
    seat 1> <Yes|No> <Yes|No> <decisions>`` and its ``PLAY`` lines, seat 0's first."""
    out = [b"%d\n" % len(recordings)]
    for game in recordings:
        yes = [won.rsplit(b" ", 1)[1] for won in game.won]
        counts = (len(game.plays[0]), len(game.plays[1]), yes[0], yes[1], game.decisions)
        out.append(b"%d %d %s %s %d\n" % counts)
        out.extend(game.plays[0] + game.plays[1])
    path.write_bytes(b"".join(out))


def read_recordings(path: Path) -> list[Recording]:
    """The recordings :func:`write_recordings` wrote."""
    lines = iter(path.read_bytes().splitlines(keepends=True))
    out = []
    for _ in range(int(next(lines))):
        n0, n1, yes0, yes1, decisions = next(lines).split()
        plays = (
            tuple(next(lines) for _ in range(int(n0))),
            tuple(next(lines) for _ in range(int(n1))),
        )
        won = (b"+ PLAYER0WON " + yes0, b"+ PLAYER1WON " + yes1)
        out.append(Recording(plays, won, int(decisions)))
    return out


@dataclass(frozen=True)
class Order:
    """One pass for a client process (:func:`play`'s arguments), as the line
    ``<games> <concurrency> <cross 0|1> <seconds> <first> <web>:<mnm>[,…]``."""

    doors: tuple[tuple[int, int], ...]  # (web port, MNM port) of each door
    games: int
    concurrency: int
    cross: bool = False
    seconds: float = 180.0
    first: int = 0

    def line(self) -> str:
        """The order's line (with its newline)."""
        doors = ",".join(f"{web}:{mnm}" for web, mnm in self.doors)
        cross = int(self.cross)
        return f"{self.games} {self.concurrency} {cross} {self.seconds!r} {self.first} {doors}\n"

    @classmethod
    def parse(cls, line: str) -> Order:
        """The order of a :meth:`line`."""
        games, concurrency, cross, seconds, first, doors = line.split()
        pairs = tuple(
            (int(web), int(mnm)) for web, mnm in (door.split(":") for door in doors.split(","))
        )
        return cls(pairs, int(games), int(concurrency), cross == "1", float(seconds), int(first))


class Conn:
    """A non-blocking TCP client connection on ``loop``'s selector, with an output
    buffer; subclasses get :meth:`received` and :meth:`lost`.  A protocol whose server
    speaks first (``speaks_first`` false: MNM) waits for its first line, not for the
    connection: the selector watches for reading only."""

    speaks_first = True

    def __init__(self, loop: Loop, port: int) -> None:
        self.loop = loop
        self.sock = socket.socket()
        self.fd = self.sock.fileno()
        self.sock.setblocking(False)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        code = self.sock.connect_ex(("127.0.0.1", port))
        if code not in (0, errno.EINPROGRESS):
            raise OSError(code, f"connecting to port {port}")
        self.out = b""
        self.connecting = self.speaks_first
        self.open = True
        #: the socket's own methods, bound once (called a few times a line)
        self._send, self._recv = self.sock.send, self.sock.recv
        loop.watch(self, READ | WRITE if self.connecting else READ)

    def send(self, data: bytes) -> None:
        """Send now, or buffer what the socket does not take yet."""
        if self.out or self.connecting:
            self.out += data
            return
        try:
            sent = self._send(data)
        except BlockingIOError:
            sent = 0
        if sent < len(data):
            self.out = data[sent:]
            self.loop.poll.modify(self.fd, READ | WRITE)

    def writable(self) -> None:
        if self.connecting:
            code = self.sock.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
            if code:
                self.close(f"connect: {errno.errorcode.get(code, code)}")
                return
            self.connecting = False
        if self.out:
            try:
                sent = self.sock.send(self.out)
            except BlockingIOError:
                return
            except OSError as e:
                self.close(f"send: {e}")
                return
            self.out = self.out[sent:]
        if not self.out:
            self.loop.poll.modify(self.fd, READ)

    def readable(self) -> None:
        try:
            data = self._recv(65536)
        except BlockingIOError:
            return
        except OSError as e:
            self.close(f"recv: {e}")
            return
        if not data:
            self.close(None)
            return
        self.received(data)

    def close(self, why: str | None) -> None:
        """Close the socket (once) and tell :meth:`lost` why (``None``: the peer did)."""
        if not self.open:
            return
        self.open = False
        self.loop.unwatch(self)
        self.sock.close()
        self.lost(why)

    def received(self, data: bytes) -> None:
        raise NotImplementedError

    def lost(self, why: str | None) -> None:
        raise NotImplementedError


#: server lines a seat ignores (the piece list, the player list, the move header)
_SKIP = (b"+ PIECE", b"+ MOVE ", b"+ CAPTU", b"+ MOVEOK", b"+ YOU ", b"+ TOTAL", b"+ Annou")


class Seat(Conn):
    """One course-style MNM client playing its seat of a :class:`Recording`;
    ``done(error)`` is called once at its end (``None``: the game ended as recorded)."""

    speaks_first = False

    def __init__(
        self,
        loop: Loop,
        port: int,
        game_id: str,
        seat: int,
        game: Recording,
        done: Callable[[str | None], None],
    ) -> None:
        super().__init__(loop, port)
        self.game_id = game_id.encode("ascii")
        self.seat = seat
        self.plays = iter(game.plays[seat])
        self.won = game.won
        self.done = done
        self.buf = b""
        self.over = False
        self.results = 0
        self.quit = False
        self.error: str | None = None

    def readable(self) -> None:
        # what comes most, each in a packet of its own, is answered here without the
        # calls of Conn.readable and received (a few packets a move)
        if self.buf:
            super().readable()
            return
        try:
            data = self._recv(65536)
        except BlockingIOError:
            return
        except OSError as e:
            self.close(f"recv: {e}")
            return
        if data == b"+ MOVEOK\n":
            return
        if data == b"+ OKTHINK\n":
            self._play()
        elif data.endswith(b"+ ENDPIECELIST\n") and data.startswith(b"+ MOVE "):
            self.send(b"THINKING\n")  # a whole move request
        elif data:
            self.received(data)
        else:
            self.close(None)

    def received(self, data: bytes) -> None:
        lines = (self.buf + data).split(b"\n")
        self.buf = lines.pop()
        for line in lines:
            if line.startswith(_SKIP):
                continue
            if line == b"+ ENDPIECELIST":
                if not self.over:
                    self.send(b"THINKING\n")
            elif line == b"+ OKTHINK":
                self._play()
            elif line == b"+ WAIT":
                self.send(b"OKWAIT\n")
            else:
                self.rare(line.rstrip(b"\r "))
            if not self.open:
                return

    def _play(self) -> None:
        play = next(self.plays, None)
        if play is None:
            self.fail("the server asked for a move after the recorded game")
        else:
            self.send(play)

    def rare(self, line: bytes) -> None:
        """The prolog and the end of the game (a few lines a game)."""
        if line.startswith(b"- "):
            self.fail(f"the server refused: {line.decode('ascii', 'replace')}")
        elif line == b"+ GAMEOVER":
            self.over = True
        elif line.startswith(b"+ PLAYER") and line[9:13] == b"WON ":
            if not self.over or line not in self.won:
                self.fail(f"not the recorded result: {line.decode('ascii', 'replace')}")
            self.results += 1
        elif line == b"+ QUIT":
            self.quit = self.over and self.results == 2
        elif line.startswith(b"+ MNM Gameserver v"):
            major = line[18:].split(b".", 1)[0]
            self.send(b"VERSION %s.0\n" % major)
        elif line.startswith(b"+ Client version accepted"):
            self.send(b"ID %s\n" % self.game_id)
        elif line.startswith(b"+ PLAYING "):
            self.send(b"PLAYER %d\n" % self.seat)
        # the game's name, the other players and ENDPLAYERS need no answer

    def fail(self, why: str) -> None:
        if self.error is None:
            self.error = why
        self.close(why)

    def lost(self, why: str | None) -> None:
        if self.error is None and not self.quit:
            self.error = why or "the server closed the connection before + QUIT"
        self.done(self.error)


class Creator(Conn):
    """A keep-alive HTTP/1.1 connection that creates games (``POST /api/games``), one
    at a time: ``create(then)`` calls ``then(game id)``."""

    def __init__(self, loop: Loop, port: int, body: bytes) -> None:
        super().__init__(loop, port)
        self.request = (
            b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n"
            b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
        ) % (port, len(body), body)
        self.buf = b""
        self.then: Callable[[str], None] | None = None

    def create(self, then: Callable[[str], None]) -> None:
        self.then = then
        self.send(self.request)

    def received(self, data: bytes) -> None:
        self.buf += data
        head, sep, rest = self.buf.partition(b"\r\n\r\n")
        if not sep:
            return
        headers = head.lower()
        if b"\r\ntransfer-encoding: chunked" in headers:
            if not rest.endswith(b"0\r\n\r\n"):
                return
            body = _unchunk(rest)
        else:
            at = headers.find(b"\r\ncontent-length:")
            if at < 0:
                self.loop.abort("a creation's answer has no length")
                return
            length = int(headers[at + 17 :].split(b"\r\n", 1)[0])
            if len(rest) < length:
                return
            body = rest[:length]
        self.buf = b""
        status = head.split(b" ", 2)[1]
        if status != b"201":
            self.loop.abort(f"creating a game failed: {status!r} {body[:300]!r}")
            return
        then, self.then = self.then, None
        if then is not None:
            then(json.loads(body)["id"])

    def lost(self, why: str | None) -> None:
        if self.then is not None or self.loop.running:
            self.loop.abort(f"the web connection closed: {why or 'by the hub'}")


def _unchunk(data: bytes) -> bytes:
    out = []
    while True:
        size_line, _, data = data.partition(b"\r\n")
        size = int(size_line.split(b";")[0], 16)
        if not size:
            return b"".join(out)
        out.append(data[:size])
        data = data[size + 2 :]


class Loop:
    """One ``epoll`` and the pass's bookkeeping."""

    def __init__(self) -> None:
        self.poll = select.epoll()
        self.conns: dict[int, Conn] = {}
        self.running = True
        self.error: str | None = None

    def watch(self, conn: Conn, events: int) -> None:
        self.conns[conn.fd] = conn
        self.poll.register(conn.fd, events)

    def unwatch(self, conn: Conn) -> None:
        self.poll.unregister(conn.fd)
        del self.conns[conn.fd]

    def abort(self, why: str) -> None:
        if self.error is None:
            self.error = why
        self.running = False

    def run(self, deadline: float, finished: Callable[[], bool]) -> None:
        """Dispatch events until ``finished()``, an abort or ``deadline`` (monotonic)."""
        poll, conns, monotonic = self.poll.poll, self.conns, time.monotonic
        while self.running and not finished():
            left = deadline - monotonic()
            if left <= 0:
                self.abort("the pass took too long")
                break
            for fd, events in poll(1.0 if left > 1.0 else left):
                conn = conns.get(fd)
                if conn is None:
                    continue
                if events == READ:  # nearly always
                    conn.readable()
                    continue
                if events & WRITE:
                    conn.writable()
                if events & (READ | HANGUP) and conn.open:
                    conn.readable()

    def close_all(self) -> None:
        self.running = False
        for conn in list(self.conns.values()):
            conn.close("the pass ended")
        self.poll.close()


def play(
    doors: Sequence[dict[str, int]],
    games: int,
    concurrency: int,
    recordings: Sequence[Recording],
    body: dict[str, Any],
    cross: bool = False,
    seconds: float = 180.0,
    first: int = 0,
) -> tuple[int, list[str]]:
    """Create and play ``games`` games: game ``i`` on door ``i % len(doors)`` (its
    creation and both seats; with ``cross`` the second seat at the next door), with
    recording ``(first + i) % len(recordings)``, ``concurrency`` games at a time.
    Returns (games that ended as recorded, the failures' reasons)."""
    loop = Loop()
    raw = json.dumps(body).encode()
    creators: dict[tuple[int, int], Creator] = {}
    queue = iter(range(games))
    state = {"ok": 0, "slots": 0}
    failures: list[str] = []

    def start(slot: int) -> None:
        i = next(queue, None)
        if i is None or not loop.running:
            state["slots"] -= 1
            return
        home = doors[i % len(doors)]
        key = (slot, home["web"])
        if key not in creators:
            creators[key] = Creator(loop, home["web"], raw)
        game = recordings[(first + i) % len(recordings)]
        errors: list[str] = []
        left = [2]

        def seated(game_id: str) -> None:
            def done(error: str | None) -> None:
                if error is not None:
                    errors.append(error)
                    failures.append(f"game {game_id}: {error}")
                left[0] -= 1
                if not left[0]:
                    state["ok"] += not errors
                    start(slot)

            for seat in (0, 1):
                door = doors[(i + seat) % len(doors)] if cross else home
                Seat(loop, door["mnm"], game_id, seat, game, done)

        creators[key].create(seated)

    for slot in range(min(concurrency, games)):
        state["slots"] += 1
        start(slot)
    try:
        loop.run(time.monotonic() + seconds, lambda: state["slots"] <= 0)
    finally:
        loop.close_all()
    if loop.error is not None:
        failures.append(loop.error)
    return state["ok"], failures


class Program:
    """A client process: ``command`` (``python bench/mnm_replay.py`` or the C
    program, each given ``RECORDINGS BODY``) plays a pass for each :meth:`order`;
    :meth:`answer` reads what it says of the pass."""

    def __init__(self, command: Sequence[str], env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen(
            list(command), stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, text=True
        )

    @property
    def pid(self) -> int:
        """The process id."""
        return self.proc.pid

    def order(self, order: Order) -> None:
        """Start a pass."""
        assert self.proc.stdin is not None
        self.proc.stdin.write(order.line())
        self.proc.stdin.flush()

    def answer(self) -> dict[str, Any]:
        """The pass's answer (``finished``, ``failures``, ``start``, ``end``)."""
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        if not line:
            raise SystemExit(f"a client process ended (status {self.proc.wait(10)})")
        answer: dict[str, Any] = json.loads(line)
        return answer

    def close(self) -> None:
        """End the process (its input closes), bounded."""
        if self.proc.stdin is not None and not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()


def python_command(recordings: Path, body: dict[str, Any]) -> list[str]:
    """The command of a Python client process."""
    return [sys.executable, str(Path(__file__).resolve()), str(recordings), json.dumps(body)]


def main(argv: Sequence[str]) -> None:
    """A client process: ``RECORDINGS BODY``, then one pass an :class:`Order` line."""
    recordings, body = read_recordings(Path(argv[0])), json.loads(argv[1])
    for line in sys.stdin:  # bounded: the parent sends its passes, then closes
        order = Order.parse(line)
        doors = [{"web": web, "mnm": mnm} for web, mnm in order.doors]
        start = time.time()
        finished, failures = play(
            doors, order.games, order.concurrency, recordings, body, order.cross,
            order.seconds, order.first,
        )  # fmt: skip
        answer = {
            "finished": finished,
            "failures": failures[:20],
            "start": start,
            "end": time.time(),
        }
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
