"""A small blocking client of the XML front end for browser tests (plain sockets, so it
needs no reactor beside Playwright's loop): frames of 4-byte length + XML."""

from __future__ import annotations

import socket
import time
from xml.sax.saxutils import quoteattr

from lxml import etree


class XMLPeer:
    """One XML connection to a hub on loopback."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.buffer = b""
        self.updates: list[etree._Element] = []
        self.lobby_session = 0
        self.game_sessions: dict[int, int] = {}
        self._frame(10)  # the greeting

    def close(self) -> None:
        self.sock.close()

    def _frame(self, seconds: float) -> etree._Element:
        deadline = time.monotonic() + seconds
        while True:
            if len(self.buffer) >= 4:
                n = int.from_bytes(self.buffer[:4], "big")
                if len(self.buffer) >= 4 + n:
                    data, self.buffer = self.buffer[4 : 4 + n], self.buffer[4 + n :]
                    return etree.fromstring(data)
            left = deadline - time.monotonic()
            assert left > 0, "no frame from the XML front end in time"
            self.sock.settimeout(left)
            chunk = self.sock.recv(65536)
            assert chunk, "the XML front end closed the connection"
            self.buffer += chunk

    def request(self, body: str, sid: int | None = None) -> etree._Element:
        """Send ``<request>body</request>``; the response (updates are kept aside)."""
        sid = self.lobby_session if sid is None else sid
        doc = f'<message sessionid="{sid}"><request>{body}</request></message>'.encode()
        self.sock.sendall(len(doc).to_bytes(4, "big") + doc)
        while True:
            frame = self._frame(10)
            if frame[0].tag == "response":
                return frame
            self.updates.append(frame)

    @staticmethod
    def ok(response: etree._Element) -> bool:
        """Whether the response says ``success="true"``."""
        return any(node.get("success") == "true" for node in response.iter())

    def login(self, name: str, password: str) -> None:
        """Create the account and log in."""
        self.request(
            f"<accountmanagement><create accountname={quoteattr(name)} password="
            f'{quoteattr(password)} accounttype="0"/></accountmanagement>',
            0,
        )
        answer = self.request(
            f"<authentication><login accountname={quoteattr(name)} password="
            f"{quoteattr(password)}/></authentication>",
            0,
        )
        assert self.ok(answer), etree.tostring(answer)
        self.lobby_session = int(answer.get("sessionid"))

    def join(self, gameid: int) -> None:
        """``game/join`` (a hello game seats the joiner)."""
        answer = self.request(f'<game gameid="{gameid}"><join/></game>')
        assert self.ok(answer), etree.tostring(answer)
        self.game_sessions[gameid] = int(answer.get("sessionid"))

    def chat(self, gameid: int, text: str) -> etree._Element:
        """A chat line at a joined game, or in the lobby (``gameid`` 0)."""
        sid = self.game_sessions.get(gameid, self.lobby_session)
        message = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        return self.request(
            f'<game gameid="{gameid}"><chat sender="forged"><message>{message}</message></chat></game>',
            sid,
        )

    def chats(self) -> list[tuple[int, str, str]]:
        """(game id, sender, text) of every chat update so far."""
        out = []
        for frame in self.updates:
            for game in frame.iter("game"):
                chat = game.find("chat")
                if chat is not None:
                    out.append(
                        (int(game.get("gameid", 0)), chat.get("sender"), chat.findtext("message"))
                    )
        return out

    def wait_for_chat(self, text: str, seconds: float = 10.0) -> tuple[int, str, str]:
        """The chat update with ``text`` (reading updates until it comes)."""
        deadline = time.monotonic() + seconds
        while True:
            for found in self.chats():
                if found[2] == text:
                    return found
            self.updates.append(self._frame(max(0.1, deadline - time.monotonic())))

    def game_list(self) -> dict[int, str]:
        """``lobby/gamelist``: game id → state."""
        answer = self.request("<lobby><gamelist/></lobby>")
        return {int(g.get("gameid")): g.get("state") for g in answer.iter() if g.get("state")}
