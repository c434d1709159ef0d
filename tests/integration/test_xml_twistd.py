"""The XML front end inside ``twistd -n gamehub``: a real process, plain blocking sockets."""

from __future__ import annotations

import socket

import pytest

from hub.frontends.xml import codec
from tests.hubprocess import HubProcess


def _read_frame(sock: socket.socket) -> bytes:
    def exactly(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("closed")
            data += chunk
        return data

    return exactly(int.from_bytes(exactly(4), "big"))


def _send(sock: socket.socket, document: bytes) -> None:
    sock.sendall(len(document).to_bytes(4, "big") + document)


@pytest.fixture
def hub(tmp_path):
    with HubProcess(tmp_path, xml="tcp:0:interface=127.0.0.1") as running:
        yield running


def test_twistd_serves_xml(hub):
    with socket.create_connection(("127.0.0.1", hub.ports["xml"]), timeout=10) as sock:
        info = codec.parse_document(_read_frame(sock))
        assert info.find("info/parameters/frontends/frontend").get("port") == str(hub.ports["xml"])
        _send(
            sock,
            b'<message><request><accountmanagement><create accountname="eve" '
            b'password="secret5" accounttype="0"/></accountmanagement></request></message>',
        )
        created = codec.parse_document(_read_frame(sock))
        assert created.find("response/accountmanagement/create").get("success") == "true"
        _send(
            sock,
            b'<message><request><authentication><login accountname="eve" password="secret5"/>'
            b"</authentication></request></message>",
        )
        login = codec.parse_document(_read_frame(sock))
        assert login.find("response/authentication/login").get("balance") == "1000.00"
        sock.sendall(b"\x00\x00\x00\x00")
        refused = codec.parse_document(_read_frame(sock))
        assert refused.find("response/general").get("errorcode") == "413"
        with pytest.raises(ConnectionError):
            _read_frame(sock)
    assert hub.errors() == []
