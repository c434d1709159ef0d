"""A door's view of an MNM conversation it splices, so that it can follow the game to
a new hub without the client noticing (issue 31, docs/cluster.md "A game that moves").

Sans-I/O: :class:`Conversation` is given the bytes that pass (the client's, from the
door's protocol; the owner's that reach the client, from the splice's
``Follow.seen``) and keeps where the client is in the conversation: which request of
the hub it answers (``WAIT``, a move request, ``OKTHINK``) and what it answered.  The
MNM conversation is strict (the client only answers, one line to each request), so
that is all a new owner needs.

When the owner closes without the session's end (the game moved: the old owner holds a
``PLAY`` it got while the game was sealed and answers nothing), :meth:`Conversation.rejoin`
gives what the new owner must hear — the client's ``VERSION``, ``ID`` and ``PLAYER``
lines, and after them the client's part of the move exchange it is in (``THINKING``,
and its ``PLAY`` if sent) — and the last line of the new owner's answer the client
already had (``+ ENDPLAYERS``; the move request's ``+ ENDPIECELIST``; ``+ OKTHINK``).
A ``WAIT`` of the old owner that the client had not answered yet: its ``OKWAIT`` is
dropped (the new owner did not ask).
"""

from __future__ import annotations

from hub.cluster.splice import Rejoin

#: the hub's lines that the conversation turns on (without their newline)
ENDPLAYERS = b"+ ENDPLAYERS"
ENDPIECELIST = b"+ ENDPIECELIST"
OKTHINK = b"+ OKTHINK"
WAIT = b"+ WAIT"
MOVEOK = b"+ MOVEOK"
MOVE = b"+ MOVE "
THINKING = b"THINKING\n"
OKWAIT = b"OKWAIT"
#: at most so many lines of a new owner's answer are dropped (banner, announcement,
#: version, game prolog, players, a move request with its piece list, OKTHINK)
RESEAT_LINES = 256
#: the longest client line kept (the PLAYER line, an answer): MNM's line limit
LONGEST = 1025


class Conversation:
    """A spliced MNM client's conversation with the hub of its game (module text).

    :param said: the client's ``VERSION`` and ``ID`` lines (the door answered them).
    """

    def __init__(self, said: bytes) -> None:
        self.said = said
        #: the client's PLAYER line (its first line passed through)
        self.seated = b""
        #: the owner's last request (``WAIT``, ``MOVE``, ``OKTHINK``; ``None``: none open)
        self.request: bytes | None = None
        #: the client's answer to it (its line; ``None``: not yet)
        self.answer: bytes | None = None
        #: a move request is being read (between ``+ MOVE`` and ``+ ENDPIECELIST``)
        self._moving = False
        #: the client's OKWAIT to a WAIT of an owner that left is dropped
        self._drop_okwait = False
        self._owner_part = b""
        self._client_part = b""
        self._held = b""

    def owner(self, data: bytes) -> None:
        """Bytes of the owner that reach the client."""
        if b"\n" not in data:
            self._owner_part = (self._owner_part + data)[-LONGEST:]
            return
        head, _, rest = data.rpartition(b"\n")
        lines = (self._owner_part + head).split(b"\n")
        self._owner_part = rest[-LONGEST:]
        for raw in lines:
            line = raw.rstrip(b"\r")
            if line.startswith(MOVE):
                self._moving = True
            elif line == ENDPIECELIST and self._moving:
                self._moving = False
                self.request, self.answer = MOVE, None
            elif line == WAIT or line == OKTHINK:
                self.request, self.answer = line, None
            elif line == MOVEOK or line == ENDPLAYERS:
                self.request, self.answer = None, None

    def client(self, data: bytes) -> bytes:
        """Bytes of the client → what goes on to the owner (an ``OKWAIT`` to a WAIT
        of an owner that left is dropped: the client's next line, held until whole)."""
        if self._drop_okwait:
            held = self._held + data
            if b"\n" not in held and len(held) <= LONGEST:
                self._held = held
                return b""
            self._held, self._drop_okwait = b"", False
            line, _, rest = held.partition(b"\n")
            data = rest if line.rstrip(b"\r") == OKWAIT else held
        self._track(data)
        return data

    def _track(self, data: bytes) -> None:
        if b"\n" not in data:
            self._client_part = (self._client_part + data)[-LONGEST:]
            return
        head, _, rest = data.rpartition(b"\n")
        lines = (self._client_part + head + b"\n").splitlines(keepends=True)
        self._client_part = rest[-LONGEST:]
        for line in lines:
            if not self.seated:
                self.seated = line[-LONGEST:]
            elif self.request is not None and self.answer is None:
                self.answer = line[-LONGEST:]

    def rejoin(self) -> Rejoin:
        """The owner closed: what a new owner must hear, and the last line of its
        answer the client already had (module text)."""
        base = self.said + self.seated
        request, answer = self.request, self.answer
        self._owner_part, self._moving = b"", False
        if request == MOVE:
            return Rejoin(base + (THINKING if answer else b""), RESEAT_LINES, ENDPIECELIST)
        if request == OKTHINK:
            return Rejoin(base + THINKING + (answer or b""), RESEAT_LINES, OKTHINK)
        if request == WAIT and answer is None:
            self._drop_okwait = True
        self.request = self.answer = None
        return Rejoin(base, RESEAT_LINES, ENDPLAYERS)


__all__ = ["Conversation"]
