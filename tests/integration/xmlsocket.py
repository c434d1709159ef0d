"""A plain blocking XML-protocol client on a real socket (for tests that act as an
outside client would): frames in and out, requests answered in order."""

from __future__ import annotations

import socket

from lxml import etree


class XMLClient:
    """One connection; ``frames`` keeps every document received (bytes)."""

    def __init__(self, port: int, source: str = "127.0.0.1", timeout: float = 15.0) -> None:
        self.sock = socket.create_connection(
            ("127.0.0.1", port), timeout=timeout, source_address=(source, 0)
        )
        self.buffer = b""
        self.frames: list[bytes] = []
        self.pending: list[etree._Element] = []
        self.sid = 0
        self.greeting = self.next()

    def send_raw(self, data: bytes) -> None:
        """Bytes as they are."""
        self.sock.sendall(data)

    def send(self, document: str | bytes) -> None:
        """One framed document."""
        data = document.encode() if isinstance(document, str) else document
        self.sock.sendall(len(data).to_bytes(4, "big") + data)

    def next(self) -> etree._Element:
        """The next document from the server."""
        while True:
            if len(self.buffer) >= 4:
                n = int.from_bytes(self.buffer[:4], "big")
                if len(self.buffer) >= 4 + n:
                    frame, self.buffer = self.buffer[4 : 4 + n], self.buffer[4 + n :]
                    self.frames.append(frame)
                    return etree.fromstring(frame)
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buffer += chunk

    def request(self, body: str, sid: int | None = None) -> etree._Element:
        """Send a request; its response (other documents wait in ``pending``)."""
        self.send(
            f'<message sessionid="{self.sid if sid is None else sid}">'
            f"<request>{body}</request></message>"
        )
        while True:
            doc = self.next()
            if doc[0].tag == "response":
                return doc
            self.pending.append(doc)

    def login(self, name: str, password_attr: str, create: bool = True) -> etree._Element:
        """Create (if asked) and log in; ``password_attr`` is the attribute's XML text."""
        if create:
            self.request(
                f'<accountmanagement><create accountname="{name}" password="{password_attr}"'
                ' accounttype="0"/></accountmanagement>',
                0,
            )
        answer = self.request(
            f'<authentication><login accountname="{name}" password="{password_attr}"/>'
            "</authentication>",
            0,
        )
        if ok(answer):
            self.sid = int(answer.get("sessionid"))
        return answer

    def close(self) -> None:
        """Close the socket."""
        self.sock.close()


def outcome(response: etree._Element) -> tuple[bool, int | None]:
    """(success, errorcode) of a response document."""
    node = response[0][0]
    if node.tag != "general" and len(node):
        node = node[0]
    code = node.get("errorcode")
    return node.get("success") == "true", int(code) if code else None


def ok(response: etree._Element) -> bool:
    """Whether a response says success."""
    return outcome(response)[0]
