"""The XML front end's events: one frozen dataclass per kind of client request.

:func:`.decoding.decode` turns a frame into one of these; the front end answers each
with one response document (:mod:`.encoding`).  A field marked :data:`SECRET` (a
password) never reaches a transcript or a log: the transcript keeps the frame with
those fields blanked (:func:`.decoding.transcript_record`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True)
class Request:
    """Base of every decoded request.

    :ivar sessionid: the envelope's session id (0 before login).
    :ivar record: the frame as a transcript may keep it
        (:func:`.decoding.transcript_record`): every secret field blanked, the session
        id hidden; set on each decoded request by :func:`.decoding.decode` (not a
        field: it takes no part in comparisons).
    """

    sessionid: int
    record: ClassVar[bytes] = b""


#: the metadata that marks a request field secret: it never reaches a transcript or a
#: log (a password); ``field(repr=False, metadata=SECRET)``
SECRET = {"secret": True}


@dataclass(frozen=True)
class CreateAccount(Request):
    """``accountmanagement/create``."""

    accountname: str
    password: str = field(repr=False, metadata=SECRET)
    accounttype: int


@dataclass(frozen=True)
class DeleteAccount(Request):
    """``accountmanagement/delete``."""

    accountname: str
    password: str = field(repr=False, metadata=SECRET)


@dataclass(frozen=True)
class ChangePassword(Request):
    """``accountmanagement/changepassword``."""

    accountname: str
    oldpassword: str = field(repr=False, metadata=SECRET)
    newpassword: str = field(repr=False, metadata=SECRET)


@dataclass(frozen=True)
class Login(Request):
    """``authentication/login``."""

    accountname: str
    password: str = field(repr=False, metadata=SECRET)


@dataclass(frozen=True)
class Resume(Request):
    """``authentication/resume`` (Gamehub's): a lost session back with its resume
    token (:mod:`.resume`)."""

    accountname: str
    token: str = field(repr=False, metadata=SECRET)


@dataclass(frozen=True)
class Logout(Request):
    """``authentication/logout``."""


@dataclass(frozen=True)
class AvailableGames(Request):
    """``lobby/availablegames``."""


@dataclass(frozen=True)
class GameList(Request):
    """``lobby/gamelist``; ``gametype`` ``None`` means every type."""

    gametype: str | None
    gamevariant: str | None


@dataclass(frozen=True)
class GameDetails(Request):
    """``lobby/gamedetails``."""

    gameid: int


@dataclass(frozen=True)
class FindPlayer(Request):
    """``lobby/findplayer``: ``name`` matches exactly or as a prefix."""

    name: str


@dataclass(frozen=True)
class History(Request):
    """``lobby/history`` of one game or one account."""

    gameid: int | None
    accountname: str | None
    limit: int


@dataclass(frozen=True)
class Ratings(Request):
    """``lobby/ratings`` (new): the leaderboard of a game type's rating pool."""

    gametype: str
    gamevariant: str
    limit: int


@dataclass(frozen=True)
class CreateGame(Request):
    """``game/create``.

    :ivar seats: seat kinds (``open``, ``human``, ``bot:<name>``) when given one by one.
    :ivar seat_count: the number of seats when given as a count.
    :ivar options: game-specific settings from ``<option name="…">value</option>``.
    :ivar rated: ``<rated>true|false</rated>``: the game counts for ratings or not
        (``None``: the hub's ``rated_default``).
    :ivar hub: the ``hub`` attribute (new): the id of the hub of the cluster that is
        to run the game (``None``: the least loaded live hub; a single hub: itself).
    """

    gametype: str
    name: str
    variant: str | None = None
    seats: tuple[str, ...] | None = None
    seat_count: int | None = None
    options: tuple[tuple[str, Any], ...] = ()
    rated: bool | None = None
    hub: str | None = None


@dataclass(frozen=True)
class GameRequest(Request):
    """Base of the requests that name a game (``gameid`` is the wire id)."""

    gameid: int


@dataclass(frozen=True)
class DeleteGame(GameRequest):
    """``game/delete``."""


@dataclass(frozen=True)
class JoinGame(GameRequest):
    """``game/join``."""


@dataclass(frozen=True)
class PartGame(GameRequest):
    """``game/part``."""


@dataclass(frozen=True)
class GameAction(GameRequest):
    """``game/action``: ``parameters`` is the ``<parameters>`` element (the payload)."""

    parameters: Any = field(compare=False, repr=False, default=None)


@dataclass(frozen=True)
class Chat(GameRequest):
    """``game/chat`` (any ``sender`` the client wrote is ignored)."""

    text: str = ""
    type: int = 0


@dataclass(frozen=True)
class Custom(GameRequest):
    """``game/custom``: ``payload`` is the single child element (or ``None``)."""

    payload: Any = field(compare=False, repr=False, default=None)


#: every kind of request, in the order of the protocol's groups
REQUESTS: tuple[type[Request], ...] = (
    CreateAccount,
    DeleteAccount,
    ChangePassword,
    Login,
    Resume,
    Logout,
    AvailableGames,
    GameList,
    GameDetails,
    FindPlayer,
    History,
    Ratings,
    CreateGame,
    DeleteGame,
    JoinGame,
    PartGame,
    GameAction,
    Chat,
    Custom,
)
