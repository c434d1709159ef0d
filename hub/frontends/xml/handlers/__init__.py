"""The XML front end's request handlers, one module per area, and the dispatch table.

- :mod:`.accounts`: ``accountmanagement/*``, ``authentication/*``;
- :mod:`.lobby`: the lobby listings, and the lobby's updates to logged-in connections;
- :mod:`.games`: ``game/create|delete|join|part|action|custom``;
- :mod:`.history`: ``lobby/history``;
- :mod:`.ratings`: ``lobby/ratings``;
- :mod:`.chat`: ``game/chat``, and the hub's chat lines.

A handler is a function ``(context, connection, request) → response element`` (or a
coroutine of one); ``context`` is the narrow part of the front end it may use
(:class:`..context.HandlerContext`).  It raises :class:`..errors.Refused` or a
:class:`hub.model.GameError` to refuse.  :data:`HANDLERS` names one per request kind
(:data:`..events.REQUESTS`); the connection's rules (:mod:`..states`) run before it.
"""

from __future__ import annotations

from .. import events
from ..context import Handler
from . import accounts, chat, games, history, lobby, ratings

#: request kind → its handler: the front end's dispatch table
HANDLERS: dict[type[events.Request], Handler] = {
    events.CreateAccount: accounts.create_account,
    events.DeleteAccount: accounts.delete_account,
    events.ChangePassword: accounts.change_password,
    events.Login: accounts.login,
    events.Logout: accounts.logout,
    events.Resume: accounts.resume,
    events.AvailableGames: lobby.available_games,
    events.GameList: lobby.game_list,
    events.GameDetails: lobby.game_details,
    events.FindPlayer: lobby.find_player,
    events.History: history.history,
    events.Ratings: ratings.ratings,
    events.CreateGame: games.create_game,
    events.DeleteGame: games.delete_game,
    events.JoinGame: games.join_game,
    events.PartGame: games.part_game,
    events.GameAction: games.game_action,
    events.Custom: games.custom,
    events.Chat: chat.chat,
}
