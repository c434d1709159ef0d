"""The versioned schema: migration *n* takes a database from version *n-1* to *n*.

The version lives in table ``gamehub_schema``.  :func:`migrate` applies the missing
steps in one transaction; a database newer than :data:`LATEST` is refused with
:class:`hub.store.errors.SchemaTooNew`.  Never edit a released step: add a new one.
A step is a list of SQL statements and of functions ``(cursor, dialect)`` that move
rows where SQL alone cannot (JSON built from old columns).

Money columns are ``NUMERIC`` in PostgreSQL and integer cents in SQLite (see
:mod:`hub.store.dialect`).  The history tables keep names as text, so deleting an
account leaves its history readable.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from .dialect import Dialect
from .errors import SchemaTooNew

#: one step of a migration: a statement, or a function of ``(cursor, dialect)``
Step = str | Callable[[Any, Dialect], None]


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
    ``player`` tables plus game id, shuffle commitment, seed and actions; step 5 moves
    their hands into ``finished_hand`` and ``hand_seat`` and drops them)."""
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


def _v5(d: Dialect) -> list[Step]:
    """Hands in every game's own words: one ``finished_hand`` row per hand (game id,
    hand key, game type, started, ended, the game's public ``record`` (JSON) and
    ``summary``, its ``sealed`` part (JSON) for the operator) and one ``hand_seat`` row
    per seat (account, seat, chips in and won, the seat's ``private`` part (JSON)).
    The hands of the version-2 tables ``hand`` and ``player`` move over (see
    :func:`_move_hands`) and those tables go."""
    return [
        f"""CREATE TABLE finished_hand (
            hand_id {d.serial},
            game_id VARCHAR(64) NOT NULL,
            hand_key VARCHAR(128),
            game_type VARCHAR(64),
            started {d.timestamp},
            ended {d.timestamp} NOT NULL,
            summary TEXT,
            record TEXT,
            sealed TEXT,
            UNIQUE (game_id, hand_key)
        )""",
        f"""CREATE TABLE hand_seat (
            hand_id BIGINT NOT NULL,
            seat SMALLINT NOT NULL,
            account VARCHAR(256) NOT NULL,
            name VARCHAR(256) NOT NULL,
            name_key VARCHAR(256) NOT NULL,
            account_id BIGINT,
            money_in {d.money},
            winnings {d.money},
            private TEXT,
            PRIMARY KEY (hand_id, seat)
        )""",
        _move_hands,
        "DROP TABLE player",
        "DROP TABLE hand",
        "CREATE INDEX finished_hand_game ON finished_hand (game_id)",
        "CREATE INDEX finished_hand_ended ON finished_hand (ended)",
        "CREATE INDEX hand_seat_name ON hand_seat (name_key)",
    ]


#: columns of the version-2 ``hand`` rows that keep their meaning in ``finished_hand``
#: (old name → new name), and those that become the sealed part
_HAND_KEPT = {"hand_id": "hand_id", "game_id": "game_id", "hand_key": "hand_key",
              "timestamp": "ended"}  # fmt: skip
_HAND_SEALED = ("seed", "actions")
#: columns of the version-2 ``player`` rows that keep their meaning in ``hand_seat``
_SEAT_KEPT = {"hand_id": "hand_id", "position": "seat", "account": "account", "name": "name",
              "name_key": "name_key", "account_id": "account_id", "money_in": "money_in",
              "winnings": "winnings"}  # fmt: skip


def _rows(cursor: Any, query: str) -> list[dict[str, Any]]:
    cursor.execute(query, ())
    names = [c[0] for c in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]


def _json(value: dict[str, Any]) -> str | None:
    """``value`` as JSON text, ``None`` when it holds nothing."""
    kept = {k: v for k, v in value.items() if v is not None}
    return json.dumps(kept, sort_keys=True, default=str) if kept else None


