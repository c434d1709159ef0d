"""When a stored hand's players may read its revealed part (a shuffle's seed, say).

A chip game keeps in each stored hand a ``sealed`` part only the operator reads (for
poker the shuffle's seed: it gives the whole deck, every hole card).  So that every
player can check every hand it played, the part the game names
(:meth:`hub.interfaces.IHandRecord.revealed`) goes to the players who were seated in
the hand once it can no longer help anyone still playing: when **none of them is
still at that table** (the table is over, or every one of them left it), or, when the
operator sets ``seed_reveal`` (seconds, 0 = never by time), that long after the hand
ended.  Anyone else sees only the commitment.

:func:`may_reveal` answers for one hand and one reader; it never reveals to a reader
who was not in the hand, and it reveals a hand of a table this hub does not know to be
over (another hub's live table) only by time, and a hand of a sealed game
(:attr:`hub.play.lobby.Lobby.sealed`) never while it is sealed.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any, Protocol

from hub.model import OVER, GameError


class _Game(Protocol):
    state: str
    seats: Any


class _Lobby(Protocol):
    sealed: Collection[str]

    def get(self, game_id: str) -> Any: ...


def hand_players(hand: Mapping[str, Any]) -> set[str]:
    """The accounts seated in a stored hand."""
    return {str(p["name"]) for p in hand.get("players") or () if p.get("name")}


def still_seated(lobby: _Lobby, game_id: Any, players: Collection[str]) -> bool | None:
    """Whether any of ``players`` still sits at game ``game_id`` of this hub: ``False``
    once the game is over here; ``None`` when this hub does not know it (not live
    here: over and gone, or another hub's)."""
    try:
        game = lobby.get(str(game_id))
    except GameError:
        return None
    if game.state == OVER:
        return False
    seated = {seat.player for seat in game.seats if seat.player}
    return bool(seated & set(players))


def may_reveal(
    hand: Mapping[str, Any],
    reader: str | None,
    *,
    ended: float | None,
    lobby: _Lobby,
    finished: Collection[str],
    now: float,
    delay: float,
) -> bool:
    """Whether ``reader`` (an account, ``None`` for a guest) may read ``hand``'s
    revealed part now.

    :param ended: when the hand ended (seconds since the epoch), if known.
    :param finished: ids of games known to be over (this hub's, and the store's).
    :param now: seconds since the epoch.
    :param delay: ``seed_reveal``: seconds after the hand ended (0: never by time).
    """
    players = hand_players(hand)
    if reader is None or reader not in players or str(hand.get("game_id")) in lobby.sealed:
        return False  # a sealed game's hands are the operator's (hub.play.lobby.Lobby.sealed)
    if delay > 0 and ended is not None and now - ended >= delay:
        return True
    seated = still_seated(lobby, hand.get("game_id"), players)
    if seated is None:
        return str(hand.get("game_id")) in finished
    return not seated
