"""``gamehub plugin keygen|sign|verify``: Ed25519 signatures of plugin packages.

::

    gamehub plugin keygen alice.key                  # writes alice.key (0600) and alice.key.pub
    gamehub plugin sign greet-1.0.0.zip --key alice.key [--meta greet.meta] [--signer alice]
    gamehub plugin verify greet-1.0.0.zip [--meta greet.meta] [--trusted-key KEY...]

``sign`` appends (or replaces) the ``[signature]`` table of the package's ``.meta``
(:mod:`hub.plugins.signing`); without ``--meta`` it looks for the one ``.meta`` naming the
package in the package's folder or its ``meta/`` folder.  Exit status 0 on success, 1
when a signature is refused, 2 on bad usage.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from hub.meta import MetaError, PluginMeta, parse_meta
from hub.plugins.signing import (
    PluginTrust,
    SignatureError,
    generate_key,
    load_private_key,
    package_digest,
    public_text,
    sign_meta,
    write_private_key,
)


def parser() -> argparse.ArgumentParser:
    """The options of ``gamehub plugin``."""
    p = argparse.ArgumentParser(prog="gamehub plugin", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="action", required=True)
    keygen = sub.add_parser("keygen", help="make a signing key and print its public key")
    keygen.add_argument("key", metavar="KEYFILE", help="the private key file to write")
    sign = sub.add_parser("sign", help="sign a package and its .meta")
    sign.add_argument("package", metavar="PACKAGE", help="the .zip or .whl to sign")
    sign.add_argument("--key", required=True, metavar="KEYFILE", help="from plugin keygen")
    sign.add_argument("--meta", metavar="FILE", help="its .meta (default: found beside it)")
    sign.add_argument("--signer", help="the name shown as signer (default: the key's name)")
    verify = sub.add_parser("verify", help="check a package's signature")
    verify.add_argument("package", metavar="PACKAGE")
    verify.add_argument("--meta", metavar="FILE")
    verify.add_argument(
        "--trusted-key",
        action="append",
        default=[],
        metavar="KEY",
        help="require a signature by this key (ed25519:...; repeatable)",
    )
    return p


def find_meta(package: Path) -> Path:
    """The one ``.meta`` whose ``package`` is ``package``'s name, beside it or in the
    ``meta/`` folder beside it.

    :raises SignatureError: none, or more than one.
    """
    found = []
    for folder in (package.parent, package.parent / "meta"):
        for candidate in sorted(folder.glob("*.meta")):
            try:
                if parse_meta(candidate).package == package.name:
                    found.append(candidate)
            except MetaError:
                continue
    if len(found) != 1:
        what = "no .meta names" if not found else f"{len(found)} .meta files name"
        raise SignatureError(f"{what} {package.name} beside it or in meta/: give --meta FILE")
    return found[0]


def _keygen(args: argparse.Namespace) -> int:
    path = Path(args.key)
    key = generate_key()
    try:
        write_private_key(key, path)
    except FileExistsError:
        raise SignatureError(f"{path} exists; a key is never overwritten") from None
    except OSError as e:
        raise SignatureError(f"cannot write {path}: {e.strerror or e}") from None
    public = public_text(key)
    pub_path = path.with_name(path.name + ".pub")
    pub_path.write_text(public + "\n", encoding="utf-8")
    print(f"private key: {path} (keep it secret)")
    print(f"public key:  {public}  (also in {pub_path})")
    print(f'trust it in the hub\'s config: [settings] trusted_plugin_keys = ["{public}"]')
    return 0


def _meta_of(args: argparse.Namespace, package: Path) -> tuple[Path, PluginMeta]:
    """The ``.meta`` of ``package`` (``--meta`` or found beside it), read."""
    if not package.is_file():
        raise SignatureError(f"{package} is not a file (only .zip and .whl packages are signed)")
    path = Path(args.meta) if args.meta else find_meta(package)
    try:
        return path, parse_meta(path)
    except MetaError as e:
        raise SignatureError(str(e)) from None


def _sign(args: argparse.Namespace) -> int:
    package = Path(args.package)
    meta_path, meta = _meta_of(args, package)
    if meta.package != package.name:
        raise SignatureError(f"{meta_path} describes {meta.package!r}, not {package.name!r}")
    digest = package_digest(package)
    if meta.sha256 not in (None, digest):
        raise SignatureError(f"{meta_path} says sha256 {meta.sha256}; {package.name} has {digest}")
    key = load_private_key(args.key)
    signer = args.signer or Path(args.key).stem
    text = sign_meta(meta_path.read_text(encoding="utf-8"), digest, key, signer)
    parse_meta(meta_path, text)  # still a good .meta
    tmp = meta_path.with_name(f".{meta_path.name}.signing")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, meta_path)
    print(f"signed {package.name} and {meta_path} as {signer} ({public_text(key)})")
    return 0


def _verify(args: argparse.Namespace) -> int:
    package = Path(args.package)
    _, meta = _meta_of(args, package)
    trust = PluginTrust.of(bool(args.trusted_key), args.trusted_key)
    signer = trust.check(meta, package_digest(package))
    if signer is None:
        print(f"{package.name}: not signed")
        return 1
    if not args.trusted_key:
        state = "(no --trusted-key to compare with)"
    else:
        state = "trusted" if signer.trusted else "not among the given trusted keys"
    print(f"{package.name}: good signature by {signer.name} ({signer.key}), {state}")
    return 0


def main(argv: Sequence[str]) -> int:
    """Entry point of ``gamehub plugin``."""
    args = parser().parse_args(list(argv))
    action = {"keygen": _keygen, "sign": _sign, "verify": _verify}[args.action]
    try:
        return action(args)
    except SignatureError as e:
        print(f"gamehub plugin {args.action}: {e}", file=sys.stderr)
        return 1