def _move_hands(cursor: Any, d: Dialect) -> None:
    """Copy the hands of the version-2 tables into ``finished_hand`` and ``hand_seat``.

    The columns that keep their meaning are copied as they are (money and times stay
    in the dialect's column types); every other column of a ``hand`` row goes into the
    hand's ``record`` under its own name, the ``seed`` and the ``actions`` (the
    engine's whole record, every card in it) into its ``sealed`` part, and every other
    column of a ``player`` row into ``record["seats"][<seat>]``: what the game's
    :class:`hub.interfaces.IHandRecord` reads back.  The game type is the finished
    game's or the chip table's.
    """
    seats: dict[Any, dict[str, dict[str, Any]]] = {}
    players = _rows(cursor, "SELECT * FROM player ORDER BY hand_id, position")
    for p in players:
        extra = {k: v for k, v in p.items() if k not in _SEAT_KEPT}
        seats.setdefault(p["hand_id"], {})[str(p["position"])] = extra
    hands = _rows(cursor, "SELECT * FROM hand ORDER BY hand_id")
    for h in hands:
        record = {k: v for k, v in h.items() if k not in _HAND_KEPT and k not in _HAND_SEALED}
        sealed = {k: h.get(k) for k in _HAND_SEALED}
        actions = sealed.get("actions")
        if isinstance(actions, str):
            sealed["actions"] = json.loads(actions)
        record["seats"] = seats.get(h["hand_id"]) or None
        cursor.execute(
            d.sql(
                "INSERT INTO finished_hand (hand_id, game_id, hand_key, game_type, ended,"
                " record, sealed) VALUES (?, ?, ?, COALESCE((SELECT type FROM game"
                " WHERE game_id = ?), (SELECT game_type FROM chip_table WHERE game_id = ?)),"
                " ?, ?, ?)"
            ),
            (h["hand_id"], h["game_id"], h["hand_key"], h["game_id"], h["game_id"],
             h["timestamp"], _json(record), _json(sealed)),
        )  # fmt: skip
    for p in players:
        cursor.execute(
            d.sql(
                "INSERT INTO hand_seat (hand_id, seat, account, name, name_key, account_id,"
                " money_in, winnings) VALUES (?, ?, ?, ?, ?, ?, ?, ?)"
            ),
            tuple(p[old] for old in _SEAT_KEPT),
        )
    d.restart_serial(cursor, "finished_hand", "hand_id")


def _v6(d: Dialect) -> list[str]:
    """A cluster of hubs on one PostgreSQL database (:mod:`hub.cluster`): each hub's
    member row (``hubs``: its advertised front ends and load, same id as its
    ``hub_lease``) and the directory of every hub's games (``directory``: one row per
    live game, written by the hub that runs it).  SQLite has the tables too, empty: a
    hub on SQLite is always single."""
    return [
        f"""CREATE TABLE hubs (
            hub_id VARCHAR(64) PRIMARY KEY,
            endpoints TEXT NOT NULL,
            load TEXT NOT NULL,
            started {d.timestamp} NOT NULL,
            heartbeat {d.timestamp} NOT NULL,
            ended {d.timestamp}
        )""",
        f"""CREATE TABLE directory (
            game_id VARCHAR(64) PRIMARY KEY,
            hub_id VARCHAR(64) NOT NULL,
            rev BIGINT NOT NULL,
            type VARCHAR(64) NOT NULL,
            name VARCHAR(256) NOT NULL,
            state VARCHAR(16) NOT NULL,
            seats TEXT NOT NULL,
            info TEXT NOT NULL,
            updated {d.timestamp} NOT NULL
        )""",
        "CREATE INDEX directory_hub ON directory (hub_id)",
    ]


def _v7(d: Dialect) -> list[Step]:
    """The audit log of admin actions (append-only; trimmed to the newest by the
    ``audit_keep`` setting) and the banned addresses."""
    return [
        f"""CREATE TABLE audit_log (
            id {d.serial},
            created {d.timestamp} NOT NULL,
            actor VARCHAR(256) NOT NULL,
            via VARCHAR(16) NOT NULL,
            source VARCHAR(256) NOT NULL,
            action VARCHAR(64) NOT NULL,
            target VARCHAR(256),
            detail TEXT,
            outcome VARCHAR(512) NOT NULL
        )""",
        "CREATE INDEX audit_log_created ON audit_log (created)",
        f"""CREATE TABLE address_ban (
            address VARCHAR(64) PRIMARY KEY,
            created {d.timestamp} NOT NULL,
            actor VARCHAR(256) NOT NULL,
            reason VARCHAR(512)
        )""",
    ]


