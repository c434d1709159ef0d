"""The hub's own classes are what the seams say they are (issue 34): the seams name
the parts above them (the live game, the lobby, the plugin registry and its records)
by typing Protocols, and each function here hands a concrete part over as its
Protocol, so mypy (this file is in its ``files``) fails when a part stops providing
what its seam declares.  Nothing here runs: ``tests/hub/test_seam_types.py`` checks
that every such Protocol is checked here and that mypy reads this file."""

from __future__ import annotations

from hub.cluster.remote import RemoteGame, RemoteType
from hub.cluster.service import Cluster
from hub.cluster_seams import ClusterDoor
from hub.interfaces import GameLobby, LobbyGame, PluginRegistry
from hub.model import GameKind, LiveGame
from hub.play.game import GameInstance
from hub.play.lobby import Lobby
from hub.plugin_seams import PluginFile, PluginInfo, PluginSigner, SigningRule
from hub.plugins.registry import Download, PluginRecord, Registry
from hub.plugins.signing import PluginTrust, Signer


def live_game(game: GameInstance) -> LiveGame:
    return game


def lobby_game(game: GameInstance) -> LobbyGame:
    return game


def remote_game(game: RemoteGame) -> LiveGame:
    return game


def remote_kind(kind: RemoteType) -> GameKind:
    return kind


def game_lobby(lobby: Lobby) -> GameLobby:
    return lobby


def plugin_registry(registry: Registry) -> PluginRegistry:
    return registry


def plugin_info(record: PluginRecord) -> PluginInfo:
    return record


def plugin_file(download: Download) -> PluginFile:
    return download


def plugin_signer(signer: Signer) -> PluginSigner:
    return signer


def signing_rule(trust: PluginTrust) -> SigningRule:
    return trust


def cluster_door(cluster: Cluster) -> ClusterDoor:
    return cluster
