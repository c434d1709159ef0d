"""The versioned schema: migration *n* takes a database from version *n-1* to *n*.

The version lives in table ``gamehub_schema``.  :func:`migrate` applies the missing
steps in one transaction; a database newer than :data:`LATEST` is refused with
:class:`hub.store.errors.SchemaTooNew`.  Never edit a released step: add a new one.

Money columns are ``NUMERIC`` in PostgreSQL and integer cents in SQLite (see
:mod:`hub.store.dialect`).  The history tables keep names as text, so deleting an
account leaves its history readable.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .dialect import Dialect
from .errors import SchemaTooNew


def _v1(d: Dialect) -> list[str]:
    """Accounts, the ledger, chips at tables."""
    return [
        f"""CREATE TABLE account (
            id {d.serial},
            name VARCHAR(256) NOT NULL,
            name_key VARCHAR(256) NOT NULL UNIQUE,
            password VARCHAR(512) NOT NULL,
            type SMALLINT NOT NULL DEFAULT 0,
            balance {d.money} NOT NULL DEFAULT 0 CHECK (balance >= 0),
            created {d.timestamp} NOT NULL
        )""",
        f"""CREATE TABLE ledger (
            id {d.serial},
            idem_key VARCHAR(256) NOT NULL,
            seq INTEGER NOT NULL,
            kind VARCHAR(16) NOT NULL,
            account_id BIGINT NOT NULL,
            account_name VARCHAR(256) NOT NULL,
            game_id VARCHAR(64),
            balance_delta {d.money} NOT NULL,
            table_delta {d.money} NOT NULL,
            balance_after {d.money} NOT NULL,
            created {d.timestamp} NOT NULL,
            UNIQUE (idem_key, seq)
        )""",
        "CREATE INDEX ledger_account ON ledger (account_id)",
        "CREATE INDEX ledger_game ON ledger (game_id)",
        f"""CREATE TABLE table_chips (
            game_id VARCHAR(64) NOT NULL,
            account_id BIGINT NOT NULL,
            amount {d.money} NOT NULL CHECK (amount >= 0),
            since {d.timestamp} NOT NULL,
            PRIMARY KEY (game_id, account_id)
        )""",
        "CREATE INDEX table_chips_account ON table_chips (account_id)",
    ]


def _v2(d: Dialect) -> list[str]:
    """History: finished games with per-player results; hands (the seed's ``hand`` and
    ``player`` tables plus game id, shuffle commitment, seed and actions)."""
    return [
        f"""CREATE TABLE game (
            game_id VARCHAR(64) PRIMARY KEY,
            type VARCHAR(64) NOT NULL,
            variant VARCHAR(64),
            name VARCHAR(256) NOT NULL,
            started {d.timestamp},
            finished {d.timestamp} NOT NULL,
            summary TEXT,
            result TEXT
        )""",
        "CREATE INDEX game_finished ON game (finished)",
        f"""CREATE TABLE game_player (
            game_id VARCHAR(64) NOT NULL,
            seat SMALLINT NOT NULL,
            account_id BIGINT,
            name VARCHAR(256) NOT NULL,
            name_key VARCHAR(256) NOT NULL,
            kind VARCHAR(16),
            score TEXT,
            winner SMALLINT NOT NULL DEFAULT 0,
            net {d.money},
            PRIMARY KEY (game_id, seat)
        )""",
        "CREATE INDEX game_player_name ON game_player (name_key)",
        f"""CREATE TABLE hand (
            hand_id {d.serial},
            game_id VARCHAR(64) NOT NULL,
            hand_key VARCHAR(128),
            timestamp {d.timestamp} NOT NULL,
            dealer SMALLINT NOT NULL,
            flop VARCHAR(256),
            turn VARCHAR(256),
            river VARCHAR(256),
            showdown VARCHAR(256),
            card1 VARCHAR(3),
            card2 VARCHAR(3),
            card3 VARCHAR(3),
            card4 VARCHAR(3),
            card5 VARCHAR(3),
            commitment VARCHAR(128),
            seed VARCHAR(256),
            actions TEXT,
            UNIQUE (game_id, hand_key)
        )""",
        "CREATE INDEX hand_game ON hand (game_id)",
        "CREATE INDEX hand_time ON hand (timestamp)",
        f"""CREATE TABLE player (
            hand_id BIGINT NOT NULL,
            account VARCHAR(256) NOT NULL,
            name VARCHAR(256) NOT NULL,
            name_key VARCHAR(256) NOT NULL,
            account_id BIGINT,
            position SMALLINT NOT NULL,
            preflop VARCHAR(256),
            flop VARCHAR(256),
            turn VARCHAR(256),
            river VARCHAR(256),
            money_in {d.money},
            winnings {d.money},
            card1 VARCHAR(3),
            card2 VARCHAR(3),
            PRIMARY KEY (hand_id, position)
        )""",
        "CREATE INDEX player_name ON player (name_key)",
    ]


def _v3(d: Dialect) -> list[str]:
    """Table money: which hub owns which chip table (``hub_lease``, ``chip_table``), the
    hand each settlement belongs to (``ledger.hand_key``), and the differences found
    when a player left a table (``money_problem``)."""
    return [
        "ALTER TABLE ledger ADD COLUMN hand_key VARCHAR(128)",
        # settlements written before: their key is hand:<game id>:<hand key>
        "UPDATE ledger SET hand_key = SUBSTR(idem_key, LENGTH(game_id) + 7)"
        " WHERE kind = 'settle' AND game_id IS NOT NULL"
        " AND SUBSTR(idem_key, 1, LENGTH(game_id) + 6) = 'hand:' || game_id || ':'",
        "CREATE INDEX ledger_hand ON ledger (game_id, hand_key)",
        f"""CREATE TABLE hub_lease (
            hub_id VARCHAR(64) PRIMARY KEY,
            lock_key BIGINT NOT NULL,
            host VARCHAR(256) NOT NULL,
            pid INTEGER NOT NULL,
            started {d.timestamp} NOT NULL,
            heartbeat {d.timestamp} NOT NULL,
            ended {d.timestamp}
        )""",
        f"""CREATE TABLE chip_table (
            game_id VARCHAR(64) PRIMARY KEY,
            hub_id VARCHAR(64) NOT NULL,
            game_type VARCHAR(64) NOT NULL,
            opened {d.timestamp} NOT NULL,
            closed {d.timestamp}
        )""",
        "CREATE INDEX chip_table_hub ON chip_table (hub_id)",
        f"""CREATE TABLE money_problem (
            id {d.serial},
            created {d.timestamp} NOT NULL,
            hub_id VARCHAR(64),
            game_id VARCHAR(64),
            account_name VARCHAR(256),
            kind VARCHAR(32) NOT NULL,
            expected {d.money},
            recorded {d.money},
            detail TEXT NOT NULL
        )""",
    ]


def _v4(d: Dialect) -> list[str]:
    """Replays: the public events of each finished game (JSON), for people to step
    through."""
    return [
        """CREATE TABLE game_replay (
            game_id VARCHAR(64) PRIMARY KEY,
            replay TEXT NOT NULL
        )""",
    ]


def _v5_ratings(d: Dialect) -> list[str]:
    """Ratings (``hub.ratings``): each player's rating per pool (game type and variant
    key) and every rated game's ranking, in the order it was applied (``seq``), with the
    ratings before and after: what ``gamehub ratings rebuild`` recomputes from."""
    return [
        f"""CREATE TABLE rating (
            game_type VARCHAR(64) NOT NULL,
            variant VARCHAR(64) NOT NULL,
            kind VARCHAR(16) NOT NULL,
            name VARCHAR(256) NOT NULL,
            name_key VARCHAR(256) NOT NULL,
            mu DOUBLE PRECISION NOT NULL,
            sigma DOUBLE PRECISION NOT NULL,
            games INTEGER NOT NULL,
            updated {d.timestamp} NOT NULL,
            PRIMARY KEY (game_type, variant, kind, name_key)
        )""",
        f"""CREATE TABLE rated_result (
            seq BIGINT NOT NULL,
            game_id VARCHAR(64) NOT NULL,
            game_type VARCHAR(64) NOT NULL,
            variant VARCHAR(64) NOT NULL,
            finished {d.timestamp} NOT NULL,
            source VARCHAR(16) NOT NULL,
            seat SMALLINT NOT NULL,
            kind VARCHAR(16) NOT NULL,
            name VARCHAR(256) NOT NULL,
            name_key VARCHAR(256) NOT NULL,
            rank SMALLINT NOT NULL,
            mu_before DOUBLE PRECISION NOT NULL,
            sigma_before DOUBLE PRECISION NOT NULL,
            mu_after DOUBLE PRECISION NOT NULL,
            sigma_after DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (seq, seat),
            UNIQUE (game_id, seat)
        )""",
        "CREATE INDEX rated_result_player ON rated_result (game_type, variant, kind, name_key)",
    ]


#: every step, in order; the schema version is the length of this list
MIGRATIONS: list[Callable[[Dialect], list[str]]] = [_v1, _v2, _v3, _v4, _v5_ratings]
LATEST = len(MIGRATIONS)


def current_version(cursor: Any, dialect: Dialect) -> int:
    """The schema version of the database (0: empty), creating the version table."""
    cursor.execute("CREATE TABLE IF NOT EXISTS gamehub_schema (version INTEGER NOT NULL)", ())
    if dialect.name == "postgresql":
        cursor.execute("LOCK TABLE gamehub_schema IN EXCLUSIVE MODE", ())
    cursor.execute("SELECT version FROM gamehub_schema", ())
    row = cursor.fetchone()
    if row is None:
        cursor.execute(dialect.sql("INSERT INTO gamehub_schema (version) VALUES (?)"), (0,))
        return 0
    return int(row[0])


def migrate(cursor: Any, dialect: Dialect, target: int | None = None) -> tuple[int, int]:
    """Bring the schema to ``target`` (default :data:`LATEST`) inside the caller's
    transaction.  Returns ``(version before, version after)``.

    :raises hub.store.errors.SchemaTooNew: the database is newer than this code.
    """
    target = LATEST if target is None else target
    before = current_version(cursor, dialect)
    if before > LATEST:
        raise SchemaTooNew(
            f"the database schema is version {before}, but this Gamehub knows versions up to"
            f" {LATEST}: it was written by a newer Gamehub; upgrade Gamehub (refusing to start)"
        )
    for version in range(before + 1, target + 1):
        for statement in MIGRATIONS[version - 1](dialect):
            cursor.execute(statement, ())
        cursor.execute(dialect.sql("UPDATE gamehub_schema SET version = ?"), (version,))
    return before, max(before, target)
