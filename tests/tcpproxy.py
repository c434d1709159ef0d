"""A TCP proxy a test controls, between a hub and PostgreSQL: :meth:`TcpProxy.cut`
makes a partition (every connection through it is reset and new ones are refused at
once, while other clients still reach the server), :meth:`TcpProxy.restore` ends it.

It runs in a thread of the test's process (one ``selectors`` loop), so both hubs in
child processes and stores on the test's reactor can go through it.  Loopback only.
"""

from __future__ import annotations

import contextlib
import selectors
import socket
import struct
import threading

_CHUNK = 65536


class TcpProxy:
    """Listens on 127.0.0.1 (:attr:`port`) and passes each connection on to
    ``target``; a context manager that stops it."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.setblocking(False)
        self.port = int(self._listener.getsockname()[1])
        self._selector = selectors.DefaultSelector()
        self._selector.register(self._listener, selectors.EVENT_READ, None)
        self._peers: dict[socket.socket, socket.socket] = {}
        self._open = True
        self._lock = threading.Lock()
        self._wake_r, self._wake_w = socket.socketpair()
        self._selector.register(self._wake_r, selectors.EVENT_READ, "wake")
        self._stopping = False
        self._thread = threading.Thread(target=self._loop, name="tcpproxy", daemon=True)
        self._thread.start()

    def dsn(self, dsn: str) -> str:
        """``dsn`` (a ``postgresql://`` URL to :attr:`target`) through this proxy."""
        host, port = self.target
        return dsn.replace(f"@{host}:{port}/", f"@127.0.0.1:{self.port}/")

    def cut(self) -> None:
        """Reset every connection through the proxy and refuse new ones."""
        with self._lock:
            self._open = False
        self._wake()

    def restore(self) -> None:
        """Pass connections on again."""
        with self._lock:
            self._open = True

    def close(self) -> None:
        """Stop the proxy (its connections are reset)."""
        self._stopping = True
        self._wake()
        self._thread.join(10)

    def __enter__(self) -> TcpProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):
            self._wake_w.send(b"x")

    def _loop(self) -> None:
        try:
            while not self._stopping:
                for key, _ in self._selector.select(0.5):
                    if key.data == "wake":
                        self._wake_r.recv(_CHUNK)
                    elif key.fileobj is self._listener:
                        self._accept()
                    else:
                        self._pass(key.fileobj)  # type: ignore[arg-type]
                with self._lock:
                    cut = not self._open
                if cut and self._peers:
                    self._reset_all()
        finally:
            self._reset_all()
            self._listener.close()
            self._selector.close()

    def _accept(self) -> None:
        try:
            client, _ = self._listener.accept()
        except BlockingIOError:
            return
        with self._lock:
            refused = not self._open
        if refused:
            _reset(client)
            return
        try:
            server = socket.create_connection(self.target, timeout=5)
        except OSError:
            _reset(client)
            return
        for sock in (client, server):
            sock.setblocking(False)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self._selector.register(sock, selectors.EVENT_READ, "conn")
        self._peers[client], self._peers[server] = server, client

    def _pass(self, sock: socket.socket) -> None:
        other = self._peers.get(sock)
        if other is None:
            return
        try:
            data = sock.recv(_CHUNK)
        except BlockingIOError:
            return
        except OSError:
            data = b""
        if not data:
            self._drop(sock)
            return
        other.setblocking(True)  # small messages: a blocking send is simplest
        try:
            other.sendall(data)
        except OSError:
            self._drop(sock)
        finally:
            with contextlib.suppress(OSError):
                other.setblocking(False)

    def _drop(self, sock: socket.socket) -> None:
        other = self._peers.pop(sock, None)
        for s in (sock, other):
            if s is None:
                continue
            self._peers.pop(s, None)
            with contextlib.suppress(KeyError, ValueError):
                self._selector.unregister(s)
            _reset(s)

    def _reset_all(self) -> None:
        for sock in list(self._peers):
            self._drop(sock)


def _reset(sock: socket.socket) -> None:
    """Close with a reset (``SO_LINGER`` 0), as a broken network path shows itself."""
    with contextlib.suppress(OSError):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    with contextlib.suppress(OSError):
        sock.close()
