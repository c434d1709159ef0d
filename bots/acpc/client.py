"""The ACPC program's loop: a blocking socket, one line in, maybe one line out."""

from __future__ import annotations

import socket
import ssl
from typing import Any

from bots.poker.plugin import PokerBot

from .state import GAMES, letter, parse

#: the longest line read (the server's lines are far shorter)
MAX_LINE = 4096


def play(
    host: str,
    port: int,
    game: str = "holdem.limit.2p.reverse_blinds",
    bot: str = "caller",
    seed: int | None = None,
    timeout: float = 600.0,
    max_lines: int = 10_000_000,
    tls: ssl.SSLContext | None = None,
) -> dict[str, Any]:
    """Play until the server closes; ``{"hands", "actions", "comments"}`` seen.
    ``tls``: speak TLS with this context (an ``ssl:`` port of the hub).

    :raises OSError: the connection failed.
    """
    rules = GAMES[game]
    brain = PokerBot(bot, 0, seed)
    hands: set[int] = set()
    actions = 0
    comments: list[str] = []
    plain = socket.create_connection((host, port), timeout=timeout)
    sock = plain if tls is None else tls.wrap_socket(plain, server_hostname=host)
    with sock:
        sock.sendall(b"VERSION:2.0.0\r\n")
        buffer = b""
        for _ in range(max_lines):
            while b"\n" not in buffer:
                chunk = sock.recv(65536)
                if not chunk:
                    return {"hands": len(hands), "actions": actions, "comments": comments}
                buffer += chunk
                if len(buffer) > MAX_LINE and b"\n" not in buffer:
                    raise OSError("the server sent a line that is too long")
            raw, buffer = buffer.split(b"\n", 1)
            line = raw.rstrip(b"\r").decode("ascii", "replace")
            if line.startswith(("#", ";")) or not line:
                if len(comments) < 100:
                    comments.append(line)
                continue
            hand = parse(line, rules)
            if hand is None:
                continue
            hands.add(hand.number)
            if hand.over or hand.next != hand.position:
                continue
            brain.seat = hand.position
            choice = brain.choose(hand.view(), hand.legal(), 1.0)
            sock.sendall(f"{line}:{letter(choice, hand)}\r\n".encode("ascii"))
            actions += 1
    return {"hands": len(hands), "actions": actions, "comments": comments}
