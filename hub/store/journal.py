"""The games' journal in the store (issue 31): tables ``game_journal`` (one header per
running game) and ``game_journal_entry`` (its inputs in order).

The reactor's side (:mod:`hub.play.journal`) gathers every input of every game through
:class:`hub.play.game.GameInstance` and writes what gathered in one reactor turn in one
transaction (:meth:`JournalMixin.journal_write`).  A header names the hub that runs the
game (``hub_id``); only that hub appends to it or drops it, so a hub recovered although
it lives (a partition) cannot write into the journal of a game another hub resumed.
Another hub takes a journal over with :meth:`JournalMixin.journal_claim` (in a
recovery's transaction) or :meth:`JournalMixin.journal_adopt` (games of hubs whose
lease ended: a hub stopped, or recovered before), and reads it with
:meth:`JournalMixin.journal_read`.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from twisted.internet import defer

from .base import _Cursor
from .cluster import ClusterMixin, notice
from .takeover import Claim, Refund


class Entry(NamedTuple):
    """One input of a game: its number (from 0), ``kind``, ``seat`` (or ``None``),
    ``payload`` (JSON text) and the game time ``at`` (a named tuple: one is made for
    every move of every game)."""

    n: int
    kind: str
    seat: int | None
    payload: str
    at: float


@dataclass(frozen=True)
class Header:
    """What a game is made again from: ``data`` (type, variant, name, options, seats,
    table rules, creator: JSON) and its ``seed`` (hex)."""

    game_id: str
    type: str
    data: dict[str, Any]
    seed: str


@dataclass(frozen=True)
class Journal:
    """A game's header and its entries in order, as :meth:`JournalMixin.journal_read`
    finds them."""

    header: Header
    entries: list[Entry]


def owners_query(count: int) -> str:
    """The query of the hubs that own ``count`` games' journals (``game_id``,
    ``hub_id`` rows), by the primary key only: with ``hub_id = ?`` in it, SQLite takes
    the hub's index and walks every journal of the hub, each write (O(all games))."""
    marks = ", ".join("?" for _ in range(count))
    return f"SELECT game_id, hub_id FROM game_journal WHERE game_id IN ({marks})"


#: the most entries one ``INSERT`` writes (6 parameters each: 384, under SQLite's
#: oldest limit of 999)
INSERT_ROWS = 64


