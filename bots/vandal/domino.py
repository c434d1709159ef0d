"""Attacks on the domino line front end: malformed, oversized, out-of-turn and
flooded lines, slow logins, disconnects, and four connections that cheat in a game."""

from __future__ import annotations

import select
import socket
import time
from collections import Counter

from games.kingdomino import rules

from .core import ATTACKS, FLOOD_BYTES, Conn, Vandal, summarize, with_conn

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

    return with_conn(v, body)


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

    return with_conn(v, body)


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

    return with_conn(v, body)


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

    return with_conn(v, body)


def domino_slow(v: Vandal) -> str:
    def body(conn: Conn) -> str:
        if conn.line() != "CONNECT":
            return "no CONNECT"
        for byte in f"LOGIN {v.login_name()}\n".encode():
            if v.left() <= 0 or not conn.send(bytes([byte])):
                break
            time.sleep(0.01)
        return f"byte by byte login: {summarize([conn.line(v.timeout())], conn.closed)}"

    return with_conn(v, body)


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


ATTACKS["domino"] = [
    domino_malformed,
    domino_oversized,
    domino_out_of_turn,
    domino_flood,
    domino_slow,
    domino_disconnects,
    domino_game_cheats,
]
