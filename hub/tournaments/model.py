"""A tournament as data: its settings, entries and games, what the next round pairs
and the standings (:mod:`.pairing` does the arithmetic).  No I/O: the runner
(:mod:`.service`) creates the games and stores the records.

Formats (:data:`FORMATS`):

- ``round-robin``: two-player games, every pair once (byes for an odd count);
- ``swiss``: two-player games, ``rounds`` rounds, equal scores meet, Buchholz;
- ``rotation``: tables of up to ``table_size`` players (a four-player game), each
  player meets the others, the seats rotate;
- ``sit-and-go``: one game with every entrant, for a game type that plays a whole
  tournament in one game; its ranks are the places.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .pairing import Played, Standing, points_of, rotation, round_robin, standings, swiss_round

FORMATS = ("round-robin", "swiss", "rotation", "sit-and-go")
#: tournament states: open for registration, playing rounds, over, called off
REGISTERING, RUNNING, FINISHED, CANCELLED = "registering", "running", "finished", "cancelled"
#: entry kinds: a person with an account (web, XML), an in-hub bot, a network client
ENTRY_KINDS = ("account", "bot", "client")
#: the front end an entrant plays through
ENTRY_FRONTENDS = ("web", "xml", "hub", "mnm", "domino")
#: a game's states: created and waiting for its players, being played, over, a bye
PENDING, PLAYING, DONE, BYE = "pending", "playing", "done", "bye"


@dataclass
class Entry:
    """One entrant: ``id`` (public: ``e1``, ``e2``...), the ``name`` they play under,
    ``kind`` (:data:`ENTRY_KINDS`), ``frontend``, for a bot the ``bot`` plugin's name,
    and ``key``: the entrant's secret, the MNM Game-ID that leads to their games (told
    only to whoever registered).  ``withdrawn``: the entrant lost a game by forfeit in
    a tournament that withdraws them then (``withdraw_forfeits``): never paired again."""

    id: str
    name: str
    kind: str
    frontend: str
    bot: str | None = None
    key: str = ""
    withdrawn: bool = False

    def to_json(self, private: bool = False) -> dict[str, Any]:
        """The entry as the store (``private``) and the JSON API take it."""
        data: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "kind": self.kind,
            "frontend": self.frontend,
            "bot": self.bot,
        }
        if private:
            data["key"] = self.key  # (the store keeps who is withdrawn in the settings)
        else:
            data["withdrawn"] = self.withdrawn
        return data


@dataclass
class TGame:
    """One game of a round (``board``), or a bye (a one-entry game in state ``bye``):
    the entries in seat order, the lobby game, each entry's points once over and
    which entries did not show (lost by forfeit)."""

    round: int
    board: int
    entries: tuple[str, ...]
    game_id: str | None = None
    state: str = PENDING
    points: tuple[float, ...] | None = None
    absent: tuple[bool, ...] | None = None

    def to_json(self) -> dict[str, Any]:
        """The game as the store and the JSON API take it."""
        return {
            "round": self.round,
            "board": self.board,
            "entries": list(self.entries),
            "game_id": self.game_id,
            "state": self.state,
            "points": None if self.points is None else list(self.points),
            "absent": None if self.absent is None else list(self.absent),
        }

    def finish(self, ranks: Sequence[int], absent: Sequence[bool] | None = None) -> None:
        """Over: each seat's points from its rank (0 best, equal ranks tie)."""
        self.points = points_of(ranks)
        self.absent = tuple(absent) if absent is not None else None
        self.state = DONE

    def forfeit(self, absent: Sequence[bool]) -> None:
        """Over without being played: the absent lose to the present (who tie among
        themselves); when nobody came, nobody scores (not a draw)."""
        self.finish([1 if a else 0 for a in absent], absent)
        if all(absent):
            self.points = tuple(0.0 for _ in absent)