def chunk_sizes(count: int) -> list[int]:
    """``count`` rows as the sizes of the ``INSERT`` statements that write them: as many
    of :data:`INSERT_ROWS` as fit, the rest by powers of two (at most 7 different
    statements, so the driver's statement cache keeps them)."""
    sizes = [INSERT_ROWS] * (count // INSERT_ROWS)
    rest = count % INSERT_ROWS
    size = INSERT_ROWS // 2
    while rest:
        if rest >= size:
            sizes.append(size)
            rest -= size
        size //= 2
    return sizes


@functools.cache
def entries_insert(rows: int) -> str:
    """The ``INSERT`` of ``rows`` journal entries in one statement: one round trip to
    PostgreSQL (``executemany`` is one a row with psycopg2) and one hand-over of the
    interpreter's lock on SQLite (one a row with ``executemany``), for a write's rows
    of every game (alternated runs at 10 MNM games in flight on SQLite: the store's
    thread 10 to 20 % less CPU, the hub's 2 to 7 % a line)."""
    marks = ", ".join(["(?, ?, ?, ?, ?, ?)"] * rows)
    return f"INSERT INTO game_journal_entry (game_id, n, kind, seat, payload, at) VALUES {marks}"


class JournalMixin(ClusterMixin):
    """The ``game_journal`` and ``game_journal_entry`` tables."""

    def journal_write(
        self, headers: Sequence[Header], entries: Sequence[tuple[str, Entry]], drops: Sequence[str]
    ) -> defer.Deferred[set[str]]:
        """In one transaction: the new ``headers`` (this hub's), the ``entries``
        (``(game id, entry)``) of this hub's games, and the journals of ``drops`` (this
        hub's) go.  Entries of a game whose journal is not this hub's (another hub
        took it over) are not written: fires with those games' ids."""
        hub_id, now = str(self.hub_id), self._now()
        headers, entries, drops = list(headers), list(entries), list(drops)

        def txn(cur: _Cursor) -> set[str]:
            for h in headers:
                cur.run(
                    "INSERT INTO game_journal (game_id, hub_id, type, header, seed, created)"
                    " VALUES (?, ?, ?, ?, ?, ?)",
                    h.game_id,
                    hub_id,
                    h.type,
                    json.dumps(h.data, sort_keys=True),
                    h.seed,
                    self.dialect.t_in(now),
                )
            games = sorted({game for game, _ in entries})
            mine: set[str] = set()
            for start in range(0, len(games), 500):
                part = games[start : start + 500]
                mine.update(
                    game
                    for game, owner in cur.all(owners_query(len(part)), *part)
                    if owner == hub_id
                )
            rows = [(g, e.n, e.kind, e.seat, e.payload, e.at) for g, e in entries if g in mine]
            start = 0
            for size in chunk_sizes(len(rows)):
                values = [value for row in rows[start : start + size] for value in row]
                cur.txn.execute(self.dialect.sql(entries_insert(size)), values)
                start += size
            for game_id in drops:
                cur.run(
                    "DELETE FROM game_journal_entry WHERE game_id IN"
                    " (SELECT game_id FROM game_journal WHERE game_id = ? AND hub_id = ?)",
                    game_id,
                    hub_id,
                )
                cur.run(
                    "DELETE FROM game_journal WHERE game_id = ? AND hub_id = ?", game_id, hub_id
                )
            return set(games) - mine

        return self._run(txn)

    def journal_claim(
        self, cur: _Cursor, hubs: Sequence[str], skip: Collection[str] = ()
    ) -> list[str]:
        """(In a recovery's transaction.)  The journals of the dead ``hubs`` (but those
        of ``skip``) become this hub's; returns their game ids."""
        claimed: list[str] = []
        for old in hubs:
            for (game_id,) in cur.all(
                "SELECT game_id FROM game_journal WHERE hub_id = ? ORDER BY game_id", old
            ):
                if str(game_id) in skip:
                    continue
                cur.run(
                    "UPDATE game_journal SET hub_id = ? WHERE game_id = ? AND hub_id = ?",
                    str(self.hub_id),
                    game_id,
                    old,
                )
                if cur.txn.rowcount:
                    claimed.append(str(game_id))
        return claimed

    def tables_resume(self, cur: _Cursor, tables: Sequence[str]) -> tuple[list[str], list[str]]:
        """(In a recovery's transaction, the ``tables`` locked.)  Of the open chip
        tables no live hub owns, those with a journal become this hub's, with their
        journal and their chips: they are resumed, not refunded.  Returns them, and
        those to refund; a table another recovery took a moment ago (its hub's lease
        is open: it is that hub's now) is in neither."""
        me, kept, rest = str(self.hub_id), [], []
        for game_id in tables:
            owner = cur.one(
                "SELECT c.hub_id FROM chip_table c WHERE c.game_id = ? AND c.closed IS NULL"
                " AND (c.hub_id = ? OR EXISTS (SELECT 1 FROM hub_lease l"
                " WHERE l.hub_id = c.hub_id AND l.ended IS NULL))",
                game_id,
                me,
            )
            if owner is not None:
                continue  # taken over already (by another hub's recovery, or this one)
            if cur.one("SELECT 1 FROM game_journal WHERE game_id = ?", game_id) is None:
                rest.append(game_id)
                continue
            cur.run(
                "UPDATE chip_table SET hub_id = ? WHERE game_id = ? AND closed IS NULL", me, game_id
            )
            cur.run("UPDATE game_journal SET hub_id = ? WHERE game_id = ?", me, game_id)
            kept.append(game_id)
        return kept, rest

    def journal_delete(self, cur: _Cursor, game_id: str) -> None:
        """(In a transaction.)  The journal of ``game_id`` goes, whoever's it was."""
        cur.run("DELETE FROM game_journal_entry WHERE game_id = ?", game_id)
        cur.run("DELETE FROM game_journal WHERE game_id = ?", game_id)

    def directory_adopt(self, cur: _Cursor, games: Sequence[str]) -> None:
        """(In a recovery's transaction.)  The directory rows of ``games`` (claimed
        with their journal) become this hub's: they are not aborted with their dead
        hub's, and this hub's writes of them count (:mod:`hub.store.cluster`)."""
        for game_id in games:
            cur.run(
                "UPDATE directory SET hub_id = ?, updated = ? WHERE game_id = ?",
                str(self.hub_id),
                self.dialect.t_in(self._now()),
                game_id,
            )

    def journal_adopt(self) -> defer.Deferred[list[str]]:
        """Take over the journals of hubs whose lease has ended (a hub that stopped
        with games running, or one recovered before), with their directory rows, and
        the open chip tables such a hub left with a journal, with their chips (a hub
        that stopped while no other was live): once each, however many hubs adopt or
        recover at once.  Returns their game ids."""
        me = str(self.hub_id)

        def txn(cur: _Cursor) -> list[str]:
            # the open chip tables of ended hubs, locked first as a recovery locks them
            # (the same order: no deadlock with one); those with a journal are resumed
            # here with their chips (tables_resume), the others wait for a recovery
            orphans = [
                str(r[0])
                for r in cur.all(
                    "SELECT c.game_id FROM chip_table c WHERE c.closed IS NULL"
                    " AND c.hub_id <> ? AND NOT EXISTS (SELECT 1 FROM hub_lease l"
                    " WHERE l.hub_id = c.hub_id AND l.ended IS NULL) ORDER BY c.game_id"
                    + self.dialect.for_update,
                    me,
                )
            ]
            tables, _ = self.tables_resume(cur, orphans) if orphans else ([], [])
            hubs = [
                r[0]
                for r in cur.all(
                    "SELECT DISTINCT j.hub_id FROM game_journal j WHERE j.hub_id <> ? AND NOT"
                    " EXISTS (SELECT 1 FROM hub_lease l WHERE l.hub_id = j.hub_id"
                    " AND l.ended IS NULL) ORDER BY j.hub_id",
                    str(self.hub_id),
                )
            ]
            # an open chip table another hub holds goes only with its table (above, or
            # by a recovery of a live hub), never by its journal alone
            held = {
                str(r[0])
                for r in cur.all(
                    "SELECT game_id FROM chip_table WHERE closed IS NULL AND hub_id <> ?",
                    me,
                )
            }
            claimed = sorted(set(tables) | set(self.journal_claim(cur, hubs, skip=held)))
            # their directory rows too: this hub's writes of them count (a row left
            # with its ended hub reads "aborted" for the whole cluster)
            self.directory_adopt(cur, claimed)
            return claimed

        return self._run(txn)

    def journal_hand(self, games: dict[str, str]) -> defer.Deferred[list[str]]:
        """Hand this hub's journals of ``games`` (game id → live hub id) over, with
        their directory rows, in one transaction, and tell each hub which games to
        resume (the notice ``{"op": "resume", "hub": this hub, "to": hub, "games":
        [...]}``).  Fires with the games handed over (those whose journal was this
        hub's)."""
        me, now = str(self.hub_id), self._now()

        def txn(cur: _Cursor) -> list[str]:
            given: dict[str, list[str]] = {}
            for game_id, hub_id in sorted(games.items()):
                cur.run(
                    "UPDATE game_journal SET hub_id = ? WHERE game_id = ? AND hub_id = ?",
                    hub_id,
                    game_id,
                    me,
                )
                if not cur.txn.rowcount:
                    continue
                cur.run(
                    "UPDATE directory SET hub_id = ?, updated = ? WHERE game_id = ?",
                    hub_id,
                    self.dialect.t_in(now),
                    game_id,
                )
                cur.run(  # a chip table goes with its chips
                    "UPDATE chip_table SET hub_id = ? WHERE game_id = ? AND hub_id = ?"
                    " AND closed IS NULL",
                    hub_id,
                    game_id,
                    me,
                )
                given.setdefault(hub_id, []).append(game_id)
            for hub_id, ids in sorted(given.items()):
                self._notify(cur, notice("resume", me, to=hub_id, games=ids))
            return [g for ids in given.values() for g in ids]

        return self._run(txn)

    def journal_waiting(self, hub_id: str) -> defer.Deferred[int]:
        """How many games of ``hub_id`` could still move (journaled there, no open chip
        table): what ``gamehub cluster drain`` waits for."""

        def txn(cur: _Cursor) -> int:
            row = cur.one(
                "SELECT count(*) FROM game_journal j WHERE j.hub_id = ? AND NOT EXISTS"
                " (SELECT 1 FROM chip_table c WHERE c.game_id = j.game_id AND c.closed IS NULL)",
                hub_id,
            )
            return int(row[0])

        return self._run(txn, write=False)

    def cluster_drain(self, hub_id: str) -> defer.Deferred[None]:
        """Ask the hub ``hub_id`` to hand its games to the other hubs (``gamehub
        cluster drain``): the notice ``{"op": "drain", "hub": hub_id}``."""

        def txn(cur: _Cursor) -> None:
            self._notify(cur, notice("drain", hub_id))

        # a tool's store learns the channel first (a hub's knows it)
        return self.cluster_channel().addCallback(lambda _: self._run(txn))

    def journal_read(self, games: Sequence[str] | None = None) -> defer.Deferred[list[Journal]]:
        """This hub's journals (of ``games`` only, when given), each with its entries
        in order, oldest game first."""
        hub_id = str(self.hub_id)
        wanted = None if games is None else set(games)

        def txn(cur: _Cursor) -> list[Journal]:
            out = []
            for game_id, type_name, data, seed in cur.all(
                "SELECT game_id, type, header, seed FROM game_journal WHERE hub_id = ?"
                " ORDER BY created, game_id",
                hub_id,
            ):
                if wanted is not None and game_id not in wanted:
                    continue
                entries = [
                    Entry(
                        int(n), str(kind), None if seat is None else int(seat), payload, float(at)
                    )
                    for n, kind, seat, payload, at in cur.all(
                        "SELECT n, kind, seat, payload, at FROM game_journal_entry"
                        " WHERE game_id = ? ORDER BY n",
                        game_id,
                    )
                ]
                header = Header(str(game_id), str(type_name), json.loads(data), str(seed))
                out.append(Journal(header, entries))
            return out

        return self._run(txn, write=False)

    def journal_games(self) -> defer.Deferred[dict[str, str]]:
        """Every journaled game → the hub whose it is (operators, tests)."""

        def txn(cur: _Cursor) -> dict[str, str]:
            return {str(g): str(h) for g, h in cur.all("SELECT game_id, hub_id FROM game_journal")}

        return self._run(txn, write=False)


class TableTakeover(Protocol):
    """What :class:`ResumeTables` needs of the store."""

    def tables_resume(self, cur: _Cursor, tables: Sequence[str]) -> tuple[list[str], list[str]]:
        """See :meth:`JournalMixin.tables_resume`."""
        ...

    def refund_tables(self, cur: _Cursor, tables: list[str], key: str, now: float) -> list[Refund]:
        """See :meth:`hub.store.tables.TablesMixin.refund_tables`."""
        ...


class ResumeTables:
    """A single hub's takeover (:class:`hub.store.takeover.Takeover`) of its previous
    life: the chip tables with a journal become this hub's and are resumed
    (:mod:`hub.play.resume`); the others' chips go back (:class:`hub.store.takeover.RefundTables`)."""

    def __init__(self, store: TableTakeover) -> None:
        self.store = store

    def claim(
        self, cur: _Cursor, hubs: list[str], tables: list[str], key: str, now: float
    ) -> Claim:
        """Keep the journaled tables; refund the rest."""
        store = self.store
        kept, rest = store.tables_resume(cur, tables)
        refunds = store.refund_tables(cur, rest, key, now) if rest else []
        return Claim(refunds, kept)

    def claimed(self, hubs: list[str], claim: Claim) -> None:
        """(The hub's journal resumes them at its start.)"""
