"""The types of the hub's settings (``--set KEY=VALUE``, ``[settings]`` in the TOML file).

Every setting docs/settings.md lists has a type here; :func:`convert` turns the text of
``--set`` (or a TOML value) into it, or raises :class:`ValueError` with a sentence a
person can read.  Booleans accept ``true``/``false``, ``yes``/``no``, ``1``/``0`` (any
case) and nothing else.  A list (``tuple``) is a TOML array of strings, or one string
whose items are separated by commas or spaces.  Settings not listed here are passed on
as text (a game or a front end of another build may read them).
"""

from __future__ import annotations

import math
from typing import Any

#: setting name → its type (bool, int, float, str or tuple: a list of strings)
TYPES: dict[str, type] = {
    # the lobby and finished games
    "keep_finished": float,
    "keep_finished_count": int,
    "retire_after": float,
    "unattended_seconds": float,
    "create_rate": float,
    "create_burst": float,
    "game_event_log": int,
    # ratings
    "rated_default": bool,
    # tournaments
    "tournament_max_entrants": int,
    "tournament_max_rounds": int,
    "tournament_max_active": int,
    "tournament_keep": int,
    "tournament_grace": float,
    "tournament_route_wait": float,
    # chat (the lobby and every game)
    "chat_history": int,
    "chat_rate": int,
    "chat_window": float,
    # table money
    "money_retry_first": float,
    "money_retry_most": float,
    "money_stop_timeout": float,
    # the store
    "hand_record_max": int,
    "seed_reveal": float,
    "history_batch_seconds": float,
    "history_batch_max": int,
    "history_queue_max": int,
    # transcripts
    "transcript_flush_seconds": float,
    "transcript_buffer_bytes": int,
    "transcript_max_bytes": int,
    "transcript_keep_rotated": int,
    "transcript_max_per_connection": int,
    # logins
    "login_free_failures": int,
    "login_delay_base": float,
    "login_delay_max": float,
    "login_address_failures": int,
    "login_window": float,
    # plugins
    "plugin_import_seconds": float,
    "require_signed_plugins": bool,
    "trusted_plugin_keys": tuple,
    # operations: metrics, the admin API and its audit log
    "metrics_endpoint": str,
    "audit_keep": int,
    "api_token_sha256": str,
    # JSON API and web
    "api_require_token": bool,
    "web_secure_cookies": bool,
    "web_heartbeat": float,
    "web_max_streams": int,
    "web_max_streams_per_address": int,
    "web_max_body": int,
    "web_header_timeout": float,
    "web_body_timeout": float,
    "web_idle_timeout": float,
    "web_max_per_address": int,
    "web_max_connections": int,
    "web_allowed_hosts": str,
    "web_history_limit": int,
    "web_chat_rate": float,
    "web_chat_burst": float,
    # every front end
    "listen_backlog": int,
    "timeout_granularity": float,
    # a cluster of hubs (PostgreSQL)
    "advertise_host": str,
    "cluster_check_seconds": float,
    "cluster_keep_aborted": float,
    "cluster_connect_seconds": float,
    "cluster_splice_buffer": int,
    "cluster_splice_line": int,
    "cluster_relay_answer_seconds": float,
    "cluster_lookup_ttl": float,
    "cluster_lookup_cache": int,
    "cluster_lookup_concurrent": int,
    "cluster_lookup_window": float,
    "cluster_publish_seconds": float,
    "cluster_publish_delay": float,
    "cluster_gather_seconds": float,
    "xml_relay_max": int,
    "web_proxy_max_body": int,
    "web_proxy_sessions": int,
    "web_proxy_connections": int,
    "cluster_plugin_max_bytes": int,
    "cluster_plugin_downloads": int,
    "cluster_plugin_timeout": float,
    "cluster_plugin_retries": int,
    "cluster_plugin_keep_removed": float,
    # XML
    "server_name": str,
    "xml_max_frame": int,
    "xml_idle_timeout": float,
    "xml_frame_deadline": float,
    "xml_max_per_address": int,
    "xml_max_connections": int,
    "xml_max_pending": int,
    "xml_rate": float,
    "xml_burst": float,
    "xml_max_backlog": int,
    "xml_close_grace": float,
    "xml_check_output": bool,
    # MNM
    "mnm_announcement": str,
    "mnm_prolog_timeout": float,
    "mnm_wait_interval": float,
    "mnm_wait_timeout": float,
    # domino
    "domino_game": str,
    "domino_answer_seconds": float,
    "domino_max_invalid": int,
    "domino_login_seconds": float,
    "domino_idle_seconds": float,
    # acpc
    "acpc_version_seconds": float,
    "acpc_wait_seconds": float,
    "acpc_action_seconds": float,
    "acpc_hand_seconds": float,
    "acpc_average_seconds": float,
    "acpc_max_ignored": int,
    "acpc_seat_endpoint": str,
    "acpc_player_seconds": float,
    # acpc: the reference dealer's rules or the hub's stricter ones
    "acpc_strict": bool,
    "acpc_showdown": str,
    "acpc_payoffs": str,
    "acpc_cut_short": str,
}

TRUE = ("true", "yes", "1")
FALSE = ("false", "no", "0")


def boolean(value: Any) -> bool:
    """``value`` as a boolean: a bool, or one of true/false/yes/no/1/0 (any case).

    :raises ValueError: anything else.
    """
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise ValueError(f"{value!r} is not a boolean: use true/false, yes/no or 1/0")


def strings(value: Any) -> tuple[str, ...]:
    """``value`` as a tuple of strings: a list of strings, or one string of items
    separated by commas or white space.

    :raises ValueError: anything else.
    """
    if isinstance(value, str):
        return tuple(item for item in value.replace(",", " ").split() if item)
    if isinstance(value, list | tuple) and all(isinstance(v, str) for v in value):
        return tuple(v.strip() for v in value if v.strip())
    raise ValueError(f"{value!r} is not a list of strings")


def convert(key: str, value: Any) -> Any:
    """``value`` of setting ``key`` in its type (unknown settings: unchanged).

    :raises ValueError: the value does not fit the type (the message names both).
    """
    kind = TYPES.get(key)
    if kind is None:
        return value
    try:
        if kind is bool:
            return boolean(value)
        if isinstance(value, bool):
            raise ValueError(f"{value!r} is not a {kind.__name__}")
        if kind is str:
            return str(value)
        if kind is tuple:
            return strings(value)
        number = kind(str(value).strip()) if isinstance(value, str) else kind(value)
    except (TypeError, ValueError) as e:
        raise ValueError(f"setting {key}: {e}") from None
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"setting {key}: {value!r} is not a finite number of at least 0")
    return number
