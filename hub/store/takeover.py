"""What a recovery does with a dead hub's chip tables: the seam of a takeover.

:meth:`hub.store.tables.TablesMixin.recover` decides *who* is dead (on evidence:
:mod:`hub.store.liveness`), locks the open chip tables no live hub owns and ends the
dead hubs' leases, in one transaction; *what becomes of* those tables and of the dead
hubs' games is a :class:`Takeover`'s, called in that same transaction (so exactly
once, however many hubs recover at once) and again on the reactor thread after the
commit.

The store's own (:class:`RefundTables`, a hub on SQLite) returns the chips of those
tables to their accounts and closes them: the hand in progress at each is void.  A
cluster puts :class:`hub.cluster.takeover.AbortAndRefund`, which also marks the dead
hubs' games aborted in the directory; a journal of the games can put one that resumes
them instead (issue 31).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Protocol

from .base import _Cursor

#: chips returned: ``(account name, game id, amount)``
Refund = tuple[str, str, Decimal]


@dataclass(frozen=True)
class Claim:
    """What a takeover did in the recovery's transaction.

    :ivar refunds: the chips it returned.
    :ivar detail: anything else it did, for its own :meth:`Takeover.claimed`.
    """

    refunds: list[Refund] = field(default_factory=list)
    detail: Any = None


class Takeover(Protocol):
    """What becomes of the dead hubs' chip tables and games."""

    def claim(
        self, cur: _Cursor, hubs: list[str], tables: list[str], key: str, now: float
    ) -> Claim:
        """(In the recovery's transaction, the ``tables`` locked.)  ``hubs``: the dead
        hubs whose lease this very transaction ended (once per hub, whoever recovers);
        ``tables``: every open chip table no live hub owns (of those hubs, or of hubs
        whose lease had ended already); ``key``: this recovery's idempotency prefix.
        Touches only the cursor."""
        ...

    def claimed(self, hubs: list[str], claim: Claim) -> None:
        """(On the reactor thread, after the commit.)  What follows the claim on the
        hub that made it."""
        ...


class Refunds(Protocol):
    """What :class:`RefundTables` needs of the store."""

    def refund_tables(self, cur: _Cursor, tables: list[str], key: str, now: float) -> list[Refund]:
        """See :meth:`hub.store.tables.TablesMixin.refund_tables`."""
        ...


class RefundTables:
    """The store's own takeover: every chip of the tables goes back to its account,
    once, and the tables close (their hands in progress are void)."""

    def __init__(self, store: Refunds) -> None:
        self.store = store

    def claim(
        self, cur: _Cursor, hubs: list[str], tables: list[str], key: str, now: float
    ) -> Claim:
        """Refund and close ``tables``."""
        return Claim(self.store.refund_tables(cur, tables, key, now))

    def claimed(self, hubs: list[str], claim: Claim) -> None:
        """(The recovery logs the refunds itself.)"""