@dataclass
class Tournament:
    """One tournament.  ``settings``: ``variant``, ``options`` (for every game),
    ``rounds``, ``max_entrants``, ``min_entrants``, ``starts_at`` (seconds since the
    epoch, or ``None``), ``start_when_full``, ``grace`` (seconds to take one's seat),
    ``table_size``, ``rated``, ``withdraw_forfeits`` (an entrant who loses a game by
    forfeit is withdrawn: lichess's rule; true unless told).  ``owner``: on a cluster,
    the hub that runs it (:mod:`.cluster`); ``None`` on a single hub."""

    id: str
    name: str
    game_type: str
    format: str
    settings: dict[str, Any]
    created: float
    state: str = REGISTERING
    round: int = 0
    finished: float | None = None
    entries: list[Entry] = field(default_factory=list)
    games: list[TGame] = field(default_factory=list)
    owner: str | None = None

    # -- records ------------------------------------------------------------------

    def to_record(self) -> dict[str, Any]:
        """The tournament as :meth:`hub.store.tournaments.TournamentsMixin.save_tournament`
        takes it."""
        return {
            "id": self.id,
            "name": self.name,
            "game_type": self.game_type,
            "format": self.format,
            "state": self.state,
            "round": self.round,
            "settings": {**self.settings, "withdrawn": [e.id for e in self.entries if e.withdrawn]},
            "created": self.created,
            "finished": self.finished,
            "entries": [e.to_json(private=True) for e in self.entries],
            "games": [g.to_json() for g in self.games],
            "owner": self.owner,
        }

    @classmethod
    def from_record(cls, data: dict[str, Any]) -> Tournament:
        """The tournament of a stored record."""
        t = cls(
            data["id"],
            data["name"],
            data["game_type"],
            data["format"],
            dict(data.get("settings") or {}),
            float(data["created"]),
            data["state"],
            int(data["round"]),
            data.get("finished"),
        )
        t.owner = data.get("owner")
        t.entries = [Entry(**e) for e in data.get("entries") or ()]
        gone = set(t.settings.pop("withdrawn", None) or ())
        for entry in t.entries:
            entry.withdrawn = entry.id in gone
        for g in data.get("games") or ():
            t.games.append(
                TGame(
                    int(g["round"]),
                    int(g["board"]),
                    tuple(g["entries"]),
                    g.get("game_id"),
                    g["state"],
                    None if g.get("points") is None else tuple(g["points"]),
                    None if g.get("absent") is None else tuple(g["absent"]),
                )
            )
        return t

    # -- entries ------------------------------------------------------------------

    def entry(self, entry_id: str) -> Entry | None:
        """The entry with this id."""
        return next((e for e in self.entries if e.id == entry_id), None)

    def entry_keyed(self, key: str) -> Entry | None:
        """The entry whose secret key is ``key``."""
        return next((e for e in self.entries if key and e.key == key), None)

    def entry_named(self, name: str) -> Entry | None:
        """The entry playing under ``name`` (names are compared without case)."""
        key = name.casefold()
        return next((e for e in self.entries if e.name.casefold() == key), None)

    @property
    def full(self) -> bool:
        """Whether every place is taken."""
        return len(self.entries) >= int(self.settings["max_entrants"])

    # -- rounds -------------------------------------------------------------------

    @property
    def total_rounds(self) -> int:
        """How many rounds the tournament plays (with the entrants it has)."""
        n = len(self.entries)
        wanted = self.settings.get("rounds")
        if self.format == "sit-and-go":
            return 1
        if self.format == "round-robin":
            full = n - 1 if n % 2 == 0 else n
            return min(full, int(wanted)) if wanted else full
        if self.format == "swiss":
            return int(wanted) if wanted else max(1, math.ceil(math.log2(max(2, n))))
        return int(wanted) if wanted else int(self.settings["table_size"])

    def round_games(self, number: int) -> list[TGame]:
        """The games (and byes) of round ``number``."""
        return [g for g in self.games if g.round == number]

    def played(self) -> list[Played]:
        """Every finished game as :class:`.pairing.Played`."""
        return [
            Played(g.entries, g.points)
            for g in self.games
            if g.state == DONE and g.points is not None
        ]

    def byes(self) -> list[str]:
        """The entry of every bye so far (one per bye)."""
        return [g.entries[0] for g in self.games if g.state == BYE]

    def pair(self, number: int, smallest: int = 2) -> list[TGame]:
        """The games of round ``number`` (1 first), from the results so far.

        :raises ValueError: the entrants do not fill the format's tables.
        """
        ids = [e.id for e in self.entries]
        gone = {e.id for e in self.entries if e.withdrawn}
        active = [i for i in ids if i not in gone]  # the withdrawn are never paired again
        tables: list[tuple[str, ...]]
        if self.format == "sit-and-go":
            tables = [tuple(ids)]
        elif self.format == "round-robin":
            # the schedule of every round is the whole field's; a withdrawn entrant's
            # games are lost by forfeit without being played (below)
            tables = round_robin(ids)[number - 1]
        elif self.format == "swiss":
            pairs, bye = swiss_round(active, self.played(), self.byes())
            tables = [*pairs, *([(bye,)] if bye else [])]
        else:
            size = int(self.settings["table_size"])
            tables = rotation(active, size, number, smallest)[number - 1] if active else []
        out: list[TGame] = []
        for table in tables:
            board = len(out) + 1
            absent = tuple(e in gone for e in table)
            if len(table) > 1 and any(absent):  # (round robin) forfeit, not played
                game = TGame(number, board, tuple(table))
                game.forfeit(absent)
                out.append(game)
            elif len(table) == 1 and absent[0]:
                continue  # a withdrawn entrant's bye: nobody's
            else:
                out.append(
                    TGame(number, board, tuple(table), state=BYE if len(table) == 1 else PENDING)
                )
        return out

    def round_over(self) -> bool:
        """Whether every game of the current round is over."""
        return all(g.state in (DONE, BYE) for g in self.round_games(self.round))

    @property
    def tiebreak(self) -> str | None:
        """The tie-break of the format: Buchholz for Swiss, Sonneborn-Berger for round
        robins and rotations, none for a sit-and-go (its places are its game's)."""
        return {"swiss": "buchholz", "sit-and-go": None}.get(self.format, "sonneborn-berger")

    @property
    def columns(self) -> list[str]:
        """The standings' columns this format has (besides place and player)."""
        if self.format == "sit-and-go":
            return ["points"]
        out = ["points", "tiebreak", "wins", "games"]
        if self.format == "swiss" or (self.format == "round-robin" and len(self.entries) % 2):
            out.append("byes")
        return out

    def standings(self) -> list[Standing]:
        """The standings now (:func:`.pairing.standings`): Buchholz for Swiss,
        Sonneborn-Berger for the others (a sit-and-go's have none: points only)."""
        tiebreak = self.tiebreak or "sonneborn-berger"
        return standings([e.id for e in self.entries], self.played(), self.byes(), tiebreak)

    def current_game(self, entry_id: str) -> TGame | None:
        """The entry's game of the current round that is not over yet (``None``: no
        game now: a bye, already played, or between rounds)."""
        for g in self.round_games(self.round):
            if entry_id in g.entries and g.state in (PENDING, PLAYING):
                return g
        return None

    def to_json(self) -> dict[str, Any]:
        """The tournament as the JSON API shows it: with its standings."""
        names = {e.id: e.name for e in self.entries}
        gone = {e.id for e in self.entries if e.withdrawn}
        data = self.to_record()
        owner = data.pop("owner")
        if owner is not None:  # on a cluster: the hub that runs it
            data["hub"] = owner
        data["entries"] = [e.to_json() for e in self.entries]
        data["total_rounds"] = self.total_rounds if self.entries else None
        data["tiebreak"] = self.tiebreak
        data["columns"] = self.columns
        data["standings"] = [
            {
                "place": s.place,
                "entry": s.entry,
                "name": names.get(s.entry, s.entry),
                "withdrawn": s.entry in gone,
                "points": s.points,
                "tiebreak": s.tiebreak if self.tiebreak else None,
                "wins": s.wins,
                "games": s.games,
                "byes": s.byes,
            }
            for s in self.standings()
        ]
        for g in data["games"]:
            g["names"] = [names.get(e, e) for e in g["entries"]]
        return data
