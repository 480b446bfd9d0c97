"""A local HTTPS stand-in for an NSX Manager, serving the REAL example responses of
``shared/fixtures/nsx-api`` at their API paths (test helper, not a test module).

* TLS on 127.0.0.1 with any certificate chain (a trustme-issued one, or a self-signed one);
* authentication as NSX does it (nsx-api.md §3): ``POST /api/session/create`` with
  ``j_username``/``j_password`` gives a ``JSESSIONID`` cookie and an ``X-XSRF-TOKEN`` header that every
  ``GET`` must carry; Basic auth is accepted too. ``expire_after`` = N makes the session expire after N
  authenticated GETs: the next GET gets ``403`` with ``error_code`` 98, as nsxlib's BadXSRFToken;
* ``routes`` maps an API path (no query) to a fixture file name, served verbatim (``.PARTIAL.txt``
  files included); ``page_size`` = N serves list fixtures N results per page with a ``cursor``
  (the paging envelope is the server's; the results are the fixture's);
* ``delay_s`` holds every GET that long before answering (timeouts); unknown paths get 404;
* ``echo_form``: a refused login is answered ``403`` with the login form it received quoted in its
  ``error_message`` (a hostile or careless server that echoes what it was sent: issue 20 §4).

Only the responses themselves come from the fixtures; the error bodies (404, 403/98) are the
minimal shapes nsx-api.md §3 describes.
"""
from __future__ import annotations

import base64
import json
import secrets
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

from capturetools import NSX_API as NSX_FIXTURES, nsx_fixture_text as fixture_text  # noqa: F401 - re-used here


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, responder: "NsxResponder", ctx: ssl.SSLContext) -> None:
        self.responder, self.ssl_ctx = responder, ctx
        super().__init__(("127.0.0.1", 0), _Handler)

    def get_request(self):
        sock, addr = self.socket.accept()
        # handshake in the handler thread, so a client that refuses the certificate cannot stall the loop
        return self.ssl_ctx.wrap_socket(sock, server_side=True, do_handshake_on_connect=False), addr

    def handle_error(self, request, client_address) -> None:
        self.responder.errors += 1  # refused handshakes, clients gone: counted, not printed


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format, *args) -> None:  # noqa: A002 - BaseHTTPRequestHandler's signature
        return

    # --- helpers ---
    def _send(self, status: int, body: bytes = b"", headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if body:
            self.wfile.write(body)

    def _json(self, status: int, obj) -> None:
        self._send(status, json.dumps(obj).encode())

    def _cookie(self, name: str) -> str | None:
        for part in (self.headers.get("Cookie") or "").split(";"):
            k, _, v = part.strip().partition("=")
            if k == name:
                return v
        return None

    # --- verbs ---
    def do_POST(self) -> None:  # noqa: N802 - http.server naming
        r = self.server.responder
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode()
        r.log.append(("POST", urlsplit(self.path).path, {}))
        if urlsplit(self.path).path != "/api/session/create":
            self._send(405)
            return
        form = parse_qs(body)
        if form.get("j_username") != [r.user] or form.get("j_password") != [r.password]:
            if r.echo_form:
                self._json(403, {"error_code": 403, "error_message": f"Authentication failed for request {body}"})
                return
            self._send(403)
            return
        sid, token = secrets.token_hex(8), secrets.token_hex(8)
        with r.lock:
            r.sessions[sid] = token
            r.gets_in_session[sid] = 0
            r.logins += 1
        self._send(200, b"", {"Set-Cookie": f"JSESSIONID={sid}; Path=/; Secure; HttpOnly", "X-XSRF-TOKEN": token})

    def _authorised(self) -> str | None:
        """'ok', 'expired' or None."""
        r = self.server.responder
        auth = self.headers.get("Authorization") or ""
        if auth.startswith("Basic "):
            user, _, pw = base64.b64decode(auth[6:]).decode().partition(":")
            return "ok" if (user, pw) == (r.user, r.password) else None
        sid = self._cookie("JSESSIONID")
        with r.lock:
            if sid is None or sid not in r.sessions:
                return "expired" if sid in r.expired else None
            if r.sessions[sid] != self.headers.get("X-XSRF-TOKEN"):
                return None
            if r.expire_after is not None and r.gets_in_session[sid] >= r.expire_after and r.expirations_left > 0:
                r.expirations_left -= 1
                del r.sessions[sid]
                r.expired.add(sid)
                return "expired"
            r.gets_in_session[sid] += 1
        return "ok"

    def do_GET(self) -> None:  # noqa: N802 - http.server naming
        r = self.server.responder
        parts = urlsplit(self.path)
        query = {k: v[0] for k, v in parse_qs(parts.query).items()}
        r.log.append(("GET", parts.path, query))
        state = self._authorised()
        if state == "expired":
            self._json(403, {"error_code": 98, "error_message": "Bad or expired XSRF token"})
            return
        if state is None:
            self._send(401)
            return
        if r.delay_s:
            r.release.wait(r.delay_s)
        name = r.routes.get(parts.path)
        if name is None:
            self._json(404, {"error_code": 600, "error_message": "The requested object could not be found."})
            return
        text = fixture_text(name)
        if r.page_size and parts.path in r.paged:
            data = json.loads(text)
            start = int(query.get("cursor") or 0)
            page = dict(data)
            page["results"] = data["results"][start:start + r.page_size]
            if start + r.page_size < len(data["results"]):
                page["cursor"] = str(start + r.page_size)
            if start:
                page.pop("result_count", None)  # set only on the first page (nsx-api.md §4)
            text = json.dumps(page)
        self._send(200, text.encode())


class NsxResponder:
    """Start with :meth:`start` (returns the base URL), stop with :meth:`stop` (or use as a context
    manager). ``log`` lists (method, path, query) of every request received; ``logins`` counts
    sessions created."""

    def __init__(self, routes: dict[str, str], ctx: ssl.SSLContext, *, user: str = "admin",
                 password: str = "VMware1!VMware1!", expire_after: int | None = None, expirations: int = 1,
                 delay_s: float = 0.0, page_size: int | None = None, paged: tuple[str, ...] = (),
                 echo_form: bool = False) -> None:
        self.routes, self.user, self.password = dict(routes), user, password
        self.echo_form = echo_form
        self.expire_after, self.expirations_left = expire_after, expirations
        self.delay_s, self.page_size, self.paged = delay_s, page_size, set(paged)
        self.sessions: dict[str, str] = {}
        self.gets_in_session: dict[str, int] = {}
        self.expired: set[str] = set()
        self.log: list[tuple[str, str, dict]] = []
        self.logins = 0
        self.errors = 0
        self.lock = threading.Lock()
        self.release = threading.Event()
        self._server = _Server(self, ctx)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def start(self) -> str:
        self._thread.start()
        return self.url

    def stop(self) -> None:
        self.release.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> "NsxResponder":
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()


def server_context(cert_pem: bytes, key_pem: bytes, tmp: Path) -> ssl.SSLContext:
    """A server-side SSLContext for a PEM certificate (chain) and key."""
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    cert, key = tmp / "server-cert.pem", tmp / "server-key.pem"
    cert.write_bytes(cert_pem)
    key.write_bytes(key_pem)
    ctx.load_cert_chain(str(cert), str(key))
    return ctx
