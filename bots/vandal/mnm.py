"""Attacks on the MNM front end: malformed and oversized lines, cheating moves in a
game, slow sends and disconnects."""

from __future__ import annotations

import time

from .core import ATTACKS, Conn, Vandal, summarize, with_conn


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

    return with_conn(v, body)


def mnm_oversized(v: Vandal) -> str:
    def body(conn: Conn) -> str:
        ok, _ = mnm_login(v, conn)
        if not ok:
            return "login failed"
        conn.send(b"ID " + b"a" * 5000 + b"\n")
        return summarize(conn.lines(v.timeout(1.0)), conn.closed)

    return with_conn(v, body)


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

    return with_conn(v, body)


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


ATTACKS["mnm"] = [mnm_malformed, mnm_oversized, mnm_game, mnm_slow_and_disconnect]
