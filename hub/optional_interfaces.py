"""Optional interfaces a game plugin, a front end adapter or the store may provide
beside those of :mod:`hub.interfaces` (kept in their own module: that one is at the
size limit of a module).  The hub asks ``providedBy`` before it uses any of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from zope.interface import Attribute, Interface

from hub.model import JsonMapping, LiveGame

if TYPE_CHECKING:
    from twisted.internet.defer import Deferred

    from hub.interfaces import IGame


class IRevealedHands(Interface):
    """A chip game type whose stored hands have a part their own players may read once
    the hand is revealed (on the factory, beside :class:`hub.interfaces.IHandRecord`):
    none of them is still at that table, or ``seed_reveal`` seconds passed
    (:mod:`hub.play.reveal`).  Poker: the shuffle's seed, so each player can check every
    hand it played."""

    def revealed(hand: JsonMapping) -> JsonMapping:
        """A stored hand read with its ``sealed`` part → the JSON-able part its players
        may read; :meth:`hub.interfaces.IHandRecord.hand_json` then finds it under the
        hand's ``revealed`` key."""


class IHandViews(Interface):
    """SQL views a chip game type offers over its stored hands (on the factory), for
    people who query the store in SQL: the hub (re)creates them at every start
    (:class:`IHandViewStore`)."""

    def hand_views(dialect: str) -> Sequence[tuple[str, str]]:
        """``(view name, SELECT)`` pairs for ``dialect`` (``sqlite`` or ``postgresql``),
        over the store's ``finished_hand`` and ``hand_seat`` tables; a view of private
        columns says so in its name (it is the operator's)."""


class IHandViewStore(Interface):
    """A store that makes SQL views over its stored hands (the SQL stores)."""

    def install_views(
        views_of: Callable[[str], Sequence[tuple[str, str]]],
    ) -> Deferred[list[str]]:
        """(Re)create the views ``views_of(dialect name)`` gives, ``(name, SELECT)``
        each (:class:`IHandViews`), in one transaction → a Deferred of their names."""


class IXMLSeatDetails(Interface):
    """An XML adapter that tells more of each seat in ``lobby/gamedetails`` (beside
    :class:`hub.interfaces.IXMLGameAdapter`): a chip game's chips at the table."""

    def seat_details(
        engine: IGame,
    ) -> tuple[Sequence[str], Mapping[int, Mapping[str, str]]]:
        """``(column names, {seat: {column: text}})`` of the game ``engine`` now (the
        columns after ``seat``, ``name`` and ``kind``; a seat left out is empty)."""


class IExhaustiveLegal(Interface):
    """A game type whose games list, in ``legal_actions(seat)``, every action they
    accept from ``seat`` (every kit game): an action is accepted only if its
    ``legal_key`` value equals that of one of the seat's legal actions.  A host that
    knows the legal actions (the hub, for an isolated game) may then refuse any other
    action at once, without asking the game."""

    legal_key: str = Attribute("the key of an action (and of each legal action) that names it")


class IDeferredBot(Interface):
    """A bot (beside :class:`hub.interfaces.IBot`) whose thinking happens elsewhere
    (another process): the bot driver asks :meth:`choose_later` on the reactor's
    thread instead of ``IBot.choose`` in a worker thread."""

    def choose_later(
        view: JsonMapping, legal: Sequence[JsonMapping], deadline: float
    ) -> Deferred[JsonMapping]:
        """A Deferred of one of ``legal`` for ``view``, within ``deadline`` seconds."""


class IMNMCurrentPieces(Interface):
    """An MNM adapter (beside :class:`hub.interfaces.IMNMGameAdapter`) that gives the
    piece list of a game now without the whole view being built for it: the MNM front
    end sends one with every move request."""

    def current_pieces(game: IGame, seat: int | None) -> Sequence[Sequence[str]]:
        """What ``piece_list(game.view(seat))`` gives, now (the caller only reads it:
        it may be the game's own list)."""


class ICatchesUp(Interface):
    """A game (``IGame``) whose answers may be behind its inputs for a moment (an
    isolated game: its worker answers each input in turn).  A front end that must
    answer an action with its verdict waits for :meth:`caught_up` before ``act``."""

    def caught_up() -> Deferred[None]:
        """A Deferred that fires once the game has answered every input sent to it so
        far (its legal actions are then up to date)."""


class IFullViewAfter(Interface):
    """A game type played over XML with the generic JSON payloads (its ``adapter("xml")``
    is ``None``) whose players get the whole view after some events, not only at the
    start: a game with no adapter code of its own (the kit's: after every move)."""

    snapshot_kinds: frozenset[str] = Attribute(
        "The event kinds (a frozenset of str) after which the XML front end sends the"
        " player the whole view."
    )


class IFollowsMoves(Interface):
    """A game observer (a front end's connection) that is told when its game moves to
    another hub of the cluster (a drain or a stop hands it over: :mod:`hub.play.resume`),
    rather than dropped without a word as the game stops here."""

    def game_moved(game: LiveGame) -> None:
        """``game`` runs on another hub now and stops here: end the connection without
        a word and leave no seat (the game keeps it for the player there); a door that
        spliced the connection follows the game to its new hub."""
