"""A door's view of a Domino session it splices, so that it can follow the game to a
new hub without the client noticing (issue 31, docs/cluster.md "A game that moves").

Sans-I/O: :class:`Session` is given the bytes that pass (the client's, from the door's
protocol; the owner's that reach the client, from the splice's ``Follow.seen``) and
keeps what a new owner must hear and what of its answer the client already had:

- the client's lines the owner has not answered yet: every line of the Domino
  protocol is answered with one ``OK`` or ``ERROR``, but a command sent while the
  game is sealed for its hand-over gets no answer (the old owner holds it, and then
  closes), and lines still on their way are lost with the old connection;
- whether the client holds a prompt (``YOUR CHOICE``, ``YOUR MOVE``) it has not
  answered with a command the owner took (``OK``): the game's turn is then its own;
- whether the session ended (``GAME OVER``, or the owner closed before the game
  started: a refused login, a queue given up): nothing to follow.

When the owner closes otherwise, :meth:`Session.rejoin` gives what the new owner must
hear — the ``LOGIN`` line (the new owner seats the player back in the seat the resumed
game keeps for it: :meth:`hub.frontends.domino.protocol.DominoProtocol`), then the
unanswered lines — and the last line of the new owner's answer the client already
had: ``CONNECT``, ``OK`` to the login, and the prompt when the client holds one (the
new owner says first what the seat missed, starting with the turn in effect when the
game went live there: :meth:`hub.play.game.GameInstance.missed`).  What follows — the
answers to the replayed lines, the others' moves made meanwhile — the client has not
had: not one line more or fewer than a client of one hub.
"""

from __future__ import annotations

from collections import deque

from hub.cluster.splice import Rejoin

from .codec import MAX_LENGTH

#: the owner's lines the session turns on (without their newline)
OK = b"OK"
ERROR = b"ERROR"
PROMPTS = (b"YOUR CHOICE", b"YOUR MOVE")
START = b"START "
OVER = b"GAME OVER"
#: the longest line kept (a longer one is kept as its start: still over the limit, so
#: the new owner refuses it as the old one would)
LONGEST = MAX_LENGTH + 2
#: at most so many of the client's lines are kept while they wait for an answer (the
#: client reads none of the answers: what is beyond is not replayed)
PENDING = 256


class Session:
    """A spliced Domino client's session with the hub that plays it (module text).

    :param login: the client's ``LOGIN`` line (the door read it, the owner answers it).
    """

    def __init__(self, login: bytes) -> None:
        self.login = login
        #: the client's lines the owner has not answered yet, oldest first
        self.unanswered: deque[bytes] = deque([login], maxlen=PENDING)
        #: unanswered lines beyond :data:`PENDING` (answered first: they are older)
        self._beyond = 0
        #: the prompt the client holds (``None``: not its turn, or it was answered)
        self.prompt: bytes | None = None
        #: the game started (``START`` seen)
        self.started = False
        #: the game is over (``GAME OVER`` seen)
        self.over = False
        self._owner_part = b""
        self._client_part = b""

    @property
    def ended(self) -> bool:
        """Whether the owner closing ends the session: the game is over, or it never
        started (a refused login, a queue given up): no game to follow."""
        return self.over or not self.started

    def owner(self, data: bytes) -> None:
        """Bytes of the owner that reach the client."""
        lines, self._owner_part = _cut(self._owner_part, data)
        for line in lines:
            if line == OK or line == ERROR:
                self._answered()
                if line == OK and self.started:  # a command taken: the turn went on
                    self.prompt = None
            elif line in PROMPTS:
                self.prompt = line
            elif line.startswith(START):
                self.started = True
            elif line.startswith(OVER):
                self.over = True

    def client(self, data: bytes) -> bytes:
        """Bytes of the client (they go on to the owner unchanged)."""
        lines, self._client_part = _cut(self._client_part, data, keep_ends=True)
        for line in lines:
            if len(self.unanswered) == PENDING:
                self._beyond += 1
            self.unanswered.append(line)
        return data

    def _answered(self) -> None:
        if self._beyond:
            self._beyond -= 1
        elif self.unanswered:
            self.unanswered.popleft()

    def rejoin(self) -> Rejoin:
        """The owner closed: what a new owner must hear, and the last line of its
        answer the client already had (module text)."""
        self._owner_part, self._beyond = b"", 0  # (lines beyond the bound are lost)
        said = self.login + b"".join(self.unanswered) + self._client_part
        if self.prompt is not None:  # CONNECT, OK, the prompt
            return Rejoin(said, 3, self.prompt)
        return Rejoin(said, 2, OK)  # CONNECT, OK


def _cut(part: bytes, data: bytes, keep_ends: bool = False) -> tuple[list[bytes], bytes]:
    """The whole lines of ``part + data`` (without ``\\r\\n``, or as sent) and the
    unfinished rest, each at most :data:`LONGEST` bytes (then ``\\n``)."""
    if b"\n" not in data:
        return [], (part + data)[:LONGEST]
    head, _, rest = data.rpartition(b"\n")
    raw = (part + head).split(b"\n")
    if keep_ends:
        return [line[:LONGEST] + b"\n" for line in raw], rest[:LONGEST]
    return [line.rstrip(b"\r")[:LONGEST] for line in raw], rest[:LONGEST]


__all__ = ["Session"]
