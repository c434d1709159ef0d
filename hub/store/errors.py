"""Errors the store raises.

Refusals a client caused are :class:`hub.model.GameError` subclasses whose ``code``
follows HTTP's meanings, so a front end can answer them directly.  Problems with the
database itself (a schema newer than this code) are :class:`StoreError`.
"""

from __future__ import annotations

from hub.model import BadAction, Conflict, GameError, IllegalAction, NotFound


class StoreError(Exception):
    """The database cannot be used as it is (not a client's fault)."""


class SchemaTooNew(StoreError):
    """The database was written by a newer Gamehub than this one."""


class StoreUnavailable(StoreError, GameError):
    """The database cannot be reached or written now (503): a connection failed, the
    server went away, the disk is full.  Nothing was changed, or (when it failed while
    committing) a movement may have been applied: repeat it with the same key."""

    code = 503


class CommitUnknown(StoreUnavailable):
    """The database failed while committing (503): the movement may or may not have
    been applied.  Repeating it with the same key applies it at most once."""


class BadName(BadAction):
    """An account name breaks the name rules (400)."""

    code = 400


class BadPassword(BadAction):
    """A new password breaks the password rules (400)."""

    code = 400


class BadAmount(BadAction):
    """An amount is malformed, negative, zero where it may not be, or too precise (400)."""

    code = 400


class NameTaken(Conflict):
    """An account with that name exists already (409)."""

    code = 409


class UnknownAccount(NotFound):
    """No account of that name (404)."""

    code = 404


class LoginFailed(GameError):
    """Wrong name or password; the same answer for both (401)."""

    code = 401


class Throttled(GameError):
    """Too many failed logins; try again later (429)."""

    code = 429


class InsufficientFunds(IllegalAction):
    """The balance (or the chips at the table) does not cover the amount (422)."""

    code = 422


class NotAtTable(NotFound):
    """The account has no chips recorded at that game (404)."""

    code = 404


class ChipsInPlay(Conflict):
    """The account still has chips at a table (409)."""

    code = 409


class TableNotOpen(Conflict):
    """Chips may not move onto that game: it is no open chip table of this hub (409)."""

    code = 409


class LeaseEnded(TableNotOpen):
    """This hub's lease was ended by another hub, which took its chip tables over (409):
    it was cut off from the database for longer than the grace (a partition).  Nothing
    was moved; nothing will be under that lease (:mod:`hub.store.lease`)."""


class TournamentRefused(Conflict):
    """A registration the stored tournament refuses (409): not open, full, or the name
    taken (:meth:`hub.store.tournaments.TournamentsMixin.tournament_enter`)."""

    code = 409


class NotOwner(Conflict):
    """This hub does not run that tournament (any more): another hub adopted it (409).
    Nothing was written."""

    code = 409


class KeyReused(Conflict):
    """An idempotency key was used before for a different movement (409)."""

    code = 409


__all__ = [
    "BadAmount",
    "BadName",
    "BadPassword",
    "ChipsInPlay",
    "CommitUnknown",
    "InsufficientFunds",
    "KeyReused",
    "LoginFailed",
    "NameTaken",
    "NotAtTable",
    "NotOwner",
    "SchemaTooNew",
    "StoreError",
    "StoreUnavailable",
    "TableNotOpen",
    "Throttled",
    "TournamentRefused",
    "UnknownAccount",
]