def _v8_ratings(d: Dialect) -> list[Step]:
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


def _v9_plugin_index(d: Dialect) -> list[Step]:
    """Plugins everywhere (:mod:`hub.cluster.plugins`): each hub's dropped-in or
    fetched plugins (name, version, SHA-256, size, signature state, the time the
    package arrived there, ``since``) and the plugins removed while a hub ran
    (``removed`` 1: a tombstone, ``since`` the time of the removal).  SQLite has the
    table too, empty."""
    return [
        f"""CREATE TABLE plugin_index (
            hub_id VARCHAR(64) NOT NULL,
            name VARCHAR(64) NOT NULL,
            kind VARCHAR(16) NOT NULL,
            version VARCHAR(64) NOT NULL,
            sha256 VARCHAR(64) NOT NULL,
            size BIGINT NOT NULL,
            file VARCHAR(256) NOT NULL,
            signer VARCHAR(512) NOT NULL,
            since BIGINT NOT NULL,
            removed SMALLINT NOT NULL DEFAULT 0,
            updated {d.timestamp} NOT NULL,
            PRIMARY KEY (hub_id, name)
        )""",
        "CREATE INDEX plugin_index_name ON plugin_index (name)",
    ]


def _v10_tournaments(d: Dialect) -> list[Step]:
    """Tournaments (``hub.tournaments``): each tournament (its settings as JSON), its
    entries in registration order, and its games by round and board (the entries in
    seat order, the lobby game, each entry's points once it is over)."""
    return [
        f"""CREATE TABLE tournament (
            id VARCHAR(32) PRIMARY KEY,
            name VARCHAR(256) NOT NULL,
            game_type VARCHAR(64) NOT NULL,
            format VARCHAR(32) NOT NULL,
            state VARCHAR(16) NOT NULL,
            round INTEGER NOT NULL,
            settings TEXT NOT NULL,
            created {d.timestamp} NOT NULL,
            finished {d.timestamp}
        )""",
        """CREATE TABLE tournament_entry (
            tournament_id VARCHAR(32) NOT NULL,
            entry_id VARCHAR(32) NOT NULL,
            seq INTEGER NOT NULL,
            name VARCHAR(256) NOT NULL,
            kind VARCHAR(16) NOT NULL,
            frontend VARCHAR(16) NOT NULL,
            bot VARCHAR(64),
            entry_key VARCHAR(32) NOT NULL,
            PRIMARY KEY (tournament_id, entry_id)
        )""",
        """CREATE TABLE tournament_game (
            tournament_id VARCHAR(32) NOT NULL,
            round INTEGER NOT NULL,
            board INTEGER NOT NULL,
            entries TEXT NOT NULL,
            game_id VARCHAR(64),
            state VARCHAR(16) NOT NULL,
            points TEXT,
            absent TEXT,
            PRIMARY KEY (tournament_id, round, board)
        )""",
    ]


def _v11_cluster_secret(d: Dialect) -> list[Step]:
    """The secret the hubs of a cluster sign their internal logins with
    (:mod:`hub.cluster.credential`): one row, made by the first hub that needs it."""
    return [
        """CREATE TABLE cluster_secret (
            id SMALLINT PRIMARY KEY,
            secret VARCHAR(128) NOT NULL
        )""",
    ]


def _v12_replay_lz4(d: Dialect) -> list[Step]:
    """(PostgreSQL 14 and later, built with lz4.)  The replays (about 13 KB of JSON
    each) are compressed with lz4 instead of pglz: pglz was a tenth of the server's
    CPU on the cluster bench, lz4 compresses several times faster.  Rows written before
    keep their compression; SQLite and servers without lz4 change nothing."""
    return [_replay_lz4] if d.name == "postgresql" else []


