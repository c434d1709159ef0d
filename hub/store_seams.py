"""The store's seams: what the hub and the front ends use of the accounts, the chip
ledger, history, the audit log, tournaments and ratings (``hub.store``; SQLite or
PostgreSQL).  Importable from :mod:`hub.interfaces` like every interface.
"""

from __future__ import annotations

from zope.interface import Attribute, Interface


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


class IRatingStore(Interface):
    """Ratings in the store (``hub.store.ratings``), SQLite or PostgreSQL.  Every method
    returns a ``Deferred``; records are those of :mod:`hub.ratings.model`."""

    def rate_game(game):
        """Apply a finished :class:`hub.ratings.model.RatedGame` to its pool → the list
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
