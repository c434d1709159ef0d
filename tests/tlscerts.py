"""Certificate authorities and server certificates made in a test, with ``cryptography``.

:func:`make_pki` writes a root CA, an intermediate CA it signed and a server certificate
the intermediate signed for ``127.0.0.1`` and ``localhost``, laid out like Let's
Encrypt's files (``privkey.pem``, ``cert.pem``, ``chain.pem``, ``fullchain.pem``), so
the hub's ``ssl:`` endpoints are given exactly what docs/tls.md tells an operator to give.
"""

from __future__ import annotations

import datetime
import ipaddress
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass(frozen=True)
class PKI:
    """The files of one test PKI.

    :ivar ca: the root CA certificate (what a client's ``--ca`` names).
    :ivar key: the server's private key; :ivar cert: its certificate;
    :ivar chain: the intermediate CA certificate.
    """

    ca: Path
    key: Path
    cert: Path
    chain: Path

    def endpoint(self, port: int = 0) -> str:
        """A hub endpoint description serving this certificate on loopback."""
        return (
            f"ssl:{port}:interface=127.0.0.1:privateKey={self.key}:certKey={self.cert}"
            f":extraCertChain={self.chain}"
        )


def _name(common: str) -> x509.Name:
    return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])


def _certificate(
    subject: str,
    public_key,
    issuer: str,
    signing_key,
    ca: bool,
    hosts: tuple[str, ...] = (),
) -> x509.Certificate:
    now = datetime.datetime.now(datetime.UTC)
    builder = (
        x509.CertificateBuilder()
        .subject_name(_name(subject))
        .issuer_name(_name(issuer))
        .public_key(public_key)
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(days=2))
        .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True)
    )
    if ca:
        builder = builder.add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
    else:
        names: list[x509.GeneralName] = []
        for host in hosts:
            try:
                names.append(x509.IPAddress(ipaddress.ip_address(host)))
            except ValueError:
                names.append(x509.DNSName(host))
        builder = builder.add_extension(x509.SubjectAlternativeName(names), critical=False)
        builder = builder.add_extension(
            x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False
        )
    return builder.sign(signing_key, hashes.SHA256())


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def make_pki(
    folder: Path, name: str = "test", hosts: tuple[str, ...] = ("127.0.0.1", "localhost")
) -> PKI:
    """Write a root CA, an intermediate and a server certificate for ``hosts``."""
    folder.mkdir(parents=True, exist_ok=True)
    root_key = ec.generate_private_key(ec.SECP256R1())
    root = _certificate(f"{name} root CA", root_key.public_key(), f"{name} root CA", root_key, True)
    middle_key = ec.generate_private_key(ec.SECP256R1())
    middle = _certificate(
        f"{name} intermediate CA", middle_key.public_key(), f"{name} root CA", root_key, True
    )
    server_key = ec.generate_private_key(ec.SECP256R1())
    server = _certificate(
        hosts[0], server_key.public_key(), f"{name} intermediate CA", middle_key, False, hosts
    )
    pki = PKI(folder / "ca.pem", folder / "privkey.pem", folder / "cert.pem", folder / "chain.pem")
    pki.ca.write_bytes(_pem(root))
    pki.key.write_bytes(
        server_key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    pki.cert.write_bytes(_pem(server))
    pki.chain.write_bytes(_pem(middle))
    (folder / "fullchain.pem").write_bytes(_pem(server) + _pem(middle))
    return pki
