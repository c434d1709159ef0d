"""One hub holding many MNM games at once (issue 36: 2,500 games, each moving once a
second, p99 move latency ≤ 50 ms, RSS ≤ 1.5 GB).

A real hub (``twistd -n gamehub`` with the MNM front end on loopback) gets ``--games``
Nine Men's Morris games through ``POST /api/games``; two network clients a game play
them over loopback from ``--clients`` processes, each one ``epoll`` (the course-style
clients of :mod:`bench.mnm_replay`, replaying games recorded with the rules engine), each
thinking ``--think`` seconds (1) before each of its moves, so every game moves about
once a second.  A move's latency is the time from sending its ``PLAY`` to the hub's
``+ MOVEOK``.  The games are started over ``--ramp`` seconds, then measured for
``--seconds``: the moves made, their latency (median, p90, p99, most), the hub's
resident memory (``VmRSS``, and its peak ``VmHWM``) and its CPU share.  Bounded: the
whole run ends after ramp + measure + about a minute, whatever happens.

    python bench/mnm_scale.py [--games 2500] [--seconds 60] [--think 1.0] [--ramp 30] [--clients 4]
                              [--lobby-clients 0] [--set KEY=VALUE ...] [--trace FILE]

A move's latency is printed twice: as the client's loop read the answer, and as the
kernel received it (the socket's receive time stamp): the second leaves out the time
an answer waited for the client's own busy loop, so the two apart would say the
clients, not the hub, made the tail.  ``--trace FILE``: where the hub's reactor spent
its turns (:mod:`bench.reactor_trace`), written when it stops.

``--lobby-clients N``: N lobby pages (one process, one connection each) follow the
lobby's live stream (``GET /api/lobby/events``) from before the games start; the
script prints what reached them and the hub's CPU a move, to compare 0, 100 and 400.

The client's own CPU shares the machine with the hub: on a loaded machine (say, two
cores and other work) the latencies include waiting for a core; the script prints the
load average before and after.
"""

from __future__ import annotations

import argparse
import heapq
import multiprocessing
import os
import selectors
import socket
import struct
import sys
import time
from collections.abc import Callable
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.common import Figure, Row, cpu_seconds, main_thread_seconds  # noqa: E402
from bench.hubproc import Hub  # noqa: E402
from bench.mnm_replay import Creator, Loop, Recording, Seat, record  # noqa: E402

#: turns a recorded game lasts (the hub's ``max_turns`` for these games)
TURNS = 400
#: Linux's socket option for receive time stamps (``struct timespec``, wall clock)
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
TIMESPEC = struct.Struct("@ll")
STAMP_SPACE = socket.CMSG_SPACE(TIMESPEC.size)


class Clock(Loop):
    """The client loop, with timers (a heap of ``(due, order, call)``)."""

    def __init__(self) -> None:
        super().__init__()
        self.timers: list[tuple[float, int, Callable[[], None]]] = []
        self._order = 0

    def later(self, delay: float, call: Callable[[], None]) -> None:
        self._order += 1
        heapq.heappush(self.timers, (time.monotonic() + delay, self._order, call))

    def run(self, deadline: float, finished: Callable[[], bool]) -> None:
        """Dispatch events and timers until ``finished()``, an abort or ``deadline``."""
        poll, conns, monotonic, timers = self.poll.poll, self.conns, time.monotonic, self.timers
        while self.running and not finished():
            now = monotonic()
            if now >= deadline:
                break
            while timers and timers[0][0] <= now:
                heapq.heappop(timers)[2]()
            wait = min(0.5, deadline - now, (timers[0][0] - now) if timers else 0.5)
            for fd, events in poll(max(0.0, wait)):
                conn = conns.get(fd)
                if conn is None:
                    continue
                if events & 4:  # EPOLLOUT
                    conn.writable()
                if events & ~4 and conn.open:
                    conn.readable()


