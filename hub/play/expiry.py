"""Waiting games nobody joins expire (setting ``keep_waiting``).

A game that still waits for players ``seconds`` after it was created, or after the last
change to who sits in it, is removed from the lobby as a cancel would (a chip table's
chips go back as at any close, :meth:`hub.play.lobby.Lobby.remove`): a lobby does not
collect thousands of tables nobody took.  Games that started, and waiting games whose
seats keep changing, stay.  An :class:`ILobbyListener` of the lobby: one timer a
waiting game, nothing else.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from twisted.logger import Logger
from zope.interface import implementer

from hub.interfaces import ILobbyListener
from hub.model import WAITING, GameError

#: the default of ``keep_waiting``: an hour
KEEP_WAITING = 3600.0


def _seated(game: Any) -> tuple[Any, ...]:
    return tuple((seat.player, seat.kind) for seat in game.seats)


@implementer(ILobbyListener)
class WaitingExpiry:
    """Remove the lobby's waiting games nobody joined for ``seconds``.

    :param lobby: the hub's :class:`hub.play.lobby.Lobby` (its clock: ``task.Clock`` in tests).
    :param seconds: how long a waiting game waits; ``0`` or less: for ever.
    """

    log = Logger()

    def __init__(self, lobby: Any, seconds: float = KEEP_WAITING) -> None:
        self.lobby = lobby
        self.seconds = float(seconds)
        #: game id → (its timer, who sat in it when it was armed)
        self._timers: dict[str, tuple[Any, tuple[Any, ...]]] = {}
        if self.seconds > 0:
            for game in lobby.games():
                self.lobby_changed("created", game)
            lobby.add_listener(self)

    @classmethod
    def configured(cls, lobby: Any, options: Mapping[str, Any]) -> WaitingExpiry:
        """The hub's: ``keep_waiting`` seconds (:data:`KEEP_WAITING` unless set)."""
        return cls(lobby, float(options.get("keep_waiting", KEEP_WAITING)))

    def __len__(self) -> int:
        """How many waiting games have a timer."""
        return len(self._timers)

    def stop(self) -> None:
        """Cancel every timer and stop listening."""
        self.lobby.remove_listener(self)
        for timer, _ in self._timers.values():
            if timer.active():
                timer.cancel()
        self._timers.clear()

    def lobby_changed(self, change: str, game: Any) -> None:
        """Arm a waiting game's timer; again when its seats change; drop it otherwise."""
        found = self._timers.get(game.id)
        if change == "removed" or game.state != WAITING:
            if found is not None:
                del self._timers[game.id]
                if found[0].active():
                    found[0].cancel()
            return
        seated = _seated(game)
        if found is None:
            timer = self.lobby.clock.callLater(self.seconds, self._expire, game.id)
            self._timers[game.id] = (timer, seated)
        elif found[1] != seated:
            found[0].reset(self.seconds)
            self._timers[game.id] = (found[0], seated)

    def _expire(self, game_id: str) -> None:
        self._timers.pop(game_id, None)
        try:
            game = self.lobby.get(game_id)
        except GameError:
            return  # gone, or another hub's
        if game.state != WAITING:
            return
        if game.transcript is not None:
            game.transcript.note(f"expired: nobody joined for {self.seconds:g} s")
        self.log.info(
            "game {game} expired: it waited {seconds} s for players",
            game=game_id,
            seconds=self.seconds,
        )
        self.lobby.remove(game_id)
