"""Every zope Interface of the hub, in one place (the web pages' seams are written in
:mod:`hub.web_seams` and imported from here like the others).

A game plugin provides :class:`IGameFactory` (its games :class:`IGame`), a bot plugin
:class:`IBotFactory`.  Front ends talk to a game through the lobby (``hub.play.lobby``) and,
where the wire format needs game-specific translation, through the game factory's
adapter for that front end (:meth:`IGameFactory.adapter`).  Actions and views are plain
JSON-able mappings, so the same game serves every front end.
"""

from __future__ import annotations

from zope.interface import Attribute, Interface

from hub.web_seams import IGameRules, IWebAssets, IWebView  # noqa: F401  (re-exported)


class IGameFactory(Interface):
    """A game type offered by a plugin (``hello``, ``nmmorris``, ``texas-holdem``...)."""

    name = Attribute("Unique game type name, ``[a-z0-9-]+``.")
    summary = Attribute("One line for people.")
    variants = Attribute("Sequence of variant names; the first is the default. May be empty.")
    min_seats = Attribute("Fewest seats a game of this type may have.")
    max_seats = Attribute("Most seats a game of this type may have.")
    default_seats = Attribute("Seats when the creator does not say.")
    frontends = Attribute(
        "Sequence of front-end names that can host it: xml, mnm, domino, web (the same as"
        " its ``.meta``'s ``frontends``; the registry refuses a plugin where they differ)."
    )

    def create(config, context):
        """Create a game.

        :param config: a :class:`hub.model.GameConfig` (already checked by the lobby
            against ``variants`` and the seat range; options are the game's to check).
        :param context: a :class:`hub.model.GameContext` (clock, emit, rng).
        :returns: an object providing :class:`IGame`.
        :raises hub.model.GameError: for options the game does not accept.
        """

    def adapter(frontend):
        """The adapter that lets front end ``frontend`` host this game, or ``None``.

        ``xml`` → :class:`IXMLGameAdapter`, ``mnm`` → :class:`IMNMGameAdapter`,
        ``domino`` → :class:`IDominoAdapter`, ``web`` → :class:`IWebView`.
        """


class IGameOptions(Interface):
    """A game factory that declares its options (optional, beside :class:`IGameFactory`).

    Front ends build creation forms from the declaration (the web lobby does); the
    factory's ``create`` still checks every value it is given.
    """

    options = Attribute("A sequence of :class:`hub.model.GameOption`: what ``create`` takes.")


class IGame(Interface):
    """One running game: a state machine fed with actions and a clock.

    It reports everything that happens through ``context.emit`` as
    :class:`hub.model.GameEvent` objects; the lobby fans them out to observers.
    Whose turn it is is announced with a ``turn`` event (``hub.model.TURN``); the end
    with an ``over`` event (``hub.model.GAME_OVER``).
    """

    state = Attribute("``waiting``, ``running`` or ``over`` (``hub.model``).")
    seats = Attribute("Number of seats.")

    def seat_player(seat, name):
        """A player called ``name`` sits down at ``seat`` (0-based).

        A game usually starts when every seat is taken.

        :raises hub.model.GameError: the seat is taken or the game is not accepting.
        """

    def leave(seat):
        """The player at ``seat`` left (or was removed, or disconnected).

        The game decides what that means: a forfeit, a folded hand, an empty seat.
        """

    def act(seat, action):
        """The player at ``seat`` does ``action`` (a mapping).

        :raises hub.model.BadAction: the action is malformed.
        :raises hub.model.IllegalAction: it is not legal now; nothing changed.
        """

    def legal_actions(seat):
        """The actions the player at ``seat`` may take now (a list of mappings)."""

    def view(seat):
        """A JSON-able snapshot as the player at ``seat`` (``None``: a spectator) sees it."""

    def result():
        """``None`` while running; when over a mapping with at least ``winners`` (seat
        numbers), ``scores`` (list, one per seat) and ``summary`` (text)."""

    def stop():
        """Cancel every timer; the game is being removed."""


