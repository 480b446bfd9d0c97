"""A timeout that bounds a whole network call — connect, TLS handshake, request and the complete answer — not each
socket operation.

A socket timeout bounds one ``recv``: an NSX Manager sending one byte every 3 s answers every ``recv`` in time, so a
``--timeout 10`` audit ran past 150 s (issue 20 §4). Here a call runs inside :func:`deadline`; every TLS socket of
a context given to :func:`bounded` (NSX, vCenter, the guide download are all HTTPS) then waits at most the time
left before each blocking operation, and fails with :class:`CallTimeout` once none is left. CPython bounds one
handshake, ``recv`` or ``send`` by the socket's timeout as a whole, so the call ends within its deadline plus at
most one operation's rounding. Outside a :func:`deadline` block the sockets keep their own timeout.

The deadline is per thread (a call and its sockets run on one thread: requests, http.client, pyVmomi); nested
blocks keep the earlier deadline.
"""
from __future__ import annotations

import contextlib
import ssl
import threading
import time
from typing import Any, Iterator

from requests.adapters import HTTPAdapter

_local = threading.local()


class CallTimeout(TimeoutError):
    """The call took longer than its deadline (a ``TimeoutError``, as a socket timeout is)."""


@contextlib.contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Within the block, the sockets of :func:`bounded` contexts used on this thread must finish the block's work
    within ``seconds`` (from now) in total; None: no deadline of its own."""
    if seconds is None:
        yield
        return
    previous = getattr(_local, "at", None)
    at = time.monotonic() + seconds
    _local.at = at if previous is None else min(previous, at)
    try:
        yield
    finally:
        _local.at = previous


def time_left() -> float | None:
    """Seconds left before this thread's deadline (0 when it passed), None outside :func:`deadline`."""
    at = getattr(_local, "at", None)
    return None if at is None else max(0.0, at - time.monotonic())


class DeadlineSSLSocket(ssl.SSLSocket):
    """An ``SSLSocket`` whose blocking operations wait at most the time left before the thread's deadline
    (:func:`deadline`), and never longer than the socket's own timeout."""

    def _bound(self) -> None:
        left = time_left()
        own = getattr(self, "_own_timeout", None)
        if own is None:
            own = self._own_timeout = (self.gettimeout(),)
        if left is None:
            super().settimeout(own[0])
            return
        if left <= 0:
            raise CallTimeout("the call took longer than its timeout")
        super().settimeout(left if own[0] is None else min(left, own[0]))

    def settimeout(self, value: float | None) -> None:
        self._own_timeout = (value,)
        super().settimeout(value)

    def do_handshake(self, *args: Any, **kwargs: Any) -> None:
        self._bound()
        super().do_handshake(*args, **kwargs)

    def recv(self, *args: Any, **kwargs: Any) -> bytes:
        self._bound()
        return super().recv(*args, **kwargs)

    def recv_into(self, *args: Any, **kwargs: Any) -> int:
        self._bound()
        return super().recv_into(*args, **kwargs)

    def read(self, *args: Any, **kwargs: Any) -> Any:
        self._bound()
        return super().read(*args, **kwargs)

    def send(self, *args: Any, **kwargs: Any) -> int:
        self._bound()
        return super().send(*args, **kwargs)

    def sendall(self, *args: Any, **kwargs: Any) -> None:
        self._bound()
        super().sendall(*args, **kwargs)


def bounded(context: ssl.SSLContext) -> ssl.SSLContext:
    """``context``, whose sockets now keep the deadline of :func:`deadline` (``sslsocket_class``). Returns it."""
    context.sslsocket_class = DeadlineSSLSocket
    return context


class VerifiedAdapter(HTTPAdapter):
    """A ``requests`` HTTPS adapter verifying against ``ca_bundle`` or, when None, the system CA store
    (:func:`ssl.create_default_context`: chain and host name checked), through a :func:`bounded` context — also
    behind a proxy (``CONNECT``) —, so that :func:`deadline` bounds its calls. Verification is never turned off."""

    def __init__(self, ca_bundle: str | None = None) -> None:
        self._context = bounded(ssl.create_default_context(cafile=ca_bundle) if ca_bundle
                                else ssl.create_default_context())
        super().__init__(max_retries=0)

    def init_poolmanager(self, connections, maxsize, block=False, **pool_kwargs):  # noqa: ANN001 - requests' signature
        pool_kwargs["ssl_context"] = self._context
        super().init_poolmanager(connections, maxsize, block=block, **pool_kwargs)

    def proxy_manager_for(self, proxy, **proxy_kwargs):  # noqa: ANN001 - requests' signature
        proxy_kwargs["ssl_context"] = self._context
        return super().proxy_manager_for(proxy, **proxy_kwargs)

    def cert_verify(self, conn, url, verify, cert):  # noqa: ANN001 - requests' signature
        conn.cert_reqs = "CERT_REQUIRED"  # trust comes from the context above only
        conn.ca_certs = None
        conn.ca_cert_dir = None