class PacedSeat(Seat):
    """A seat that thinks ``think`` seconds before each move and times the hub's
    answer (``+ MOVEOK``) to each: as this loop reads it (into ``latencies``), and as
    the kernel received it (into ``arrivals``, by the socket's receive time stamp,
    ``SO_TIMESTAMPNS``: without the time the answer waited for this busy loop)."""

    def __init__(self, loop: Clock, port: int, game_id: str, seat: int, game: Recording,
                 done: Callable[[str | None], None], think: float, latencies: list[float],
                 arrivals: list[float]):  # fmt: skip
        super().__init__(loop, port, game_id, seat, game, done)
        self.clock = loop
        self.think = think
        self.latencies = latencies
        self.arrivals = arrivals
        self.sent_at = 0.0
        self.sent_wall = 0.0
        self.stamp = 0.0
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self._recv = self._stamped_recv

    def _stamped_recv(self, size: int) -> bytes:
        data, ancillary, _, _ = self.sock.recvmsg(size, STAMP_SPACE)
        for level, kind, value in ancillary:
            if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                seconds, nanoseconds = TIMESPEC.unpack_from(value)
                self.stamp = seconds + nanoseconds / 1e9
        return data

    def readable(self) -> None:
        if self.buf:
            Seat.readable(self)
            return
        try:
            data = self._recv(65536)
        except BlockingIOError:
            return
        except OSError as e:
            self.close(f"recv: {e}")
            return
        if not data:
            self.close(None)
        else:
            self.received(data)

    def received(self, data: bytes) -> None:
        if b"+ MOVEOK" in data and self.sent_at:
            self.latencies.append(time.monotonic() - self.sent_at)
            self.arrivals.append(self.stamp - self.sent_wall)
            self.sent_at = 0.0
        super().received(data)

    def _play(self) -> None:
        self.clock.later(self.think, self._send_play)

    def _send_play(self) -> None:
        if self.open:
            self.sent_at = time.monotonic()
            self.sent_wall = time.time()  # the kernel's stamps are on the wall clock
            Seat._play(self)


def rss(pid: int) -> tuple[int, int]:
    """The process's resident memory now and at its peak, in bytes."""
    found = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS:", "VmHWM:")):
                found[line[:5]] = int(line.split()[1]) * 1024
    return found.get("VmRSS", 0), found.get("VmHWM", 0)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))] if ordered else float("nan")


def clients(share: int, web: int, mnm: int, think: float, ramp: float, window: tuple[float, float],
            out: Any) -> None:  # fmt: skip
    """One client process: ``share`` games started over ``ramp`` seconds, played until
    the end of ``window`` (wall-clock times); the latencies of the moves answered in
    the window, the games started and the failures go to ``out`` (a pipe's end)."""
    recordings = [g for g in record(32, TURNS) if len(g.plays[0]) > 20]
    body = b'{"type": "nmmorris", "seats": ["open", "open"], "options": {"max_turns": %d}}' % TURNS
    loop = Clock()
    latencies: list[float] = []
    arrivals: list[float] = []
    failures: list[str] = []
    creator = Creator(loop, web, body)
    started = [0]

    def done(error: str | None) -> None:
        if error and "pass ended" not in error:
            failures.append(error)

    def seat_game(game_id: str) -> None:
        game = recordings[started[0] % len(recordings)]
        for seat in (0, 1):
            PacedSeat(loop, mnm, game_id, seat, game, done, think, latencies, arrivals)
        started[0] += 1
        if started[0] < share:
            loop.later(ramp / share, lambda: creator.create(seat_game))

    creator.create(seat_game)
    start, end = window
    loop.run(time.monotonic() + max(0.0, start - time.time()), lambda: False)
    latencies.clear()
    arrivals.clear()
    loop.run(time.monotonic() + max(0.0, end - time.time()), lambda: False)
    out.send((started[0], latencies, arrivals, failures[:20], len(failures), loop.error))
    loop.close_all()


