"""Ed25519 plugin signatures: keys, the ``[signature]`` table, what it covers, the trust
policy, and the registry and ``gamehub fetch`` refusing what does not verify."""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
from pathlib import Path

import pytest
from treq.testing import StubTreq
from twisted.internet.task import Clock
from twisted.web.resource import Resource
from twisted.web.static import Data

from hub.cli import main as gamehub
from hub.meta import MetaError, parse_meta
from hub.plugins.distribution import PluginsResource, plugin_index
from hub.plugins.fetch import FetchError, fetch
from hub.plugins.registry import FAILED, LOADED, Registry
from hub.plugins.signing import (
    PluginTrust,
    SignatureError,
    generate_key,
    package_digest,
    public_text,
    sign_meta,
    verify,
)

from .helpers import make_zip_plugin
from .test_fetch import run

HUB = "http://hub.example"


def keygen(tmp_path: Path, name: str) -> tuple[Path, str]:
    """``gamehub plugin keygen``: the key file and the public key."""
    key = tmp_path / f"{name}.key"
    assert gamehub(["plugin", "keygen", str(key)]) == 0
    return key, (tmp_path / f"{name}.key.pub").read_text().strip()


def signed_plugin(data: Path, name: str, key: Path) -> tuple[Path, Path]:
    """A zip drop-in ``name`` in ``data``, signed with ``key`` by ``gamehub plugin sign``."""
    archive, meta = make_zip_plugin(data, name)
    assert gamehub(["plugin", "sign", str(archive), "--key", str(key)]) == 0
    return archive, meta


def flip_a_byte(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))


# -- keys and the signature itself -------------------------------------------------------


def test_keygen_writes_a_private_key_for_its_owner_only(tmp_path, capsys):
    key, public = keygen(tmp_path, "alice")
    assert stat.S_IMODE(os.stat(key).st_mode) == 0o600
    assert public.startswith("ed25519:") and public in capsys.readouterr().out
    assert gamehub(["plugin", "keygen", str(key)]) == 1  # never overwritten
    assert "never overwritten" in capsys.readouterr().err


def test_sign_and_verify_round_trip(tmp_path, capsys):
    key, public = keygen(tmp_path, "alice")
    archive, meta_path = signed_plugin(tmp_path / "data", "zippy", key)
    meta = parse_meta(meta_path)
    assert meta.signature is not None
    assert (meta.signature.signer, meta.signature.key) == ("alice", public)
    assert meta.signature.package_sha256 == package_digest(archive)
    verify(meta.signature, package_digest(archive))
    capsys.readouterr()
    assert gamehub(["plugin", "verify", str(archive), "--trusted-key", public]) == 0
    assert "good signature by alice" in capsys.readouterr().out
    # signing again replaces the signature (one [signature] table)
    assert gamehub(["plugin", "sign", str(archive), "--key", str(key), "--signer", "Al"]) == 0
    text = meta_path.read_text()
    assert text.count("[signature]") == 1 and 'signer = "Al"' in text
    verify(parse_meta(meta_path).signature, package_digest(archive))


def test_one_flipped_byte_of_the_package_is_refused(tmp_path, capsys):
    key, _ = keygen(tmp_path, "alice")
    archive, meta_path = signed_plugin(tmp_path / "data", "zippy", key)
    flip_a_byte(archive)
    signature = parse_meta(meta_path).signature
    with pytest.raises(SignatureError, match="the package changed after alice signed it"):
        verify(signature, package_digest(archive))
    capsys.readouterr()
    assert gamehub(["plugin", "verify", str(archive)]) == 1
    assert "the package changed" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('summary = "zippy for tests"', 'summary = "zippy for tests!"'),
        ("[plugin]", "# a comment\n[plugin]"),
        ('signer = "alice"', 'signer = "mallory"'),  # the signer's name is covered too
    ],
)
def test_one_changed_line_of_the_meta_is_refused(tmp_path, old, new):
    key, _ = keygen(tmp_path, "alice")
    archive, meta_path = signed_plugin(tmp_path / "data", "zippy", key)
    text = meta_path.read_text()
    assert text.count(old) == 1
    meta_path.write_text(text.replace(old, new))
    with pytest.raises(SignatureError, match=r"the \.meta changed after .* signed it"):
        verify(parse_meta(meta_path).signature, package_digest(archive))


def test_another_key_cannot_keep_the_old_signature(tmp_path):
    key, _ = keygen(tmp_path, "alice")
    archive, meta_path = signed_plugin(tmp_path / "data", "zippy", key)
    other = public_text(generate_key())
    text = meta_path.read_text()
    old_key = parse_meta(meta_path).signature.key
    meta_path.write_text(text.replace(old_key, other))
    with pytest.raises(SignatureError, match="does not match"):
        verify(parse_meta(meta_path).signature, package_digest(archive))


