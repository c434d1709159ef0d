"""Accounts, the chip ledger and history: one interface (:class:`hub.interfaces.IStore`),
SQLite and PostgreSQL behind ``twisted.enterprise.adbapi``.

Use :func:`open_store` and call ``start()`` before anything else.
"""

from .base import Account
from .errors import (
    BadAmount,
    BadName,
    BadPassword,
    ChipsInPlay,
    CommitUnknown,
    InsufficientFunds,
    KeyReused,
    LeaseEnded,
    LoginFailed,
    NameTaken,
    NotAtTable,
    SchemaTooNew,
    StoreError,
    StoreUnavailable,
    TableNotOpen,
    Throttled,
    UnknownAccount,
)
from .ledger import LedgerReport, Movement
from .store import Store, open_store

#: the environment variable naming the PostgreSQL server the test suite uses
TEST_PG_DSN_VARIABLE = "GAMEHUB_TEST_PG_DSN"
#: where the hub keeps its SQLite database unless told otherwise
DEFAULT_DSN = "sqlite:./gamehub-data/hub.sqlite"

__all__ = [
    "DEFAULT_DSN",
    "TEST_PG_DSN_VARIABLE",
    "Account",
    "BadAmount",
    "BadName",
    "BadPassword",
    "ChipsInPlay",
    "CommitUnknown",
    "InsufficientFunds",
    "KeyReused",
    "LedgerReport",
    "LoginFailed",
    "Movement",
    "NameTaken",
    "NotAtTable",
    "SchemaTooNew",
    "Store",
    "StoreError",
    "StoreUnavailable",
    "TableNotOpen",
    "LeaseEnded",
    "Throttled",
    "UnknownAccount",
    "open_store",
]
