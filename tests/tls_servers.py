"""Real, tiny TLS servers on 127.0.0.1 for timeout and trust tests (test helpers, not a test module): SlowServer
completes the TLS handshake at once (a trustme certificate), reads the request head, then sends its answer one byte
every ``interval`` seconds — every read of a client gets a byte in time, so only a timeout on the whole call can end
it; CertSwapServer presents one certificate, then another. Nothing leaves the machine."""
from __future__ import annotations

import contextlib
import hashlib
import socket
import ssl
import threading
from pathlib import Path

import trustme

#: What the server dribbles: a valid HTTP/1.1 head announcing a long JSON body, then that body.
ANSWER = (b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
          + b"[" + b" " * 99_998 + b"]")


def _wake_and_close(listener: socket.socket, conns: list[socket.socket]) -> None:
    """Wake the threads blocked on ``listener`` (in ``accept``) and on its connections (in a handshake or a
    ``recv``: ``conns`` are duplicates of their sockets), then close them. On Linux ``close`` alone wakes no
    blocked ``accept``: a server's stop used to wait out its threads' 5 s join on every test."""
    for sock in (listener, *conns):
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)
        sock.close()


class SlowServer:
    """``with SlowServer(tmp_path) as s:`` — ``s.url`` (``https://127.0.0.1:PORT``), ``s.port``, ``s.thumbprint``
    (SHA-256 of its certificate, ``AA:BB:…``), ``s.ca_file`` (the PEM of the CA that signed it), ``s.requests``
    (the request heads received, bytes)."""

    def __init__(self, folder: Path, interval: float = 1.0) -> None:
        ca = trustme.CA()
        leaf = ca.issue_cert("127.0.0.1", "localhost")
        self.ca_file = str(folder / "slow-ca.pem")
        ca.cert_pem.write_to_path(self.ca_file)
        self.context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        leaf.configure_cert(self.context)
        der = ssl.PEM_cert_to_DER_cert(leaf.cert_chain_pems[0].bytes().decode())
        digest = hashlib.sha256(der).hexdigest().upper()
        self.thumbprint = ":".join(digest[i:i + 2] for i in range(0, len(digest), 2))
        self.interval = interval
        self.requests: list[bytes] = []
        self._stop = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.url = f"https://127.0.0.1:{self.port}"
        self._threads: list[threading.Thread] = []
        self._conns: list[socket.socket] = []

    def __enter__(self) -> "SlowServer":
        t = threading.Thread(target=self._accept, daemon=True)
        t.start()
        self._threads.append(t)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        _wake_and_close(self._listener, self._conns)
        for t in self._threads:
            t.join(timeout=60)  # a deadline: every thread was woken above and ends at once

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _addr = self._listener.accept()
            except OSError:
                return
            self._conns.append(conn.dup())  # the same socket: its wrapped copy (the thread's) is woken through it
            t = threading.Thread(target=self._serve, args=(conn,), daemon=True)
            t.start()
            self._threads.append(t)

    def _serve(self, raw: socket.socket) -> None:
        try:
            raw.settimeout(5)
            with self.context.wrap_socket(raw, server_side=True) as conn:
                head = b""
                while b"\r\n\r\n" not in head and len(head) < 65536:
                    chunk = conn.recv(4096)
                    if not chunk:
                        return  # a TLS probe: handshake only
                    head += chunk
                self.requests.append(head)
                for i in range(len(ANSWER)):
                    if self._stop.wait(self.interval):
                        return
                    conn.sendall(ANSWER[i:i + 1])
        except (OSError, ssl.SSLError):
            return  # the client gave up: what the test wants


class CertSwapServer:
    """``with CertSwapServer(tmp_path) as s:`` — a TLS server on 127.0.0.1 that presents certificate A (thumbprint
    ``s.first``) to its first connection and certificate B (``s.then``) to every later one: what a client sees when
    the certificate it pinned is replaced between its check and its connection, or when another node of a cluster
    answers. Each connection is closed after its handshake."""

    def __init__(self, folder: Path) -> None:
        self.contexts, thumbs = [], []
        for name in ("a", "b"):
            leaf = trustme.CA().issue_cert("127.0.0.1")
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            leaf.configure_cert(ctx)
            self.contexts.append(ctx)
            digest = hashlib.sha256(ssl.PEM_cert_to_DER_cert(leaf.cert_chain_pems[0].bytes().decode())).hexdigest()
            thumbs.append(":".join(digest[i:i + 2] for i in range(0, len(digest), 2)).upper())
        self.first, self.then = thumbs
        self.connections = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self.url = f"https://127.0.0.1:{self.port}"
        self._thread = threading.Thread(target=self._accept, daemon=True)
        self._conns: list[socket.socket] = []

    def __enter__(self) -> "CertSwapServer":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        _wake_and_close(self._listener, self._conns)
        self._thread.join(timeout=60)  # a deadline: the thread was woken above and ends at once

    def _accept(self) -> None:
        while True:
            try:
                raw, _addr = self._listener.accept()
            except OSError:
                return
            self._conns.append(raw.dup())  # the same socket: its wrapped copy is woken through it
            ctx = self.contexts[0 if self.connections == 0 else 1]
            self.connections += 1
            try:
                raw.settimeout(5)
                with ctx.wrap_socket(raw, server_side=True) as conn:
                    conn.recv(1)
            except (OSError, ssl.SSLError):
                pass  # a client refusing the certificate: expected