def test_the_signature_table_must_come_last(tmp_path):
    key = generate_key()
    text = sign_meta('[plugin]\nname = "x"\n', "0" * 64, key, "alice")
    base = (
        '[plugin]\nname = "zippy"\nkind = "game"\nversion = "1"\nserver = "a.b:C"\n'
        'package = "z.zip"\n'
    )
    signed = sign_meta(base, "0" * 64, key, "alice")
    assert parse_meta(tmp_path / "ok.meta", signed).signature is not None
    with pytest.raises(MetaError, match="must be the last table"):
        parse_meta(tmp_path / "x.meta", signed + '\n[commands.sneaky]\nrun = "evil:main"\n')
    with pytest.raises(MetaError, match="unknown fields"):
        parse_meta(tmp_path / "x.meta", signed + 'extra = "x"\n')
    inline = 'signature = { signer = "a" }\n' + base
    with pytest.raises(MetaError, match=r"\[signature\] table"):
        parse_meta(tmp_path / "x.meta", inline)
    assert "[signature]" in text
    with pytest.raises(SignatureError, match="signer name"):
        sign_meta(base, "0" * 64, key, 'al"ice')


def test_trust_policy():
    key = generate_key()
    public = public_text(key)
    base = (
        '[plugin]\nname = "zippy"\nkind = "game"\nversion = "1"\nserver = "a.b:C"\n'
        'package = "z.zip"\n'
    )
    digest = "ab" * 32
    signed = parse_meta("z.meta", sign_meta(base, digest, key, "alice"))
    unsigned = parse_meta("z.meta", base)
    assert PluginTrust().check(unsigned, digest) is None
    signer = PluginTrust().check(signed, digest)
    assert signer is not None and (signer.name, signer.trusted) == ("alice", False)
    strict = PluginTrust.of(True, [public])
    assert strict.check(signed, digest).trusted
    with pytest.raises(SignatureError, match="unsigned, and require_signed_plugins is on"):
        strict.check(unsigned, digest)
    with pytest.raises(SignatureError, match="not in trusted_plugin_keys"):
        PluginTrust.of(True, [public_text(generate_key())]).check(signed, digest)
    with pytest.raises(SignatureError, match="not a folder"):
        PluginTrust().check(signed, None)
    with pytest.raises(SignatureError, match="not a public key"):
        PluginTrust.of(True, ["ssh-ed25519 AAAA"])


def test_hub_settings_and_bad_keys(tmp_path):
    from twisted.python import usage

    from hub.tap import Options

    public = public_text(generate_key())
    options = Options()
    options.parseOptions(
        ["--set", "require_signed_plugins=yes", "--set", f"trusted_plugin_keys={public}"]
    )
    trust = PluginTrust.from_settings(options["settings"])
    assert trust.required and trust.keys == {public}
    config = tmp_path / "hub.toml"
    config.write_text(
        f'[settings]\nrequire_signed_plugins = true\ntrusted_plugin_keys = ["{public}"]\n'
    )
    options = Options()
    options.parseOptions(["--config", str(config)])
    assert PluginTrust.from_settings(options["settings"]).keys == {public}
    with pytest.raises(usage.UsageError, match="trusted_plugin_keys"):
        Options().parseOptions(["--set", "trusted_plugin_keys=ed25519:nonsense"])


# -- the registry and the index --------------------------------------------------------------


def registry_of(data: Path, trust: PluginTrust | None = None) -> Registry:
    registry = Registry(data, Clock(), None, trust=trust)
    registry.load()
    return registry


def test_registry_lists_the_signer_and_refuses_tampering_before_importing(tmp_path):
    key, public = keygen(tmp_path, "alice")
    data = tmp_path / "data"
    archive, meta_path = signed_plugin(data, "zippy", key)
    make_zip_plugin(data, "plain")
    registry = registry_of(data, PluginTrust.of(False, [public]))
    index = {p["name"]: p for p in plugin_index(registry)["plugins"]}
    assert index["zippy"]["signer"] == {"name": "alice", "key": public, "trusted": True}
    assert index["plain"]["signer"] is None and index["plain"]["status"] == LOADED
    # the signed .meta is served byte for byte
    served = registry.download("zippy", "zippy.meta")
    assert served is not None and served.data == meta_path.read_bytes()

    flip_a_byte(archive)
    registry.scan()
    record = {r.name: r for r in registry.plugins()}["zippy"]
    assert record.status == FAILED
    assert record.reason.startswith("refused: the package changed after alice signed it")
    assert [g.name for g in registry.game_types()] == ["plain"]  # the others go on