class IRatedGameFactory(IGameFactory):
    """A game type that says how its games are rated (``hub.ratings``), where the
    hub's defaults do not fit.  Without it a type has one rating pool and a finished
    game ranks its seats by ``scores`` (higher is better, equal is a tie), else by
    ``winners`` (first) against the rest."""

    def rating_variant(variant):
        """The rating pool of a game of ``variant`` (text; ``""``: the type's one pool).
        Variants that play differently (betting limits) keep apart pools."""

    def rating_ranks(result):
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

    def buyin_range(config):
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

    def seat_player(seat, name, buyin):  # type: ignore[override]  # a chip seat needs a buy-in
        """``name`` sits down at ``seat`` with ``buyin`` chips (a ``Decimal``).

        :raises hub.model.GameError: the seat is taken, the amount out of range.
        """

    def add_chips(seat, amount):
        """The player at ``seat`` adds ``amount`` chips (between hands).

        :raises hub.model.GameError: not now, or the stack would exceed the maximum.
        """

    def hold_hands():
        """From now on, after each :data:`hub.model.HAND_OVER` event deal no new hand
        until :meth:`settled` is called for it (the hub's ledger has it)."""

    def settled(hand):
        """The hand with key ``hand`` is settled in the ledger: the next may be dealt."""

    def hand_summary(hand):
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

    def describe(hand):
        """A stored hand → one public line for lists of hands (the XML
        ``lobby/history`` entry's summary), or ``None``."""

    def hand_json(hand):
        """A stored hand → a JSON-able mapping of the fields people see of it in the
        game's words (the web's ``/api/hands``), from what the mapping holds for this
        reader (never more: no ``sealed`` key, nothing sealed in the answer)."""


class IBotFactory(Interface):
    """A bot offered by a plugin (``random``, ``morris``, ``holdem``...)."""

    name = Attribute("Unique bot name, ``[a-z0-9-]+``.")
    summary = Attribute("One line for people.")
    games = Attribute("Sequence of game type names this bot can play.")

    def create(game_type, seat, options):
        """A fresh :class:`IBot` for one seat of one game."""


class IBot(Interface):
    """A player program inside the hub.

    The hub calls :meth:`choose` in a worker thread with a deadline; a bot that is late
    or raises is treated like a player who timed out."""

    def choose(view, legal, deadline):
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

    def game_event(game, event):
        """``event`` (a :class:`hub.model.GameEvent`) happened in ``game``
        (a ``hub.play.game.GameInstance``); only events this observer may see arrive."""


class ILobbyListener(Interface):
    """Follows the list of games (the XML lobby updates, the web lobby page)."""

    def lobby_changed(change, game):
        """``change`` is ``created``, ``changed`` or ``removed``."""


class IChatListener(Interface):
    """Follows the hub's chat (``hub.connections.chat.ChatService``): the front ends that carry it."""

    def chat_line(line):
        """``line`` (a ``hub.connections.chat.ChatLine``) was said in the lobby (``room`` is
        ``hub.connections.chat.LOBBY``) or at a game (``room`` is the game's id)."""


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

    seat_on_join = Attribute(
        "Whether ``game/join`` takes the first free seat (default ``True``); ``False``: it observes."
    )

    def parse_action(element):
        """The ``parameters`` element of ``game/action`` → an action or ``hub.seatops`` op.

        :raises hub.model.BadAction: the payload is not an action of this game.
        """

    def render_event(event, seat):
        """A game event → an lxml element for the ``parameters`` of a state update,
        as the observer at ``seat`` sees it, or ``None`` to send nothing."""

    def render_view(view):
        """A view (``IGame.view``) → an lxml element for a full-state update."""

    def custom(game, seat, element):
        """Answer ``game/custom`` with an element, or ``None`` for ``<ok/>``.  The answer
        is made for the asker's ``seat``, so a seated asker's answer is private to that
        seat in the transcript.

        :raises hub.model.GameError: refused; by default (400) every custom request is:
            the game has none."""

    def private_to(event, seat):
        """Whether the frame rendered of ``event`` for the player at ``seat`` carries that
        seat's private information (transcripts then show it to that player and admins
        only).  Default: the event is meant for some seats only (``event.seats`` is set).
        Full views of a seat are always private."""

    def snapshot_on(event):
        """Whether a full-state update follows ``event`` (on the next turn of the
        reactor, after the rest of the step's events).  Default: never."""


