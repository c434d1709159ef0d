"""Attacks on the XML front end: hostile documents (entities, a DOCTYPE, forged
sessions), broken framing and floods."""

from __future__ import annotations

import re
import struct
import time

from .core import ATTACKS, FLOOD_BYTES, Conn, Vandal, with_conn


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

    return with_conn(v, body)


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

    return with_conn(v, body)


def xml_flood(v: Vandal) -> str:
    def body(conn: Conn) -> str:
        conn.frame()
        frame = _frame(_xml_request("<lobby><gamelist/></lobby>"))
        conn.send(frame * min(500, FLOOD_BYTES // len(frame)))
        answers = 0
        while conn.frame(v.timeout(0.5)) is not None:
            answers += 1
        return f"{answers} answers{', closed' if conn.closed else ''}"

    return with_conn(v, body)


ATTACKS["xml"] = [xml_malformed, xml_framing, xml_flood]