def lobby_readers(count: int, web: int, window: tuple[float, float], out: Any) -> None:
    """One process holding ``count`` lobby pages' live streams (``GET
    /api/lobby/events``, one connection each) from before the games start to the end
    of ``window``, reading everything the hub sends them; what arrived (bytes and
    events, summed over the streams, the games' creation included) and the streams
    refused go to ``out``."""
    request = b"GET /api/lobby/events?limit=50 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    selector = selectors.DefaultSelector()
    heads: dict[socket.socket, bytes] = {}
    for _ in range(count):
        sock = socket.create_connection(("127.0.0.1", web), timeout=30)
        sock.sendall(request)
        sock.setblocking(False)
        heads[sock] = b""
        selector.register(sock, selectors.EVENT_READ)
    refused = 0
    got = events = 0
    end = window[1]
    while time.time() < end and heads:
        for key, _ in selector.select(timeout=0.5):
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            try:
                chunk = sock.recv(1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                selector.unregister(sock)
                del heads[sock]
                continue
            if not heads[sock].startswith(b"HTTP/1.1 200"):
                heads[sock] += chunk
                if len(heads[sock]) >= 12 and not heads[sock].startswith(b"HTTP/1.1 200"):
                    refused += 1
                    selector.unregister(sock)
                    del heads[sock]
                    sock.close()
                    continue
            got += len(chunk)
            events += chunk.count(b"\nevent: ") + chunk.startswith(b"event: ")
    out.send((len(heads), refused, got, events))
    for sock in heads:
        sock.close()


def run(games: int, seconds: float, think: float, ramp: float, procs: int,
        lobby: int = 0, extra: dict[str, str] | None = None,
        trace: str | None = None) -> dict[str, Any]:  # fmt: skip
    """Start ``games`` paced games over ``ramp`` seconds from ``procs`` client
    processes, measure ``seconds`` after them (and 5 s for the last ones to settle);
    ``lobby`` lobby pages follow the lobby's live stream meanwhile; ``extra``: more
    settings of the hub (an experiment's); ``trace``: the hub's reactor traced
    (:mod:`bench.reactor_trace`), written there."""
    settings = {"keep_waiting": 0, "retire_after": 5, "keep_finished": 30,
                "web_max_streams_per_address": lobby + 16,
                "web_max_per_address": max(256, lobby + 64), **(extra or {})}  # fmt: skip
    with Hub(("mnm",), settings=settings, trace=trace) as hub:
        start = time.time() + ramp + 5
        window = (start, start + seconds)
        context = multiprocessing.get_context("fork")
        pipes, workers = [], []
        lobby_pipe = None
        if lobby:
            lobby_pipe, theirs = context.Pipe(duplex=False)
            reader = context.Process(
                target=lobby_readers, args=(lobby, hub.ports["web"], window, theirs), daemon=True
            )
            reader.start()
            workers.append(reader)
        for i in range(procs):
            mine, theirs = context.Pipe(duplex=False)
            share = games // procs + (1 if i < games % procs else 0)
            args = (share, hub.ports["web"], hub.ports["mnm"], think, ramp, window, theirs)
            worker = context.Process(target=clients, args=args, daemon=True)
            worker.start()
            pipes.append(mine)
            workers.append(worker)
        ramp0, r0 = cpu_seconds(hub.pid), time.monotonic()
        time.sleep(max(0.0, start - time.time()))
        players = [w.pid for w in workers if w.pid is not None]
        cpu0, m0 = cpu_seconds(hub.pid), time.monotonic()
        reactor0 = main_thread_seconds(hub.pid)
        theirs0 = sum(cpu_seconds(pid) for pid in players)
        time.sleep(max(0.0, window[1] - time.time()))
        cpu1, m1 = cpu_seconds(hub.pid), time.monotonic()
        reactor1 = main_thread_seconds(hub.pid)
        theirs1 = sum(cpu_seconds(pid) for pid in players)
        now, peak = rss(hub.pid)
        latencies: list[float] = []
        arrivals: list[float] = []
        failures: list[str] = []
        started = failed = 0
        errors = []
        for pipe in pipes:
            if not pipe.poll(60):
                errors.append("a client process did not answer")
                continue
            n, found, stamped, some, count, error = pipe.recv()
            started += n
            latencies += found
            arrivals += stamped
            failures += some
            failed += count
            if error:
                errors.append(error)
        streams = (0, 0, 0, 0)
        if lobby_pipe is not None:
            if lobby_pipe.poll(60):
                streams = lobby_pipe.recv()
            else:
                errors.append("the lobby readers did not answer")
        for worker in workers:
            worker.join(30)
            if worker.is_alive():
                worker.terminate()
    return {
        "lobby": streams,
        "ramp_cpu": (cpu0 - ramp0) / max(1e-9, m0 - r0),
        "all_seconds": m1 - r0,
        "games": started,
        "moves": len(latencies),
        "seconds": m1 - m0,
        "latencies": latencies,
        "arrivals": arrivals,
        "cpu": (cpu1 - cpu0) / max(1e-9, m1 - m0),
        "reactor_cpu": (reactor1 - reactor0) / max(1e-9, m1 - m0),
        "clients_cpu": (theirs1 - theirs0) / max(1e-9, m1 - m0),
        "rss": now,
        "peak": peak,
        "failures": failures,
        "failed": failed,
        "error": "; ".join(errors),
    }


def summary(found: dict[str, Any]) -> tuple[Figure, str]:
    """A run's hub CPU a move (as moves per CPU-second, a rate) and a note of its
    latencies, moves/s, memory and failures."""
    ms = [x * 1000 for x in found["latencies"]]
    cpu = found["cpu"] * found["seconds"]
    figure = Figure(f"{found['games']:,} games", "moves/CPU-s", [found["moves"] / max(cpu, 1e-6)])
    note = (
        f"p99 {percentile(ms, 0.99):.1f} ms, median {percentile(ms, 0.5):.1f} ms; "
        f"{found['moves'] / found['seconds']:,.0f} moves/s; RSS {found['rss'] / 2**20:,.0f} MB"
    )
    failed = found["failed"] + (1 if found["error"] else 0)
    if failed:
        note += f"; {failed} failure(s): {(found['failures'] or [found['error']])[0][:80]}"
    return figure, note


def rows(quick: bool) -> list[Row]:
    """The scale table's rows (``python -m bench``): the hub's CPU a move with 10, 100
    and 1,000 paced games (against the 10 games' as the flat-cost reference), and with
    0, 100 and 400 lobby pages following the live stream (against none), each run
    short (ramp 8 s, 15 s measured; ``--quick``: 2 s and 4 s, and 50 and 200 games
    instead of 100 and 1,000)."""
    ramp, seconds = (2.0, 4.0) if quick else (8.0, 15.0)
    sizes = (10, 50, 200) if quick else (10, 100, 1000)
    middle = sizes[1]
    runs: dict[tuple[int, int], tuple[Figure, str]] = {}
    for games, lobby in [(n, 0) for n in sizes] + [(middle, 100), (middle, 400)]:
        found = run(games, seconds, think=1.0, ramp=ramp, procs=2, lobby=lobby)
        runs[games, lobby] = summary(found)
    out = []
    for (games, lobby), (figure, note) in runs.items():
        if lobby:
            what = f"{games:,} games and {lobby} lobby pages on the live stream"
            anchor: Figure | None = runs[games, 0][0]
        else:
            what = f"{games:,} games"
            anchor = None if games == sizes[0] else runs[sizes[0], 0][0]
        out.append(
            Row(
                f"MNM at scale, hub CPU a move: {what} (each seat a move a second)",
                figure,
                anchor,
                cost=True,
                unit="µs/move",
                note=note,
            )
        )
    return out


def setting(text: str) -> tuple[str, str]:
    """``KEY=VALUE`` → ``(KEY, VALUE)`` (``--set``)."""
    key, sep, value = text.partition("=")
    if not key or not sep:
        raise argparse.ArgumentTypeError(f"{text!r}: a setting is KEY=VALUE")
    return key, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2500)
    parser.add_argument("--seconds", type=float, default=60.0, help="measured seconds")
    parser.add_argument("--think", type=float, default=1.0, help="seconds before each move")
    parser.add_argument("--ramp", type=float, default=30.0, help="seconds to start the games")
    parser.add_argument("--clients", type=int, default=4, help="client processes")
    parser.add_argument(
        "--lobby-clients", type=int, default=0, help="lobby pages following the live stream"
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        type=setting,
        metavar="KEY=VALUE",
        help="a setting of the hub (an experiment's; repeatable)",
    )
    parser.add_argument(
        "--trace", metavar="FILE", help="trace the hub's reactor (bench/reactor_trace.py) into FILE"
    )
    args = parser.parse_args()
    extra = dict(args.set)
    before = os.getloadavg()[0]
    found = run(
        args.games,
        args.seconds,
        args.think,
        args.ramp,
        args.clients,
        args.lobby_clients,
        extra,
        args.trace,
    )
    after = os.getloadavg()[0]
    ms = [x * 1000 for x in found["latencies"]]
    print(f"MNM at scale: {found['games']:,} games started (of {args.games:,}), each seat "
          f"thinking {args.think:g} s a move; {found['seconds']:.0f} s measured")  # fmt: skip
    print(
        f"  moves answered         {found['moves']:,} ({found['moves'] / found['seconds']:,.0f}/s)"
    )
    print(f"  move latency (ms)      median {percentile(ms, 0.5):.1f}, p90 "
          f"{percentile(ms, 0.9):.1f}, p99 {percentile(ms, 0.99):.1f}, most "
          f"{max(ms, default=float('nan')):.1f}   (goal p99 ≤ 50)")  # fmt: skip
    at = [x * 1000 for x in found["arrivals"]]
    print(f"    to its arrival       median {percentile(at, 0.5):.1f}, p90 "
          f"{percentile(at, 0.9):.1f}, p99 {percentile(at, 0.99):.1f}, most "
          f"{max(at, default=float('nan')):.1f}   (the kernel's receive stamp)")  # fmt: skip
    print(f"  hub resident memory    {found['rss'] / 2**20:,.0f} MB now, {found['peak'] / 2**20:,.0f} "
          "MB at its peak   (goal ≤ 1,536 MB)")  # fmt: skip
    print(f"  hub CPU                {found['cpu']:.2f} cores"
          f" ({found['cpu'] * found['seconds'] / max(1, found['moves']) * 1e6:,.0f} µs a move);"
          f" its reactor's thread {found['reactor_cpu']:.2f} cores"
          f" ({found['reactor_cpu'] * found['seconds'] / max(1, found['moves']) * 1e6:,.0f} µs a move)")  # fmt: skip
    if args.lobby_clients:
        held, refused, got, events = found["lobby"]
        every = found["all_seconds"]
        print(f"  lobby streams          {held} held to the end, {refused} refused; "
              f"{events / every:,.0f} events/s, {got / every / 1024:,.0f} kB/s to them in"
              " all (the whole run)")  # fmt: skip
    print(
        f"  clients' CPU           {found['clients_cpu']:.2f} cores (their processes, same cores)"
    )
    print(f"  hub CPU while the games were made  {found['ramp_cpu']:.2f} cores")
    print(
        f"  load average           {before:.1f} before, {after:.1f} after, on {os.cpu_count()} cores"
    )
    if found["failures"] or found["error"]:
        print(
            f"  failures: {len(found['failures'])} {found['failures'][:3]} {found['error'] or ''}"
        )


if __name__ == "__main__":
    main()