class IXMLPayloadSchema(Interface):
    """An XML adapter whose payloads have a schema of their own (optional, beside
    :class:`IXMLGameAdapter`).

    The front end compiles the file once (with the same hardened parser as documents),
    validates every element inside an action's ``<parameters>`` against it before
    :meth:`IXMLGameAdapter.parse_action` sees it (a mismatch is refused with 400), and
    publishes it over HTTP at ``/schema/<file name>`` beside ``message.xsd``."""

    payload_schema = Attribute(
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

    kind = Attribute("The game kind announced as ``+ PLAYING <kind>`` (no spaces).")
    default_names = Attribute("Player names for seats 0 and 1 when nobody gave one.")

    def piece_list(view):
        """The pieces of a view (``IGame.view``): one list per player, each the
        positions of that player's pieces in a fixed order (piece ``i`` stays ``i``),
        as the protocol writes them (``A``, ``A0``...``C7``, ``C`` for morris)."""

    def capture_count(turn):
        """The ``n`` of ``+ CAPTURE n`` for a ``turn`` event's data."""

    def parse_move(text, turn):
        """The text after ``PLAY `` → an action mapping for the game.

        :param turn: the data of the ``turn`` event the move answers.
        :raises hub.model.BadAction: with a reason for people, e.g.
            ``Invalid move: A9 is not a field``.
        """

    def winners(result):
        """``[won0, won1]`` booleans for ``PLAYERnWON`` from ``IGame.result()``
        (a draw is reported as won by both)."""


class IDominoAdapter(Interface):
    """Lets the domino line front end host a four-player tile game.

    Player ids on the wire are seat + 1.  The front end itself handles ``CONNECT``,
    ``LOGIN``, ``OK``/``ERROR`` and the limits; the adapter knows the game's lines.
    Every command the game accepts (``IGame.act`` does not raise) is answered ``OK``
    by the front end, before any line the command causes, so the lines of a seat's
    own move (``chosen``, ``placed``) are usually none: its ``OK`` says it."""

    verbs = Attribute("Upper-case command words the game takes (``CHOOSE``, ``MOVE``).")

    def parse_command(verb, args):
        """A command line split into ``verb`` and ``args`` (strings) → action mapping.

        :raises hub.model.BadAction: not a well-formed command of this game."""

    def render_event(event, seat):
        """The lines (without ``\\n``) the player at ``seat`` gets for ``event``."""

    def removes(event, seat):
        """Whether ``event`` removes ``seat`` from the game (→ close its connection)."""


class IACPCAdapter(Interface):
    """Lets the ACPC front end (programs of the computer poker competition's protocol)
    host a game: which table plays each of the protocol's games, each seat's match
    states, and the match log's lines.  The front end frames lines, keeps time, runs
    matches and writes the log; it knows no game."""

    game_type = Attribute("The game type (registry name) whose tables play the matches.")
    games = Attribute("Names of the games a match may be played in, as the protocol names them.")

    def table(game, hands, deal_seed):
        """``{"type", "variant", "seats", "options", "game", "big_blind"}``: the table
        that plays ``hands`` hands of ``game`` (its seeds derived from ``deal_seed``, a
        hex string, or fresh when ``None``).

        :raises hub.model.GameError: an unknown game or a bad number of hands."""

    def seat_view(seat, game, first_hand=0):
        """A new :class:`IACPCSeatView` of ``seat`` (``None``: a spectator, for the
        log) at a table of ``game`` whose first hand is the match's ``first_hand``."""

    def log_line(engine, event, view, names):
        """``(line, {seat: payoff})`` for the hand that ``event`` ended (``None`` for
        other events): the log's line, from the spectator's ``view`` and the game
        ``engine``'s own record of the hand; ``names``: seat → player."""


class IACPCSeatView(Interface):
    """One seat's view of a table in the protocol's words (made by
    :meth:`IACPCAdapter.seat_view`), fed every event the seat may see."""

    prompt = Attribute("The state the seat must answer now, or ``None``.")
    number = Attribute("The match's number of the current hand.")

    def feed(event):
        """Follow ``event``; the state lines to send the seat for it."""

    def automatic(event):
        """The action for a decision of the seat the protocol cannot express (or
        ``None``): the front end plays it at once."""

    def read(line, strict=False):
        """``(action or None, invalid, note)`` for a reply line: ``None`` ignores the
        line (with ``note`` as a warning) or, with ``invalid`` and ``strict``, ends the
        match; with ``invalid`` and not ``strict``, ``action`` is the corrected one."""


class IRelayAdapter(Interface):
    """Lets the relay front end pass on the messages of a game played peer to peer."""

    def relayed(data):
        """One relayed message (bytes) as the action, for ``IGame.act``, that gives it."""


# -- front ends ----------------------------------------------------------------------
# A front end is a module named in ``hub.frontends.FRONTENDS``; it declares what it
# offers with ``zope.interface.moduleProvides``.


class IFrontend(Interface):
    """A front end module (``hub.frontends.<name>``): one wire format."""

    def make_factory(hub):
        """The protocol factory the hub listens with for ``hub`` (the root service)."""


class IHTTPResources(Interface):
    """A front end that publishes HTTP resources beside its own wire (optional, beside
    :class:`IFrontend`): the XML front end's schemas.

    The hub collects them from every front end of the build, listening or not
    (``hub.service.HubService.http_resources``), and the web front end mounts each at
    ``/<name>`` (its own paths win); no front end imports another."""

    def http_resources(hub, access=None):
        """``[(name, resource)]``: a top-level path segment (``bytes``, ``[a-z0-9-]``)
        and an ``IResource`` for ``hub``, checked by ``access`` (:mod:`hub.connections.access`)."""


# -- the hub, as front ends see it ----------------------------------------------------


class IRegistry(Interface):
    """The loaded plugins (``hub.plugins.registry.Registry``), as the lobby and the front ends
    use them."""

    def game_factory(name):
        """The :class:`IGameFactory` called ``name``.

        :raises hub.model.NotFound: no such game type is loaded."""

    def bot_factory(name):
        """The :class:`IBotFactory` called ``name``.

        :raises hub.model.NotFound: no such bot is loaded."""

    def game_types():
        """Every loaded :class:`IGameFactory`."""

    def bots():
        """Every loaded :class:`IBotFactory`."""

    def client_module(factory):
        """The dotted name of the module clients download to play ``factory``'s game:
        its ``.meta``'s ``client``, else ``<the factory's package>.client``."""

    def load():
        """Load every plugin (may return a ``Deferred``)."""

    def start():
        """Start watching the plugin folders (hot reload)."""

    def stop():
        """Stop watching."""


class IHub(Interface):
    """What a front end may use of the hub (``hub.service.HubService``): the parts it
    is built from and the seating every front end shares.

    A front end module's ``make_factory(hub)`` and ``http_resources(hub)`` get an object
    providing it; the test fakes of the hub provide it too.
    """

    reactor = Attribute("The reactor: ``IReactorTime`` and more (``MemoryReactorClock`` in tests).")
    version = Attribute("The hub's version, text.")
    lobby = Attribute("The ``hub.play.lobby.Lobby``: every live game.")
    registry = Attribute("The plugins, an :class:`IRegistry`.")
    store = Attribute("The accounts, ledger and history (an :class:`IStore`), or ``None``.")
    money = Attribute("The table money (``hub.play.money.TableMoney``), or ``None``.")
    chat = Attribute("The chat of the lobby and the games (``hub.connections.chat.ChatService``).")
    transcripts = Attribute("The ``hub.connections.transcript.Transcripts``, or ``None``.")
    options = Attribute("A mapping of the other settings (``mnm_version``, ``api_token``...).")
    endpoints = Attribute("Front-end name → the endpoint description it listens on (``none``).")
    bound_ports = Attribute("Front-end name → the port it is bound to, while it listens.")
    telemetry = Attribute("The hub's metrics (``hub.ops.telemetry.Telemetry``).")
    ratings = Attribute("The ratings of rated games (``hub.ratings``), or ``None``.")
    routes = Attribute("Keys that lead to a game (``hub.play.routes.Routes``), or ``None``.")
    tournaments = Attribute("The tournaments (``hub.tournaments``), or ``None``.")

    def create_game(
        type_name,
        name=None,
        variant=None,
        seats=None,
        options=None,
        creator=None,
        seat_bots=True,
        rated=None,
        bots_only=False,
        broke_bots="leave",
    ):
        """Create a game (a coroutine → ``hub.play.game.GameInstance``); a chip table goes
        through the table money (``bots_only``, ``broke_bots``: its rules for its bots);
        ``rated``: ``True``, ``False``, ``None`` (the default).

        :raises hub.model.GameError: refused."""

    def seat_bots(game):
        """Seat the bots of a game created with ``seat_bots=False`` (a coroutine)."""

    def take_seat(game, player, seat=None, kind="client", buyin=None, observe=None):
        """Seat ``player`` (a coroutine → the seat), buying in at a chip table;
        ``observe(seat)`` is called just before the game seats the player."""

    def add_bot(game, bot, seat=None, buyin=None):
        """Seat the in-hub bot ``bot`` (a coroutine → ``(seat, player name)``)."""

    def leave_seat(game, seat):
        """The player at ``seat`` asks to leave."""

    def health():
        """``{"status", "store", "paused_tables"}`` for health checks."""

    def place(hub=None, gather=False):
        """Where a new game goes: ``None`` (here) or a ``hub.model.Elsewhere``."""

    def game_json(game, detail=False):
        """A game as the JSON API shows it, with the port of its front end."""

    def listed_games():
        """The games lobby lists show: this hub's, then a cluster's other hubs'."""

    def follow_games(listener):
        """Tell ``listener`` (an :class:`ILobbyListener`) of changes to those."""

    def unfollow_games(listener):
        """Stop telling ``listener``."""

    def http_resources(access=None):
        """``[(path segment, resource)]`` of every :class:`IHTTPResources` front end."""


# -- the store -----------------------------------------------------------------------


class IStore(Interface):
    """Accounts, the chip ledger and history (``hub.store``; SQLite or PostgreSQL).

    Every method returns a ``Deferred``.  Refusals fail it with
    :class:`hub.model.GameError` subclasses from ``hub.store.errors`` (``code``: 400 bad
    name/amount, 401 bad login, 404 unknown, 409 taken/in play, 422 not enough chips,
    429 throttled).  Amounts are ``Decimal`` (or ``int``/decimal ``str``); a float is a
    ``TypeError``.  Movements take an idempotency ``key``: a replayed key changes
    nothing and fires with a ``Movement`` whose ``applied`` is false.  When the
    database cannot be reached a call fails with ``StoreUnavailable`` (503) and
    ``available`` is false until a call (or the store's own probe) works again.
    """

    new_account_grant = Attribute("Decimal chips a new account receives.")
    available = Attribute("Whether the database answered the last call (see on_availability).")
    hub_id = Attribute("This hub's lease id while started for a hub, else None.")

    def start(recover=True):
        """Open, migrate the schema; for a hub (``recover``) take this hub's lease and
        return the chips of tables no live hub owns to their accounts.  Tools beside
        running hubs pass ``recover=False``."""

    def stop():
        """End this hub's lease, close the database connections."""

    def on_availability(listener):
        """Call ``listener(available)`` when the database goes away or comes back."""

    def create_account(name, password, type="player", grant=None, reserved=False):
        """Create an account (type ``player``/``bot``/``admin`` or 0/1/2) → ``Account``."""

    def delete_account(name):
        """Delete an account (not while it has chips at a table) → closed balance."""

    def authenticate(name, password, source=None):
        """Check a login → ``Account``; the same error for unknown name and wrong password.
        Failures are throttled per (name, ``source``: the client's address) and per
        source, never for other sources."""

    def change_password(name, old, new, source=None):
        """Set a new password after checking the old one (throttled as a login)."""

    def set_password(name, new):
        """Set a new password (admin)."""

    def get_account(name):
        """The ``Account`` called ``name`` (any case)."""

    def list_accounts(prefix="", type=None, limit=None):
        """Accounts by name, optionally by name prefix and type."""

    def find_players(prefix, limit=50):
        """Accounts whose name is or starts with ``prefix``; exact match first."""

    def set_type(name, type):
        """Change an account's type → ``Account``."""

    def grant(name, chips, key=None):
        """Create (or, negative, destroy) chips on an account → ``Movement``."""

    def buy_in(name, game_id, chips, key, bot=False):
        """Balance → chips at this hub's open table ``game_id`` → ``Movement``; ``bot``:
        an in-hub bot's account, created and funded when short in the same transaction."""

    def cash_out(name, game_id, chips, key):
        """Chips at ``game_id`` (``chips``, or all when ``None``) → balance → ``Movement``."""

    def settle(game_id, deltas, key):
        """Move chips between players at one table (``{name: signed amount}``, sum 0)."""

    def chips_at(game_id):
        """``{account name: chips}`` recorded at ``game_id``."""

    def tables_of(name):
        """``{game id: chips}`` of one account."""

    def open_table(game_id, game_type):
        """Make ``game_id`` a chip table owned by this hub."""

    def close_table(game_id):
        """Return every chip at this hub's table ``game_id`` and close it → returned."""

    def settle_hand(game_id, hand_key, deltas, hand=None):
        """One finished hand: its chip movements (``{name: signed amount}``, sum 0) and
        its history (``record_hand``'s arguments besides ``game_id``) in one
        transaction, once per hand → ``Movement`` (with ``hand_id``)."""

    def leave_table(name, game_id, stack, key):
        """A player left with ``stack``: the ledger's chips there go back; a difference
        is recorded (``Movement.problem``)."""

    def record_problem(kind, detail, game_id=None, account=None, expected=None, recorded=None):
        """Record a money problem for the operator."""

    def problems(limit=100):
        """Recorded money problems (dicts), newest first."""

    def live_hubs():
        """The ids of the hubs alive now (lease open, lock held)."""

    def hubs():
        """Every hub lease (dicts with ``live`` and open ``tables``)."""

    def recover():
        """Return the chips of every table no live hub owns → refunds."""

    def ledger_check():
        """Prove the books (balances + chips at tables = chips issued, every hand
        settled once by its payoffs, no chips at a table no live hub holds) →
        ``LedgerReport``."""

    def ledger(name=None, game_id=None, key=None, limit=100):
        """Ledger rows (dicts), newest first."""

    def record_game(
        game_id,
        game_type,
        name,
        players,
        *,
        variant=None,
        started=None,
        finished=None,
        summary=None,
        result=None,
        replay=None,
    ):
        """Store a finished game with per-seat results (and its replay, as
        :meth:`record_replay` does, in the same transaction) → ``True`` if new."""

    def games(game_id=None, player=None, since=None, until=None, limit=50):
        """Finished games (dicts with ``players``), newest first."""

    def record_replay(game_id, replay):
        """Store a finished game's replay (JSON-able; public events only) → ``True``
        if new."""

    def replay(game_id):
        """The stored replay of a finished game, or ``None``."""

    def record_hand(game_id, players, *, game_type=None, record=None, summary=None,
                    sealed=None, started=None, at=None, hand_key=None):  # fmt: skip
        """Store a finished hand (per seat: account, seat, chips in and won, the
        seat's private part; the game's public record and summary; its sealed part)
        → hand id."""

    def hands(game_id=None, player=None, since=None, until=None, limit=50, hand_id=None,
              hand_key=None, private_for=None, sealed=False):  # fmt: skip
        """Finished hands (dicts with ``players``), newest first; a seat's ``private``
        part only on the seats of account ``private_for``, the ``sealed`` part only
        when asked for (the operator, admins)."""


class IAuditStore(Interface):
    """The audit log of admin actions and the banned addresses (``hub.store.audit``).
    Every method returns a ``Deferred``."""

    def record_audit(actor, action, *, via, source, target=None, detail=None, outcome="ok",
                     keep=100000):  # fmt: skip
        """Append one row (who, what, from where, how it ended); trim to ``keep`` rows
        → the row's id."""

    def audit_log(limit=100, action=None, actor=None, target=None):
        """Rows of the audit log, newest first."""

    def ban_address(address, actor, reason=None):
        """Ban an address or network → ``True`` if it was not banned."""

    def unban_address(address):
        """Lift a ban → ``True`` if there was one."""

    def banned_addresses():
        """Every ban (``address``, ``created``, ``actor``, ``reason``)."""


class ITournamentStore(Interface):
    """Tournaments in the store (``hub.store.tournaments``), SQLite or PostgreSQL; each
    a record of ``hub.tournaments.model.Tournament.to_record``.  Every method returns a
    ``Deferred``."""

    def save_tournament(data):
        """Write one tournament's record whole, in place of what was stored."""

    def load_tournaments():
        """Every stored tournament's record, oldest first."""

    def delete_tournament(tournament_id):
        """Forget a tournament, its entries and games."""


class IConnectionControl(Interface):
    """A front end's factory that can close the connections of one player (the admin
    API's kick)."""

    def kick(player, reason):
        """Close every connection logged in as ``player`` → how many."""


class IRatingStore(Interface):
    """Ratings in the store (``hub.store.ratings``), SQLite or PostgreSQL.  Every method
    returns a ``Deferred``; records are those of :mod:`hub.rating`."""

    def rate_game(game):
        """Apply a finished :class:`hub.rating.RatedGame` to its pool → the list
        of ``Update`` (empty: not rated, or rated before)."""

    def leaderboard(game_type, variant="", limit=100):
        """A pool's players, best first (dicts: name, kind, mu, sigma, ordinal, games)."""

    def rating_pools():
        """Every pool with ratings (dicts: type, variant, players)."""

    def rating_history(game_type, variant="", player=None, limit=2000):
        """The rating after each rated game of a pool (of one ``Player``), oldest first."""

    def rebuild_ratings(write=True):
        """Recompute every rating from the stored rankings in order → ``games``,
        ``players``, ``differences`` (what the recomputation does not equal)."""
