"""The store's seams: what the hub and the front ends use of the accounts, the chip
ledger, history, the audit log, tournaments and ratings (``hub.store``; SQLite or
PostgreSQL).  Importable from :mod:`hub.interfaces` like every interface.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeAlias

from zope.interface import Attribute, Interface

from hub.model import Chips, JsonMapping

if TYPE_CHECKING:
    from decimal import Decimal

    from twisted.internet.defer import Deferred

    from hub.rating import Player, RatedGame, Update
    from hub.store.base import Account
    from hub.store.ledger import LedgerReport, Movement

#: a row (or a summary) the store reads back: column name → value
Row: TypeAlias = dict[str, Any]  # Any: each value has its own column's type


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

    new_account_grant: Decimal = Attribute("Decimal chips a new account receives.")
    available: bool = Attribute(
        "Whether the database answered the last call (see on_availability)."
    )
    hub_id: str | None = Attribute("This hub's lease id while started for a hub, else None.")

    def start(recover: bool = True) -> Deferred[None]:
        """Open, migrate the schema; for a hub (``recover``) take this hub's lease and
        return the chips of tables no live hub owns to their accounts.  Tools beside
        running hubs pass ``recover=False``."""

    def stop() -> Deferred[None]:
        """End this hub's lease, close the database connections."""

    def on_availability(listener: Callable[[bool], object]) -> None:
        """Call ``listener(available)`` when the database goes away or comes back."""

    def create_account(
        name: str,
        password: str,
        type: str | int = "player",
        grant: Chips | None = None,
        reserved: bool = False,
    ) -> Deferred[Account]:
        """Create an account (type ``player``/``bot``/``admin`` or 0/1/2) → ``Account``."""

    def delete_account(name: str) -> Deferred[Decimal]:
        """Delete an account (not while it has chips at a table) → closed balance."""

    def authenticate(name: str, password: str, source: str | None = None) -> Deferred[Account]:
        """Check a login → ``Account``; the same error for unknown name and wrong password.
        Failures are throttled per (name, ``source``: the client's address) and per
        source, never for other sources."""

    def change_password(name: str, old: str, new: str, source: str | None = None) -> Deferred[None]:
        """Set a new password after checking the old one (throttled as a login)."""

    def set_password(name: str, new: str) -> Deferred[None]:
        """Set a new password (admin)."""

    def get_account(name: str) -> Deferred[Account]:
        """The ``Account`` called ``name`` (any case)."""

    def list_accounts(
        prefix: str = "", type: str | int | None = None, limit: int | None = None
    ) -> Deferred[list[Account]]:
        """Accounts by name, optionally by name prefix and type."""

    def find_players(prefix: str, limit: int = 50) -> Deferred[list[Account]]:
        """Accounts whose name is or starts with ``prefix``; exact match first."""

    def set_type(name: str, type: str | int) -> Deferred[Account]:
        """Change an account's type → ``Account``."""

    def grant(name: str, chips: Chips, key: str | None = None) -> Deferred[Movement]:
        """Create (or, negative, destroy) chips on an account → ``Movement``."""

    def buy_in(
        name: str, game_id: str, chips: Chips, key: str, bot: bool = False
    ) -> Deferred[Movement]:
        """Balance → chips at this hub's open table ``game_id`` → ``Movement``; ``bot``:
        an in-hub bot's account, created and funded when short in the same transaction."""

    def cash_out(name: str, game_id: str, chips: Chips | None, key: str) -> Deferred[Movement]:
        """Chips at ``game_id`` (``chips``, or all when ``None``) → balance → ``Movement``."""

    def settle(game_id: str, deltas: Mapping[str, Chips], key: str) -> Deferred[Movement]:
        """Move chips between players at one table (``{name: signed amount}``, sum 0)."""

    def chips_at(game_id: str) -> Deferred[dict[str, Decimal]]:
        """``{account name: chips}`` recorded at ``game_id``."""

    def tables_of(name: str) -> Deferred[dict[str, Decimal]]:
        """``{game id: chips}`` of one account."""

    def open_table(game_id: str, game_type: str) -> Deferred[None]:
        """Make ``game_id`` a chip table owned by this hub."""

    def close_table(game_id: str) -> Deferred[dict[str, Decimal]]:
        """Return every chip at this hub's table ``game_id`` and close it → returned."""

    def settle_hand(
        game_id: str,
        hand_key: str,
        deltas: Mapping[str, Chips],
        hand: Mapping[str, object] | None = None,
    ) -> Deferred[Movement]:
        """One finished hand: its chip movements (``{name: signed amount}``, sum 0) and
        its history (``record_hand``'s arguments besides ``game_id``) in one
        transaction, once per hand → ``Movement`` (with ``hand_id``)."""

    def leave_table(name: str, game_id: str, stack: Chips, key: str) -> Deferred[Movement]:
        """A player left with ``stack``: the ledger's chips there go back; a difference
        is recorded (``Movement.problem``)."""

    def record_problem(
        kind: str,
        detail: str,
        game_id: str | None = None,
        account: str | None = None,
        expected: Chips | None = None,
        recorded: Chips | None = None,
    ) -> Deferred[None]:
        """Record a money problem for the operator."""

    def problems(limit: int = 100) -> Deferred[list[Row]]:
        """Recorded money problems (dicts), newest first."""

    def live_hubs() -> Deferred[set[str]]:
        """The ids of the hubs alive now (lease open, lock held)."""

    def hubs() -> Deferred[list[Row]]:
        """Every hub lease (dicts with ``live`` and open ``tables``)."""

    def recover() -> Deferred[list[tuple[str, str, Decimal]]]:
        """Return the chips of every table no live hub owns → refunds."""

    def ledger_check() -> Deferred[LedgerReport]:
        """Prove the books (balances + chips at tables = chips issued, every hand
        settled once by its payoffs, no chips at a table no live hub holds) →
        ``LedgerReport``."""

    def ledger(
        name: str | None = None,
        game_id: str | None = None,
        key: str | None = None,
        limit: int = 100,
    ) -> Deferred[list[Row]]:
        """Ledger rows (dicts), newest first."""

    def record_game(
        game_id: str,
        game_type: str,
        name: str,
        players: Iterable[Mapping[str, object]],
        *,
        variant: str | None = None,
        started: float | None = None,
        finished: float | None = None,
        summary: str | None = None,
        result: JsonMapping | None = None,
        replay: object = None,
    ) -> Deferred[bool]:
        """Store a finished game with per-seat results (and its replay, as
        :meth:`record_replay` does, in the same transaction) → ``True`` if new."""

    def games(
        game_id: str | None = None,
        player: str | None = None,
        since: float | None = None,
        until: float | None = None,
        limit: int = 50,
    ) -> Deferred[list[Row]]:
        """Finished games (dicts with ``players``), newest first."""

    def record_replay(game_id: str, replay: object) -> Deferred[bool]:
        """Store a finished game's replay (JSON-able; public events only) → ``True``
        if new."""

    def replay(game_id: str) -> Deferred[object]:
        """The stored replay of a finished game, or ``None``."""

    def record_hand(
        game_id: str,
        players: Iterable[Mapping[str, object]],
        *,
        game_type: str | None = None,
        record: object = None,
        summary: str | None = None,
        sealed: object = None,
        started: float | None = None,
        at: float | None = None,
        hand_key: str | None = None,
    ) -> Deferred[int]:
        """Store a finished hand (per seat: account, seat, chips in and won, the
        seat's private part; the game's public record and summary; its sealed part)
        → hand id."""

    def hands(
        game_id: str | None = None,
        player: str | None = None,
        since: float | None = None,
        until: float | None = None,
        limit: int = 50,
        hand_id: int | None = None,
        hand_key: str | None = None,
        private_for: str | None = None,
        sealed: bool = False,
    ) -> Deferred[list[Row]]:
        """Finished hands (dicts with ``players``), newest first; a seat's ``private``
        part only on the seats of account ``private_for``, the ``sealed`` part only
        when asked for (the operator, admins)."""