def _replay_lz4(cursor: Any, d: Dialect) -> None:
    cursor.execute(
        "SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression'"
        " AND 'lz4' = ANY(enumvals)",
        (),
    )
    if cursor.fetchone() is not None:
        cursor.execute("ALTER TABLE game_replay ALTER COLUMN replay SET COMPRESSION lz4", ())


def _v13_resume_tokens(d: Dialect) -> list[Step]:
    """Resume tokens of XML sessions (:mod:`hub.store.resume`): the token's SHA-256,
    never the token; the account; the session's games; the expiry (epoch seconds); the
    hash of the token it follows, if any."""
    return [
        """CREATE TABLE resume_token (
            token_hash VARCHAR(64) PRIMARY KEY,
            name_key VARCHAR(256) NOT NULL,
            games TEXT NOT NULL,
            expires DOUBLE PRECISION NOT NULL,
            replaces VARCHAR(64)
        )""",
        "CREATE INDEX resume_token_expires ON resume_token (expires)",
        "CREATE INDEX resume_token_replaces ON resume_token (replaces)",
    ]


def _v14_game_journal(d: Dialect) -> list[Step]:
    """The games' journal (:mod:`hub.store.journal`, issue 31): one header per running
    game (its type, variant, name, options, seats, seed, table rules and creator as
    JSON, the hub that runs it) and its entries in order (kind, seat, JSON payload and
    the game time), so that another hub, or this one restarted, resumes the game.
    Rows go when the game ends and its history is written."""
    return [
        f"""CREATE TABLE game_journal (
            game_id VARCHAR(64) PRIMARY KEY,
            hub_id VARCHAR(64) NOT NULL,
            type VARCHAR(64) NOT NULL,
            header TEXT NOT NULL,
            seed VARCHAR(128) NOT NULL,
            created {d.timestamp} NOT NULL
        )""",
        "CREATE INDEX game_journal_hub ON game_journal (hub_id)",
        """CREATE TABLE game_journal_entry (
            game_id VARCHAR(64) NOT NULL,
            n INTEGER NOT NULL,
            kind VARCHAR(16) NOT NULL,
            seat INTEGER,
            payload TEXT NOT NULL,
            at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (game_id, n)
        )""",
    ]


def _v15_web_sessions(d: Dialect) -> list[Step]:
    """Browser sessions of the web front end (:mod:`hub.store.websessions`): the
    cookie's SHA-256, never the cookie; the player name; the account (``NULL`` for a
    guest); admin; the expiry (epoch seconds)."""
    return [
        """CREATE TABLE web_session (
            token_hash VARCHAR(64) PRIMARY KEY,
            name VARCHAR(256) NOT NULL,
            account VARCHAR(256),
            admin INTEGER NOT NULL,
            expires DOUBLE PRECISION NOT NULL
        )""",
        "CREATE INDEX web_session_expires ON web_session (expires)",
        "CREATE INDEX web_session_account ON web_session (account)",
    ]


def _v16_tournament_owner(d: Dialect) -> list[Step]:
    """The hub that runs each tournament (:mod:`hub.tournaments.cluster`, issue 31): on
    a cluster only that hub pairs, creates games, times and records; ``NULL`` on a
    single hub, and for a tournament whose hub let it go (the next live hub adopts
    it)."""
    return ["ALTER TABLE tournament ADD COLUMN owner_hub VARCHAR(64)"]


#: every step, in order; the schema version is the length of this list
MIGRATIONS: list[Callable[[Dialect], Sequence[Step]]] = [
    _v1,
    _v2,
    _v3,
    _v4,
    _v5,
    _v6,
    _v7,
    _v8_ratings,
    _v9_plugin_index,
    _v10_tournaments,
    _v11_cluster_secret,
    _v12_replay_lz4,
    _v13_resume_tokens,
    _v14_game_journal,
    _v15_web_sessions,
    _v16_tournament_owner,
]
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
        for step in MIGRATIONS[version - 1](dialect):
            if isinstance(step, str):
                cursor.execute(step, ())
            else:
                step(cursor, dialect)
        cursor.execute(dialect.sql("UPDATE gamehub_schema SET version = ?"), (version,))
    return before, max(before, target)
