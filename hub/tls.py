"""TLS for the hub's clients: connect to a hub's ``ssl:`` front end and check its certificate.

The hub itself serves TLS through Twisted endpoint descriptions
(``--xml ssl:4443:privateKey=key.pem:certKey=cert.pem``, see docs/tls.md); nothing
here is needed for that.  This module is the client side, shared by :mod:`hub.client`,
``gamehub xml-client``, ``gamehub fetch`` and the network bots:

- :class:`ClientTLS` says how to trust the hub: the platform's certificate authorities,
  or only those of a PEM file (``--ca FILE``, for a private CA);
- :func:`client_endpoint` is a TCP endpoint, wrapped in TLS when asked for, that checks
  the certificate against the host name (or IP address) it connects to;
- :func:`http_client` is a ``treq`` client whose ``https://`` requests trust the same;
- :func:`add_client_options` / :func:`from_args` are the ``--tls`` and ``--ca FILE``
  options every client takes (plain TCP stays the default).

A certificate that does not verify ends the connection before a byte of the protocol is
sent; :func:`describe` turns the failure into one line.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twisted.internet import ssl
from twisted.internet.endpoints import TCP4ClientEndpoint, wrapClientTLS
from twisted.internet.interfaces import IStreamClientEndpoint

#: the largest CA file read (a bundle of every public CA is about 250 KiB)
MAX_CA_FILE = 4 * 1024 * 1024
_BEGIN = b"-----BEGIN CERTIFICATE-----"
_END = b"-----END CERTIFICATE-----"


class TLSConfigError(ValueError):
    """The TLS settings of a client cannot be used (an unreadable or empty CA file)."""


@dataclass(frozen=True)
class ClientTLS:
    """How a client checks the hub's certificate.

    :ivar ca: a PEM file of the certificate authorities to trust instead of the
        platform's (a private CA), or ``None`` for the platform's trust store.
    """

    ca: str | None = None

    def trust_root(self) -> Any:
        """The ``IOpenSSLTrustRoot`` for ``optionsForClientTLS``.

        :raises TLSConfigError: the CA file cannot be read or holds no certificate.
        """
        if self.ca is None:
            return ssl.platformTrust()
        return ssl.trustRootFromCertificates(load_certificates(self.ca))

    def options(self, host: str) -> Any:
        """The ``IOpenSSLClientConnectionCreator`` for a connection to ``host``: the
        certificate must chain to :meth:`trust_root` and name ``host``."""
        return ssl.optionsForClientTLS(host, trustRoot=self.trust_root())


def load_certificates(path: str | Path) -> list[ssl.Certificate]:
    """Every certificate of the PEM file ``path``.

    :raises TLSConfigError: unreadable, too large, or without a certificate.
    """
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_CA_FILE + 1)
    except OSError as e:
        raise TLSConfigError(f"cannot read the CA file {path}: {e.strerror or e}") from None
    if len(data) > MAX_CA_FILE:
        raise TLSConfigError(f"the CA file {path} is larger than {MAX_CA_FILE} bytes")
    certificates = []
    for block in data.split(_BEGIN)[1:]:
        body, end, _ = block.partition(_END)
        if not end:
            break
        try:
            certificates.append(ssl.Certificate.loadPEM(_BEGIN + body + _END + b"\n"))
        except Exception as e:  # pyOpenSSL's own error type
            raise TLSConfigError(f"the CA file {path} holds a bad certificate: {e}") from None
    if not certificates:
        raise TLSConfigError(f"the CA file {path} holds no PEM certificate")
    return certificates


def client_endpoint(
    reactor: Any, host: str, port: int, tls: ClientTLS | None = None, timeout: float = 10
) -> IStreamClientEndpoint:
    """A TCP endpoint to ``host:port``; with ``tls``, TLS that checks the certificate."""
    tcp = TCP4ClientEndpoint(reactor, host, port, timeout=timeout)
    if tls is None:
        return tcp
    return wrapClientTLS(tls.options(host), tcp)


def http_client(reactor: Any, tls: ClientTLS | None = None) -> Any:
    """A ``treq`` HTTP client; ``https://`` URLs trust ``tls`` (default: the platform's
    certificate authorities) and must name the host they connect to."""
    from treq.client import HTTPClient
    from twisted.web.client import Agent, BrowserLikePolicyForHTTPS

    policy = BrowserLikePolicyForHTTPS(trustRoot=(tls or ClientTLS()).trust_root())
    return HTTPClient(Agent(reactor, contextFactory=policy))


def add_client_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--tls`` and ``--ca FILE`` to a client's command line."""
    group = parser.add_argument_group("TLS (for a hub's ssl: front end)")
    group.add_argument(
        "--tls", action="store_true", help="connect with TLS and check the hub's certificate"
    )
    group.add_argument(
        "--ca",
        metavar="FILE",
        help="trust only the certificate authorities of this PEM file (implies --tls)",
    )


def from_args(args: argparse.Namespace) -> ClientTLS | None:
    """The :class:`ClientTLS` of parsed :func:`add_client_options`, or ``None`` (plain
    TCP).

    :raises TLSConfigError: the CA file cannot be used (checked now, not on connect).
    """
    ca = getattr(args, "ca", None)  # foreign: any options object
    if ca is None and not getattr(args, "tls", False):
        return None
    tls = ClientTLS(ca)
    if ca is not None:
        load_certificates(ca)
    return tls


def parse_client_args(
    parser: argparse.ArgumentParser, argv: Sequence[str] | None = None
) -> argparse.Namespace:
    """``parser.parse_args(argv)`` for a parser with :func:`add_client_options`, with
    ``args.tls_client`` set to :func:`from_args`; an unusable CA file is a usage error."""
    args = parser.parse_args(argv)
    try:
        args.tls_client = from_args(args)
    except TLSConfigError as e:
        parser.error(str(e))
    return args


def describe(reason: Any) -> str:
    """One line for why a connection ended: a failed certificate check says so."""
    value = getattr(reason, "value", reason)  # a Failure or an exception
    from OpenSSL import SSL

    if isinstance(value, SSL.Error):
        details = [str(part[2]) for part in value.args[0] if len(part) > 2] if value.args else []
        text = ", ".join(d for d in details if d) or str(value)
        return f"TLS failed: {text}"
    if hasattr(reason, "getErrorMessage"):
        return str(reason.getErrorMessage())
    return str(value)