def test_required_signatures_refuse_unsigned_and_untrusted(tmp_path):
    alice, alice_public = keygen(tmp_path, "alice")
    mallory, _ = keygen(tmp_path, "mallory")
    data = tmp_path / "data"
    signed_plugin(data, "good", alice)
    signed_plugin(data, "bad", mallory)
    make_zip_plugin(data, "plain")
    registry = registry_of(data, PluginTrust.of(True, [alice_public]))
    records = {r.name: r for r in registry.plugins()}
    assert records["good"].status == LOADED and records["good"].signer.trusted
    assert records["bad"].status == FAILED and "not in trusted_plugin_keys" in records["bad"].reason
    assert records["plain"].status == FAILED and "unsigned" in records["plain"].reason
    assert plugin_index(registry)["require_signed_plugins"] is True


# -- gamehub fetch -----------------------------------------------------------------------


@pytest.fixture
def signed_hub(tmp_path):
    key, public = keygen(tmp_path, "alice")
    data = tmp_path / "hubdata"
    archive, meta = signed_plugin(data, "zippy", key)
    make_zip_plugin(data, "plain")
    registry = registry_of(data)
    root = Resource()
    root.putChild(b"plugins", PluginsResource(registry))
    return StubTreq(root), public, archive, meta


def test_fetch_keeps_the_signed_meta_and_checks_trust(signed_hub, tmp_path):
    client, public, archive, meta = signed_hub
    into = tmp_path / "client"
    trust = PluginTrust.of(True, [public])
    path = run(fetch("zippy", HUB, into, client=client, stream=io.StringIO(), trust=trust))
    assert path.read_bytes() == meta.read_bytes()
    again = registry_of(into, trust)
    assert again.plugin("zippy").signer.trusted
    for name in ("plain", "zippy"):
        stranger = PluginTrust.of(True, [public_text(generate_key())])
        with pytest.raises(FetchError, match="refused: (unsigned|signed by alice)"):
            run(fetch(name, HUB, tmp_path / name, client=client, stream=io.StringIO(),
                      trust=stranger))  # fmt: skip
        assert not (tmp_path / name).exists()


class Forged(Resource):
    """``/plugins`` of a hub that serves some files changed (``overrides``: path → bytes)."""

    def __init__(self, inner: Resource, overrides: dict[bytes, bytes]) -> None:
        super().__init__()
        self.inner = inner
        self.overrides = overrides

    def getChild(self, path, request):  # noqa: N802
        whole = b"/".join([path, *request.postpath])
        if whole in self.overrides:
            request.postpath.clear()
            return Data(self.overrides[whole], "application/octet-stream")
        return self.inner.getChild(path, request)


def forged_client(registry: Registry, overrides: dict[bytes, bytes]) -> StubTreq:
    root = Resource()
    root.putChild(b"plugins", Forged(PluginsResource(registry), overrides))
    return StubTreq(root)


def test_fetch_refuses_what_a_hub_changed_after_signing(tmp_path):
    """A hub (or a man in the middle) that changes a signed plugin cannot pass it on,
    even when its index agrees with what it sends."""
    key, public = keygen(tmp_path, "alice")
    data = tmp_path / "hubdata"
    archive, meta = signed_plugin(data, "zippy", key)
    registry = registry_of(data)
    index = plugin_index(registry)
    # a changed line of the .meta
    text = meta.read_text().replace('summary = "zippy for tests"', 'summary = "changed"')
    client = forged_client(registry, {b"zippy/zippy.meta": text.encode()})
    with pytest.raises(FetchError, match=r"refused: the \.meta changed after alice signed it"):
        run(fetch("zippy", HUB, tmp_path / "a", client=client, stream=io.StringIO()))
    assert not (tmp_path / "a").exists()
    # one flipped byte of the package, with an index that gives its new digest and size
    changed = bytearray(archive.read_bytes())
    changed[len(changed) // 2] ^= 0x01
    entry = dict(index["plugins"][0], sha256=hashlib.sha256(changed).hexdigest())
    forged_index = json.dumps({"plugins": [entry]}).encode()
    client = forged_client(
        registry, {b"index.json": forged_index, f"zippy/{archive.name}".encode(): bytes(changed)}
    )
    with pytest.raises(FetchError, match="refused: the package changed after alice signed it"):
        run(fetch("zippy", HUB, tmp_path / "b", client=client, stream=io.StringIO()))
    assert not (tmp_path / "b").exists()
