"""The XML protocol codec: one frame's bytes ⇄ typed events, with no I/O.

The codec is four modules, as h11 splits its own; this one gathers their names for
the rest of the front end, the hub's XML client (:mod:`hub.client`) and the tests:

- :mod:`.events`: the frozen dataclasses of decoded requests, one per request kind;
- :mod:`.decoding`: bytes → events (the hardened parser, ``message.xsd``, the
  transcript records with every secret field blanked);
- :mod:`.encoding`: responses and state updates → bytes (validated before they go);
- :mod:`.schema`: the hardened parser and the schemas; :mod:`.errors`: who broke
  the protocol (:class:`ProtocolError`: the peer; :class:`LocalProtocolError`: we).

The element helpers and :func:`wire_game_id` live in :mod:`.payload`, the part of
this front end game adapters may use.
"""

from __future__ import annotations

from lxml import etree

from .decoding import (
    BLANK,
    FIELD_RULES,
    MAX_CHAT,
    MAX_DEPTH,
    MAX_DOCUMENT,
    PUBLIC_ACCOUNT_FIELDS,
    SECRET_FIELDS,
    SECRET_GROUPS,
    check_fields,
    decode,
    parse_document,
    refused_record,
    transcript_record,
)
from .encoding import (
    PROTOCOL_VERSION,
    GameRow,
    GameType,
    HistoryEntry,
    build_available_games,
    build_chat,
    build_error,
    build_find_player,
    build_game_details,
    build_game_list,
    build_game_state,
    build_history,
    build_info,
    build_lobby_update,
    build_notice,
    build_refusal,
    build_response,
    encode,
    envelope,
    frame,
    money,
    outgoing_record,
)
from .errors import LocalProtocolError, ProtocolError
from .events import (
    SECRET,
    AvailableGames,
    ChangePassword,
    Chat,
    CreateAccount,
    CreateGame,
    Custom,
    DeleteAccount,
    DeleteGame,
    FindPlayer,
    GameAction,
    GameDetails,
    GameList,
    GameRequest,
    History,
    JoinGame,
    Login,
    Logout,
    PartGame,
    Ratings,
    Request,
)
from .payload import attr_text, clean, element, sub, wire_game_id
from .schema import (
    MESSAGE_SCHEMA,
    compile_schema,
    hardened_parser,
    message_schema,
    schema_bytes,
    validate,
)

#: the hardened parser under its earlier name
_parser = hardened_parser

__all__ = [
    "FIELD_RULES",
    "check_fields",
    "BLANK",
    "MAX_CHAT",
    "MAX_DEPTH",
    "MAX_DOCUMENT",
    "MESSAGE_SCHEMA",
    "PROTOCOL_VERSION",
    "PUBLIC_ACCOUNT_FIELDS",
    "SECRET",
    "SECRET_FIELDS",
    "SECRET_GROUPS",
    "AvailableGames",
    "ChangePassword",
    "Chat",
    "CreateAccount",
    "CreateGame",
    "Custom",
    "DeleteAccount",
    "DeleteGame",
    "FindPlayer",
    "GameAction",
    "GameDetails",
    "GameList",
    "GameRequest",
    "GameRow",
    "GameType",
    "History",
    "Ratings",
    "HistoryEntry",
    "JoinGame",
    "LocalProtocolError",
    "Login",
    "Logout",
    "PartGame",
    "ProtocolError",
    "Request",
    "attr_text",
    "build_available_games",
    "build_chat",
    "build_error",
    "build_find_player",
    "build_game_details",
    "build_game_list",
    "build_game_state",
    "build_history",
    "build_info",
    "build_lobby_update",
    "build_notice",
    "build_refusal",
    "build_response",
    "clean",
    "compile_schema",
    "decode",
    "element",
    "encode",
    "envelope",
    "etree",
    "frame",
    "hardened_parser",
    "message_schema",
    "money",
    "outgoing_record",
    "parse_document",
    "refused_record",
    "schema_bytes",
    "sub",
    "transcript_record",
    "validate",
    "wire_game_id",
]