class IAuditStore(Interface):
    """The audit log of admin actions and the banned addresses (``hub.store.audit``).
    Every method returns a ``Deferred``."""

    def record_audit(
        actor: str,
        action: str,
        *,
        via: str,
        source: str,
        target: str | None = None,
        detail: object = None,
        outcome: str = "ok",
        keep: int = 100000,
    ) -> Deferred[int]:
        """Append one row (who, what, from where, how it ended); trim to ``keep`` rows
        → the row's id."""

    def audit_log(
        limit: int = 100,
        action: str | None = None,
        actor: str | None = None,
        target: str | None = None,
    ) -> Deferred[list[Row]]:
        """Rows of the audit log, newest first."""

    def ban_address(address: str, actor: str, reason: str | None = None) -> Deferred[bool]:
        """Ban an address or network → ``True`` if it was not banned."""

    def unban_address(address: str) -> Deferred[bool]:
        """Lift a ban → ``True`` if there was one."""

    def banned_addresses() -> Deferred[list[Row]]:
        """Every ban (``address``, ``created``, ``actor``, ``reason``)."""


class ITournamentStore(Interface):
    """Tournaments in the store (``hub.store.tournaments``), SQLite or PostgreSQL; each
    a record of ``hub.tournaments.model.Tournament.to_record``.  Every method returns a
    ``Deferred``."""

    def save_tournament(data: Mapping[str, object]) -> Deferred[None]:
        """Write one tournament's record whole, in place of what was stored."""

    def load_tournaments() -> Deferred[list[Row]]:
        """Every stored tournament's record, oldest first."""

    def delete_tournament(tournament_id: str) -> Deferred[None]:
        """Forget a tournament, its entries and games."""


class IRatingStore(Interface):
    """Ratings in the store (``hub.store.ratings``), SQLite or PostgreSQL.  Every method
    returns a ``Deferred``; records are those of :mod:`hub.rating`."""

    def rate_game(game: RatedGame) -> Deferred[list[Update]]:
        """Apply a finished :class:`hub.rating.RatedGame` to its pool → the list
        of ``Update`` (empty: not rated, or rated before)."""

    def leaderboard(game_type: str, variant: str = "", limit: int = 100) -> Deferred[list[Row]]:
        """A pool's players, best first (dicts: name, kind, mu, sigma, ordinal, games)."""

    def rating_pools() -> Deferred[list[Row]]:
        """Every pool with ratings (dicts: type, variant, players)."""

    def rating_history(
        game_type: str, variant: str = "", player: Player | None = None, limit: int = 2000
    ) -> Deferred[list[Row]]:
        """The rating after each rated game of a pool (of one ``Player``), oldest first."""

    def rebuild_ratings(write: bool = True) -> Deferred[Row]:
        """Recompute every rating from the stored rankings in order → ``games``,
        ``players``, ``differences`` (what the recomputation does not equal)."""
