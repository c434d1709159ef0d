"""Every zope Interface of the hub, in one place (the web pages' seams are written in
:mod:`hub.web_seams`, the store's in :mod:`hub.store_seams`, and imported from here
like the others).

Each is typed (checked by mypy in strict mode, with the ``mypy_zope`` plugin): its
methods are annotated without ``self`` and its attributes declared ``name: type =
Attribute(...)``, so mypy checks the classes that declare an interface against it and
reads typed attributes, while zope and ``verifyObject`` see the same ``Attribute``.

A game plugin provides :class:`IGameFactory` (its games :class:`IGame`), a bot plugin
:class:`IBotFactory`.  Front ends talk to a game through the lobby (``hub.play.lobby``) and,
where the wire format needs game-specific translation, through the game factory's
adapter for that front end (:meth:`IGameFactory.adapter`).  Actions and views are plain
JSON-able mappings, so the same game serves every front end.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol

from zope.interface import Attribute, Interface

from hub.cluster_seams import ClusterDoor as ClusterDoor
from hub.model import Chips, JsonMapping, LiveGame
from hub.plugin_seams import PluginFile as PluginFile
from hub.plugin_seams import PluginInfo as PluginInfo
from hub.plugin_seams import SigningRule as SigningRule
from hub.seatops import Parsed
from hub.store_seams import IAuditStore as IAuditStore
from hub.store_seams import IRatingStore as IRatingStore
from hub.store_seams import IStore as IStore
from hub.store_seams import ITournamentStore as ITournamentStore
from hub.web_seams import IGameRules as IGameRules
from hub.web_seams import IWebAssets as IWebAssets
from hub.web_seams import IWebView as IWebView

if TYPE_CHECKING:
    from decimal import Decimal
    from fractions import Fraction
    from pathlib import Path

    from lxml.etree import _Element
    from twisted.internet.defer import Deferred
    from twisted.internet.interfaces import IProtocolFactory
    from twisted.web.resource import IResource

    from hub.connections.access import Access
    from hub.connections.transcript import Transcript, Transcripts
    from hub.model import (
        BuyinRange,
        Elsewhere,
        GameConfig,
        GameContext,
        GameEvent,
        GameOption,
        HandSummary,
    )
    from hub.ops.telemetry import Telemetry
    from hub.play.routes import Routes


class IGameFactory(Interface):
    """A game type offered by a plugin (``hello``, ``nmmorris``, ``texas-holdem``...)."""

    name: str = Attribute("Unique game type name, ``[a-z0-9-]+``.")
    summary: str = Attribute("One line for people.")
    variants: Sequence[str] = Attribute(
        "Sequence of variant names; the first is the default. May be empty."
    )
    min_seats: int = Attribute("Fewest seats a game of this type may have.")
    max_seats: int = Attribute("Most seats a game of this type may have.")
    default_seats: int = Attribute("Seats when the creator does not say.")
    frontends: Sequence[str] = Attribute(
        "Sequence of front-end names that can host it: xml, mnm, domino, web (the same as"
        " its ``.meta``'s ``frontends``; the registry refuses a plugin where they differ)."
    )

    def create(config: GameConfig, context: GameContext) -> IGame:
        """Create a game.

        :param config: a :class:`hub.model.GameConfig` (already checked by the lobby
            against ``variants`` and the seat range; options are the game's to check).
        :param context: a :class:`hub.model.GameContext` (clock, emit, rng).
        :returns: an object providing :class:`IGame`.
        :raises hub.model.GameError: for options the game does not accept.
        """

    def adapter(frontend: str) -> object | None:
        """The adapter that lets front end ``frontend`` host this game, or ``None``.

        ``xml`` → :class:`IXMLGameAdapter`, ``mnm`` → :class:`IMNMGameAdapter`,
        ``domino`` → :class:`IDominoAdapter`, ``web`` → :class:`IWebView`.
        """


class IGameOptions(Interface):
    """A game factory that declares its options (optional, beside :class:`IGameFactory`).

    Front ends build creation forms from the declaration (the web lobby does); the
    factory's ``create`` still checks every value it is given.
    """

    options: Sequence[GameOption] = Attribute(
        "A sequence of :class:`hub.model.GameOption`: what ``create`` takes."
    )


class IGame(Interface):
    """One running game: a state machine fed with actions and a clock.

    It reports everything that happens through ``context.emit`` as
    :class:`hub.model.GameEvent` objects; the lobby fans them out to observers.
    Whose turn it is is announced with a ``turn`` event (``hub.model.TURN``); the end
    with an ``over`` event (``hub.model.GAME_OVER``).
    """

    state: str = Attribute("``waiting``, ``running`` or ``over`` (``hub.model``).")
    seats: int = Attribute("Number of seats.")

    def seat_player(seat: int, name: str) -> None:
        """A player called ``name`` sits down at ``seat`` (0-based).

        A game usually starts when every seat is taken.

        :raises hub.model.GameError: the seat is taken or the game is not accepting.
        """

    def leave(seat: int) -> None:
        """The player at ``seat`` left (or was removed, or disconnected).

        The game decides what that means: a forfeit, a folded hand, an empty seat.
        """

    def act(seat: int, action: JsonMapping) -> None:
        """The player at ``seat`` does ``action`` (a mapping).

        :raises hub.model.BadAction: the action is malformed.
        :raises hub.model.IllegalAction: it is not legal now; nothing changed.
        """

    def legal_actions(seat: int) -> Sequence[JsonMapping]:
        """The actions the player at ``seat`` may take now (a list of mappings)."""

    def view(seat: int | None) -> JsonMapping:
        """A JSON-able snapshot as the player at ``seat`` (``None``: a spectator) sees it."""

    def result() -> JsonMapping | None:
        """``None`` while running; when over a mapping with at least ``winners`` (seat
        numbers), ``scores`` (list, one per seat) and ``summary`` (text)."""

    def stop() -> None:
        """Cancel every timer; the game is being removed."""


class IRatedGameFactory(IGameFactory):
    """A game type that says how its games are rated (``hub.ratings``), where the
    hub's defaults do not fit.  Without it a type has one rating pool and a finished
    game ranks its seats by ``scores`` (higher is better, equal is a tie), else by
    ``winners`` (first) against the rest."""

    def rating_variant(variant: str | None) -> str:
        """The rating pool of a game of ``variant`` (text; ``""``: the type's one pool).
        Variants that play differently (betting limits) keep apart pools."""

    def rating_ranks(result: JsonMapping) -> Sequence[int] | None:
        """The rank of each seat in a finished game's ``result`` (0 is best, equal
        ranks tie), or ``None`` to use the hub's default ranking."""


class IWholeTournamentFactory(IGameFactory):
    """A marker: one game of this type is a whole tournament; its ranks are the places."""


class IChipGameFactory(IGameFactory):
    """A game type whose games play for chips from the players' accounts (table
    stakes: poker).  The hub's table money (:mod:`hub.play.money`) then owns every chip
    movement: it moves a buy-in from the account to the table in the ledger before it
    seats anyone, settles each hand, and takes the stack back when a player leaves.
    Its games provide :class:`IChipGame`.
    """

    def buyin_range(config: GameConfig) -> BuyinRange:
        """The buy-ins a table created with ``config`` (a :class:`hub.model.GameConfig`)
        accepts → :class:`hub.model.BuyinRange`.

        :raises hub.model.GameError: options the game does not accept.
        """


class IChipGame(IGame):
    """A game of an :class:`IChipGameFactory`.

    Chips come onto the table only through :meth:`seat_player` with a buy-in and
    :meth:`add_chips`, which the hub calls after moving them in the ledger (a player's
    action never adds chips).  They leave with a :data:`hub.model.CASH_OUT` event (the
    stack of a player who left); each hand's result is a :data:`hub.model.HAND_OVER`
    event whose record :meth:`hand_summary` gives.
    """

    def seat_player(seat: int, name: str, buyin: Decimal) -> None:  # type: ignore[override]  # a chip seat needs a buy-in
        """``name`` sits down at ``seat`` with ``buyin`` chips (a ``Decimal``).

        :raises hub.model.GameError: the seat is taken, the amount out of range.
        """

    def add_chips(seat: int, amount: Decimal) -> None:
        """The player at ``seat`` adds ``amount`` chips (between hands).

        :raises hub.model.GameError: not now, or the stack would exceed the maximum.
        """

    def hold_hands() -> None:
        """From now on, after each :data:`hub.model.HAND_OVER` event deal no new hand
        until :meth:`settled` is called for it (the hub's ledger has it)."""

    def settled(hand: str) -> None:
        """The hand with key ``hand`` is settled in the ledger: the next may be dealt."""

    def hand_summary(hand: str) -> HandSummary | None:
        """The :class:`hub.model.HandSummary` of the finished hand ``hand`` (its
        ``handid``), available from its :data:`hub.model.HAND_OVER` event on; ``None``
        for an unknown hand.  The hub stores it with the hand's settlement: its
        ``record`` and ``summary`` for everyone, each seat's ``private`` part for that
        seat, its ``sealed`` part for the operator."""


class IHandRecord(Interface):
    """How a chip game type shows its stored hands (optional, beside
    :class:`IChipGameFactory`, on the factory).

    A stored hand is one mapping of :meth:`IStore.hands`: ``hand_id``, ``game_id``,
    ``hand_key``, ``game_type``, ``started``, ``ended``, ``summary``, ``record`` (the
    game's public record, :attr:`hub.model.HandSummary.record`), ``players`` (``name``,
    ``display``, ``seat``, ``money_in``, ``winnings``, and ``private`` only on the
    reader's own seats) and ``sealed`` only for the operator and admins.  Front ends
    list hands with these methods; without them they show the stored ``summary``.
    """

    def describe(hand: JsonMapping) -> str | None:
        """A stored hand → one public line for lists of hands (the XML
        ``lobby/history`` entry's summary), or ``None``."""

    def hand_json(hand: JsonMapping) -> JsonMapping:
        """A stored hand → a JSON-able mapping of the fields people see of it in the
        game's words (the web's ``/api/hands``), from what the mapping holds for this
        reader (never more: no ``sealed`` key, nothing sealed in the answer)."""


class IBotFactory(Interface):
    """A bot offered by a plugin (``random``, ``morris``, ``holdem``...)."""

    name: str = Attribute("Unique bot name, ``[a-z0-9-]+``.")
    summary: str = Attribute("One line for people.")
    games: Sequence[str] = Attribute("Sequence of game type names this bot can play.")

    def create(game_type: str, seat: int, options: JsonMapping) -> IBot:
        """A fresh :class:`IBot` for one seat of one game."""


class IBot(Interface):
    """A player program inside the hub.

    The hub calls :meth:`choose` in a worker thread with a deadline; a bot that is late
    or raises is treated like a player who timed out."""

    def choose(view: JsonMapping, legal: Sequence[JsonMapping], deadline: float) -> JsonMapping:
        """Pick one of ``legal`` given ``view`` (what this seat may see).

        :param deadline: seconds the bot has (wall clock).
        :returns: one action mapping."""


class IGameObserver(Interface):
    """Anything that follows a game: a connection, a bot driver, the web's live feed.

    Optional attribute ``viewer`` (not declared, so that any object with
    :meth:`game_event` observes): the name of the person who follows the game this way,
    listed among its watchers (``hub.play.game.GameInstance.watchers``) while they have no
    seat; absent or ``None`` for anonymous observers.
    """

    def game_event(game: LiveGame, event: GameEvent) -> None:
        """``event`` (a :class:`hub.model.GameEvent`) happened in ``game``
        (a ``hub.play.game.GameInstance``); only events this observer may see arrive."""


class ILobbyListener(Interface):
    """Follows the list of games (the XML lobby updates, the web lobby page)."""

    def lobby_changed(change: str, game: LiveGame) -> None:
        """``change`` is ``created``, ``changed`` or ``removed``."""


class IChatListener(Interface):
    """Follows the hub's chat (``hub.connections.chat.ChatService``): the front ends that carry it."""

    def chat_line(line: ChatLine) -> None:
        """``line`` (a ``hub.connections.chat.ChatLine``) was said in the lobby (``room``
        is ``hub.connections.chat.LOBBY``) or at a game (``room`` is the game's id)."""


# -- front-end adapters --------------------------------------------------------------
# Each front end declares what it needs from a game plugin; a game factory returns an
# object providing it from ``adapter(frontend)``.


class IXMLGameAdapter(Interface):
    """Lets the XML front end host a game: payload ⇄ action/event translation.

    The front end validates every document against ``message.xsd`` before the adapter
    sees it, and the payload against the game's own schema when the adapter declares
    one (:class:`IXMLPayloadSchema`).  Wire game ids are ``xs:long``:
    ``hub.frontends.xml.payload.wire_game_id(game.id)``; that module is the part of the
    front end an adapter may use (element helpers that keep text XML can carry).

    The optional parts below are declared here; an adapter inherits their defaults from
    :class:`hub.frontends.xml.payload.XMLGameAdapter` (or defines them all itself).

    - An action mapping ``{"take_seat": seat or None}`` returned by
      :meth:`parse_action` makes the front end seat the player (``GameInstance.take_seat``)
      and follow the game from that seat; ``{"leave_seat": True}`` leaves it.  For a
      chip game (:class:`IChipGameFactory`) ``{"take_seat": seat, "buyin": amount}``
      buys in through the hub's table money (from one's own seat: adds chips), and
      ``{"add_bot": bot name, "seat": seat or None, "buyin": amount or None}`` seats an
      in-hub bot funded by the hub.  Every other mapping goes to ``IGame.act``.
    """

    seat_on_join: bool = Attribute(
        "Whether ``game/join`` takes the first free seat (default ``True``); ``False``: it observes."
    )

    def parse_action(element: _Element) -> Parsed:
        """The ``parameters`` element of ``game/action`` → an action or ``hub.seatops`` op.

        :raises hub.model.BadAction: the payload is not an action of this game.
        """

    def render_event(event: GameEvent, seat: int | None) -> _Element | None:
        """A game event → an lxml element for the ``parameters`` of a state update,
        as the observer at ``seat`` sees it, or ``None`` to send nothing."""

    def render_view(view: JsonMapping) -> _Element:
        """A view (``IGame.view``) → an lxml element for a full-state update."""

    def custom(game: LiveGame, seat: int | None, element: _Element) -> _Element | None:
        """Answer ``game/custom`` with an element, or ``None`` for ``<ok/>``.  The answer
        is made for the asker's ``seat``, so a seated asker's answer is private to that
        seat in the transcript.

        :raises hub.model.GameError: refused; by default (400) every custom request is:
            the game has none."""

    def private_to(event: GameEvent, seat: int) -> bool:
        """Whether the frame rendered of ``event`` for the player at ``seat`` carries that
        seat's private information (transcripts then show it to that player and admins
        only).  Default: the event is meant for some seats only (``event.seats`` is set).
        Full views of a seat are always private."""

    def snapshot_on(event: GameEvent) -> bool:
        """Whether a full-state update follows ``event`` (on the next turn of the
        reactor, after the rest of the step's events).  Default: never."""


class IXMLPayloadSchema(Interface):
    """An XML adapter whose payloads have a schema of their own (optional, beside
    :class:`IXMLGameAdapter`).

    The front end compiles the file once (with the same hardened parser as documents),
    validates every element inside an action's ``<parameters>`` against it before
    :meth:`IXMLGameAdapter.parse_action` sees it (a mismatch is refused with 400), and
    publishes it over HTTP at ``/schema/<file name>`` beside ``message.xsd``."""

    payload_schema: str = Attribute(
        "Path inside the adapter's own package of one self-contained XSD file"
        ' (``"game.xsd"``; ``[A-Za-z0-9_-]`` path parts, ending in ``.xsd``).'
        " Its file name is the name it is published under; ``message.xsd`` is the"
        " front end's own."
    )


class IMNMGameAdapter(Interface):
    """Lets the MNM line front end host a two-player board game.

    The front end knows the protocol (prolog, ``WAIT``, ``MOVE``/``CAPTURE``/piece list,
    ``THINKING``, ``PLAY``, ``GAMEOVER``); the adapter knows the game: its kind name,
    how its view becomes a piece list, and how a ``PLAY`` text becomes an action."""

    kind: str = Attribute("The game kind announced as ``+ PLAYING <kind>`` (no spaces).")
    default_names: Sequence[str] = Attribute("Player names for seats 0 and 1 when nobody gave one.")

    def piece_list(view: JsonMapping) -> Sequence[Sequence[str]]:
        """The pieces of a view (``IGame.view``): one list per player, each the
        positions of that player's pieces in a fixed order (piece ``i`` stays ``i``),
        as the protocol writes them (``A``, ``A0``...``C7``, ``C`` for morris)."""

    def capture_count(turn: JsonMapping) -> int:
        """The ``n`` of ``+ CAPTURE n`` for a ``turn`` event's data."""

    def parse_move(text: str, turn: JsonMapping) -> JsonMapping:
        """The text after ``PLAY `` → an action mapping for the game.

        :param turn: the data of the ``turn`` event the move answers.
        :raises hub.model.BadAction: with a reason for people, e.g.
            ``Invalid move: A9 is not a field``.
        """

    def winners(result: JsonMapping) -> Sequence[bool]:
        """``[won0, won1]`` booleans for ``PLAYERnWON`` from ``IGame.result()``
        (a draw is reported as won by both)."""


class IDominoAdapter(Interface):
    """Lets the domino line front end host a four-player tile game.

    Player ids on the wire are seat + 1.  The front end itself handles ``CONNECT``,
    ``LOGIN``, ``OK``/``ERROR`` and the limits; the adapter knows the game's lines.
    Every command the game accepts (``IGame.act`` does not raise) is answered ``OK``
    by the front end, before any line the command causes, so the lines of a seat's
    own move (``chosen``, ``placed``) are usually none: its ``OK`` says it."""

    verbs: Collection[str] = Attribute(
        "Upper-case command words the game takes (``CHOOSE``, ``MOVE``)."
    )

    def parse_command(verb: str, args: Sequence[str]) -> JsonMapping:
        """A command line split into ``verb`` and ``args`` (strings) → action mapping.

        :raises hub.model.BadAction: not a well-formed command of this game."""

    def render_event(event: GameEvent, seat: int) -> Sequence[str]:
        """The lines (without ``\\n``) the player at ``seat`` gets for ``event``."""

    def removes(event: GameEvent, seat: int) -> bool:
        """Whether ``event`` removes ``seat`` from the game (→ close its connection)."""


class IACPCAdapter(Interface):
    """Lets the ACPC front end (programs of the computer poker competition's protocol)
    host a game: which table plays each of the protocol's games, each seat's match
    states, and the match log's lines.  The front end frames lines, keeps time, runs
    matches and writes the log; it knows no game."""

    game_type: str = Attribute("The game type (registry name) whose tables play the matches.")
    games: Collection[str] = Attribute(
        "Names of the games a match may be played in, as the protocol names them."
    )

    def table(
        game: str,
        hands: int,
        deal_seed: str | None,
        dealer_seed: int | None = None,
        show_all: bool = True,
    ) -> JsonMapping:
        """``{"type", "variant", "seats", "options", "game", "big_blind"}``: the table
        that plays ``hands`` hands of ``game`` (its seeds derived from ``deal_seed``, a
        hex string, or fresh when ``None``; ``dealer_seed``: the reference dealer's
        deals for it; ``show_all``: showdowns show every hand, as the dealer's do).

        :raises hub.model.GameError: an unknown game or a bad number of hands."""

    def seat_view(seat: int | None, game: str, first_hand: int = 0) -> IACPCSeatView:
        """A new :class:`IACPCSeatView` of ``seat`` (``None``: a spectator, for the
        log) at a table of ``game`` whose first hand is the match's ``first_hand``."""

    def log_line(
        engine: IGame,
        event: GameEvent,
        view: Any,  # Any: the adapter's own seat view (its seat_view's), read in its own terms
        names: Mapping[int, str],
        exact: bool = True,
    ) -> tuple[str, Mapping[int, Fraction]] | None:
        """``(line, {seat: payoff})`` for the hand that ``event`` ended (``None`` for
        other events): the log's line, from the spectator's ``view`` and the game
        ``engine``'s own record of the hand; ``names``: seat → player; ``exact``: the
        payoffs as played, else as the dealer rounds them (``acpc_payoffs``)."""


class IACPCSeatView(Interface):
    """One seat's view of a table in the protocol's words (made by
    :meth:`IACPCAdapter.seat_view`), fed every event the seat may see."""

    prompt: str | None = Attribute("The state the seat must answer now, or ``None``.")
    number: int = Attribute("The match's number of the current hand.")

    def feed(event: GameEvent) -> Sequence[str]:
        """Follow ``event``; the state lines to send the seat for it."""

    def automatic(event: GameEvent) -> JsonMapping | None:
        """The action for a decision of the seat the protocol cannot express (or
        ``None``): the front end plays it at once."""

    def read(line: str, strict: bool = False) -> tuple[JsonMapping | None, bool, str]:
        """``(action or None, invalid, note)`` for a reply line: ``None`` ignores the
        line (with ``note`` as a warning) or, with ``invalid`` and ``strict``, ends the
        match; with ``invalid`` and not ``strict``, ``action`` is the corrected one."""


class IRelayAdapter(Interface):
    """Lets the relay front end pass on the messages of a game played peer to peer."""

    def relayed(data: bytes) -> JsonMapping:
        """One relayed message (bytes) as the action, for ``IGame.act``, that gives it."""


# -- front ends ----------------------------------------------------------------------
# A front end is a module named in ``hub.frontends.FRONTENDS``; it declares what it
# offers with ``zope.interface.moduleProvides``.


class IFrontend(Interface):
    """A front end module (``hub.frontends.<name>``): one wire format."""

    def make_factory(hub: IHub) -> IProtocolFactory:
        """The protocol factory the hub listens with for ``hub`` (the root service)."""


class IHTTPResources(Interface):
    """A front end that publishes HTTP resources beside its own wire (optional, beside
    :class:`IFrontend`): the XML front end's schemas.

    The hub collects them from every front end of the build, listening or not
    (``hub.service.HubService.http_resources``), and the web front end mounts each at
    ``/<name>`` (its own paths win); no front end imports another."""

    def http_resources(
        hub: IHub, access: Access | None = None
    ) -> Sequence[tuple[bytes, IResource]]:
        """``[(name, resource)]``: a top-level path segment (``bytes``, ``[a-z0-9-]``)
        and an ``IResource`` for ``hub``, checked by ``access`` (:mod:`hub.connections.access`)."""


# -- the hub's parts above its seams --------------------------------------------------
# They import this module, so it cannot name them: what front ends use of each is a
# typing Protocol here (the live game's is in hub.model, the plugins' records in
# hub.plugin_seams); tests/hub/conformance.py checks the parts against them (mypy).


class LobbyGame(LiveGame, Protocol):
    """A game of this hub's lobby (``hub.play.game.GameInstance``): a :class:`LiveGame`
    with its transcript."""

    @property
    def transcript(self) -> Transcript | None: ...


#: where a game a hub let go runs now: ``(hub id, (host, port, TLS))``, or ``None``
Moved = tuple[str, tuple[str, int, bool]] | None


class GameLobby(Protocol):
    """Every live game of this hub (``hub.play.lobby.Lobby``), as front ends use it."""

    @property
    def sealed(self) -> Collection[str]: ...
    @property
    def hand_off(self) -> Callable[[str, str, object, bytes, int], bool] | None: ...
    @property
    def look_up(self) -> Callable[[str], Deferred[object]] | None: ...
    @property
    def follow(self) -> Callable[[str | None, str | None, str, str], Deferred[Moved]] | None: ...
    def get(self, game_id: str, *, sealed: bool = False) -> LobbyGame: ...
    def find(self, game_id: str) -> Deferred[LobbyGame]: ...
    def games(self, type_name: str | None = None) -> Sequence[LobbyGame]: ...
    def listed(self) -> Sequence[LobbyGame]: ...
    def finished(self) -> Sequence[LobbyGame]: ...
    def __contains__(self, game_id: object) -> bool: ...
    def __len__(self) -> int: ...
    def kept_for(self, player: str) -> Sequence[LobbyGame]: ...
    def remove(self, game_id: str, moved: bool = False) -> None: ...
    def unseal(self, game_id: str) -> None: ...
    def on_game_over(self, hook: Callable[[LobbyGame, GameEvent], object]) -> None: ...


class PluginRegistry(Protocol):
    """The plugins (``hub.plugins.registry.Registry``): an :class:`IRegistry` that also
    serves the plugins' files (:mod:`hub.plugins.distribution`)."""

    @property
    def trust(self) -> SigningRule: ...
    def game_factory(self, name: str) -> IGameFactory: ...
    def bot_factory(self, name: str) -> IBotFactory: ...
    def game_types(self) -> Sequence[IGameFactory]: ...
    def client_module(self, factory: IGameFactory) -> str: ...
    def plugins(self) -> Sequence[PluginInfo]: ...
    def download(self, name: str, filename: str) -> PluginFile | None: ...


class ChatLine(Protocol):
    """One line said in a room (``hub.connections.chat.ChatLine``)."""

    @property
    def room(self) -> str: ...
    @property
    def sender(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def at(self) -> float: ...
    @property
    def guest(self) -> bool: ...
    @property
    def type(self) -> int: ...
    def to_json(self) -> dict[str, object]: ...


class Chat(Protocol):
    """The chat of the lobby and the games (``hub.connections.chat.ChatService``)."""

    def say(
        self, room: str, sender: str, text: object, *, guest: bool = False, type: int = 0
    ) -> ChatLine: ...
    def history(self, room: str) -> Sequence[ChatLine]: ...
    def add_listener(self, listener: IChatListener) -> None: ...
    def remove_listener(self, listener: IChatListener) -> None: ...


class ChipTables(Protocol):
    """The table money (``hub.play.money.TableMoney``), as front ends use it."""

    def idle(self, game_id: str | None = None) -> Deferred[object]: ...


class Ratings(Protocol):
    """The ratings of rated games (``hub.ratings.service.RatingService``): front ends
    read them from the store (:class:`IRatingStore`), not from here."""


class Tournaments(Protocol):
    """The tournaments (``hub.tournaments.service.TournamentService``): the web API
    drives them through its own resource."""


# -- the hub, as front ends see it ----------------------------------------------------


class IRegistry(Interface):
    """The loaded plugins (``hub.plugins.registry.Registry``), as the lobby and the front ends
    use them."""

    def game_factory(name: str) -> IGameFactory:
        """The :class:`IGameFactory` called ``name``.

        :raises hub.model.NotFound: no such game type is loaded."""

    def bot_factory(name: str) -> IBotFactory:
        """The :class:`IBotFactory` called ``name``.

        :raises hub.model.NotFound: no such bot is loaded."""

    def game_types() -> Sequence[IGameFactory]:
        """Every loaded :class:`IGameFactory`."""

    def bots() -> Sequence[IBotFactory]:
        """Every loaded :class:`IBotFactory`."""

    def client_module(factory: IGameFactory) -> str:
        """The dotted name of the module clients download to play ``factory``'s game:
        its ``.meta``'s ``client``, else ``<the factory's package>.client``."""

    def load() -> Deferred[None] | None:
        """Load every plugin (may return a ``Deferred``)."""

    def start() -> None:
        """Start watching the plugin folders (hot reload)."""

    def stop() -> None:
        """Stop watching."""


class IHub(Interface):
    """What a front end may use of the hub (``hub.service.HubService``): the parts it
    is built from and the seating every front end shares.

    A front end module's ``make_factory(hub)`` and ``http_resources(hub)`` get an object
    providing it; the test fakes of the hub provide it too.
    """

    reactor: Any = Attribute(  # Any: IReactorTime, IReactorSocket and more; Twisted has no one type
        "The reactor: ``IReactorTime``, ``IReactorCore``... (``MemoryReactorClock`` in tests)."
    )
    version: str = Attribute("The hub's version, text.")
    data_dir: Path = Attribute("The data folder (a front end's files: ``acpc/`` logs).")
    lobby: GameLobby = Attribute("The ``hub.play.lobby.Lobby``: every live game.")
    registry: PluginRegistry = Attribute(
        "The plugins (``hub.plugins.registry.Registry``), an :class:`IRegistry`."
    )
    store: IStore | None = Attribute(
        "The accounts, ledger and history (an :class:`IStore`), or ``None``."
    )
    money: ChipTables | None = Attribute(
        "The table money (``hub.play.money.TableMoney``), or ``None`` without a store."
    )
    chat: Chat = Attribute(
        "The chat of the lobby and the games (``hub.connections.chat.ChatService``)."
    )
    transcripts: Transcripts | None = Attribute(
        "The transcripts (``hub.connections.transcript.Transcripts``), or ``None``."
    )
    options: Mapping[str, Any] = Attribute(  # Any: settings of every kind, each read by its name
        "A mapping of the other settings (``mnm_version``, ``api_token``...)."
    )
    endpoints: Mapping[str, str] = Attribute(
        "Front-end name → the endpoint description it listens on (``none``)."
    )
    bound_ports: Mapping[str, int | None] = Attribute(
        "Front-end name → the port it is bound to, while it listens."
    )
    telemetry: Telemetry = Attribute("The hub's metrics (``hub.ops.telemetry.Telemetry``).")
    ratings: Ratings | None = Attribute(
        "The ratings of rated games (``hub.ratings``), or ``None``."
    )
    routes: Routes | None = Attribute(
        "Keys that lead to a game (``hub.play.routes.Routes``), or ``None``."
    )
    tournaments: Tournaments | None = Attribute(
        "The tournaments (``hub.tournaments``), or ``None``."
    )
    cluster: ClusterDoor | None = Attribute(
        "The hub's part in a cluster (``hub.cluster.Cluster``), ``None`` on a single hub."
    )

    async def create_game(
        type_name: str,
        name: str | None = None,
        variant: str | None = None,
        seats: Sequence[str | None] | None = None,
        options: JsonMapping | None = None,
        creator: str | None = None,
        seat_bots: bool = True,
        rated: bool | None = None,
        bots_only: bool = False,
        broke_bots: str = "leave",
        sealed: bool = False,
    ) -> LiveGame:
        """Create a game (a coroutine → ``hub.play.game.GameInstance``); a chip table goes
        through the table money (``bots_only``, ``broke_bots``: its rules for its bots);
        ``rated``: ``True``, ``False``, ``None`` (the default); ``sealed``: the
        operator's alone until the lobby unseals it.

        :raises hub.model.GameError: refused."""

    async def seat_bots(game: LiveGame) -> None:
        """Seat the bots of a game created with ``seat_bots=False`` (a coroutine)."""

    async def take_seat(
        game: LiveGame,
        player: str,
        seat: int | None = None,
        kind: str = "client",
        buyin: Chips | None = None,
        observe: Callable[[int | None], object] | None = None,
        fund: bool = False,
    ) -> int:
        """Seat ``player`` (a coroutine → the seat), buying in at a chip table (``fund``:
        the hub funds the account, as its bots'); ``observe(seat)`` is called just
        before the game seats the player."""

    async def add_bot(
        game: LiveGame, bot: str, seat: int | None = None, buyin: Chips | None = None
    ) -> tuple[int, str]:
        """Seat the in-hub bot ``bot`` (a coroutine → ``(seat, player name)``)."""

    def leave_seat(game: LiveGame, seat: int) -> None:
        """The player at ``seat`` asks to leave."""

    def health() -> JsonMapping:
        """``{"status", "store", "paused_tables"}`` for health checks."""

    def place(hub: str | None = None, gather: bool = False) -> Elsewhere | None:
        """Where a new game goes: ``None`` (here) or a ``hub.model.Elsewhere``."""

    def game_json(game: LiveGame, detail: bool = False) -> JsonMapping:
        """A game as the JSON API shows it, with the port of its front end."""

    def listed_games() -> Sequence[LiveGame]:
        """The games lobby lists show: this hub's, then a cluster's other hubs'."""

    def follow_games(listener: ILobbyListener) -> None:
        """Tell ``listener`` (an :class:`ILobbyListener`) of changes to those."""

    def unfollow_games(listener: ILobbyListener) -> None:
        """Stop telling ``listener``."""

    def http_resources(access: Access | None = None) -> Sequence[tuple[bytes, IResource]]:
        """``[(path segment, resource)]`` of every :class:`IHTTPResources` front end."""


class IConnectionControl(Interface):
    """A front end's factory that can close the connections of one player (the admin
    API's kick)."""

    def kick(player: str, reason: str) -> int:
        """Close every connection logged in as ``player`` → how many."""
