"""The types of the hub's settings (``--set KEY=VALUE``, ``[settings]`` in the TOML file).

Every setting docs/settings.md lists has a type here; :func:`convert` turns the text of
``--set`` (or a TOML value) into it, or raises :class:`ValueError` with a sentence a
person can read.  Booleans accept ``true``/``false``, ``yes``/``no``, ``1``/``0`` (any
case) and nothing else.  A list (``tuple``) is a TOML array of strings, or one string
whose items are separated by commas or spaces.

A setting the hub does not know is an error (:func:`check_known`: one line naming it
and the closest known setting), never silently ignored: plugins declare the settings
they read in their ``.meta`` (``[settings]``, :class:`hub.meta.PluginSetting`), and
:func:`declared` reads those of every ``.meta`` folder, so they are known too.
"""

from __future__ import annotations

import difflib
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from hub.meta import MetaError, PluginSetting, parse_meta

#: setting name → its type (bool, int, float, str or tuple: a list of strings)
TYPES: dict[str, type] = {
    # the lobby and finished games
    "keep_finished": float,
    "keep_finished_count": int,
    "retire_after": float,
    "keep_waiting": float,
    "unattended_seconds": float,
    "bots_only_max": int,
    "bots_only_per_creator": int,
    "create_rate": float,
    "create_burst": float,
    "game_event_log": int,
    # the garbage collector's policy (hub.heap; twistd gamehub only)
    "gc_young": int,
    "gc_freeze_survivors": bool,
    "gc_freeze_seconds": float,
    "gc_full_seconds": float,
    # the games' journal (hub.play.journal)
    "journal_max_entries": int,
    "journal_max_waiting": int,
    "journal_flush_ms": float,
    # ratings
    "rated_default": bool,
    # tournaments
    "tournament_max_entrants": int,
    "tournament_max_rounds": int,
    "tournament_max_active": int,
    "tournament_max_per_account": int,
    "tournament_keep": int,
    "tournament_grace": float,
    "tournament_route_wait": float,
    "tournament_cluster_seconds": float,
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
    "lease_interval": float,
    "lease_grace": float,
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
    "isolate_plugins": str,
    "isolated_plugins": tuple,
    "in_process_plugins": tuple,
    "isolated_cpu_seconds": int,
    "isolated_memory_mb": int,
    "isolated_call_seconds": float,
    "isolated_start_seconds": float,
    "isolated_games_max": int,
    # operations: metrics, the admin API and its audit log
    "metrics_endpoint": str,
    "audit_keep": int,
    "api_token_sha256": str,
    "ban_widest_ipv4": int,
    "ban_widest_ipv6": int,
    "ban_refresh_seconds": float,
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
    "web_access_log": str,
    "web_chat_rate": float,
    "web_chat_burst": float,
    "web_max_sessions": int,
    "web_session_lookup_rate": float,
    "web_session_lookup_burst": float,
    "web_session_lookups_pending": int,
    "web_session_unknown_kept": int,
    "web_session_unknown_seconds": float,
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
    "cluster_lookup_queue": int,
    "cluster_lookup_batch": int,
    "cluster_lookup_window": float,
    "cluster_follow_seconds": float,
    "cluster_follow_max": int,
    "cluster_handoff": bool,
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
    "xml_resume_seconds": float,
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
    "acpc_max_matches": int,
    "acpc_max_connections": int,
    "acpc_max_per_address": int,
    # relay
    "relay_max_frame": int,
    "relay_max_tables": int,
    "relay_join_seconds": float,
    "relay_idle_seconds": float,
    "relay_rate": float,
    "relay_burst": float,
    "relay_max_queue": int,
    "relay_backlog": int,
    "relay_backlog_bytes": int,
    "relay_max_per_address": int,
    "relay_max_connections": int,
}

#: the types of the settings plugins declare, by their ``.meta`` names
PLUGIN_TYPES: dict[str, type] = {"bool": bool, "int": int, "float": float, "str": str,
                                 "list": tuple}  # fmt: skip


def declared(folders: Iterable[Path]) -> dict[str, PluginSetting]:
    """The settings the plugins in ``folders`` (``.meta`` folders) declare, by name; a
    ``.meta`` that cannot be read declares none (the registry says why), and a name
    the hub or an earlier plugin has already is not taken."""
    found: dict[str, PluginSetting] = {}
    for folder in folders:
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".meta"))
        except OSError:
            continue
        for name in names:
            try:
                meta = parse_meta(Path(folder) / name)
            except MetaError:
                continue
            for setting in meta.settings:
                if setting.name not in TYPES and setting.name not in found:
                    found[setting.name] = setting
    return found


def closest(key: str, known: Iterable[str]) -> str | None:
    """The name of ``known`` most like ``key`` (``None``: ``known`` is empty)."""
    found = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.0)
    return found[0] if found else None


def check_known(keys: Iterable[str], known: Iterable[str]) -> None:
    """Refuse a setting that is not ``known``.

    :raises ValueError: ``unknown setting KEY (did you mean CLOSEST?)``, for the first
        unknown one.
    """
    names = set(known)
    for key in keys:
        if key not in names:
            like = closest(key, names)
            hint = f"; the closest known setting is {like}" if like else ""
            raise ValueError(f"unknown setting {key}{hint} (docs/settings.md)")


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


def convert(key: str, value: Any, plugins: Mapping[str, PluginSetting] | None = None) -> Any:
    """``value`` of setting ``key`` in its type: a hub setting's, or that of a setting
    ``plugins`` declare (unknown settings: unchanged; :func:`check_known` refuses them).

    :raises ValueError: the value does not fit the type (the message names both).
    """
    kind = TYPES.get(key)
    if kind is None and plugins is not None and key in plugins:
        kind = PLUGIN_TYPES[plugins[key].type]
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
