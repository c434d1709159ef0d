"""A game's log of events (:class:`LoggedEvent`, kept by :class:`hub.play.game.GameInstance`
for late viewers and replays)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple, cast

from hub.model import TURN, EventData, GameEvent


def deadline_of(turn: LoggedEvent) -> float | None:
    """When a logged turn must be answered: its time plus its ``timeleft_ms``."""
    left = turn.data.get("timeleft_ms")
    if isinstance(left, int | float) and not isinstance(left, bool):
        return turn.at + left / 1000.0
    return None


#: type of an event's data → whether it is an :class:`~hub.model.EventData` (an
#: ``isinstance`` of an abstract class is a call into Python); a few types at most
_OWN_COPY: dict[type, bool] = {}
_OWN_COPY_TYPES = 256

#: a replay's encoder: what ``json.dumps(replay, default=str, separators=(",", ":"))``
#: (the store's, :func:`hub.store.history._replay_text`) uses, made once
REPLAY_ENCODER = json.JSONEncoder(separators=(",", ":"), default=str)
_encode = REPLAY_ENCODER.encode
#: a text as JSON, quoted (what the encoder writes for it)
_quoted = json.encoder.encode_basestring_ascii


class LoggedEvent(NamedTuple):
    """One event in a game's log (:meth:`GameInstance.events_for`); a named tuple (one
    is made for every event of every game).

    :ivar at: the clock's time when it happened.
    :ivar kind: the event's kind.
    :ivar data: its data as the game gave it (a ``turn`` event's ``legal`` list is
        never read from the log: :meth:`public_data` leaves it out).
    :ivar seats: as :attr:`hub.model.GameEvent.seats`: ``None`` for a public event.
    :ivar to: for a private event, who sat at each of its seats then (a later occupant
        of the seat never sees it).
    """

    at: float
    kind: str
    data: Mapping[str, Any]
    seats: frozenset[int] | None = None
    to: tuple[tuple[int, str | None], ...] = ()

    def public_data(self) -> dict[str, Any]:
        """The data as the log shows it: a copy, a ``turn`` event's without ``legal``
        (a game may build that list only when it is read)."""
        data = self.data
        kind = type(data)
        turn = self.kind == TURN
        if kind is dict and not turn:
            return dict(data)
        own = _OWN_COPY.get(kind)
        if own is None:
            own = issubclass(kind, EventData)
            if len(_OWN_COPY) < _OWN_COPY_TYPES:
                _OWN_COPY[kind] = own
        if own:  # (one call where a mapping's copy makes many)
            return cast(EventData, data).copy("legal" if turn else None)
        if turn:
            return {k: data[k] for k in data if k != "legal"}
        return dict(data)

    def seen_by(self, seat: int | None, player: str | None) -> bool:
        """Whether the viewer at ``seat`` (``player`` sitting there) may see it: a public
        event, or a private one meant for ``seat`` while ``player`` sat there."""
        if self.seats is None:
            return True
        return seat is not None and seat in self.seats and dict(self.to).get(seat) == player

    def to_json(self, since: float = 0.0) -> dict[str, Any]:
        """``{"at": ms since ``since``, "kind", "data"}`` (:meth:`public_data`)."""
        return {"at": int((self.at - since) * 1000), "kind": self.kind, "data": self.public_data()}


def missed(
    live_from: tuple[LoggedEvent | None, int] | None,
    log: Iterable[LoggedEvent],
    dropped: int,
    seat: int,
    player: str,
) -> list[GameEvent]:
    """What a player back at ``seat`` of a resumed game has not heard from the hub that
    resumed it: the turn in effect when the game went live there, then every event
    logged since that the seat may see (a front end whose protocol has no snapshot, as
    Domino's lines, sends them as they would have come).

    :param live_from: that turn (``None``: nobody's) and how many events the game had
        logged by then (``live_from`` ``None``: the game was not resumed there: ``[]``).
    :param log: the game's event log (bounded: what it dropped is not given again).
    :param dropped: how many events the log dropped so far.
    """
    if live_from is None:
        return []
    turn, logged = live_from
    since = list(log)[max(0, logged - dropped) :]
    events = ([turn] if turn is not None else []) + since
    return [GameEvent(e.kind, e.data, e.seats) for e in events if e.seen_by(seat, player)]


def public_events(log: Iterable[LoggedEvent], since: float) -> list[dict[str, Any]]:
    """:meth:`LoggedEvent.to_json` of each public event of ``log`` (a replay's events),
    in one loop."""
    return [
        {"at": int((e.at - since) * 1000), "kind": e.kind, "data": e.public_data()}
        for e in log
        if e.seats is None
    ]


def public_events_text(log: Iterable[LoggedEvent], since: float) -> str:
    """:func:`public_events` as JSON text, the very text :data:`REPLAY_ENCODER` makes
    of that list, without the list: each event's data written by its own
    :meth:`~hub.model.EventData.json_text` where it has one (a finished game's replay
    is encoded on the reactor's thread: issue 36), else encoded from
    :meth:`LoggedEvent.public_data`."""
    parts = []
    for e in log:
        if e.seats is not None:
            continue
        data = e.data
        kind = type(data)
        own = _OWN_COPY.get(kind)
        if own is None:
            own = issubclass(kind, EventData)
            if len(_OWN_COPY) < _OWN_COPY_TYPES:
                _OWN_COPY[kind] = own
        text = cast(EventData, data).json_text("legal" if e.kind == TURN else None) if own else None
        if text is None:
            text = _encode(e.public_data())
        parts.append(
            f'{{"at":{int((e.at - since) * 1000)},"kind":{_quoted(e.kind)},"data":{text}}}'
        )
    return "[" + ",".join(parts) + "]"


def replay_of(
    game: Mapping[str, Any], start: Any, log: Iterable[LoggedEvent], since: float, dropped: int
) -> dict[str, Any]:
    """A replay (:meth:`hub.play.game.GameInstance.replay`): the game, its public view
    before the first event, every public event (``at``: ms after ``since``), and
    whether it is ``complete`` (no event was ``dropped`` from the bounded log)."""
    return {
        "game": game,
        "start": start,
        "events": public_events(log, since),
        "complete": dropped == 0,
    }


def replay_text_of(
    game: Mapping[str, Any], start: Any, log: Iterable[LoggedEvent], since: float, dropped: int
) -> str:
    """:func:`replay_of` as the JSON text :data:`REPLAY_ENCODER` makes of it, made
    without building the events as dicts first (:func:`public_events_text`)."""
    encode = REPLAY_ENCODER.encode
    return (
        f'{{"game":{encode(game)},"start":{encode(start)},'
        f'"events":{public_events_text(log, since)},'
        f'"complete":{"true" if dropped == 0 else "false"}}}'
    )


__all__ = [
    "REPLAY_ENCODER",
    "LoggedEvent",
    "deadline_of",
    "missed",
    "public_events",
    "public_events_text",
    "replay_of",
    "replay_text_of",
]
