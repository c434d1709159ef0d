"""``gamehub fetch NAME --into DIR [--hub URL] [--ca FILE] [signature options]``.

The work is :func:`hub.plugins.fetch.fetch`; this is its command line.  ``--into`` is required:
nothing is installed into a folder the user did not name, and a running hub's data
folder is refused unless ``--force``.  The signature policy is the hub's
(``require_signed_plugins`` and ``trusted_plugin_keys``), read from ``--config FILE``
(the hub's TOML file) and/or given with ``--require-signed`` and ``--trusted-key``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from twisted.internet import defer, task

from hub import settings as typed
from hub.meta import MetaError, parse_meta
from hub.plugins.fetch import DEFAULT_HUB, FetchError, describe_error, fetch
from hub.plugins.signing import PluginTrust, SignatureError
from hub.tap import ConfigError, read_config
from hub.tls import ClientTLS, TLSConfigError, http_client, load_certificates


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The options of ``gamehub fetch``."""
    parser = argparse.ArgumentParser(
        prog="gamehub fetch",
        description="Download a plugin from a hub, verify its SHA-256 (and its signature) "
        "and install it into DIR/plugins (games) or DIR/bots (bots) with its .meta.",
    )
    parser.add_argument("name", help="the plugin's name, as in /plugins/index.json")
    parser.add_argument("--hub", default=DEFAULT_HUB, help=f"the hub's web URL ({DEFAULT_HUB})")
    parser.add_argument(
        "--into",
        required=True,
        metavar="DIR",
        help="the data folder to install into (not a running hub's: see --force)",
    )
    parser.add_argument(
        "--force", action="store_true", help="install even into a running hub's data folder"
    )
    parser.add_argument(
        "--ca",
        metavar="FILE",
        help="for an https:// hub: trust only the certificate authorities of this PEM file",
    )
    add_signature_options(parser)
    args = parser.parse_args(list(argv))
    if args.ca is not None and not args.hub.startswith("https://"):
        parser.error("--ca is for an https:// hub URL")
    try:
        args.trust = trust_of(args)
        if args.ca is not None:
            load_certificates(args.ca)
    except (ConfigError, SignatureError, TLSConfigError, ValueError) as e:
        parser.error(str(e))
    return args


def add_signature_options(parser: argparse.ArgumentParser) -> None:
    """``--config FILE``, ``--require-signed`` and ``--trusted-key KEY`` (read by
    :func:`trust_of`)."""
    signed = parser.add_argument_group("signatures (docs/plugins.md)")
    signed.add_argument(
        "--config",
        metavar="FILE",
        help="a hub's TOML config: its require_signed_plugins and trusted_plugin_keys apply",
    )
    signed.add_argument(
        "--require-signed",
        action="store_true",
        help="refuse a package that is not signed by a trusted key",
    )
    signed.add_argument(
        "--trusted-key",
        action="append",
        default=[],
        metavar="KEY",
        help="a trusted public key (ed25519:...; repeatable)",
    )


def trust_of(args: argparse.Namespace) -> PluginTrust:
    """The signature policy: the config file's settings, then the options."""
    settings: dict[str, Any] = {}
    if args.config:
        table = read_config(args.config)["settings"]
        for key in ("require_signed_plugins", "trusted_plugin_keys"):
            if key in table:
                settings[key] = typed.convert(key, table[key])
    keys = list(settings.get("trusted_plugin_keys", ())) + list(args.trusted_key)
    required = bool(settings.get("require_signed_plugins", False)) or args.require_signed
    return PluginTrust.of(required, keys)


def main(argv: Sequence[str]) -> int:
    """Entry point of ``gamehub fetch``; returns 0 on success, 1 on failure."""
    args = parse_args(argv)
    outcome: dict[str, Any] = {}

    async def run(reactor: Any) -> None:
        client = http_client(reactor, ClientTLS(args.ca))
        try:
            path = await fetch(
                args.name, args.hub, args.into, client, trust=args.trust, force=args.force
            )
        except FetchError as e:
            outcome["error"] = str(e)
        except Exception as e:  # connection refused, DNS, a certificate that fails...
            outcome["error"] = describe_error(e)
        else:
            outcome["path"] = path

    try:
        task.react(lambda reactor: defer.ensureDeferred(run(reactor)))
    except SystemExit:
        pass
    if "error" in outcome:
        print(f"gamehub fetch: {outcome['error']}; nothing was installed", file=sys.stderr)
        return 1
    print(f"installed {args.name}: {outcome['path']}{_signed_by(outcome['path'])}")
    return 0


def _signed_by(path: Any) -> str:
    """`` (signed by NAME)`` for an installed signed ``.meta``."""
    try:
        signature = parse_meta(path).signature
    except MetaError:
        return ""
    return "" if signature is None else f" (signed by {signature.signer}, {signature.key})"
